"""`referee ladder` (referee/ladder/): its ratings are the batch fit over its complete sets, a new
version retires the old one, a SIGKILL loses no finished match and plays none twice, the table
choice follows its rules whatever the order or names, the site escapes strangers' text and the
server shows nothing but the pages. Small: 2-seat Mau Mau, in-process strategies where the point
is not the sandbox."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from referee.errors import UsageError
from referee.ladder import schedule
from referee.ladder.config import load
from referee.ladder.run import Ladder
from referee.plugins import load_registry
from referee.tournament import ratings

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent
HOUSE = ("random", "first", "maumau-greedy")


def _file(folder: Path, house=HOUSE, extra: str = "") -> Path:
    (folder / "subs").mkdir(exist_ok=True)
    path = folder / "L.toml"
    path.write_text(f'game = "maumau"\nplayers = 2\nsubmissions = "subs"\nout = "out"\nseed = 5\n'
                    f"house = {json.dumps(list(house))}\nsite_every = 1\n{extra}[limits]\nsandbox = \"none\"\n")
    return path


def _run(path: Path, max_matches: int) -> list:
    ladder = Ladder(load(path), load_registry())
    try:
        return list(ladder.run(max_matches))
    finally:
        ladder.close()


def _bot(folder: Path, name: str, version: str, author: str = "Ana") -> Path:
    """A Python submission (the example random bot) as a folder, dropped in by a rename."""
    tmp = folder.parent / f".{name}-{version}.part"
    tmp.mkdir()
    shutil.copy(ROOT / "bots" / "python" / "random_bot.py", tmp / "bot.py")
    (tmp / "bot.toml").write_text(f'name = "{name}"\nauthor = {json.dumps(author)}\nversion = "{version}"\n'
                                  'run = "python3 bot.py"\n')
    os.replace(tmp, folder)
    return folder


def _expected(db: Path) -> dict[str, ratings.Rating]:
    """The batch fit, computed here from the database's rows: every complete set of active
    entrants a unit, in the order of their deal seeds."""
    con = sqlite3.connect(db)
    active = {k for (k,) in con.execute("SELECT key FROM entrants WHERE retired = 0")}
    units = []
    for set_id, table in con.execute("SELECT id, tables FROM sets WHERE complete = 1 ORDER BY seed").fetchall():
        if not set(json.loads(table)) <= active:
            continue
        rows = con.execute("SELECT seats, ranks FROM matches WHERE set_id = ? ORDER BY seating", (set_id,))
        units.append(ratings.Stats.of((json.loads(s), json.loads(r)) for s, r in rows))
    con.close()
    return ratings.bootstrap([units])


def _stored(db: Path) -> dict[str, tuple]:
    con = sqlite3.connect(db)
    fit = con.execute("SELECT MAX(id) FROM fits").fetchone()[0]
    out = {e: (r, se, lo, hi) for e, r, se, lo, hi in
           con.execute("SELECT entrant, rating, se, low, high FROM ratings WHERE fit = ?", (fit,))}
    con.close()
    return out


def test_ratings_equal_the_batch_fit_over_the_complete_sets(tmp_path):
    path = _file(tmp_path, extra="min_sets = 1\n")
    events = _run(path, 11)  # 5 sets and a half: the half set is no unit
    assert sum(e.kind == "match" for e in events) == 11
    expected, stored = _expected(tmp_path / "out" / "ladder.db"), _stored(tmp_path / "out" / "ladder.db")
    assert sorted(stored) == sorted(expected) == sorted(HOUSE)
    for key, r in expected.items():
        got = stored[key]
        assert abs(got[0] - r.rating) < 1e-9 and abs(got[1] - r.se) < 1e-9, key
        assert abs(got[2] - r.low) < 1e-9 and abs(got[3] - r.high) < 1e-9, key


def test_the_ratings_do_not_depend_on_the_order_sets_were_played(tmp_path):
    from referee.ladder.run import ratings_of

    _run(_file(tmp_path), 10)
    ladder = Ladder(load(tmp_path / "L.toml"), load_registry())
    sets = ladder.rated_sets()
    ladder.close()
    assert len(sets) == 5
    # below min_sets (10 by default) no entrant's rating has an interval (issue 26)
    assert all(row["low"] is None and row["se"] is None for row in ratings_of(sets).values())
    assert all(row["low"] is not None for row in ratings_of(sets, min_sets=1).values())
    assert ratings_of(sets, 1) == ratings_of(sets[::-1], 1) == ratings_of(sets[2:] + sets[:2], 1)
    # nor on the entrants' names: renamed (the order of names reversed), the same ratings
    new = {"random": "zz", "first": "mm", "maumau-greedy": "aa"}
    renamed = [{**s, "table": [new[k] for k in s["table"]],
                "matches": [{**m, "seats": [new[k] for k in m["seats"]]} for m in s["matches"]]} for s in sets]
    again = ratings_of(renamed, 1)
    for key, row in ratings_of(sets, 1).items():
        assert all(abs(again[new[key]][f] - row[f]) < 1e-6 for f in ("rating", "se", "low", "high")), key


def test_a_rerun_goes_on_and_finishes_the_half_set(tmp_path):
    path = _file(tmp_path)
    _run(path, 3)
    events = _run(path, 1)  # the second seating of set 2 first
    assert [(e.detail["set"], e.detail["seating"]) for e in events if e.kind == "match"] == [(2, 1)]
    con = sqlite3.connect(tmp_path / "out" / "ladder.db")
    assert con.execute("SELECT COUNT(*), SUM(complete) FROM sets").fetchone() == (2, 2)


def test_a_new_version_retires_the_old_one_and_gets_rated(tmp_path):
    path = _file(tmp_path, house=("maumau-greedy",))
    subs = tmp_path / "subs"
    (subs / ".half-copied").mkdir()  # not complete (no rename yet): never read
    (subs / "late.zip.part").write_bytes(b"PK")
    _bot(subs / "ana", "sharp", "1")
    first = _run(path, 4)
    intakes = [e.detail for e in first if e.kind == "intake"]
    assert intakes == [{"entry": "ana", "status": "accepted", "reason": "", "entrant": "sharp@1"}]
    assert first[-1].detail["reused"] == 2  # set 2's seats by the processes kept from set 1 (reuse declared)
    shutil.rmtree(subs / "ana")
    _bot(subs / "ana", "sharp", "2")  # a new version, in the same place
    second = _run(path, 4)
    assert [e.detail["entrant"] for e in second if e.kind == "intake"] == ["sharp@2"]
    con = sqlite3.connect(tmp_path / "out" / "ladder.db")
    assert dict(con.execute("SELECT key, retired FROM entrants")) == {"maumau-greedy": 0, "sharp@1": 1, "sharp@2": 0}
    assert con.execute("SELECT COUNT(*) FROM matches WHERE seats LIKE '%sharp@1%'").fetchone()[0] == 4  # history kept
    assert sorted(_stored(tmp_path / "out" / "ladder.db")) == ["maumau-greedy", "sharp@2"]  # rated: the active
    third = _run(path, 2)
    assert not [e for e in third if e.kind == "intake"]  # same content: not taken in again


def test_a_name_stays_with_its_first_author(tmp_path):
    path = _file(tmp_path, house=("random",))
    _bot(tmp_path / "subs" / "a", "taken", "1", author="Ana")
    _bot(tmp_path / "subs" / "b", "taken", "1", author="Bo")
    events = _run(path, 1)
    got = {e.detail["entry"]: (e.detail["status"], e.detail["entrant"]) for e in events if e.kind == "intake"}
    assert got == {"a": ("accepted", "taken@1"), "b": ("rejected", None)}


def _kill_when_halfway(path: Path, db: Path) -> None:
    """Start the ladder in a process of its own and SIGKILL it once the db shows a set half played."""
    proc = subprocess.Popen([sys.executable, "-m", "referee", "ladder", str(path), "--max-matches", "400"],
                            cwd=path.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(1200):
            time.sleep(0.02)
            try:
                with sqlite3.connect(db) as con:
                    if con.execute("SELECT COUNT(*) FROM matches").fetchone()[0] % 2:  # 2 seatings a set
                        break
            except sqlite3.OperationalError:
                pass  # no db, or no schema, yet
        else:
            pytest.fail("the ladder played no match")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()


def test_killed_mid_run_it_loses_no_match_and_plays_none_twice(tmp_path):
    # a subprocess bot makes each match last: the kill lands with a set half played, a match in flight
    path = _file(tmp_path, house=("maumau-greedy",))
    _bot(tmp_path / "subs" / "py", "py", "1")
    db = tmp_path / "out" / "ladder.db"
    for _ in range(5):
        _kill_when_halfway(path, db)
        con = sqlite3.connect(db)
        before = con.execute("SELECT id, set_id, seating, ranks, sha256 FROM matches ORDER BY id").fetchall()
        halfway = con.execute("SELECT COUNT(*) FROM sets WHERE complete = 0 AND id IN "
                              "(SELECT set_id FROM matches)").fetchone()[0]
        con.close()
        if halfway:
            break
    else:
        pytest.fail("no kill landed with a set half played")
    again = subprocess.run([sys.executable, "-m", "referee", "ladder", str(path), "--max-matches", "3"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    con = sqlite3.connect(db)
    after = con.execute("SELECT id, set_id, seating, ranks, sha256 FROM matches ORDER BY id").fetchall()
    assert after[: len(before)] == before  # nothing finished was lost
    assert len(after) == len(before) + 3  # exactly what the rerun played
    pairs = [(s, k) for _, s, k, _, _ in after]
    assert len(pairs) == len(set(pairs))  # no match twice
    for set_id, seatings, complete in con.execute("SELECT id, seatings, complete FROM sets"):
        played = sorted(k for s, k in pairs if s == set_id)
        assert played == list(range(len(played))) and (complete == (len(played) == seatings)), set_id
    assert con.execute("SELECT COUNT(*) FROM sets WHERE complete = 0").fetchone()[0] <= 1
    from referee.ladder.run import verify
    from referee.ladder.state import State

    state = State(db)
    assert verify(state, tmp_path / "out") == (len(after), [])  # every replay as its SHA-256 says
    state.close()


def test_the_table_choice_follows_its_rules_whatever_the_order():
    sets = {"new": 0, "a": 3, "b": 3, "c": 3}
    intervals = {"a": (0.0, 100.0), "b": (90.0, 200.0), "c": (20.0, 80.0), "new": None}
    # the newcomer first; then whoever overlaps it most: everyone fully (no interval), fewest sets, draw
    table = schedule.choose(["a", "b", "c", "new"], sets, intervals, 2, 1, 7)
    assert table[0] == "new"
    assert schedule.choose(["new", "c", "b", "a"], sets, intervals, 2, 1, 7) == table
    # with counts equal: a's partner is c (inside its interval), not b (10 of 100 shared)
    even = {"a": 3, "b": 4, "c": 4}
    assert schedule.choose(["a", "b", "c"], even, intervals, 2, 1, 7) == ["a", "c"]
    assert schedule.overlap((0, 100), (20, 80)) == 1.0 and schedule.overlap((0, 10), (20, 30)) == 0.0
    assert schedule.choose(["a"], {}, {}, 2, 1, 1) is None


def test_the_site_escapes_strangers_and_the_server_shows_only_pages(tmp_path):
    path = _file(tmp_path, house=("random",))
    _bot(tmp_path / "subs" / "x", "evil", "1", author="<script>alert(1)</script>")
    _run(path, 2)
    out = tmp_path / "out"
    page = (out / "site" / "index.html").read_text()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert (out / "site").is_symlink()  # swapped in whole
    from referee.ladder.site import serve

    server = serve(out, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert "evil" in urllib.request.urlopen(base + "/").read().decode()
        for secret in ("/deal.key", "/ladder.db", "/site/../deal.key", "/intake/names.json"):
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(base + secret)
    finally:
        server.shutdown()
        server.server_close()


def test_a_bad_ladder_file_is_one_line_naming_the_field(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "maumau"\nplayers = 1\nsubmissions = "s"\nout = "o"\n')
    with pytest.raises(UsageError, match="players"):
        load(bad)
    bad.write_text('game = "maumau"\nplayers = 2\nsubmissions = "s"\nout = "o"\nplayer = 3\n')
    with pytest.raises(UsageError, match="unknown field `player`"):
        load(bad)


def test_the_leaderboard_renders_in_chromium_with_every_accepted_name(browser, tmp_path):
    path = _file(tmp_path, house=("maumau-greedy",))
    _bot(tmp_path / "subs" / "a", "ana-bot", "1", author="Ana <b>P</b>")
    _bot(tmp_path / "subs" / "b", "bo-bot", "2", author="Bo")
    broken = tmp_path / "subs" / "c"
    broken.mkdir()
    (broken / "bot.toml").write_text('name = "no-run"\nauthor = "Cy"\n')  # rejected: no `run`
    _run(path, 6)
    index = tmp_path / "out" / "site" / "index.html"
    browser.call("Page.navigate", url=index.absolute().as_uri())
    for _ in range(600):
        if browser.js("document.readyState === 'complete' && !!document.querySelector('#leaderboard')"):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the leaderboard did not render")
    names = browser.js("[...document.querySelectorAll('#leaderboard tr.entrant td:nth-child(2)')].map(t => t.innerText)")
    assert sorted(names) == ["ana-bot", "bo-bot", "maumau-greedy"]
    assert "Ana <b>P</b>" in browser.js("document.querySelector('#leaderboard').innerText")  # shown as text
    assert browser.js("document.querySelectorAll('script').length") == 1  # refresh.js, nothing injected
    # an entrant's page, and a recent match's replay in the shared viewer
    browser.js("document.querySelector('#leaderboard tr.entrant a').click()")
    for _ in range(600):
        if browser.js("document.readyState === 'complete' && location.pathname.includes('/e/')"
                      " && !!document.querySelector('a[href*=viewers]')"):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the entrant's page did not render")
    assert "Rating history" in browser.js("document.body.innerText")
    browser.js("document.querySelector('a[href*=viewers]').click()")
    for _ in range(600):
        if browser.js("location.pathname.includes('/viewers/') && document.body && document.body.dataset.ready === '1'"):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the replay viewer did not start")
    # served on localhost: `/` is the leaderboard, which says it reloads itself
    from referee.ladder.site import serve

    server = serve(tmp_path / "out", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.call("Page.navigate", url=f"http://127.0.0.1:{server.server_address[1]}/")
        for _ in range(600):
            if browser.js("location.pathname === '/site/index.html' && !!document.querySelector('#leaderboard')"):
                break
            time.sleep(0.05)
        else:
            pytest.fail("the served leaderboard did not render")
        assert "bo-bot" in browser.js("document.querySelector('#leaderboard').innerText")
        assert browser.js("document.querySelector('script').src.endsWith('/site/refresh.js')")
    finally:
        server.shutdown()
        server.server_close()


def test_the_command_line_says_one_line_for_a_mistake(tmp_path):
    from typer.testing import CliRunner

    from referee.cli import app

    runner = CliRunner()
    bad = tmp_path / "L.toml"
    bad.write_text('game = "nogame"\nplayers = 2\nsubmissions = "s"\nout = "o"\n')
    for args, words in [(["ladder", str(bad)], "unknown game 'nogame'"),
                        (["ladder", str(tmp_path / "missing.toml")], "cannot read the ladder file"),
                        (["ladder", "serve", str(tmp_path)], "holds no ladder site"),
                        (["ladder", "serve"], "usage: referee ladder serve OUT")]:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert words in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1


@pytest.mark.skipif(not __import__("referee.bots.sandbox", fromlist=["available"]).available(),
                    reason="bubblewrap cannot build a sandbox here")
def test_a_sandboxed_ladder_plays_its_submissions(tmp_path):
    # the bots run in bwrap from their folder under out/intake; the ladder's own files stay hidden
    from botpython import BOT_PYTHON, open_folder

    folder = open_folder("ladder-")
    try:
        path = _file(folder, house=("random",))
        path.write_text(path.read_text().replace('sandbox = "none"', 'sandbox = "bwrap"'))
        bot = _bot(folder / "subs" / "py", "py", "1")
        (bot / "bot.toml").write_text((bot / "bot.toml").read_text().replace("python3", BOT_PYTHON))
        os.system(f"chmod -R a+rX {folder}")
        events = _run(path, 2)
        assert [e.detail["status"] for e in events if e.kind == "intake"] == ["accepted"]
        matches = [e.detail for e in events if e.kind == "match"]
        assert len(matches) == 2 and all(not any(m["faults"]) for m in matches)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(__import__("importlib").util.find_spec("distributed") is None,
                    reason="dask[distributed] is not installed")
def test_on_dask_a_set_plays_as_here(tmp_path):
    # the same ladder, here and on a local Dask cluster: the same matches, the same results
    here, there = tmp_path / "here", tmp_path / "there"
    for folder in (here, there):
        folder.mkdir()
        _file(folder)
    _run(here / "L.toml", 6)
    # the same deals: the suite pins the deal key (tests/conftest.py)
    ladder = Ladder(load(there / "L.toml"), load_registry(), "dask", None, 1)
    try:
        events = list(ladder.run(6))
    finally:
        ladder.close()
    assert sum(e.kind == "match" for e in events) == 6

    def rows(folder: Path) -> list:
        con = sqlite3.connect(folder / "out" / "ladder.db")
        got = con.execute("SELECT set_id, seating, seed, seats, ranks, scores FROM matches "
                          "ORDER BY set_id, seating").fetchall()
        con.close()
        return got

    assert rows(here) == rows(there)


def test_verify_checks_every_replay_against_the_db_and_the_rules(tmp_path):
    from typer.testing import CliRunner

    from referee.cli import app

    _run(_file(tmp_path), 4)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["ladder", "verify", str(out)])
    assert result.exit_code == 0 and "4 replays verified" in result.output, result.output
    replay = out / "replays" / "set000002-001.jsonl"
    replay.write_bytes(replay.read_bytes().replace(b'"seed"', b'"seed" ', 1))  # one byte more
    result = CliRunner().invoke(app, ["ladder", "verify", str(out)])
    assert result.exit_code == 1
    assert "set 2 seating 1 (replays/set000002-001.jsonl): differs from the SHA-256" in result.output
    # a replay edited and its SHA-256 in the db too: the rules still catch its result
    data = replay.read_bytes().replace(b'"seed" ', b'"seed"', 1)
    lines = data.splitlines(keepends=True)
    result_line = json.loads(lines[-1])
    result_line["ranks"] = result_line["ranks"][::-1]
    data = b"".join(lines[:-1]) + (json.dumps(result_line, separators=(",", ":")) + "\n").encode()
    replay.write_bytes(data)
    con = sqlite3.connect(out / "ladder.db")
    with con:
        con.execute("UPDATE matches SET sha256 = ? WHERE replay = ?",
                    (__import__("hashlib").sha256(data).hexdigest(), "replays/set000002-001.jsonl"))
    con.close()
    result = CliRunner().invoke(app, ["ladder", "verify", str(out)])
    assert result.exit_code == 1 and "set 2 seating 1" in result.output and "SHA-256" not in result.output, \
        result.output
