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
VOLATILE = ("pid", "started", "ended", "seconds")  # differ between any two runs, local or not


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


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A real `dask scheduler` on a free loopback port (module-wide), stopped in the end."""
    if not HAVE_DASK:
        pytest.skip("dask[distributed] is not installed")
    tmp = tmp_path_factory.mktemp("scheduler")
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
        yield f"tcp://127.0.0.1:{port}"
    finally:
        _end(proc)


@pytest.fixture
def workers(scheduler, tmp_path):
    """Two `dask worker` processes (one thread each) in their own directories and sessions."""
    procs: dict[str, subprocess.Popen] = {}
    try:
        for name in ("wa", "wb"):
            home = tmp_path / name
            home.mkdir()
            with open(tmp_path / f"{name}.log", "wb") as log:
                procs[name] = subprocess.Popen(
                    [str(DASK), "worker", scheduler, "--host", "127.0.0.1", "--nthreads", "1", "--nworkers", "1",
                     "--no-dashboard", "--name", name, "--local-directory", str(home)],
                    cwd=home, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        _wait_for(lambda: _worker_names(scheduler) == {"wa", "wb"}, 40, "two workers", step=0.3)
        yield procs
    finally:
        for proc in procs.values():
            _end(proc)
        try:  # the next test starts from a scheduler without workers
            _wait_for(lambda: not _worker_names(scheduler), 20, "the workers to leave", step=0.3)
        except Exception:
            pass


def _records(out: Path) -> list[dict]:
    """The journal's match records in schedule order, without what differs between any two runs."""
    _, records = read_journal(out / "journal.jsonl")
    return sorted(({k: v for k, v in r.items() if k not in VOLATILE} for r in records), key=lambda r: r["index"])


def _replay(path: Path) -> list[dict]:
    """A replay's records without move timings."""
    return [{k: v for k, v in json.loads(line).items() if k != "ms"} for line in path.read_text().splitlines()]


def _same_outputs(a: Path, b: Path) -> None:
    assert json.loads((a / "standings.json").read_text()) == json.loads((b / "standings.json").read_text())
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


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """A small tournament with a command bot, and its outputs from the local executor."""
    tmp = tmp_path_factory.mktemp("tournament")
    path = tournament(tmp, RANDOM_BOT, seeds=1, extra='[[entrants]]\nstrategy = "maumau-greedy"\n')
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
    # the driver wrote each bot's stderr log it got back with the record
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
