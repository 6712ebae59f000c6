"""Tournaments on Dask (issue 10): a real scheduler and workers on loopback, a worker killed
mid-tournament, a LocalCluster, the executor keys, and the extra being optional."""

from __future__ import annotations

import concurrent.futures as cf
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from referee.tournament import executors
from referee.tournament import run as tour
from referee.errors import ConfigError, UsageError
from referee.plugins import load_registry
from referee.tournament.standings import read_journal
from referee.tournament.config import load_tournament

from procs import running

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = load_registry()
HAVE_DASK = importlib.util.find_spec("distributed") is not None
needs_dask = pytest.mark.skipif(not HAVE_DASK, reason="dask[distributed] is not installed")
DASK = Path(sys.executable).parent / "dask"
# differ between any two runs, local or not (each signed by its own key, over its replays' timings)
VOLATILE = ("pid", "started", "ended", "seconds", "signature", "sign_key", "replay_sha256", "resources")


def referee(*args, cwd=ROOT, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _end(proc: subprocess.Popen) -> None:
    """Stop a process started in its own session, and everything in its group."""
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _worker_names(address: str) -> set[str]:
    from distributed import Client

    with Client(address, timeout=10, set_as_default=False) as client:
        return {str(w.get("name")) for w in client.scheduler_info()["workers"].values()}


def _wait_for(predicate, timeout: float, what: str, step: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what}")


@contextmanager
def dask_scheduler(tmp: Path):
    """A real `dask scheduler` on a free loopback port: (its address, its process), stopped in the end."""
    port = free_port()
    with open(tmp / "scheduler.log", "wb") as log:
        proc = subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                 "--no-dashboard"], cwd=tmp, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        def up():
            assert proc.poll() is None, (tmp / "scheduler.log").read_text()
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        _wait_for(up, 30, "the scheduler")
        yield f"tcp://127.0.0.1:{port}", proc
    finally:
        _end(proc)


@contextmanager
def dask_workers(address: str, tmp: Path, names=("wa", "wb"), wait=True):
    """`dask worker` processes (one thread each) in their own directories and sessions, by name;
    with `wait`, once the scheduler sees them all. Stopped in the end."""
    procs: dict[str, subprocess.Popen] = {}
    try:
        for name in names:
            home = tmp / name
            home.mkdir()
            with open(tmp / f"{name}.log", "wb") as log:
                procs[name] = subprocess.Popen(
                    [str(DASK), "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--nworkers", "1",
                     "--no-dashboard", "--name", name, "--local-directory", str(home)],
                    cwd=home, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        if wait:
            _wait_for(lambda: _worker_names(address) == set(names), 40, f"workers {', '.join(names)}", step=0.3)
        yield procs
    finally:
        for proc in procs.values():
            _end(proc)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A real `dask scheduler` on a free loopback port (module-wide), stopped in the end."""
    if not HAVE_DASK:
        pytest.skip("dask[distributed] is not installed")
    with dask_scheduler(tmp_path_factory.mktemp("scheduler")) as (address, _):
        yield address


@pytest.fixture
def workers(scheduler, tmp_path):
    """Two `dask worker` processes (one thread each) in their own directories and sessions."""
    try:
        with dask_workers(scheduler, tmp_path) as procs:
            yield procs
    finally:
        try:  # the next test starts from a scheduler without workers
            _wait_for(lambda: not _worker_names(scheduler), 20, "the workers to leave", step=0.3)
        except Exception:
            pass


def _records(out: Path) -> list[dict]:
    """The journal's match records in schedule order, without what differs between any two runs."""
    _, records = read_journal(out / "journal.jsonl")
    return sorted(({k: v for k, v in r.items() if k not in VOLATILE} for r in records), key=lambda r: r["index"])


def _replay(path: Path) -> list[dict]:
    """A replay's records without move timings (nor the result's signature, over them)."""
    return [{k: v for k, v in json.loads(line).items() if k not in ("ms", "signature", "resources")}
            for line in path.read_text().splitlines()]


def _same_outputs(a: Path, b: Path) -> None:
    untimed = [{k: v for k, v in json.loads((out / "standings.json").read_text()).items() if k != "resources"}
               for out in (a, b)]  # the entrants' move times, CPU and memory (issue 29): no two runs alike
    assert untimed[0] == untimed[1]
    assert _records(a) == _records(b)
    names = sorted(p.name for p in (a / "replays").iterdir())
    assert names == sorted(p.name for p in (b / "replays").iterdir())
    for name in names:
        if name.endswith(".jsonl"):
            assert _replay(a / "replays" / name) == _replay(b / "replays" / name), name


TOURNAMENT = """
name = "dask"
seed = 11
duplicate = true
seeds = {seeds}
[output]
viewers = false  # the journal, standings and replays are compared: no viewer page to build
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
{extra}
[[entrants]]
name = "bot"
command = "{python} {bot}"
cwd = "bots"
[[games]]
game = "maumau"
players = 3
config = {{ target = {target} }}
"""


def tournament(tmp_path: Path, bot_source: str, bot_name="bot.py", seeds=2, target=100, extra="") -> Path:
    """A tournament file whose command bot lives in bots/ beside it (a relative cwd)."""
    (tmp_path / "bots").mkdir(exist_ok=True)
    (tmp_path / "bots" / bot_name).write_text(bot_source)
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT.format(seeds=seeds, extra=extra, python=sys.executable, bot=bot_name,
                                      target=target))
    return path


RANDOM_BOT = (ROOT / "bots" / "python" / "random_bot.py").read_text()
# the same bot, saying one line on stderr first: a log is made only for a bot that writes one
CHATTY_BOT = 'import sys\nprint("started", file=sys.stderr, flush=True)\n' + RANDOM_BOT


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """A small tournament with a command bot, and its outputs from the local executor."""
    tmp = tmp_path_factory.mktemp("tournament")
    path = tournament(tmp, CHATTY_BOT, seeds=1, extra='[[entrants]]\nstrategy = "maumau-greedy"\n')
    local = referee("tournament", str(path), "--out", str(tmp / "local"), "--concurrency", "2")
    assert local.returncode == 0, local.stderr
    return path, tmp / "local"


@needs_dask
def test_scheduler_and_two_workers_give_the_standings_of_a_local_run(scheduler, workers, local_run, tmp_path):
    path, local = local_run
    total = len(load_tournament(path, REGISTRY).matches())
    elsewhere = tmp_path / "driver"  # the driver runs in another directory than the file and workers
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    remote = referee("tournament", str(path), "--out", str(tmp_path / "dask"), "--executor", "dask",
                     "--scheduler", scheduler, cwd=elsewhere, env=env)
    assert remote.returncode == 0, remote.stderr
    assert f"dask scheduler {scheduler}" in remote.stdout
    _same_outputs(local, tmp_path / "dask")
    _, records = read_journal(tmp_path / "dask" / "journal.jsonl")
    assert sorted(r["index"] for r in records) == list(range(total))
    assert len({r["pid"] for r in records}) == 2, "both workers played"
    # the driver wrote each bot's stderr log it got back with the record (the bot says a line to
    # stderr: a bot silent there leaves no log)
    logs = list((tmp_path / "dask" / "replays").glob("*.seat*.log"))
    assert len(logs) == sum("bot" in r["seats"] for r in records) > 0

    # Shared storage (here: the same disk): the workers write the replays themselves.
    shared = referee("tournament", str(path), "--out", str(tmp_path / "shared"), "--executor", "dask",
                     "--shared-out", cwd=elsewhere, env={**env, "DASK_SCHEDULER_ADDRESS": scheduler})
    assert shared.returncode == 0, shared.stderr
    assert f"dask scheduler {scheduler}" in shared.stdout, "the address comes from the environment"
    _same_outputs(local, tmp_path / "shared")


# A bot that plays its first legal action, waits at an act while the file `hold` exists (having
# said so in holding/<pid>), and leaves when told `end`, but stays when its referee dies (stdin
# closed, stdout broken): only the parent-death guard ends it then.
CLINGER = """
import json, os, sys, time

def send(message):
    try:
        print(json.dumps(message), flush=True)
    except OSError:
        time.sleep(120)

for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        send({"type": "ready", "name": "clinger"})
    elif m["type"] == "act":
        if os.path.exists("hold"):  # the test holds every bot mid-match while it kills a worker
            os.makedirs("holding", exist_ok=True)
            open(os.path.join("holding", str(os.getpid())), "w").close()
            for _ in range(6000):
                if not os.path.exists("hold"):
                    break
                time.sleep(0.01)
        send({"type": "action", "id": m["id"], "index": 0})
    elif m["type"] == "end":
        os.makedirs("ended", exist_ok=True)
        open(os.path.join("ended", str(os.getpid())), "w").close()
        sys.exit(0)
time.sleep(120)
"""
MARKER = "dask_clinger_marker_bot.py"


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


@needs_dask
def test_a_worker_killed_mid_match_its_match_runs_elsewhere_once_and_its_bots_die(scheduler, workers, tmp_path):
    path = tournament(tmp_path, CLINGER, bot_name=MARKER, seeds=3)
    # the held bots must not time out while the test kills the worker, however loaded the machine
    path.write_text(path.read_text().replace("[[entrants]]", "[limits]\nmove_ms = 60000\n\n[[entrants]]", 1))
    bots = tmp_path / "bots"
    total = len(load_tournament(path, REGISTRY).matches())
    out = tmp_path / "dask"
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    driver = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(out),
                               "--scheduler", scheduler], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    victim = workers["wa"]
    try:
        journal = out / "journal.jsonl"

        # after a finished match (the kill lands mid-tournament), hold every bot at its next act,
        # and kill the worker once one of its bots is held: mid-match, by construction
        _wait_for(lambda: journal.exists() and journal.read_text().count('"type":"match"') >= 1, 60,
                  "a finished match", step=0.02)
        (bots / "hold").touch()

        def held_on_victim():
            held = {int(p.name) for p in (bots / "holding").glob("*")} if (bots / "holding").exists() else set()
            return [pid for pid, parent in running(MARKER).items() if pid in held and _pgid(parent) == victim.pid]

        doomed = _wait_for(held_on_victim, 60, "a bot held mid-match on worker wa", step=0.02)
        os.killpg(victim.pid, signal.SIGKILL)  # the nanny and its worker process: no cleanup runs
        victim.wait(timeout=10)
        (bots / "hold").unlink()
        _, err = driver.communicate(timeout=120)
        assert driver.returncode == 0, err
    finally:
        if driver.poll() is None:
            _end(driver)
    try:
        _, records = read_journal(out / "journal.jsonl")
        assert sorted(r["index"] for r in records) == list(range(total)), "every match exactly once"
        time.sleep(0.3)
        mid_match = [pid for pid in doomed if not (bots / "ended" / str(pid)).exists()]
        assert mid_match == doomed, "the kill landed mid-match"
        assert not set(mid_match) & set(running(MARKER)), "a bot of the killed worker survived it"
        assert running(MARKER) == {}, "no bot outlives the tournament"
    finally:
        for pid in running(MARKER):  # only after a failure: do not leave our bots behind
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    # the retried match is the same match: the results equal a local run's
    local = referee("tournament", str(path), "--out", str(tmp_path / "local"), "--concurrency", "2")
    assert local.returncode == 0, local.stderr
    _same_outputs(tmp_path / "local", out)


@needs_dask
def test_executor_dask_without_an_address_starts_a_local_cluster(local_run, tmp_path):
    path, local = local_run
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    cluster = referee("tournament", str(path), "--out", str(tmp_path / "cluster"), "--executor", "dask",
                      "--concurrency", "2", env=env)
    assert cluster.returncode == 0, cluster.stderr
    assert "local dask cluster of 2 worker processes" in cluster.stdout
    _same_outputs(local, tmp_path / "cluster")


def test_without_dask_the_dask_executor_is_a_one_line_error_and_local_still_works(tmp_path):
    hide = tmp_path / "hide"
    for package in ("dask", "distributed"):
        (hide / package).mkdir(parents=True)
        (hide / package / "__init__.py").write_text(f'raise ImportError("No module named {package!r}")\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), str(ROOT)])}
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    path = tournament(tmp_path, RANDOM_BOT, seeds=1)
    proc = referee("tournament", str(path), "--out", str(tmp_path / "o"), "--executor", "dask", env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install -e '.[dask]'" in lines[0], proc.stderr
    assert not (tmp_path / "o" / "journal.jsonl").exists()
    ok = referee("tournament", str(path), "--out", str(tmp_path / "o"), env=env)
    assert ok.returncode == 0, ok.stderr
    probe = subprocess.run([sys.executable, "-c", "import sys, referee.cli, referee.tournament.run, referee.tournament.executors; "
                            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"],
                           env=env, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0 and probe.stdout.strip() == "[]", probe.stderr


def test_executor_keys_and_their_precedence(tmp_path, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    base = tournament(tmp_path, RANDOM_BOT, seeds=1).read_text()

    def load(top="", **kw):
        path = tmp_path / "k.toml"
        path.write_text(top + base)
        return load_tournament(path, REGISTRY, **kw)

    c = load()
    assert (c.executor, c.scheduler, c.shared_out) == ("local", None, False)
    c = load('executor = "dask"\n')
    assert (c.executor, c.scheduler, c.shared_out) == ("dask", None, False)
    c = load('scheduler = "tcp://10.0.0.5:8786"\nshared_out = true\n')
    assert (c.executor, c.scheduler, c.shared_out) == ("dask", "tcp://10.0.0.5:8786", True)
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://10.0.0.6:8786")
    assert load('scheduler = "tcp://10.0.0.5:8786"\n').scheduler == "tcp://10.0.0.6:8786"
    assert load().executor == "local", "the environment variable alone does not switch executors"
    assert load('executor = "dask"\n').scheduler == "tcp://10.0.0.6:8786"
    c = load('scheduler = "tcp://10.0.0.5:8786"\n', scheduler="tcp://10.0.0.7:8786", shared_out=True)
    assert (c.executor, c.scheduler, c.shared_out) == ("dask", "tcp://10.0.0.7:8786", True)
    assert load('scheduler = "tcp://10.0.0.5:8786"\n', executor="local").executor == "local"
    with pytest.raises(UsageError, match="--executor dask"):
        load(executor="local", scheduler="tcp://10.0.0.7:8786")
    with pytest.raises(UsageError, match="--executor"):
        load(executor="spark")
    for top, key in (('executor = "spark"\n', "executor"), ("executor = 1\n", "executor"),
                     ('scheduler = ""\n', "scheduler"), ('shared_out = "yes"\n', "shared_out")):
        with pytest.raises(ConfigError, match=key):
            load(top)


class _TwiceBackend(executors.Backend):
    """Threads, and every match after the first reported as the first: a duplicate index."""

    def __init__(self):
        super().__init__(cf.ThreadPoolExecutor(2), "threads")
        self.first = None

    def submit(self, fn, *args, name):
        future = self.executor.submit(fn, *args)
        if self.first is None:
            self.first = future
            return future
        return self.executor.submit(lambda: future.result() and self.first.result())


def test_the_driver_journals_a_schedule_index_only_once(tmp_path, monkeypatch):
    path = tournament(tmp_path, RANDOM_BOT, seeds=1).read_text().split("[[entrants]]\nname = \"bot\"")[0]
    (tmp_path / "s.toml").write_text(path + '[[entrants]]\nstrategy = "maumau-greedy"\n'
                                     '[[games]]\ngame = "maumau"\nplayers = 3\n')
    config = load_tournament(tmp_path / "s.toml", REGISTRY, out=tmp_path / "o")

    @contextmanager
    def fake(kind, workers, **kw):
        backend = _TwiceBackend()
        yield backend
        backend.close()

    monkeypatch.setattr(executors, "open_backend", fake)
    tour.run(config)
    _, records = read_journal(tmp_path / "o" / "journal.jsonl")
    assert [r["index"] for r in records] == [0]


@needs_dask
def test_a_scheduler_address_dask_cannot_use_is_a_one_line_usage_error(tmp_path):
    for address in ("nonsense://x", "tcp://127.0.0.1", "foo bar", "tcp://:8786"):
        with pytest.raises(UsageError, match="expected one like tcp://HOST:8786"):
            executors.require("dask", address)
    executors.require("dask", "tcp://10.0.0.5:8786")
    path = tournament(tmp_path, RANDOM_BOT, seeds=1)
    proc = referee("tournament", str(path), "--out", str(tmp_path / "o"), "--scheduler", "foo bar")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "'foo bar'" in lines[0], proc.stderr
    assert not (tmp_path / "o" / "journal.jsonl").exists()


class _Cluster(executors.Backend):
    """A backend whose workers come and go as the test says (no tasks run)."""

    def __init__(self, connected):
        super().__init__(cf.ThreadPoolExecutor(1), "a test cluster")
        self.connected = connected
        self.asked = 0

    def workers(self):
        self.asked += 1
        return self.connected

    def presence(self, connected):
        return f"waiting: {connected} connected" if not connected else f"joined: {connected} connected"


def test_the_worker_watch_says_when_none_is_connected_with_the_count_and_when_one_joins():
    """WorkerWatch (issue 19): the waiting line at once, again every WAIT_REPEAT s while no worker
    is connected (how long so far), one line when one joins; silent while results come."""
    now = [0.0]
    said = []
    cluster = _Cluster(0)
    watch = executors.WorkerWatch(cluster, said.append, clock=lambda: now[0])
    assert watch.timeout == executors.WAIT_POLL
    assert said == ["waiting: 0 connected"], "at once"
    for _ in range(20):  # a wait for results timed out every WAIT_POLL seconds
        now[0] += executors.WAIT_POLL
        watch.check(False)
    assert said == ["waiting: 0 connected", "waiting: 0 connected (for 30 s)"], said
    cluster.connected = 2
    now[0] += 0.1
    watch.check(True)  # a result came: a worker is there, asked at once
    assert said[2:] == ["joined: 2 connected"]
    asked = cluster.asked
    for _ in range(5):
        now[0] += executors.WAIT_POLL
        watch.check(True)
    assert cluster.asked == asked and len(said) == 3, "results flow: nothing asked, nothing said"
    cluster.connected = 0  # every worker left mid-run
    now[0] += executors.WAIT_POLL
    watch.check(False)
    assert said[3:] == ["waiting: 0 connected"]

    local = executors.Backend(cf.ThreadPoolExecutor(1), "threads")
    quiet = executors.WorkerWatch(local, said.append)
    assert quiet.timeout is None, "workers always there: the driver waits as long as it takes"
    quiet.check(False)
    assert len(said) == 4


class Lines:
    """A process's output read line by line as it comes (a thread), for a test to wait on."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def having(self, text: str) -> list[str]:
        """The lines read so far that hold `text`."""
        return [line for line in list(self.lines) if text in line]

    def all(self) -> list[str]:
        """Every line, once the process has ended (its output closed)."""
        self._thread.join(timeout=30)
        return list(self.lines)


STRATEGIES = """
name = "no workers"
seed = 3
seeds = 4
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
[[games]]
game = "maumau"
players = 2
"""


def _matches(journal: Path) -> int:
    return journal.read_text().count('"type":"match"') if journal.exists() else 0


@needs_dask
def test_a_scheduler_without_workers_says_so_on_stdout_and_the_run_waits_until_one_joins(tmp_path):
    """Issue 19: a Dask run with no worker connected says so (stdout) and waits, then proceeds."""
    path = tmp_path / "t.toml"
    path.write_text(STRATEGIES)
    total = len(load_tournament(path, REGISTRY).matches())
    out = tmp_path / "o"
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    with dask_scheduler(tmp_path) as (address, _):
        driver = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(out),
                                   "--scheduler", address], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            stdout = Lines(driver.stdout)
            waiting = f"waiting for a Dask worker at {address}: 0 connected"
            _wait_for(lambda: stdout.having(waiting) or driver.poll() is not None, 60, "the waiting line")
            assert stdout.having(waiting), stdout.all()
            time.sleep(1)
            assert driver.poll() is None and _matches(out / "journal.jsonl") == 0, "no worker: it waits"
            with dask_workers(address, tmp_path, names=("late",), wait=False):
                driver.wait(timeout=180)  # stdout is the reader's; stderr holds a line or two
            assert driver.returncode == 0, driver.stderr.read()
        finally:
            if driver.poll() is None:
                _end(driver)
    lines = stdout.all()
    joined = [line for line in lines if f"a Dask worker joined at {address}: 1 connected" in line]
    assert len(joined) == 1 and lines.index(joined[0]) > lines.index(stdout.having(waiting)[0]), lines
    _, records = read_journal(out / "journal.jsonl")
    assert sorted(r["index"] for r in records) == list(range(total)), "every match, once a worker joined"


@needs_dask
def test_a_lost_scheduler_ends_the_run_in_one_line_naming_it_and_resume_finishes_on_a_new_one(tmp_path):
    """Issue 19: killing the scheduler mid-run ends the run with exit 1 and one line naming the
    scheduler (not a worker's failure); the journal keeps every match that finished; --resume
    against another scheduler plays the rest, to the outputs of a local run."""
    path = tournament(tmp_path, CLINGER, bot_name=MARKER, seeds=3)
    # the held bot must not time out while the test kills the scheduler, however loaded the machine
    path.write_text(path.read_text().replace("[[entrants]]", "[limits]\nmove_ms = 60000\n\n[[entrants]]", 1))
    bots = tmp_path / "bots"
    total = len(load_tournament(path, REGISTRY).matches())
    out = tmp_path / "dask"
    journal = out / "journal.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    (tmp_path / "first").mkdir()
    try:
        with dask_scheduler(tmp_path / "first") as (address, scheduler_proc), \
                dask_workers(address, tmp_path / "first", names=("only",)):
            driver = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(out),
                                       "--scheduler", address], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True, start_new_session=True)
            try:
                # after a finished match, hold every bot at its next act: with one worker of one
                # thread, once a bot is held and the journal holds every match whose bot ended, no
                # match is finishing: the kill lands mid-run, with nothing in transit
                _wait_for(lambda: _matches(journal) >= 1, 60, "a finished match", step=0.02)
                (bots / "hold").touch()

                def settled():
                    held = list((bots / "holding").glob("*")) if (bots / "holding").exists() else []
                    ended = len(list((bots / "ended").glob("*"))) if (bots / "ended").exists() else 0
                    return held and _matches(journal) == ended

                _wait_for(settled, 60, "a bot held mid-match, every finished match journaled", step=0.02)
                finished = _matches(journal)
                os.killpg(scheduler_proc.pid, signal.SIGKILL)
                scheduler_proc.wait(timeout=10)
                _, err = driver.communicate(timeout=120)
            finally:
                if driver.poll() is None:
                    _end(driver)
                (bots / "hold").unlink(missing_ok=True)
        assert driver.returncode == 1, err
        lines = [line for line in err.strip().splitlines() if "without a sandbox" not in line]
        assert len(lines) == 1, err
        assert f"lost the Dask scheduler at {address}" in lines[0] and "--resume" in lines[0], lines
        assert "failed on a dask worker" not in err and "lost with every worker" not in err
        _, records = read_journal(journal)  # a whole journal: no torn line
        assert len(records) == finished < total, "the journal keeps every finished match, nothing more"

        (tmp_path / "second").mkdir()
        with dask_scheduler(tmp_path / "second") as (another, _), \
                dask_workers(another, tmp_path / "second", names=("again",)):
            resumed = referee("tournament", str(path), "--out", str(out), "--resume", "--scheduler", another,
                              env=env, timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        assert f"({finished} already in the journal)" in resumed.stdout
    finally:
        for pid in running(MARKER):  # no bot of ours left behind, whatever failed
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    _, records = read_journal(journal)
    assert sorted(r["index"] for r in records) == list(range(total)), "every match exactly once"
    local = referee("tournament", str(path), "--out", str(tmp_path / "local"), "--concurrency", "2")
    assert local.returncode == 0, local.stderr
    _same_outputs(tmp_path / "local", out)
