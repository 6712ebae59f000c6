"""A sandboxed bot sees its own files only, and its resources are its own (issue 25, findings 4,
6 and 8), as root and as an unprivileged user.

The attack bots (tests/bots/attack_view.py, attack_disk.py, attack_forkserver.py) report each
attempt on stderr (`ATTACK <name> WON|HELD`), as in tests/test_integrity.py. They play from a
folder laid out as an organiser's: a tournament file holding an entrant's token, each entrant in
its own directory (the attacker's with a root-only key beside its code), the caller's working
directory with a file of its own, and the referee's TMPDIR inside the attacker's own directory
(where multiprocessing's forkserver puts its socket).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from botpython import BOT_PYTHON, open_folder, run_sandboxed
from referee.bots import sandbox as sandbox_mod
from test_integrity import KEY, ROOT, TOKEN, _paths, _SETUP, _unprivileged_python, assert_held, reports

BOTS = ROOT / "tests" / "bots"
DISK_TARGET = 8 << 20  # bytes the disk attack writes: more than its scratch may hold (fsize_mb = 1)

needs_bwrap = pytest.mark.skipif(not sandbox_mod.available(), reason="bubblewrap cannot build a sandbox here")


def _layout(base: Path, python: str) -> dict[str, Path]:
    """The organiser's folder under `base` (readable by every user: the bots run as their own)."""
    paths = {"alice": base / "alice", "bob": base / "bob", "carol": base / "carol", "dave": base / "dave",
             "cwd": base / "cwd", "out": base / "out", "tmp": base / "dave" / "tmp"}
    for path in paths.values():
        path.mkdir(parents=True, exist_ok=True)
    for name, folder in (("view", "alice"), ("disk", "carol"), ("forkserver", "dave")):
        shutil.copy(BOTS / f"attack_{name}.py", paths[folder])
        shutil.copy(BOTS / "_attack.py", paths[folder])
    shutil.copy(ROOT / "bots" / "python" / "random_bot.py", paths["bob"] / "bob_bot.py")
    key = paths["alice"] / "key.pem"
    key.write_text("root-only key\n")
    key.chmod(0o600)  # root's, as root; the unprivileged referee's own otherwise
    (paths["cwd"] / "secret.txt").write_text("the caller's own file\n")
    paths["toml"] = base / "tour.toml"
    paths["key"] = key
    secrets = [paths["toml"], paths["bob"] / "bob_bot.py", key, paths["cwd"] / "secret.txt"]
    (paths["alice"] / "targets.txt").write_text("\n".join(map(str, secrets)))
    view = f"{python} {paths['alice'] / 'attack_view.py'}"
    paths["toml"].write_text(f"""name = "files"
seed = 25
out = "{paths['out']}"
concurrency = 2
[limits]
sandbox = "bwrap"
move_ms = 30000
fsize_mb = 1
[output]
viewers = false
[[entrants]]
name = "alice"
command = {json.dumps(view)}
[[entrants]]
name = "bob"
command = "{python} bob/bob_bot.py"
env = {{ ORGANISER_TOKEN = "{TOKEN}" }}
[[entrants]]
name = "carol"
command = "{python} carol/attack_disk.py {DISK_TARGET}"
[[entrants]]
name = "dave"
command = "{python} dave/attack_forkserver.py"
[[games]]
game = "maumau"
players = 2
seeds = 1
entrants = ["alice", "bob", "carol", "dave"]
""")
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if path != str(key):
                os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)
    os.chmod(base, 0o755)
    return paths


@pytest.fixture
def base():
    """A folder inside the checkout (its parents open to every user), removed afterwards."""
    path = ROOT / "tests" / "artifacts" / f"files-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    yield path
    sandbox_mod.remove_scratch(path)


def _referee(args: list[str], cwd: Path, env: dict[str, str], nobody: bool) -> subprocess.CompletedProcess:
    """`referee ARGS` from `cwd`: as this user, or as nobody with the system Python."""
    full = {**os.environ, "ORGANISER_TOKEN": TOKEN, "REFEREE_DEAL_KEY": KEY, **env}
    if not nobody:
        return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, env=full, capture_output=True,
                              text=True, timeout=600)
    prefix = _unprivileged_python()
    if prefix is None:
        pytest.skip("no way to run the referee as an unprivileged user here")
    code = f"{_SETUP}; sys.argv[0] = 'referee'; from referee.cli import main; main()"
    full = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "ORGANISER_TOKEN": TOKEN, "REFEREE_DEAL_KEY": KEY,
            "PYTHONPATH": os.pathsep.join(_paths()), **env}
    return subprocess.run([*prefix, "-c", code, *args], cwd=cwd, env=full, capture_output=True, text=True,
                          timeout=600)


def _as(nobody: bool, base: Path) -> str:
    """The bots' Python, after handing `base` to nobody when the referee runs as nobody."""
    if nobody:
        if _unprivileged_python() is None:
            pytest.skip("no way to run the referee as an unprivileged user here")
        for dirpath, dirnames, filenames in os.walk(base):
            for name in dirnames + filenames:
                if name != "key.pem":  # root's own, as an organiser's key would be
                    os.chown(os.path.join(dirpath, name), 65534, 65534)
        os.chown(base, 65534, 65534)
        return "/usr/bin/python3"
    return BOT_PYTHON


USERS = [pytest.param(False, id="as-this-user"), pytest.param(True, id="as-nobody")]


@needs_bwrap
@pytest.mark.parametrize("nobody", USERS)
def test_play_shows_a_bot_neither_the_callers_directory_nor_a_root_only_key_nor_its_set_up(base, nobody):
    python = BOT_PYTHON if not nobody else "/usr/bin/python3"
    paths = _layout(base, python)
    _as(nobody, base)
    bot = f"{python} {paths['alice'] / 'attack_view.py'}"
    out = paths["out"] / "m.jsonl"
    proc = _referee(["play", "maumau", "-p", "random", "-p", bot, "--seed", "3", "--sandbox", "bwrap",
                     "--out", str(out), "--move-ms", "30000"], paths["cwd"], {}, nobody)
    assert proc.returncode == 0, proc.stderr
    log = (paths["out"] / "m.seat1.log").read_text(errors="replace")
    assert_held(log, "view", "cmdline")
    assert len(reports(log)["view"]) == 4
    assert json.loads(out.read_text().splitlines()[-1])["faults"] == [0, 0]


@needs_bwrap
@pytest.mark.parametrize("nobody", USERS)
def test_a_tournament_entrant_sees_its_own_files_only_and_cannot_fill_the_disk(base, nobody):
    python = BOT_PYTHON if not nobody else "/usr/bin/python3"
    paths = _layout(base, python)
    _as(nobody, base)
    # The referee's TMPDIR inside an entrant's own directory: its forkserver's socket lies there.
    proc = _referee(["tournament", str(paths["toml"])], paths["cwd"], {"TMPDIR": str(paths["tmp"])}, nobody)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    records = [json.loads(line) for line in (paths["out"] / "journal.jsonl").read_text().splitlines()[1:]]
    assert len(records) == 6 and all(sum(r["faults"]) == 0 for r in records), \
        [r["fault_log"] for r in records if sum(r["faults"])]
    logs = "\n".join(p.read_text(errors="replace") for p in (paths["out"] / "replays").glob("*.seat*.log"))
    assert_held(logs, "view", "cmdline", "disk", "forkserver")


def test_an_entrants_dir_is_its_own_directory_and_may_not_hold_the_tournament_file(tmp_path):
    from referee.errors import ConfigError
    from referee.plugins import load_registry
    from referee.tournament.config import load_tournament

    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "bot.py").write_text("")
    text = ('[[entrants]]\nname = "alice"\ncommand = "python3 bot.py"\ndir = "{dir}"\n'
            '[[entrants]]\nstrategy = "random"\n[[games]]\ngame = "maumau"\nplayers = 2\n')
    path = tmp_path / "t.toml"
    path.write_text(text.format(dir="alice"))
    alice = load_tournament(path, load_registry()).entrants["alice"]
    assert alice.dir == str(tmp_path / "alice") and alice.cwd == str(tmp_path / "alice")
    path.write_text(text.format(dir="."))
    with pytest.raises(ConfigError, match="does not hold the tournament file"):
        load_tournament(path, load_registry())


@needs_bwrap
def test_a_bot_naming_a_file_of_the_tournament_folder_keeps_its_own_directory_whole(base):
    # A file named on the command line in a folder never shown whole (the tournament's) made that
    # folder one of the bot's paths, which swallowed the bot's own directory: it was shown as the
    # named files only, and the bot's own module beside its script was missing.
    own = base / "alice"
    own.mkdir()
    (own / "helper.py").write_text("WORD = 'mine'\n")
    (own / "bot.py").write_text(
        "import sys, helper\n"
        "print(helper.WORD, open(sys.argv[1]).read().strip())\n"
        f"try:\n    open({str(base / 'other.txt')!r})\n    print('other: read')\nexcept OSError:\n"
        "    print('other: hidden')\n")
    (base / "named.txt").write_text("named\n")
    (base / "other.txt").write_text("other\n")
    for path in base.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    base.chmod(0o755)
    proc = run_sandboxed(["/usr/bin/python3", str(own / "bot.py"), str(base / "named.txt")], base, shared=[base])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["mine named", "other: hidden"], proc.stdout


def test_uids_are_leased_one_bot_each_across_processes(tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("only root gives bots uids of their own")
    monkeypatch.setenv(sandbox_mod.UIDS_VAR, "61000-61001")
    first = sandbox_mod.Box()
    # another process sees the first uid taken and gets the other; with both taken, none
    code = ("from referee.bots import sandbox as s\nb = s.Box(); print(b.uid)\n"
            "try:\n    s.Box()\nexcept OSError as e:\n    print('full:', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, sandbox_mod.UIDS_VAR: "61000-61001"})
    lines = proc.stdout.splitlines()
    assert {first.uid, int(lines[0])} == {61000, 61001} and lines[1].startswith("full: every uid"), proc.stderr
    first.close()
    again = sandbox_mod.Box()  # released: free again
    assert again.uid in (61000, 61001)
    again.close()
    monkeypatch.setenv(sandbox_mod.UIDS_VAR, "0-10")
    with pytest.raises(ValueError, match="REFEREE_SANDBOX_UIDS"):
        sandbox_mod.Box()


@needs_bwrap
def test_a_fork_bomb_is_stopped_during_the_match_where_bots_get_cgroups(monkeypatch):
    # As root with cgroup v1's pids controller (as on these machines): pids.max per bot.
    # Elsewhere the rlimits are all there is (docs/security.md), and this test is skipped.
    if "pids" not in getattr(sandbox_mod, "cgroup_parents", dict)():
        pytest.skip("the referee cannot make cgroups here (not root, or no cgroup v1 pids controller)")
    from referee.bots.player import SubprocessPlayer
    from referee.players import Hello

    monkeypatch.setattr(sandbox_mod, "PIDS_MAX", 40, raising=False)
    folder = open_folder("forkbomb-")
    try:
        hello = Hello("maumau", 0, 2, ["a", "b"], {}, "m", {"move_ms": 30000, "start_ms": 30000,
                                                            "max_line_bytes": 65536})
        bot = SubprocessPlayer([BOT_PYTHON, str(BOTS / "attack_forkbomb.py"), "100"], log_path=folder / "b.log",
                               sandbox="bwrap", start_ms=30000)
        try:
            assert bot.start(hello) is None
            cgroups = list(bot.scratch.cgroups)
            assert cgroups and all(c.is_dir() for c in cgroups)
        finally:
            bot.close()
        assert not any(c.exists() for c in cgroups)  # removed with the bot
        log = (folder / "b.log").read_text()
        assert_held(log, "forkbomb")
    finally:
        shutil.rmtree(folder)


def test_where_user_namespaces_are_off_the_sandbox_refuses_in_one_line(monkeypatch):
    # A bwrap that fails as it does without user namespaces (and works without one): no
    # fallback to a sandbox without a user namespace, as root too (7a906d8 fell back as root).
    from referee.errors import UsageError

    fake = open_folder("fake-bwrap-")  # run as the bots' uid, as root
    monkeypatch.setattr(sandbox_mod, "_probe", None)
    (fake / "bwrap").write_text("#!/bin/sh\nfor a; do [ \"$a\" = --unshare-user ] || continue\n"
                                "echo 'bwrap: No permissions to creating new namespace' >&2; exit 1; done\n")
    (fake / "bwrap").chmod(0o755)
    for tool in ("setpriv", "true"):
        if shutil.which(tool):
            (fake / tool).symlink_to(shutil.which(tool))
    monkeypatch.setenv("PATH", str(fake))
    try:
        with pytest.raises(UsageError) as caught:
            sandbox_mod.require("bwrap")
        assert not sandbox_mod.available()
    finally:
        shutil.rmtree(fake)
        sandbox_mod._probe = None  # the real machine's again, for later tests
    message = str(caught.value)
    assert "\n" not in message and "No permissions to creating new namespace" in message
