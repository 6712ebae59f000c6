"""Match keys (issue 29): readable (game, table, seed, seating), unique, safe as file names and
sorted as the schedule; never the id a bot is sent; a journal written with the keys of before
resumes and reads as it was. And a refused --resume names what changed in the schedule."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import UsageError
from referee.plugins import load_registry
from referee.runner import Limits
from referee.tournament import run as tour
from referee.tournament import schedule, sprt
from referee.tournament.config import load_tournament
from referee.tournament.journal import JOURNAL, Journal
from referee.tournament.run import play

ROOT = Path(__file__).resolve().parent.parent
# written by the referee of before issue 29, under the suite's deal key (tests/conftest.py)
OLD = Path(__file__).resolve().parent / "old_journal"
REGISTRY = load_registry()
KEY = re.compile(r"[A-Za-z0-9_]+(-games[0-9]+)?-t[0-9]+-seed[0-9]+-seating[0-9]+")

ENTRANTS = "".join(f'[[entrants]]\nname = "{n}"\nstrategy = "{s}"\n'
                   for n, s in (("ann", "random"), ("bob", "first"), ("cid", "maumau-greedy"), ("dan", "first"), ("eve", "random")))


def tournament(tmp_path: Path, games: str, top: str = "", name: str = "t.toml"):
    path = tmp_path / name
    path.write_text("seed = 5\n" + top + "[output]\nviewers = false\n" + ENTRANTS + games)
    return load_tournament(path, REGISTRY, out=tmp_path / "out")


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


# -- readable keys ------------------------------------------------------------------------------

TWO_MAUMAU = ('[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 11\n'
              '[[games]]\ngame = "presidente"\nplayers = 4\nseeds = 2\n'
              '[[games]]\ngame = "maumau"\nplayers = 3\nseeds = 2\n')


def test_keys_name_game_table_seed_and_seating(tmp_path):
    config = tournament(tmp_path, '[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 3\n', "duplicate = true\n")
    keys = [m.key for m in config.matches()]
    # 10 tables of 2 among 5, 3 seeds, 2 seatings: table, then seed, then seating
    assert keys[:4] == ["maumau-t0-seed0-seating0", "maumau-t0-seed0-seating1",
                        "maumau-t0-seed1-seating0", "maumau-t0-seed1-seating1"]
    assert keys[-1] == "maumau-t9-seed2-seating1"


def test_keys_are_unique_file_safe_and_sort_as_the_schedule(tmp_path):
    config = tournament(tmp_path, TWO_MAUMAU, "duplicate = true\n")
    matches = config.matches()
    keys = [m.key for m in matches]
    assert len(set(keys)) == len(keys) and all(KEY.fullmatch(k) for k in keys)
    # the game entry's index only where the game has two entries
    assert {k.split("-t")[0] for k in keys} == {"maumau-games0", "presidente", "maumau-games2"}
    for span in config.spans():  # zero-padded: a listing of the files is the schedule's order
        assert sorted(keys[span.start:span.stop]) == keys[span.start:span.stop]
    assert "maumau-games0-t0-seed10-seating1" in keys and "maumau-games0-t0-seed09-seating1" in keys
    read = schedule.key_reader([entry.game for entry in config.games])
    for m in matches[::7]:
        g, t, s, r = read(m.key)
        assert config.games[g].game == m.game and m.index in config.spans()[g]
        assert m.seed == schedule.derive_seed(config.seed, m.game, g, s)


def test_entry_labels_are_file_safe_and_differ_whatever_the_case():
    assert schedule.entry_labels(["maumau", "Maumau", "crazy-eights", "../x", ""]) == [
        "maumau-games0", "Maumau-games1", "crazy_eights", "___x", "game"]
    read = schedule.key_reader(["maumau", "Maumau"])
    assert read("Maumau-games1-t3-seed04-seating0") == (1, 3, 4, 0)
    assert read("maumau-t3-seed04-seating0") is None and read("maumau.g0.t0.s0.r0") is None
    assert schedule.key_reader(None)("maumau.g1.t2.s3.r4") == (1, 2, 3, 4)
    eleven = schedule.entry_labels(["maumau"] * 11)
    assert eleven[2] == "maumau-games02" and sorted(eleven) == eleven


def test_the_id_a_bot_is_sent_is_not_the_key(tmp_path):
    config = tournament(tmp_path, '[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 1\n')
    spec = config.matches()[0]
    record = play(spec, config.entrants, Limits(), str(tmp_path / "out"))
    header = json.loads((tmp_path / "out" / record["replay"]).read_text().splitlines()[0])
    # the sealed match id (referee/sealing.py): the game and 16 hex digits, nothing of the schedule
    assert re.fullmatch(r"maumau-[0-9a-f]{16}", header["match"]) and spec.key not in header["match"]
    assert record["key"] == spec.key == "maumau-t0-seed0-seating0"


# -- journals written with the keys of before ---------------------------------------------------

def _old_copy(tmp_path: Path) -> Path:
    """The old tournament's folder, its journal cut after 10 matches (as a killed run leaves it)."""
    folder = tmp_path / "old"
    (folder / "out").mkdir(parents=True)
    shutil.copy(OLD / "old.toml", folder)
    for name in ("journal.jsonl", "sign.key", "sign.pub"):
        shutil.copy(OLD / name, folder / "out" / name)
    return folder


def test_a_journal_with_the_keys_of_before_resumes_with_them(tmp_path):
    folder = _old_copy(tmp_path)
    resumed = referee("tournament", "old.toml", "--out", "out", "--resume", cwd=folder)
    assert resumed.returncode == 0, resumed.stderr
    fields = ("index", "key", "seats", "scores", "ranks")
    lines = [json.loads(line) for line in (folder / "out" / JOURNAL).read_text().splitlines()]
    full = [json.loads(line) for line in (OLD / "full.jsonl").read_text().splitlines()]
    assert "schedule" not in lines[0] and lines[0]["fingerprint"] == full[0]["fingerprint"]
    got = sorted(({k: r[k] for k in fields} for r in lines[1:]), key=lambda r: r["index"])
    # the matches the old referee played, uninterrupted: the same keys, seats and results
    assert got == sorted(({k: r[k] for k in fields} for r in full[1:]), key=lambda r: r["index"])
    assert all(re.fullmatch(r"maumau\.g[01]\.t\d+\.s\d+\.r\d+", r["key"]) for r in got)
    assert referee("standings", "out/journal.jsonl", "--out", "again", cwd=folder).returncode == 0
    export = referee("export", "out/journal.jsonl", cwd=folder)
    assert export.returncode == 0 and "maumau.g1.t0.s1.r2" in export.stdout


def test_sprt_outcomes_read_either_kind_of_key(tmp_path):
    config = tournament(tmp_path, '[[games]]\ngame = "maumau"\nplayers = 2\nschedule = "gauntlet"\n'
                        'focus = "cid"\nseeds = 30\nduplicate = true\n[games.sprt]\nelo0 = 0\nelo1 = 50\nalpha = 0.05\nbeta = 0.05\n')
    rng = random.Random(3)
    new, old = config.matches(), config.matches(dotted=True)
    ranks = [[1, 2] if "cid" == m.seats[0] or rng.random() < 0.3 else [2, 1] for m in new]
    tests = sprt.heads(config)

    def records(matches):
        return [{"key": m.key, "game": m.game, "seats": list(m.seats), "ranks": r} for m, r in zip(matches, ranks)]

    described = {"sprt": tests, "schedule": schedule.describe(config.seed, config.games)}
    [outcome] = sprt.outcomes(described, records(new), [])
    assert outcome.sets == 30 and outcome.focus == "cid"
    assert sprt.outcomes({"sprt": tests}, records(old), []) == [outcome]
    assert sprt.outcomes({"sprt": tests}, records(new), []) == []  # a key of the other kind counts for nothing


# -- a refused --resume names what changed --------------------------------------------------------

BASE = '[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 2\nentrants = ["ann", "bob", "cid"]\nconfig = { target = 50 }\n'


def _refusal(tmp_path: Path, before: str, after: str, top: str = "duplicate = true\n", top_after: str | None = None) -> str:
    config = tournament(tmp_path, before, top)
    config.out.mkdir()
    prepared = tour.prepare(config, False)
    Journal(config.out / JOURNAL, prepared.head, prepared.signer).close()  # the head alone
    changed = tournament(tmp_path, after, top if top_after is None else top_after)
    with pytest.raises(UsageError) as caught:
        tour.prepare(changed, True)
    message = str(caught.value)
    assert message.startswith(f"cannot resume {config.out / JOURNAL}: ") and "\n" not in message
    return message.split(": ", 1)[1].split(" since it was written")[0]


@pytest.mark.parametrize("after, top_after, said", [
    (BASE.replace("seeds = 2", "seeds = 3"), None, "games[0].seeds changed (2 then, 3 now)"),
    (BASE.replace('"cid"]', '"cid", "dan"]'), None, "entrant 'dan' was added to games[0] (maumau)"),
    (BASE.replace(', "cid"]', "]"), None, "entrant 'cid' was removed from games[0] (maumau)"),
    (BASE.replace('"ann", "bob"', '"bob", "ann"'), None,
     'the entrants of games[0] (maumau) were reordered (["ann", "bob", "cid"] then, ["bob", "ann", "cid"] now)'),
    (BASE.replace("players = 2", "players = 3"), None, "games[0].players changed (2 then, 3 now)"),
    (BASE.replace("target = 50", "target = 60"), None, "games[0].config.target changed (50 then, 60 now)"),
    (BASE + '[[games]]\ngame = "presidente"\nplayers = 4\n', None, "games[1] (presidente) was added"),
    (BASE, 'duplicate = true\nseating = "rotation"\n', 'games[0].seating changed ("balanced" then, "rotation" now)'),
    (BASE, "duplicate = false\n", "games[0].duplicate changed (true then, false now)"),
    (BASE.replace('players = 2', 'players = 2\nschedule = "gauntlet"\nfocus = "bob"'), None,
     'games[0].schedule changed ("round-robin" then, "gauntlet" now)'),
])
def test_a_refused_resume_names_what_changed(tmp_path, after, top_after, said):
    assert _refusal(tmp_path, BASE, after, top_after=top_after) == said


def test_a_refused_resume_names_a_changed_focus(tmp_path):
    gauntlet = BASE.replace('players = 2', 'players = 2\nschedule = "gauntlet"\nfocus = "bob"')
    assert (_refusal(tmp_path, gauntlet, gauntlet.replace('"bob"\n', '"cid"\n'))
            == 'games[0].focus changed ("bob" then, "cid" now)')


def test_a_refused_resume_names_a_changed_seed_or_a_removed_entry(tmp_path):
    two = BASE + '[[games]]\ngame = "maumau"\nplayers = 3\nseeds = 1\n'
    assert _refusal(tmp_path, two, BASE) == "games[1] (maumau) was removed"
    (tmp_path / "out" / JOURNAL).unlink()
    config = tournament(tmp_path, BASE, "duplicate = true\n")
    Journal(config.out / JOURNAL, tour.prepare(config, False).head).close()
    path = tmp_path / "t.toml"
    path.write_text(path.read_text().replace("seed = 5", "seed = 6"))
    with pytest.raises(UsageError, match=r"seed changed \(5 then, 6 now\)"):
        tour.prepare(load_tournament(path, REGISTRY, out=tmp_path / "out"), True)


def test_a_journal_of_before_keeps_the_message_of_before(tmp_path):
    folder = _old_copy(tmp_path)
    path = folder / "old.toml"
    path.write_text(path.read_text().replace("seeds = 2", "seeds = 3"))
    with pytest.raises(UsageError, match=r"the schedule changed \(games, seeds, table sizes, seatings or "
                                         r"entrants' games\): 24 matches then, 36 now"):
        tour.prepare(load_tournament(path, REGISTRY, out=folder / "out"), True)
