"""A referee-side error in one match does not end a run; a full disk stops it cleanly (issue 25).

A test plugin (`match_started`, in the worker that plays the match) raises for the seeds a
control file names, or fails with ENOSPC: the failing matches are journaled as failures (no seat
blamed, no result counted), the run goes on and says how many failed and why, `--resume` plays
exactly them again, and five failures in a row stop the run with one line. A full disk, real (a
tiny tmpfs, as root) or injected, stops the run at once with one line, its journal whole, and
`--resume` finishes once space is freed (exit 2, as any file that cannot be written). `play` and
`validate` say a referee-side error in one line, exit 3.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from referee import errors
from referee.plugins import load_registry
from referee.tournament import run as tour
from referee.tournament import standings as st
from referee.tournament.config import load_tournament

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"

FAULTY = """\
import errno, json, os, referee
CONTROL = {control!r}  # read at each match: workers may predate the test's changes


@referee.hookimpl
def match_started(header):
    try:
        with open(CONTROL) as f:
            control = json.load(f)
    except FileNotFoundError:
        return
    if header["seed"] in control.get("seeds", []):
        if control.get("enospc"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "replays/injected.jsonl")
        raise RuntimeError(f"injected failure, seed {{header['seed']}}\\nsecond line of it")
"""

TOURNAMENT = """\
name = "failing"
seed = 3
seeds = {seeds}
concurrency = {concurrency}
[output]
viewers = false
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
{extra}
[[games]]
game = "maumau"
players = 2
"""


def referee(*args: str, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def faulty(tmp_path):
    """(plugins dir, control file, registry): the test plugin, failing nothing until told."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    control = tmp_path / "control.json"
    (plugins / "faulty.py").write_text(FAULTY.format(control=str(control)))
    return plugins, control, load_registry(plugins)


def tournament(tmp_path, registry, seeds=4, concurrency=2):
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT.format(seeds=seeds, concurrency=concurrency, extra=""))
    return path, load_tournament(path, registry, out=tmp_path / "out")


def journal_lines(out: Path) -> list[dict]:
    """Every line of the journal, each a whole JSON object (a torn line fails the test)."""
    return [json.loads(line) for line in (out / tour.JOURNAL).read_text().splitlines()]


def test_a_failed_match_is_journaled_counted_for_no_one_and_resume_plays_exactly_it(tmp_path, faulty):
    plugins, control, registry = faulty
    path, config = tournament(tmp_path, registry)
    matches = config.matches()
    seeds = sorted({m.seed for m in matches})
    failing = {m.index for m in matches if m.seed == seeds[1]}
    control.write_text(json.dumps({"seeds": [seeds[1]]}))
    told = []
    records = tour.run(config, plugins_dir=str(plugins), on_failure=told.append)
    assert sorted(r["index"] for r in records) == sorted(set(range(len(matches))) - failing), "the run went on"
    assert sorted(r["index"] for r in told) == sorted(failing)
    failures = [r for r in journal_lines(config.out) if r["type"] == "failure"]
    assert sorted(r["index"] for r in failures) == sorted(failing)
    for r in failures:
        assert r["error"] == f"RuntimeError: injected failure, seed {seeds[1]}", r["error"]
        assert "Traceback" in r["traceback"] and "faulty.py" in r["traceback"]
        # a published journal names no folder of the organiser's machine (issue 29)
        assert str(tmp_path) not in r["traceback"] and str(ROOT) not in r["traceback"], r["traceback"]
        assert 'File "referee/' in r["traceback"] and 'File ".../faulty.py"' in r["traceback"]
        assert "faults" not in r and "ranks" not in r, "no seat blamed, no result"
    table = st.compute_journal(config.out / tour.JOURNAL)
    assert sum(row.matches for row in table["overall"]) == 2 * (len(matches) - len(failing))
    assert [r["index"] for r in st.failed_matches(config.out / tour.JOURNAL)] == sorted(failing)
    control.unlink()
    again = []
    tour.run(config, resume=True, plugins_dir=str(plugins), on_result=again.append)
    assert sorted(r["index"] for r in again) == sorted(failing), "--resume plays exactly the failed matches"
    assert st.failed_matches(config.out / tour.JOURNAL) == []
    table = st.compute_journal(config.out / tour.JOURNAL)
    assert sum(row.matches for row in table["overall"]) == 2 * len(matches)


def test_the_cli_finishes_the_run_says_what_failed_and_writes_it_into_the_standings(tmp_path, faulty):
    plugins, control, registry = faulty
    path, config = tournament(tmp_path, registry)
    seeds = sorted({m.seed for m in config.matches()})
    failing = [m for m in config.matches() if m.seed in seeds[:2]]
    control.write_text(json.dumps({"seeds": seeds[:2]}))
    out = tmp_path / "out"
    proc = referee("--plugins-dir", str(plugins), "tournament", str(path), "--out", str(out))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert proc.stderr.strip().splitlines() == [
        f"error: {len(failing)} matches failed on the referee's side (see above): the standings leave them out; "
        "once the cause is fixed, run again with --resume, which plays them again"]
    assert f"{len(failing)} matches failed on the referee's side" in proc.stdout
    for seed in seeds[:2]:
        group = [m for m in failing if m.seed == seed]
        assert f"  {len(group)} x RuntimeError: injected failure, seed {seed} (" in proc.stdout, proc.stdout
    data = json.loads((out / "standings.json").read_text())
    assert sorted(g["error"] for g in data["failed"]) == sorted(f"RuntimeError: injected failure, seed {s}"
                                                                for s in seeds[:2])
    assert sorted(k for g in data["failed"] for k in g["matches"]) == sorted(m.key for m in failing)
    assert "## Failed matches" in (out / "standings.md").read_text()
    assert sum(r["matches"] for r in data["overall"]) == 2 * (len(config.matches()) - len(failing))
    control.unlink()
    proc = referee("--plugins-dir", str(plugins), "tournament", str(path), "--out", str(out), "--resume")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "failed" not in json.loads((out / "standings.json").read_text())
    assert f"({len(config.matches()) - len(failing)} already in the journal)" in proc.stdout


def test_five_failures_in_a_row_stop_the_run_with_one_line_and_resume_finishes(tmp_path, faulty):
    plugins, control, registry = faulty
    path, config = tournament(tmp_path, registry, seeds=5, concurrency=1)
    control.write_text(json.dumps({"seeds": sorted({m.seed for m in config.matches()})}))
    out = tmp_path / "out"
    proc = referee("--plugins-dir", str(plugins), "tournament", str(path), "--out", str(out))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: 5 matches in a row failed on the referee's side") and "--resume" in line, line
    assert "RuntimeError: injected failure" in line and "Traceback" not in proc.stdout
    lines = journal_lines(out)
    assert [r["type"] for r in lines] == ["tournament"] + ["failure"] * 5
    assert not (out / "standings.json").exists()
    control.unlink()
    proc = referee("--plugins-dir", str(plugins), "tournament", str(path), "--out", str(out), "--resume")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    played = [r["index"] for r in journal_lines(out) if r["type"] == "match"]
    assert sorted(played) == list(range(len(config.matches())))


def test_a_success_between_failures_restarts_the_count(tmp_path, faulty):
    plugins, control, registry = faulty
    path, config = tournament(tmp_path, registry, seeds=7, concurrency=1)
    order = config.play_order(config.matches())
    assert len(order) == 7  # a match per seed
    control.write_text(json.dumps({"seeds": [m.seed for m in order[:3] + order[4:]]}))  # 3 failed, 1 played, 3 failed
    records = tour.run(config, plugins_dir=str(plugins))
    assert [r["index"] for r in records] == [order[3].index]
    assert len(st.failed_matches(config.out / tour.JOURNAL)) == 6


def test_an_injected_full_disk_in_a_worker_stops_the_run_at_once(tmp_path, faulty):
    plugins, control, registry = faulty
    path, config = tournament(tmp_path, registry, seeds=4, concurrency=1)
    order = config.play_order(config.matches())
    control.write_text(json.dumps({"seeds": [order[2].seed], "enospc": True}))
    with pytest.raises(errors.DiskFull, match=r"the disk is full: cannot write 'replays/injected.jsonl' "
                                       r"\(No space left on device\); free some space, then run again with --resume"):
        tour.run(config, plugins_dir=str(plugins))
    lines = journal_lines(config.out)
    # the matches before it (and the one after, if it finished before the driver saw the full disk)
    assert [r["type"] for r in lines][:3] == ["tournament", "match", "match"]
    assert all(r["type"] == "match" for r in lines[1:]), "the full disk is no match's failure"
    assert order[2].index not in {r["index"] for r in lines[1:]}
    control.unlink()
    records = tour.run(config, resume=True, plugins_dir=str(plugins))
    assert sorted(r["index"] for r in records) == list(range(len(order)))


def test_a_journal_append_that_fails_leaves_no_part_of_its_line(tmp_path, monkeypatch):
    journal = tour.Journal(tmp_path / tour.JOURNAL, {"type": "tournament", "name": "t"})
    real = os.write
    calls = []

    def short_then_full(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real(fd, bytes(data[:10]))  # a full disk takes part of the line...
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # ...then refuses the rest

    monkeypatch.setattr(tour.os, "write", short_then_full)
    with pytest.raises(errors.DiskFull, match="the disk is full: cannot write .*journal.jsonl"):
        journal.append({"type": "match", "index": 0, "pad": "x" * 100})
    monkeypatch.setattr(tour.os, "write", real)
    journal.append({"type": "match", "index": 1})
    journal.close()
    lines = journal_lines(tmp_path)
    assert [r.get("index") for r in lines] == [None, 1]


# -- a real full disk (a tmpfs, mounted as root) ----------------------------------------------------


@pytest.fixture
def tiny_disk(tmp_path):
    """A directory on a tmpfs of 4 MB (skips unless this user may mount one); unmounted after."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", str(disk)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_a_journal_on_a_full_disk_is_cut_back_to_its_last_whole_line(tiny_disk):
    path = tiny_disk / tour.JOURNAL
    journal = tour.Journal(path, {"type": "tournament", "name": "t"})
    journal.append({"type": "match", "index": 0})
    filler = fill_up(tiny_disk)  # full, but for the rest of the journal's last page
    before = path.read_bytes()
    with pytest.raises(errors.DiskFull, match=f"cannot write '{path}' \\(No space left on device\\)"):
        journal.append({"type": "match", "index": 1, "pad": "x" * 20000})  # the tmpfs takes part of it
    assert path.read_bytes() == before
    filler.unlink()
    journal.append({"type": "match", "index": 2})
    journal.close()
    assert [r.get("index") for r in journal_lines(tiny_disk)] == [None, 0, 2]


def fill_up(disk: Path) -> Path:
    """A file that fills `disk` to its last byte: its path."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 65536)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def test_a_deal_key_the_full_disk_cut_short_is_not_left_behind(tiny_disk, monkeypatch):
    from referee import sealing

    monkeypatch.delenv(sealing.KEY_ENV, raising=False)
    filler = fill_up(tiny_disk)
    with pytest.raises(errors.DiskFull, match="the disk is full: cannot write .*deal.key"):
        sealing.for_directory(tiny_disk)
    assert not (tiny_disk / sealing.KEY_FILE).exists(), "an empty key would refuse every later run"
    filler.unlink()
    assert sealing.for_directory(tiny_disk).secret == sealing.for_directory(tiny_disk).secret


def test_a_bot_that_fills_the_disk_stops_the_run_with_one_line_and_resume_finishes(tmp_path, tiny_disk):
    fill, marker, out = tiny_disk / "fill", tmp_path / "filled-once", tiny_disk / "out"
    fill.mkdir()
    path = tmp_path / "t.toml"
    filler = f'[[entrants]]\nname = "filler"\ncommand = "{sys.executable} {BOTS / "attack_full_disk.py"} {fill} {marker}"'
    path.write_text(TOURNAMENT.format(seeds=2, concurrency=1, extra=filler))
    proc = referee("tournament", str(path), "--out", str(out))
    assert marker.exists(), "the bot filled the disk"
    assert proc.returncode == 2, proc.stdout + proc.stderr
    warning, line = proc.stderr.strip().splitlines()
    assert warning.startswith("warning: command bots run without a sandbox"), proc.stderr
    assert line.startswith("error: the disk is full: cannot write ") and "No space left on device" in line, line
    assert line.endswith("free some space, then run again with --resume: the journal keeps every finished match")
    lines = journal_lines(out)  # every line whole
    assert lines[0]["type"] == "tournament" and all(r["type"] == "match" for r in lines[1:])
    for f in fill.iterdir():
        f.unlink()
    proc = referee("tournament", str(path), "--out", str(out), "--resume")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    total = len(load_tournament(path, load_registry()).matches())
    played = [r["index"] for r in journal_lines(out) if r["type"] == "match"]
    assert sorted(played) == list(range(total))


# -- play and validate -----------------------------------------------------------------------------


def test_play_says_a_referee_side_error_in_one_line_exit_3_and_keeps_the_replay(tmp_path, faulty):
    plugins, control, _ = faulty
    control.write_text(json.dumps({"seeds": [7]}))
    replay = tmp_path / "m.jsonl"
    proc = referee("--plugins-dir", str(plugins), "play", "maumau", "-p", "random", "-p", "first", "--seed", "7",
                   "--out", str(replay))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line == (f"error: the match failed on the referee's side, no seat is blamed: RuntimeError: injected "
                    f"failure, seed 7; what was played is in {replay}"), line
    assert json.loads(replay.read_text().splitlines()[0])["type"] == "header"
    control.write_text(json.dumps({"seeds": [7], "enospc": True}))
    proc = referee("--plugins-dir", str(plugins), "play", "maumau", "-p", "random", "-p", "first", "--seed", "7",
                   "--out", str(replay))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: the disk is full: cannot write 'replays/injected.jsonl' (No space left on device)")


def test_validate_says_a_referee_side_error_in_one_line_exit_3(tmp_path, faulty):
    plugins, control, _ = faulty
    control.write_text(json.dumps({"seeds": [2]}))
    keep = tmp_path / "kept"
    bot = ROOT / "bots" / "python" / "random_bot.py"
    proc = referee("--plugins-dir", str(plugins), "validate", "maumau", "--sandbox", "none", "--seeds", "2",
                   "--out", str(keep), "--", sys.executable, str(bot))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (line,) = [line for line in proc.stderr.strip().splitlines() if line.startswith("error:")]
    assert "Traceback" not in proc.stderr
    assert "failed on the referee's side, not the bot's fault: RuntimeError: injected failure, seed 2" in line
    kept = sorted(p.name for p in keep.iterdir())
    assert len(kept) == 1 and kept[0].endswith("seed2.jsonl") and kept[0] in line, (kept, line)


def test_failure_records_never_count_in_the_standings(tmp_path):
    path = tmp_path / tour.JOURNAL
    match = {"type": "match", "index": 0, "key": "a", "game": "maumau", "seed": 1, "seats": ["x", "y"],
             "scores": [1, 2], "ranks": [1, 2], "faults": [0, 0], "disqualified": []}
    failure = {"type": "failure", "index": 1, "key": "b", "game": "maumau", "seed": 1, "seats": ["y", "x"],
               "error": "RuntimeError: boom", "traceback": "..."}
    path.write_text("\n".join(json.dumps(r) for r in [{"type": "tournament"}, match, failure,
                                                        {**failure, "index": 0}]) + "\n")
    assert [r["index"] for r in st.counted_journal(path)] == [0]
    assert st.failed_matches(path) == [{k: v for k, v in failure.items() if k != "traceback"}]
    assert st.failure_groups(st.failed_matches(path)) == [("RuntimeError: boom", ["b"])]
    assert issubclass(errors.DiskFull, errors.UsageError)  # exit 2, as any file that cannot be written


def test_a_temporary_directory_too_long_for_the_pools_socket_is_one_line(tmp_path):
    # multiprocessing's forkserver binds a Unix socket in a folder of the temporary directory: a
    # path past 107 bytes failed with a worker pool's traceback ("AF_UNIX path too long")
    long_tmp = Path(tempfile.mkdtemp(prefix="t" * 90 + "-", dir="/tmp"))
    try:
        path = tmp_path / "t.toml"
        path.write_text(TOURNAMENT.format(seeds=1, concurrency=2, extra=""))
        proc = subprocess.run([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(tmp_path / "o")],
                              cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "TMPDIR": str(long_tmp)})
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.strip().splitlines() == [
            f"error: the temporary directory {str(long_tmp)!r} is too long a path for the worker pool's Unix socket "
            "(at most 75 bytes): set TMPDIR to a shorter one"], proc.stderr
        assert not (tmp_path / "o" / "journal.jsonl").exists()
    finally:
        shutil.rmtree(long_tmp, ignore_errors=True)
