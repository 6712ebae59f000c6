"""Integrity (issue 15): no bot learns what its seat may not know, or reaches past its seat.

Each attack bot (tests/bots/attack_*.py) reports every attempt on stderr (`ATTACK <name> WON|HELD
<detail>`) and answers with a protocol fault after a win, so a win shows in a log, a result, a
validate report and a journal alike. They run in `play`, `validate` and a tournament at
concurrency 2, in the sandbox; as root (CI) and, where the checkout allows it, as an
unprivileged user. A control shows that in plain mode the file and environment attacks do win:
the battery can fail.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

from botpython import BOT_PYTHON
from referee.bots import sandbox as sandbox_mod

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
TOKEN = "organiser-token-c4n4ry-" + uuid.uuid4().hex[:8]
KEY = "pinned-deal-key-c4n4ry-" + uuid.uuid4().hex[:8]

needs_bwrap = pytest.mark.skipif(not sandbox_mod.available(), reason="bubblewrap cannot build a sandbox here")


def attack(name: str, *args: str) -> str:
    return " ".join([BOT_PYTHON, str(BOTS / f"attack_{name}.py"), *args])


def reports(log: str) -> dict[str, list[tuple[bool, str]]]:
    """Every ATTACK line of a log, by attack name: (won, detail)."""
    out: dict[str, list[tuple[bool, str]]] = {}
    for line in log.splitlines():
        parts = line.split(" ", 3)
        if len(parts) >= 3 and parts[0] == "ATTACK":
            out.setdefault(parts[1], []).append((parts[2] == "WON", parts[3] if len(parts) > 3 else ""))
    return out


def assert_held(log: str, *expected: str) -> None:
    """Every attempt in `log` was held, and each of `expected` was attempted."""
    got = reports(log)
    assert set(expected) <= set(got), f"attacks not attempted: {set(expected) - set(got)}\n{log}"
    won = [(name, detail) for name, results in got.items() for w, detail in results if w]
    assert not won, f"attacks that won: {won}"


@pytest.fixture
def canary_socket():
    """A Unix socket server in the host's /tmp (an accomplice, docker.sock...): its path."""
    path = Path(tempfile.mkdtemp(prefix="referee-canary-")) / "accomplice.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(8)
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                conn.close()
            except OSError:
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield str(path)
    stop.set()
    thread.join(2)
    server.close()
    shutil.rmtree(path.parent, ignore_errors=True)


@pytest.fixture
def visible_out():
    """An output directory inside the checkout, which the bots (cwd: the checkout) can see."""
    out = ROOT / "tests" / "artifacts" / f"integrity-{uuid.uuid4().hex[:8]}"
    out.mkdir(parents=True)
    yield out
    sandbox_mod.remove_scratch(out)


def run(args: list[str], env: dict[str, str] | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    full = {**os.environ, "ORGANISER_TOKEN": TOKEN, "REFEREE_DEAL_KEY": KEY, **(env or {})}
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, env=full, capture_output=True,
                          text=True, timeout=timeout)


def play_attack(out: Path, bot: str, sandbox: str = "bwrap", seed: int = 7) -> tuple[subprocess.CompletedProcess, str]:
    """A Mau Mau match: random, the attack bot, random; the attack's log. Without a sandbox the
    bots' temporary files go under `out` (TMPDIR), not into this machine's /tmp."""
    env = {"TMPDIR": str(out)} if sandbox == "none" else None
    proc = run(["play", "maumau", "-p", "random", "-p", bot, "-p", "python3 bots/python/random_bot.py",
                "--seed", str(seed), "--sandbox", sandbox, "--out", str(out / "m.jsonl"),
                "--log-protocol", str(out / "protocol.log"), "--move-ms", "30000"], env=env)  # slow attacks fail by design, not time
    assert proc.returncode == 0, proc.stderr
    return proc, (out / "m.seat1.log").read_text(errors="replace")


def attacks(out: Path, socket_path: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each attack: its command and the attempts it must report."""
    secret = [str(out / "m.jsonl"), str(out / "protocol.log"), str(out / "m.seat2.log"),
              str(out / "journal.jsonl"), str(out / "deal.key")]
    return {
        # the public code it rebuilds deals with: the checkout, given on its command line (a bot
        # sees only its own files and what its command names)
        "deal": (attack("deal", "--tournament-seed", "2026", "--code", str(ROOT / "pyproject.toml")), ("deal",)),
        "env": (attack("env", TOKEN, KEY), ("env",)),
        "files": (attack("files", *secret), ("read", "scratch")),
        "sockets": (attack("sockets", socket_path), ("sockets", "fds")),
        "root": (attack("root", str(out), str(ROOT)), ("remount", "shadow", "immutable", "userns", "signal", "caps")),
    }


# -- play --------------------------------------------------------------------------------------------


@needs_bwrap
@pytest.mark.parametrize("name", ["deal", "env", "files", "sockets", "root"])
def test_every_attack_fails_in_play_under_the_sandbox(visible_out, canary_socket, name):
    command, expected = attacks(visible_out, canary_socket)[name]
    proc, log = play_attack(visible_out, command)
    assert_held(log, *expected)
    result = [json.loads(line) for line in (visible_out / "m.jsonl").read_text().splitlines()][-1]
    assert result["type"] == "result" and result["faults"] == [0, 0, 0]
    if name == "deal":
        assert "no seed tried deals my hand" in log  # it could rebuild deals, and none matched
    if name == "files":
        assert log.count("ATTACK read HELD") == 5


def test_the_deal_cannot_be_computed_even_without_the_sandbox(tmp_path):
    # Sealing does not depend on the sandbox: the seed is no longer enough.
    _, log = play_attack(tmp_path, attack("deal"), sandbox="none")
    assert_held(log, "deal")
    assert "no seed tried deals my hand" in log


def test_control_in_plain_mode_the_file_and_environment_attacks_win(tmp_path, canary_socket):
    # What the sandbox is for: without it a bot reads the replay being written and the organiser's
    # environment (docs/security.md says so). This is also what makes the battery able to fail.
    command, _ = attacks(tmp_path, canary_socket)["files"]
    _, log = play_attack(tmp_path, command, sandbox="none")
    assert (True, f"{tmp_path / 'm.jsonl'}") in [(w, d.split(" (")[0]) for w, d in reports(log)["read"]]
    _, log = play_attack(tmp_path, attack("env", TOKEN), sandbox="none")
    assert reports(log)["env"][0][0] is True


def test_play_warns_once_when_command_bots_run_without_a_sandbox(tmp_path):
    proc = run(["play", "maumau", "-p", "random", "-p", "python3 bots/python/random_bot.py", "--seed", "1",
                "--out", str(tmp_path / "m.jsonl")])
    assert proc.returncode == 0
    assert proc.stderr.count("warning: command bots run without a sandbox") == 1
    proc = run(["play", "maumau", "-p", "random", "-p", "first", "--seed", "1", "--out", str(tmp_path / "s.jsonl")])
    assert "warning" not in proc.stderr  # strategies only: nothing to warn of


def test_a_sandbox_that_cannot_be_built_is_an_error_with_the_install_hint(tmp_path):
    proc = run(["play", "maumau", "-p", "random", "-p", f"{sys.executable} bots/python/random_bot.py", "--sandbox",
                "bwrap", "--out", str(tmp_path / "m.jsonl")], env={"PATH": "/nonexistent"})  # no bwrap on PATH
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "bubblewrap (bwrap) is not installed" in proc.stderr and "apt-get install bubblewrap" in proc.stderr
    assert not (tmp_path / "m.jsonl").exists()


# -- validate ----------------------------------------------------------------------------------------


@needs_bwrap
@pytest.mark.parametrize("name", ["deal", "env", "files", "sockets", "root"])
def test_every_attack_fails_in_validate_which_sandboxes_by_default(visible_out, canary_socket, name, tmp_path):
    command, _ = attacks(visible_out, canary_socket)[name]
    # Presidente: the smallest battery (4 seats x its variants); a won attack is a protocol fault
    # (a failing match would be kept in --out: never in the checkout)
    # (the deal attack rebuilds hundreds of deals at its first act: time must not be what stops it)
    proc = run(["validate", "presidente", "--json", "-", "--max-failed", "1", "--out", str(tmp_path / "kept"),
                "--move-ms", "30000", "--", *command.split()])
    report = json.loads(proc.stdout)
    assert report["sandbox"] == {"asked": "bwrap", "used": True}
    assert proc.returncode == 0 and report["passed"], report["faults"]


def test_validate_without_a_sandbox_must_be_asked_for():
    proc = run(["validate", "presidente", "--json", "-", "--", sys.executable, "bots/python/random_bot.py"],
               env={"PATH": "/nonexistent"})
    assert proc.returncode == 2 and "apt-get install bubblewrap" in proc.stderr and "--sandbox none" in proc.stderr


# -- a tournament at concurrency 2 -----------------------------------------------------------------------


def _tournament(out: Path, socket_path: str, sandbox: str = "bwrap") -> Path:
    entrants = attacks(out, socket_path)
    entrants["files-b"] = entrants["files"]
    lines = [f'name = "integrity"\nseed = 2026\nout = "{out}"\nconcurrency = 2\n[limits]\nmove_ms = 30000\nsandbox = "{sandbox}"\n'
             '[output]\nviewers = false\n']  # the logs and journal are read: no viewer page to build
    for name, (command, _) in entrants.items():
        lines.append(f'[[entrants]]\nname = "{name}"\ncommand = {json.dumps(command)}\ncwd = "{ROOT}"\n')
    lines.append('[[entrants]]\nname = "random"\nstrategy = "random"\n')
    names = ", ".join(json.dumps(n) for n in [*entrants, "random"])
    lines.append(f'[[games]]\ngame = "maumau"\nplayers = 2\nentrants = [{names}]\n')
    path = out.parent / f"{out.name}.toml"
    path.write_text("\n".join(lines))
    return path


@needs_bwrap
def test_every_attack_fails_in_a_tournament_at_concurrency_2(visible_out, canary_socket):
    path = _tournament(visible_out, canary_socket)
    try:
        proc = run(["tournament", str(path)], timeout=600)
    finally:
        path.unlink()
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (visible_out / "journal.jsonl").read_text().splitlines()[1:]]
    assert len(records) == 21 and all(sum(r["faults"]) == 0 for r in records), \
        [r["fault_log"] for r in records if sum(r["faults"])]
    logs = "\n".join(p.read_text(errors="replace") for p in (visible_out / "replays").glob("*.seat*.log"))
    assert_held(logs, "deal", "env", "read", "scratch", "sockets", "fds", "remount", "shadow", "userns", "caps")


# -- scratch directories of bots running at once, in different workers -------------------------------


@needs_bwrap
def test_a_bot_cannot_see_the_scratch_of_a_bot_alive_beside_it(tmp_path):
    # Two bots alive at once (as in two worker processes): each scratch is a tmpfs of its own
    # sandbox. The second looks for the first one's marker file.
    from referee.players import Hello
    from referee.bots.player import SubprocessPlayer

    hello = Hello("maumau", 0, 2, ["a", "b"], {}, "m", {"move_ms": 2000, "start_ms": 5000, "max_line_bytes": 65536})
    players = []
    try:
        for k in range(2):
            p = SubprocessPlayer(attack("files").split(), log_path=tmp_path / f"b{k}.log", sandbox="bwrap")
            assert p.start(hello) is None
            players.append(p)
        reply = players[1].act(1, {}, [{"draw": True}], 5000)  # it looks, and reports
        assert reply.fault is None
    finally:
        for p in players:
            p.close()
    assert_held((tmp_path / "b1.log").read_text(), "scratch")


# -- resume refuses a changed set-up -------------------------------------------------------------------


@pytest.mark.parametrize("change, named", [
    (lambda t: t.replace("python/random_bot.py", "python/smart_bot.py"),
     "entrant 'bot': command changed"),
    (lambda t: t.replace("move_ms = 1000", "move_ms = 900"), "limit move_ms changed"),
    (lambda t: t.replace('[limits]', '[limits]\nsandbox = "none"'), None),  # the default: no change
    (lambda t: t.replace(f'cwd = "{ROOT}"', f'cwd = "{ROOT / "bots"}"'), "entrant 'bot': cwd changed"),
    (lambda t: t.replace('env = { LEVEL = "1" }', 'env = { LEVEL = "2" }'),
     "entrant 'bot': environment variable LEVEL changed"),
])
def test_resume_refuses_a_changed_set_up_naming_it(tmp_path, change, named):
    text = f"""name = "t"
seed = 3
out = "{tmp_path / 'out'}"
concurrency = 1
[limits]
move_ms = 1000
[[entrants]]
name = "bot"
command = "python3 {ROOT}/bots/python/random_bot.py"
cwd = "{ROOT}"
env = {{ LEVEL = "1" }}
[[entrants]]
name = "random"
strategy = "random"
[[games]]
game = "maumau"
players = 2
seeds = 2
"""
    path = tmp_path / "t.toml"
    try:
        path.write_text(text)
        first = run(["tournament", str(path)])
        assert first.returncode == 0, first.stderr
        path.write_text(change(text))
        again = run(["tournament", str(path), "--resume"])
        if named is None:
            assert again.returncode == 0, again.stderr
        else:
            assert again.returncode == 2 and named in again.stderr and "Traceback" not in again.stderr, again.stderr
    finally:
        path.unlink(missing_ok=True)


def test_resume_refuses_another_deal_key(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(f'name = "t"\nout = "{tmp_path / "out"}"\n[[entrants]]\nstrategy = "random"\n'
                    '[[entrants]]\nstrategy = "first"\n[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 2\n')
    assert run(["tournament", str(path)]).returncode == 0
    again = run(["tournament", str(path), "--resume"], env={"REFEREE_DEAL_KEY": "another key, not the same"})
    assert again.returncode == 2 and "the deal key changed" in again.stderr
    # unpinned, the tournament's own key file is used, and the first run's key was pinned: refused too
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DEAL_KEY"}
    proc = subprocess.run([sys.executable, "-m", "referee", "tournament", str(path), "--resume"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "the deal key changed" in proc.stderr
    assert run(["tournament", str(path), "--resume"]).returncode == 0  # the same key: resumes
    other = tmp_path / "unpinned.toml"
    other.write_text(path.read_text().replace('out = "', 'out = "' + str(tmp_path / "u") + '" #'))
    proc = subprocess.run([sys.executable, "-m", "referee", "tournament", str(other)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    key = tmp_path / "u" / "deal.key"
    assert key.stat().st_mode & 0o077 == 0 and len(key.read_text().strip()) == 64  # the organiser's only


# -- as an unprivileged user -------------------------------------------------------------------------------


def _unprivileged_python() -> list[str] | None:
    """How to run the referee as `nobody` here (root only; the checkout and a system Python must be
    readable by it, of this Python's version: the venv's compiled packages are built for it), or None."""
    setpriv, system_python = shutil.which("setpriv"), "/usr/bin/python%d.%d" % sys.version_info[:2]
    if os.geteuid() != 0 or setpriv is None or not os.path.exists(system_python):
        return None
    probe = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", system_python, "-c",
                            f"{_SETUP}; import referee.cli, typer, referee_maumau"],
                           capture_output=True, timeout=60)
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", system_python] if probe.returncode == 0 else None


def _paths() -> list[str]:
    import site

    return [str(ROOT), str(ROOT / "plugins"), *site.getsitepackages()]


# The venv's site-packages added as a site directory (its .pth files: the editable installs), for
# the system Python run as nobody
_SETUP = f"import site, sys; [site.addsitedir(p) for p in {_paths()[2:]!r}]; sys.path[:0] = {_paths()[:2]!r}"


def _as_nobody(args: list[str], out: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    """`referee ARGS` run as nobody (uid 65534) with the system Python, from the checkout."""
    prefix = _unprivileged_python()
    if prefix is None:
        pytest.skip("no way to run the referee as an unprivileged user here (not root, or the checkout or a "
                    "system Python of this version is not readable by nobody)")
    code = f"{_SETUP}; sys.argv[0] = 'referee'; from referee.cli import main; main()"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(out), "TMPDIR": str(out), "ORGANISER_TOKEN": TOKEN,
           "REFEREE_DEAL_KEY": KEY, "PYTHONPATH": os.pathsep.join(_paths())}
    return subprocess.run([*prefix, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def nobody_out(canary_socket):
    """An output directory of nobody's; the canary socket made reachable to nobody."""
    out = Path(tempfile.mkdtemp(prefix="referee-unpriv-"))
    os.chown(out, 65534, 65534)
    os.chmod(Path(canary_socket).parent, 0o755)
    os.chmod(canary_socket, 0o777)
    yield out
    sandbox_mod.remove_scratch(out)


def _system_python(command: str) -> str:
    return command.replace(BOT_PYTHON, "/usr/bin/python3", 1)


@needs_bwrap
@pytest.mark.parametrize("name", ["deal", "env", "files", "sockets", "root"])
def test_every_attack_fails_as_an_unprivileged_user(name, canary_socket, nobody_out):
    out = nobody_out
    command, expected = attacks(out, canary_socket)[name]
    proc = _as_nobody(["play", "maumau", "-p", "random", "-p", _system_python(command), "--seed", "7", "--sandbox",
                       "bwrap", "--out", str(out / "m.jsonl"), "--log-protocol", str(out / "protocol.log"),
                       "--move-ms", "30000"], out)
    assert proc.returncode == 0, proc.stderr
    log = (out / "m.seat1.log").read_text(errors="replace")
    assert_held(log, *expected)
    if name == "deal":
        assert "no seed tried deals my hand" in log


@needs_bwrap
def test_every_attack_fails_as_an_unprivileged_user_in_validate_and_a_tournament(canary_socket, nobody_out):
    out = nobody_out
    # validate as nobody: the file and environment attacks (every attack runs in validate as root,
    # and in play as nobody)
    for name, (command, _) in [(k, v) for k, v in attacks(out, canary_socket).items() if k in ("files", "env")]:
        proc = _as_nobody(["validate", "presidente", "--json", "-", "--max-failed", "1",
                           "--out", str(out / f"kept-{name}"), "--", *_system_python(command).split()], out)
        assert proc.stdout.startswith("{"), (name, proc.returncode, proc.stderr)
        report = json.loads(proc.stdout)
        assert proc.returncode == 0 and report["passed"] and report["sandbox"]["used"], (name, report["faults"])
    tour_out = out / "t"
    path = _tournament(tour_out, canary_socket)
    path.write_text(path.read_text().replace(BOT_PYTHON, "/usr/bin/python3"))
    os.chown(path, 65534, 65534)
    proc = _as_nobody(["tournament", str(path)], out)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (tour_out / "journal.jsonl").read_text().splitlines()[1:]]
    assert len(records) == 21 and all(sum(r["faults"]) == 0 for r in records), \
        [r["fault_log"] for r in records if sum(r["faults"])]
    logs = "\n".join(p.read_text(errors="replace") for p in (tour_out / "replays").glob("*.seat*.log"))
    assert_held(logs, "deal", "env", "read", "scratch", "sockets", "fds", "remount", "userns", "caps")


# -- honest bots are not hindered ------------------------------------------------------------------------


@needs_bwrap
def test_the_example_bots_play_clean_under_the_sandbox(tmp_path):
    # every language's example bot, from the checkout as a user runs them; the C bot if it is built
    bots = ["python3 bots/python/random_bot.py", "python3 bots/python/smart_bot.py"]
    if shutil.which("node"):
        bots.append("node bots/javascript/bot.js")
    if (ROOT / "bots" / "c" / "bot").exists():
        bots.append("bots/c/bot")
    for game, players in (("maumau", 4), ("presidente", 4), ("mayor", 4)):
        seats = [bots[(k + players) % len(bots)] for k in range(players)]
        out = tmp_path / f"{game}.jsonl"
        proc = run(["play", game, *[a for s in seats for a in ("-p", s)], "--sandbox", "bwrap", "--seed", "5",
                    "--out", str(out)])
        assert proc.returncode == 0, proc.stderr
        result = json.loads(out.read_text().splitlines()[-1])
        assert result["faults"] == [0] * players, result["fault_log"]
        assert "warning" not in proc.stderr
