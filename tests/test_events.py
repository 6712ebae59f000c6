"""A tournament as a generator of typed events (referee/tournament/driver.py, events.py) and
`referee.run_tournament`: the events' order, the standings Finished carries, leaving the loop
early (the workers stop, the journal resumes), and `import referee` staying cheap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import referee
from referee.tournament import events as ev

ROOT = Path(__file__).resolve().parent.parent

TOURNAMENT = """
name = "ev"
seed = 11
duplicate = true
seeds = 3
concurrency = {concurrency}
[output]
viewers = false
[[entrants]]
name = "r"
strategy = "random"
[[entrants]]
name = "f"
strategy = "first"
[[games]]
game = "maumau"
players = 2
config = {{ target = 30 }}
"""


def tournament(tmp_path: Path, concurrency: int = 1) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT.format(concurrency=concurrency))
    return path


def journal(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]


def test_a_run_yields_its_events_in_order_and_finished_carries_the_standings(tmp_path):
    out = tmp_path / "out"
    events = list(referee.run_tournament(tournament(tmp_path, concurrency=2), out=out))
    kinds = [type(e) for e in events]
    assert kinds[:2] == [ev.Started, ev.BackendReady]
    assert kinds[-1] is ev.Finished and kinds.count(ev.Finished) == 1
    plan = events[0].plan
    assert (plan.name, plan.total, plan.done, plan.out) == ("ev", 6, 0, out)
    started = [e.key for e in events if isinstance(e, ev.MatchStarted)]
    finished = [e for e in events if isinstance(e, ev.MatchFinished)]
    assert sorted(started) == sorted(e.record["key"] for e in finished) and len(started) == 6
    # each match is told once it is journaled: the progress counts up to the whole schedule
    assert [e.progress.done for e in finished] == list(range(1, 7))
    assert all(e.progress.total == 6 for e in finished)
    assert finished[-1].progress.faults == sum(sum(e.record["faults"]) for e in finished)
    assert kinds.index(ev.StandingsWritten) > max(i for i, k in enumerate(kinds) if k is ev.MatchFinished)
    done = events[-1]
    assert done.index == out / "index.html" and done.index.is_file() and done.verified is None
    assert all(Path(p).is_file() for p in done.paths)
    # the standings it carries are those written (one computation)
    written = json.loads((out / "standings.json").read_text())
    assert [r["entrant"] for r in written["overall"]] == [r.entrant for r in done.standings["overall"]]
    assert sum(r.matches for r in done.standings["overall"]) == 2 * 6


def test_leaving_the_loop_early_stops_the_workers_and_resume_finishes(tmp_path):
    out = tmp_path / "out"
    path = tournament(tmp_path)
    events = referee.run_tournament(path, out=out)
    for event in events:
        if isinstance(event, ev.MatchFinished):
            first = event.record
            break
    events.close()
    # the worker that played it has ended, and the output directory is free again
    pid = first["pid"]
    assert pid != os.getpid()
    assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    held = [r for r in journal(out) if r["type"] == "match"]
    assert 1 <= len(held) < 6 and first["index"] in {r["index"] for r in held}
    assert not (out / "standings.json").exists()
    # `referee tournament --resume` finishes it: every match once, the old ones kept
    proc = subprocess.run([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(out), "--resume"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"({len(held)} already in the journal)" in proc.stdout
    matches = [r for r in journal(out) if r["type"] == "match"]
    assert sorted(r["index"] for r in matches) == list(range(6))
    assert matches[:len(held)] == held
    assert (out / "standings.json").is_file() and (out / "index.html").is_file()


def test_a_second_run_on_a_journal_without_resume_is_refused_before_any_event(tmp_path):
    out = tmp_path / "out"
    path = tournament(tmp_path)
    assert isinstance(list(referee.run_tournament(path, out=out))[-1], ev.Finished)
    from referee.errors import UsageError

    try:
        next(referee.run_tournament(path, out=out))
    except UsageError as exc:
        assert "--resume" in str(exc)
    else:
        raise AssertionError("a run over a finished journal started")
    resumed = list(referee.run_tournament(path, out=out, resume=True))
    assert resumed[0].plan.done == 6 and not any(isinstance(e, ev.MatchFinished) for e in resumed)
    assert isinstance(resumed[-1], ev.Finished)


def test_import_referee_stays_cheap():
    code = ("import sys, referee; print(sorted(m for m in sys.modules if m.startswith(('referee.', 'rich', 'pluggy'))"
            " and m != 'referee.version'))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"
    code = "import referee; print(referee.run_tournament.__module__)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "referee.tournament.driver"


def _section(text: str, title: str) -> str:
    """The text of docs/python-api.md's section `title` (up to the next `## `)."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def test_the_tournaments_section_of_the_python_api_doc_runs(tmp_path, monkeypatch, capsys):
    section = _section((ROOT / "docs" / "python-api.md").read_text(), "Tournaments")
    blocks = section.split("```")[1::2]
    toml = [b[len("toml\n"):] for b in blocks if b.startswith("toml\n")]
    code = [b[len("python\n"):] for b in blocks if b.startswith("python\n")]
    assert len(toml) == 1 and len(code) == 2
    (tmp_path / "tournament.toml").write_text(toml[0])
    monkeypatch.chdir(tmp_path)
    for block in code:
        exec(compile(block, "docs/python-api.md", "exec"), {})
    shown = capsys.readouterr().out
    assert "4 matches, 0 already journaled" in shown and "4/4 " in shown and "written: out/standings.json" in shown
    assert len([r for r in journal(tmp_path / "out-early") if r["type"] == "match"]) == 4


def _journal_of_every_kind(path: Path) -> None:
    """A journal by hand: an SPRT entry decided after its 10th set with matches beyond it, a
    plain entry, faults, a match journaled twice, failures (one played since, one not)."""
    import random

    rng = random.Random(4)
    lines: list[dict] = [{"type": "tournament", "name": "every", "matches": 40,
                          "sprt": {"0": {"elo0": 0, "elo1": 50, "alpha": 0.05, "beta": 0.05}}}]
    index = 0
    for g, sets in ((0, 12), (1, 4)):
        for s in range(sets):
            for r, seats in enumerate((["a", "b"], ["b", "a"]) if g == 0 else (["a", "c"], ["c", "a"])):
                ranks = [1, 2] if rng.random() < 0.6 else [2, 1]
                faults = [int(rng.random() < 0.2), 0]
                log = [{"seat": 0, "kind": "timeout", "detail": f"late in {index}", "log": None}] if faults[0] else []
                lines.append({"type": "match", "index": index, "key": f"maumau.g{g}.t0.s{s}.r{r}", "game": "maumau",
                              "seed": 1000 * g + s, "seats": seats, "scores": [10 - ranks[0], 10 - ranks[1]],
                              "ranks": ranks, "faults": faults, "disqualified": [], "fault_log": log,
                              "replay": f"replays/m{index}.jsonl"})
                if index == 3:
                    lines.append({**lines[-1], "ranks": ranks[::-1]})  # journaled twice: the first counts
                if index == 20:
                    lines.append({"type": "sprt", "game_index": 0, "sets": 10, "llr": 3.1, "verdict": "H1",
                                  "first": 0, "last": 19, "end": 24})
                index += 1
    lines.insert(5, {"type": "failure", "index": 7, "key": "maumau.g0.t0.s3.r1", "error": "boom", "traceback": "t"})
    lines.append({"type": "failure", "index": 40, "key": "maumau.g1.t0.s4.r0", "error": "bang", "traceback": "t"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_the_one_pass_over_the_journal_counts_as_each_function_reading_it_alone(tmp_path):
    from referee.tournament import sprt
    from referee.tournament import standings as st
    from referee.tournament.outputs import read_once
    from referee.tournament.reporting import fault_rows

    path = tmp_path / "journal.jsonl"
    _journal_of_every_kind(path)
    table, rows = read_once(path, sprt.read_decisions(path))
    alone = st.compute_journal(path)
    for key in ("overall", "games", "head_to_head", "rank_order", "sets", "min_sets"):
        assert table[key] == alone[key], key
    assert table["sets"] == {"maumau": 14}  # sets 10 and 11 of the SPRT entry are beyond its decision
    assert table["faults"] == fault_rows(st.counted_journal(path)) and table["faults"]
    assert table["failed"] == st.failed_matches(path) and [f["index"] for f in table["failed"]] == [40]
    assert [o.record() for o in table["sprt"]] == [o.record() for o in st.sprt_outcomes(path)]
    assert table["sprt"][0].sets == 10
    # the index's rows: every match once, the uncounted ones too
    assert [m.index for m in rows.matches] == list(range(32)) and rows.entrants == {"a", "b", "c"}
