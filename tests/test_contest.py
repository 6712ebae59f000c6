"""A contest among strangers (issue 25, "Done when"): one tournament whose entrants are the attack
bots of every finding beside honest ones, in the sandbox.

It must finish with standings; every honest entrant has no fault; no attack wins (a bot that won
answers with a `cheated` line, an `invalid` fault, and reports `ATTACK <name> WON` in its log);
and `referee verify --key sign.pub` passes the journal and every replay, and fails each of a set
of edited copies. Each entrant plays from a directory of its own, laid out as an organiser's
folder: the attacks that look for other entrants' files, the tournament file or the referee's
temporary files (its TMPDIR lies inside an attacker's directory) find nothing.
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

from botpython import BOT_PYTHON
from referee.bots import sandbox as sandbox_mod
from test_integrity import KEY, ROOT, TOKEN, assert_held

BOTS = ROOT / "tests" / "bots"

needs_bwrap = pytest.mark.skipif(not sandbox_mod.available(), reason="bubblewrap cannot build a sandbox here")

HONEST = ("honest-random", "honest-smart", "random", "maumau-greedy")
#: attacker: (script, arguments: {base}, {own} and {shared} are filled in, the attempts its log must show)
ATTACKERS = {
    "unicode": ("attack_unicode.py", "ready debug action", ()),
    "view": ("attack_view.py", "", ("view", "cmdline")),
    "disk": ("attack_disk.py", str(8 << 20), ("disk",)),
    "fork": ("attack_forkserver.py", "", ("forkserver",)),  # a short name: its tmp/ holds a Unix socket
    "env": ("attack_env.py", f"{TOKEN} {KEY}", ("env",)),
    "files": ("attack_files.py", "{base}/out/journal.jsonl {base}/out/deal.key {base}/out/sign.key "
              "{base}/out/standings.json", ("read", "scratch")),
    "syscalls": ("attack_syscalls.py", "", ("io_uring", "perf", "userfaultfd", "ptrace")),
    "locks-send": ("attack_locks.py", "send {shared}/0", ("flock", "posix", "ofd")),
    "locks-receive": ("attack_locks.py", "receive {shared}/0", ()),
    "notify-send": ("attack_notify.py", "send {shared}/0", ("inotify",)),
    "notify-receive": ("attack_notify.py", "receive {shared}/0", ()),
    "pagecache-write": ("attack_pagecache.py", "write {shared}/store.bin", ()),
    "pagecache-read": ("attack_pagecache.py", "read {shared}/store.bin", ("cachestat", "mincore", "nowait")),
    "actids": ("attack_actids.py", "", ("actids", "endlog")),
}


def _layout(base: Path) -> Path:
    """The organiser's folder: each command entrant in a directory of its own, the shared files
    the covert-channel pairs try to signal through, the tournament file; every user may read it
    (as root each bot runs as a uid of its own). The tournament file's path."""
    shared = base / "shared"
    shared.mkdir()
    for k in range(16):
        (shared / str(k)).write_text("x")
    (shared / "range").write_bytes(bytes(os.sysconf("SC_PAGE_SIZE")))
    with open(shared / "store.bin", "wb") as f:
        f.write(os.urandom(16 * 16 * os.sysconf("SC_PAGE_SIZE")))
    for name in ("honest-random", "honest-smart"):
        (base / name).mkdir()
    shutil.copy(ROOT / "bots" / "python" / "random_bot.py", base / "honest-random")
    shutil.copy(ROOT / "bots" / "python" / "smart_bot.py", base / "honest-smart")
    entrants = [
        f'[[entrants]]\nname = "honest-random"\ncommand = "{BOT_PYTHON} honest-random/random_bot.py"\n'
        f'env = {{ ORGANISER_TOKEN = "{TOKEN}" }}\n',
        f'[[entrants]]\nname = "honest-smart"\ncommand = "{BOT_PYTHON} honest-smart/smart_bot.py"\n',
        '[[entrants]]\nstrategy = "random"\n',
        '[[entrants]]\nstrategy = "maumau-greedy"\n',
    ]
    for name, (script, args, _) in ATTACKERS.items():
        own = base / name
        own.mkdir()
        shutil.copy(BOTS / script, own)
        shutil.copy(BOTS / "_attack.py", own)
        words = args.format(base=base, own=own, shared=shared)
        entrants.append(f'[[entrants]]\nname = "{name}"\ncommand = {json.dumps(f"{BOT_PYTHON} {name}/{script} {words}".strip())}\n')
    (base / "view" / "targets.txt").write_text("\n".join(str(p) for p in (
        base / "tour.toml", base / "honest-smart" / "smart_bot.py", base / "out" / "sign.key", base / "caller" / "secret.txt")))
    (base / "fork" / "tmp").mkdir()
    (base / "caller").mkdir()
    (base / "caller" / "secret.txt").write_text("the organiser's own file\n")
    honest_mm = '"honest-random", "honest-smart", "random", "maumau-greedy"'
    solo = [n for n in ATTACKERS if n.split("-")[0] not in ("locks", "notify", "pagecache") and n != "actids"]
    games = [
        # every lone attacker against the honest command bot (a gauntlet), and the honest ones together
        f'[[games]]\ngame = "maumau"\nplayers = 2\nschedule = "gauntlet"\nfocus = "honest-random"\n'
        f'entrants = {json.dumps(["honest-random", *solo])}\nconfig = {{ target = 30 }}\n',
        f'[[games]]\ngame = "maumau"\nplayers = 2\nentrants = [{honest_mm}]\nconfig = {{ target = 30 }}\n',
        # the covert-channel pairs at one table each (two entrants of one author); the page-cache
        # reader plays after the writer, as a duplicate set's next seating would
        '[[games]]\ngame = "maumau"\nplayers = 4\n'
        'entrants = ["locks-send", "locks-receive", "pagecache-write", "honest-random"]\nconfig = { target = 30 }\n',
        '[[games]]\ngame = "maumau"\nplayers = 4\n'
        'entrants = ["notify-send", "notify-receive", "pagecache-read", "honest-smart"]\nconfig = { target = 30 }\n',
        # the act-id spy at a Mayor table
        '[[games]]\ngame = "mayor"\nplayers = 4\nentrants = ["actids", "honest-random", "random", "honest-smart"]\n'
        'config = { deals = 12 }\n',
    ]
    path = base / "tour.toml"
    path.write_text(f'name = "contest"\nseed = 25\nout = "{base / "out"}"\nconcurrency = 2\n'
                    '[limits]\nsandbox = "bwrap"\nmove_ms = 30000\nfsize_mb = 1\n[output]\nviewers = false\n\n'
                    + "\n".join(entrants) + "\n" + "\n".join(games))
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            os.chmod(os.path.join(dirpath, name), 0o755 if name in dirnames else 0o644)
    os.chmod(base, 0o755)
    return path


@pytest.fixture(scope="module")
def contest():
    """The contest, played once: (its folder, the referee's exit)."""
    # short: the referee's TMPDIR inside it holds a Unix socket, whose path has at most 107 bytes
    base = ROOT / "tests" / "artifacts" / f"c-{uuid.uuid4().hex[:6]}"
    base.mkdir(parents=True)
    try:
        toml = _layout(base)
        # the referee's TMPDIR inside an attacker's own directory (multiprocessing's forkserver socket)
        env = {**os.environ, "ORGANISER_TOKEN": TOKEN, "REFEREE_DEAL_KEY": KEY, "TMPDIR": str(base / "fork" / "tmp")}
        proc = subprocess.run([sys.executable, "-m", "referee", "tournament", str(toml)], cwd=base / "caller",
                              env=env, capture_output=True, text=True, timeout=900)
        yield base, proc
    finally:
        if os.environ.get("REFEREE_KEEP_CONTEST"):
            return
        sandbox_mod.remove_scratch(base)


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()[1:]]


def _seat_names(record: dict) -> list[str]:
    return list(record["seats"])


@needs_bwrap
def test_the_contest_finishes_every_honest_entrant_without_fault_and_no_attack_wins(contest):
    base, proc = contest
    out = base / "out"
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (out / "standings.json").exists() and (out / "sign.pub").exists()
    records = _records(out)
    matches = [r for r in records if r.get("type") == "match"]
    assert matches and not [r for r in records if r.get("type") == "failure"]
    for r in matches:
        for seat, name in enumerate(_seat_names(r)):
            if name in HONEST:
                assert r["faults"][seat] == 0, (name, r["fault_log"])
        cheated = [f for f in r["fault_log"] if "cheated" in f.get("raw", "")]
        assert not cheated, cheated
    logs = "\n".join(p.read_text(errors="replace") for p in (out / "replays").rglob("*.seat*.log"))
    expected = [attempt for _, _, attempts in ATTACKERS.values() for attempt in attempts]
    assert_held(logs, *expected)
    # the Unicode attacker is the one entrant faulted by design (its lines are invalid)
    unicode_faults = sum(r["faults"][_seat_names(r).index("unicode")] for r in matches if "unicode" in _seat_names(r))
    assert unicode_faults > 0
    standings = json.loads((out / "standings.json").read_text())
    assert standings  # written, whatever its layout


def _verify(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", "verify", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


@needs_bwrap
def test_every_published_result_verifies_with_the_key_and_every_edit_fails(contest, tmp_path):
    base, proc = contest
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = base / "out"
    pub = str(out / "sign.pub")
    replays = sorted(str(p) for p in (out / "replays").rglob("*.jsonl*") if ".seat" not in p.name)
    assert len(replays) == len([r for r in _records(out) if r.get("type") == "match"])
    ok = _verify(["--key", pub, str(out / "journal.jsonl"), *replays])
    assert ok.returncode == 0, ok.stdout[-3000:] + ok.stderr[-3000:]

    # Edited copies of a replay (the winner made to crash at the start, a move changed, the
    # result's scores swapped) and of the journal (a match record's ranks, a record removed):
    # each fails with the key.
    replay = Path(replays[0])
    lines = replay.read_text().splitlines()
    result = json.loads(lines[-1])
    edits: dict[str, list[str]] = {}
    crashed = dict(result, faults=[1] + result["faults"][1:], disqualified=[0],
                   fault_log=[{"seat": 0, "deal": 0, "kind": "crash", "detail": "exited", "raw": ""}])
    edits["crash"] = lines[:-1] + [json.dumps(crashed, separators=(",", ":"))]
    move = next(i for i, line in enumerate(lines) if json.loads(line).get("type") == "move")
    edited_move = json.loads(lines[move])
    edited_move["ms"] = edited_move["ms"] + 1
    edits["move"] = lines[:move] + [json.dumps(edited_move, separators=(",", ":"))] + lines[move + 1:]
    swapped = dict(result, scores=list(reversed(result["scores"])))
    edits["scores"] = lines[:-1] + [json.dumps(swapped, separators=(",", ":"))]
    for name, edited in edits.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(edited) + "\n")
        bad = _verify(["--key", pub, str(path)])
        assert bad.returncode != 0 and "Traceback" not in bad.stderr, (name, bad.stdout, bad.stderr)

    journal = (out / "journal.jsonl").read_text().splitlines()
    copy = tmp_path / "published"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("*.seat*.log"))
    first = next(i for i, line in enumerate(journal) if json.loads(line).get("type") == "match")
    record = json.loads(journal[first])
    record["ranks"] = list(reversed(record["ranks"]))
    for name, edited in (("ranks", journal[:first] + [json.dumps(record, separators=(",", ":"))] + journal[first + 1:]),
                         ("removed", journal[:first] + journal[first + 1:])):
        (copy / "journal.jsonl").write_text("\n".join(edited) + "\n")
        bad = _verify(["--key", pub, str(copy / "journal.jsonl")])
        assert bad.returncode != 0 and "Traceback" not in bad.stderr, (name, bad.stdout, bad.stderr)
