"""SPRT gauntlets (referee/tournament/sprt.py): the LLR math, the file's `sprt` key, and whole tournaments
that stop early, with verdicts that depend on the results only (concurrency, kill and resume)."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.tournament import sprt
from referee.errors import ConfigError
from referee.plugins import load_registry
from referee.tournament.standings import read_journal, sprt_outcomes
from referee.tournament.config import load_tournament

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = load_registry()


def referee(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# maumau-greedy against two random players at 3-seat tables: 6 seatings a seed, one table
GREEDY = """
name = "sprt"
seed = 3
concurrency = 1
[output]
viewers = false  # journal and standings are read: no viewer page to build
[[entrants]]
strategy = "maumau-greedy"
[[entrants]]
strategy = "random"
[[entrants]]
name = "random2"
strategy = "random"
[[games]]
game = "maumau"
players = 3
schedule = "gauntlet"
focus = "maumau-greedy"
duplicate = true
seeds = 200
sprt = { elo0 = 0, elo1 = 50, alpha = 0.05, beta = 0.05 }
"""

# two entrants that play alike, the same deterministic strategy under two names
IDENTICAL = """
seed = 4
concurrency = 1
[output]
viewers = false
[[entrants]]
name = "first"
strategy = "first"
[[entrants]]
name = "first2"
strategy = "first"
[[games]]
game = "maumau"
players = 2
schedule = "gauntlet"
focus = "first"
duplicate = true
seeds = 200
sprt = { elo0 = 0, elo1 = 50, alpha = 0.05, beta = 0.05 }
"""


def decisions(out: Path) -> list[dict]:
    # without their signatures: a decision journaled on --resume comes later in the signed chain
    return [{k: v for k, v in d.items() if k != "signature"} for d in sprt.read_decisions(out / "journal.jsonl")]


def standings(out: Path) -> dict:
    """standings.json without the entrants' resources: timings, no two runs alike (issue 29)."""
    return {k: v for k, v in json.loads((out / "standings.json").read_text()).items() if k != "resources"}


@pytest.fixture(scope="module")
def greedy(tmp_path_factory):
    """The greedy gauntlet's file and an uninterrupted run of it at concurrency 1."""
    tmp = tmp_path_factory.mktemp("greedy")
    path = write(tmp, GREEDY)
    started = time.monotonic()
    proc = referee("tournament", str(path), "--out", str(tmp / "fresh"))
    assert proc.returncode == 0, proc.stderr
    return path, tmp / "fresh", proc.stdout, time.monotonic() - started


# -- the math --------------------------------------------------------------------------------


def test_bounds_and_llr_against_hand_computed_values():
    test = sprt.Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    lower, upper = test.bounds()
    assert lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439, abs=1e-6)
    assert upper == pytest.approx(2.944439, abs=1e-6)
    assert sprt.expected_score(10) == pytest.approx(0.5143872, abs=1e-7)
    # 4 sets: mean 0.55, population variance (0.05^2 + 0.15^2 + 0.15^2 + 0.05^2) / 4 = 0.0125;
    # LLR = 4 / 2 ln((0.0125 + 0.05^2) / (0.0125 + (0.55 - 0.5143872)^2)) = 0.171367
    assert test.llr([0.6, 0.4, 0.7, 0.5]) == pytest.approx(0.171367, abs=1e-6)
    assert test.llr([]) == 0.0
    # asymmetric error rates
    assert sprt.Sprt(0, 5, 0.1, 0.2).bounds() == pytest.approx((math.log(0.2 / 0.9), math.log(0.8 / 0.1)))


def test_zero_variance_is_floored_not_divided_by():
    test = sprt.Sprt(0, 10, 0.05, 0.05)
    # 10 sets of exactly 1/2: LLR = 10 / 2 ln(1e-4 / (1e-4 + 0.0143872^2)) = -5.6082
    assert test.llr([0.5] * 10) == pytest.approx(-5.6082, abs=1e-3)
    assert test.verdict([0.5] * 10) == sprt.H0
    # far above both hypotheses the variance fitted under each absorbs much of the gap: each set
    # adds 1/2 ln((1e-4 + 0.4^2) / (1e-4 + (0.9 - 0.5715)^2)) = 0.198 for elo1 50, so 15 sets decide
    wide = sprt.Sprt(0, 50, 0.05, 0.05)
    assert wide.verdict([0.9] * 14) is None and wide.verdict([0.9] * 15) == sprt.H1


def test_no_verdict_before_min_sets():
    clear = sprt.Sprt(0, 200, 0.05, 0.05)  # 9 sets of 1.0 give an LLR of 6.6, past the bound
    assert clear.llr([1.0] * (sprt.MIN_SETS - 1)) > clear.bounds()[1]
    assert clear.verdict([1.0] * (sprt.MIN_SETS - 1)) is None
    assert clear.verdict([1.0] * sprt.MIN_SETS) == sprt.H1
    test = sprt.Sprt(0, 10, 0.05, 0.05)
    assert test.verdict([0.6, 0.4] * 10) is None  # LLR -0.205, inside the bounds: continue
    assert test.llr([0.6, 0.4] * 10) == pytest.approx(-0.2049, abs=1e-4)


def _profile_llr(scores, mean_of):
    """The normal LLR of H1 to H0 by brute force: each hypothesis's likelihood maximised over a
    fine grid of standard deviations, its mean `mean_of(hypothesis, sd)`."""
    def best(h):
        return max(sum(-math.log(sd) - (x - mean_of(h, sd)) ** 2 / (2 * sd * sd) for x in scores)
                   for sd in (0.001 * 1.001 ** i for i in range(8000)))
    return best(1) - best(0)


def test_the_llr_fits_the_variance_under_each_hypothesis():
    # the GSPRT's LLR is the likelihood ratio with the unknown variance fitted under each
    # hypothesis (the known-variance approximation gave 0.197 for these sets)
    scores = [0.6, 0.4, 0.7, 0.5, 0.45]
    test = sprt.Sprt(0, 40, 0.05, 0.05)
    s = {0: sprt.expected_score(0), 1: sprt.expected_score(40)}
    assert test.llr(scores) == pytest.approx(_profile_llr(scores, lambda h, sd: s[h]), abs=1e-3)


def test_normalized_elo_is_a_mean_in_standard_deviations():
    scores = [0.6, 0.4, 0.7, 0.5, 0.45]
    test = sprt.Sprt(0, 100, 0.05, 0.05, model=sprt.NORMALIZED)
    t = {0: 0.0, 1: 100 * math.log(10) / 800}
    assert sprt.nelo_t(100) == pytest.approx(t[1])
    assert test.llr(scores) == pytest.approx(_profile_llr(scores, lambda h, sd: 0.5 + t[h] * sd), abs=1e-3)
    logistic = sprt.Sprt(0, 100, 0.05, 0.05)
    assert test.llr(scores) != pytest.approx(logistic.llr(scores), abs=1e-2)
    assert test.as_dict()["model"] == "normalized" and "model" not in logistic.as_dict()


def test_the_file_s_model_reaches_the_test_and_the_journal_s_head(tmp_path):
    text = GREEDY.replace("beta = 0.05 }", 'beta = 0.05, model = "normalized" }')
    config = load_tournament(write(tmp_path, text), REGISTRY)
    assert config.games[0].sprt.model == sprt.NORMALIZED
    assert sprt.heads(config) == {"0": {"elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05, "model": "normalized"}}
    assert load_tournament(write(tmp_path, GREEDY, "l.toml"), REGISTRY).games[0].sprt.model == sprt.LOGISTIC


def test_first_decision_reads_the_sets_in_order_like_a_gauntlet():
    test = sprt.Sprt(0, 50, 0.05, 0.05)
    scores = [0.9, 0.8, 1.0, 0.7] * 10
    verdict, n = test.first_decision(scores)
    assert verdict == sprt.H1 and n > sprt.MIN_SETS and test.verdict(scores[:n]) == sprt.H1
    assert all(test.verdict(scores[:k]) is None for k in range(n))
    assert test.first_decision([0.6, 0.4] * 5) == (None, 10)


def test_pairwise_and_set_scores_count_ties_half():
    rec = {"seats": ["a", "b", "c"], "ranks": [2, 1, 2]}  # competition ranks: a ties c, b ahead of both
    assert sprt.pairwise_score(rec, "a") == 0.25
    assert sprt.pairwise_score(rec, "b") == 1.0
    other = {"seats": ["c", "a", "b"], "ranks": [3, 1, 2]}
    assert sprt.set_score([rec, other], "a") == pytest.approx((0.25 + 1.0) / 2)


def test_elo_and_its_interval_from_set_scores():
    assert sprt.elo_of(sprt.expected_score(123.0)) == pytest.approx(123.0)
    assert sprt.elo_of(1.0) == math.inf and sprt.elo_of(0.0) == -math.inf
    e = sprt.estimate(25, 0.6, 0.04)  # se = sqrt(0.04 / 24)
    se = math.sqrt(0.04 / 24)
    assert e.elo == pytest.approx(sprt.elo_of(0.6))
    assert e.low == pytest.approx(sprt.elo_of(0.6 - 1.959964 * se))
    assert e.high == pytest.approx(sprt.elo_of(0.6 + 1.959964 * se))
    assert 0.99 < e.los < 1


def fake_records(config, rng):
    """A made-up result for every scheduled match (random ranks, ties now and then)."""
    records = []
    for m in config.matches():
        ranks = [rng.randint(1, len(m.seats)) for _ in m.seats]
        ranks = [1 + sum(r < mine for r in ranks) for mine in ranks]  # competition ranks
        if "maumau-greedy" in m.seats and rng.random() < 0.5:  # the focus does well
            ranks[m.seats.index("maumau-greedy")] = 1
        records.append({"index": m.index, "seats": list(m.seats), "ranks": ranks})
    return records


def test_the_decision_and_the_counted_records_do_not_depend_on_arrival_order(tmp_path):
    config = load_tournament(write(tmp_path, GREEDY), REGISTRY)
    records = fake_records(config, random.Random(7))
    outcomes = set()
    for seed in range(5):
        shuffled = records[:]
        random.Random(seed).shuffle(shuffled)
        gauntlets = sprt.Gauntlets(config)
        made = [d for d in map(gauntlets.add, shuffled) if d is not None]
        assert len(made) == 1
        kept = sprt.counted(shuffled, [made[0].record()])
        outcomes.add((made[0], tuple(sorted(r["index"] for r in kept))))
    assert len(outcomes) == 1
    decision, kept = outcomes.pop()
    assert decision.verdict == sprt.H1 and decision.sets >= sprt.MIN_SETS
    assert kept == tuple(range(decision.sets * 6)) and decision.last == decision.sets * 6 - 1


def test_first_decision_decides_as_the_gauntlet_does(tmp_path):
    # bench/stats.py measures the error rates through Sprt.first_decision: the same verdict at
    # the same set as the gauntlet a tournament runs
    config = load_tournament(write(tmp_path, GREEDY), REGISTRY)
    records = fake_records(config, random.Random(11))
    gauntlets = sprt.Gauntlets(config)
    [made] = [d for d in map(gauntlets.add, records) if d is not None]
    [g] = gauntlets
    scores = [sprt.set_score(records[k * g.size:(k + 1) * g.size], "maumau-greedy") for k in range(200)]
    assert config.games[0].sprt.first_decision(scores) == (made.verdict, made.sets)


def test_an_sprt_entry_is_scheduled_seed_by_seed(tmp_path):
    text = GREEDY.replace('[[games]]', '[[entrants]]\nstrategy = "first"\n[[games]]')
    config = load_tournament(write(tmp_path, text), REGISTRY)
    keys = [m.key for m in config.matches()]
    # 3 tables (the focus with every 2 of 3 others), each seed's 3 x 6 matches together
    assert len(keys) == 3 * 200 * 6
    assert [k.split("-")[2] for k in keys[:18]] == ["seed000"] * 18
    assert {k.split("-")[1] for k in keys[:18]} == {"t0", "t1", "t2"}
    assert keys[18].split("-")[1:3] == ["t0", "seed001"]
    assert config.spans() == [range(0, 3600)]


def test_spans_are_each_game_entry_s_schedule_indices(tmp_path):
    text = GREEDY + '[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 3\n[[games]]\ngame = "maumau"\nplayers = 3\n' \
        'duplicate = true\nseating = "rotation"\nseeds = 2\n'
    config = load_tournament(write(tmp_path, text), REGISTRY)
    matches = config.matches()
    spans = config.spans()
    assert [len(span) for span in spans] == [1200, 3 * 3, 1 * 2 * 3] and spans[-1].stop == len(matches)
    for g, span in enumerate(spans):
        assert {m.key.split("-")[1] for m in matches[span.start:span.stop]} == {f"games{g}"}


# -- the file --------------------------------------------------------------------------------


@pytest.mark.parametrize("change, key", [
    (('schedule = "gauntlet"\n', ""), "games[0].sprt"),
    (("alpha = 0.05, ", ""), "games[0].sprt.alpha"),
    (("alpha = 0.05", "alpha = 0.5"), "games[0].sprt.alpha"),
    (("beta = 0.05", "beta = 0"), "games[0].sprt.beta"),
    (("beta = 0.05", 'beta = "5%"'), "games[0].sprt.beta"),
    (("elo1 = 50", "elo1 = 0"), "games[0].sprt.elo1"),
    (("elo0 = 0", "elo0 = true"), "games[0].sprt.elo0"),
    (("elo0 = 0", "elo0 = nan"), "games[0].sprt.elo0"),
    (("elo0 = 0", "elo0 = 0, elo2 = 1"), "games[0].sprt.elo2"),
    (("sprt = {", "sprt = 3 #"), "games[0].sprt"),
    (("beta = 0.05", 'beta = 0.05, model = "bayes"'), "games[0].sprt.model"),
    (("seeds = 200", "seeds = 9"), "games[0].seeds"),
])
def test_a_wrong_sprt_is_one_line_naming_the_key(tmp_path, change, key):
    text = GREEDY.replace(*change)
    assert text != GREEDY
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_tournament(path, REGISTRY)
    message = str(info.value)
    assert message.startswith(f"{path}: {key}: expected") and "\n" not in message, message


def test_a_wrong_sprt_exits_2_with_one_line(tmp_path):
    path = write(tmp_path, GREEDY.replace("elo1 = 50", "elo1 = -5"))
    proc = referee("tournament", str(path), "--out", str(tmp_path / "o"))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "games[0].sprt.elo1" in lines[0], proc.stderr
    assert not (tmp_path / "o").exists()


# -- tournaments -----------------------------------------------------------------------------


def test_a_better_focus_is_accepted_early(greedy):
    path, out, stdout, _ = greedy
    [decision] = decisions(out)
    assert decision["verdict"] == sprt.H1 and sprt.MIN_SETS <= decision["sets"] < 200
    assert decision["last"] == decision["sets"] * 6 - 1 and decision["end"] == 1200
    _, records = read_journal(out / "journal.jsonl")
    assert len(records) < 1200 and {r["index"] for r in records} >= set(range(decision["sets"] * 6))
    # the standings count the deciding sets only
    focus = next(r for r in standings(out)["games"]["maumau"] if r["entrant"] == "maumau-greedy")
    assert focus["matches"] == decision["sets"] * 6
    # the summary block and the plain progress lines
    assert "H1 accepted: better than the field" in stdout
    assert f"Sets: {decision['sets']} of at most 200" in stdout
    assert "LLR: " in stdout and "(-2.94, 2.94) [0.00, 50.00]" in stdout
    assert any(line.startswith("sprt games[0] maumau-greedy: LLR ") for line in stdout.splitlines())
    counts = [line.split()[:3] for line in stdout.splitlines() if " matches played, " in line]
    assert counts[-1][0] == counts[-1][2] == str(len(records)), counts


def test_two_entrants_that_play_alike_do_not_accept_h1(tmp_path):
    out = tmp_path / "o"
    proc = referee("tournament", str(write(tmp_path, IDENTICAL)), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    found = decisions(out)
    assert all(d["verdict"] != sprt.H1 for d in found)
    assert "H1 accepted" not in proc.stdout


def test_the_verdict_is_the_same_at_concurrency_two(greedy, tmp_path):
    path, fresh, _, _ = greedy
    out = tmp_path / "c2"
    proc = referee("tournament", str(path), "--out", str(out), "--concurrency", "2")
    assert proc.returncode == 0, proc.stderr
    assert decisions(out) == decisions(fresh)
    assert standings(out) == standings(fresh)


def test_killed_and_resumed_gives_the_same_verdict_and_standings(greedy, tmp_path):
    path, fresh, _, _ = greedy
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(killed)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    journal = killed / "journal.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count('"type":"match"') >= 20:
            break
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert decisions(killed) == [], "the kill must land before the decision"

    resumed = referee("tournament", str(path), "--out", str(killed), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert decisions(killed) == decisions(fresh)
    assert standings(killed) == standings(fresh)
    assert "H1 accepted: better than the field" in resumed.stdout


def test_a_decided_entry_resumes_to_nothing_more(greedy, tmp_path):
    path, fresh, _, _ = greedy
    out = tmp_path / "again"
    out.mkdir()
    # a run killed between its deciding match and the decision's line: --resume journals it
    lines = (fresh / "journal.jsonl").read_text().splitlines(keepends=True)
    (out / "journal.jsonl").write_text("".join(line for line in lines if '"type":"sprt"' not in line))
    (out / "sign.key").write_bytes((fresh / "sign.key").read_bytes())  # the key that signed the journal
    proc = referee("tournament", str(path), "--out", str(out), "--resume")
    assert proc.returncode == 0, proc.stderr
    _, before = read_journal(fresh / "journal.jsonl")
    _, after = read_journal(out / "journal.jsonl")
    assert after == before, "nothing more is played"
    assert decisions(out) == decisions(fresh)
    assert standings(out) == standings(fresh)
    again = referee("tournament", str(path), "--out", str(out), "--resume")
    assert again.returncode == 0 and decisions(out) == decisions(fresh)
    assert (out / "journal.jsonl").read_text().count('"type":"sprt"') == 1


def test_the_standings_command_counts_what_the_tournament_counted(greedy, tmp_path):
    _, fresh, _, _ = greedy
    proc = referee("standings", str(fresh / "journal.jsonl"), "--out", str(tmp_path / "s"))
    assert proc.returncode == 0, proc.stderr
    assert standings(tmp_path / "s") == standings(fresh)


def test_resume_with_other_sprt_parameters_is_refused(greedy, tmp_path):
    path, fresh, _, _ = greedy
    out = tmp_path / "other"
    out.mkdir()
    (out / "journal.jsonl").write_text((fresh / "journal.jsonl").read_text())
    other = write(tmp_path, path.read_text().replace("elo1 = 50", "elo1 = 20"))
    proc = referee("tournament", str(other), "--out", str(out), "--resume")
    assert proc.returncode == 2 and "games[0].sprt changed" in proc.stderr, proc.stderr


def test_the_index_counts_what_the_standings_count(greedy, tmp_path):
    # index.html computed from the journal alone leaves out the matches beyond the deciding set too
    import re
    import shutil

    from referee.tournament.index import write_index

    _, out, _, _ = greedy
    copy = tmp_path / "copy"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("*.html"))
    text = write_index(copy, REGISTRY).read_text()
    focus = next(r for r in standings(out)["games"]["maumau"] if r["entrant"] == "maumau-greedy")
    row = re.search(r"<td class=\"l\">maumau-greedy</td><td[^>]*>(\d+)</td>", text)
    assert row is not None and int(row.group(1)) == focus["matches"]


# -- the verdict in every output -------------------------------------------------------------


def test_the_verdict_is_in_every_standings_file_and_the_index(greedy, tmp_path):
    import tomllib

    _, out, _, _ = greedy
    [decision] = decisions(out)
    for where in (out, tmp_path / "s"):  # the tournament's files, and `referee standings`'s
        if where != out:
            proc = referee("standings", str(out / "journal.jsonl"), "--out", str(where))
            assert proc.returncode == 0, proc.stderr
            assert f"sprt games[0] maumau-greedy: LLR {decision['llr']:.2f} (-2.94, 2.94), {decision['sets']} " \
                   "sets: H1 accepted: better than the field" in proc.stdout
        [test] = standings(where)["sprt"]
        assert (test["verdict"], test["sets"], test["llr"]) == ("H1", decision["sets"], round(decision["llr"], 4))
        assert (test["focus"], test["lower"], test["upper"], test["elo1"]) == ("maumau-greedy", -2.9444, 2.9444, 50)
        assert test["matches"] == decision["sets"] * 6 and test["elo"] > 0
        assert tomllib.loads((where / "standings.toml").read_text())["sprt"] == [test]
        csv = (where / "standings.csv").read_text()
        assert f"sprt,0,maumau,maumau-greedy,3,logistic,0.0,50.0,0.05,0.05,{decision['sets']}," in csv
        md = (where / "standings.md").read_text()
        assert "## SPRT" in md and f"| {decision['sets']} ({decision['sets'] * 6} matches) |" in md
        assert "H1 accepted: better than the field" in md
    page = (out / "index.html").read_text()
    assert '<section id="sprt">' in page and "focus maumau-greedy" in page
    assert f"{decision['llr']:.2f} (bounds -2.94, 2.94)" in page and f"{decision['sets']} duplicate sets" in page


def test_an_undecided_entry_says_so_and_its_llr_is_the_gauntlet_s(greedy, tmp_path):
    # the journal of a run stopped after 5 sets: no verdict, and no verdict possible yet
    path, out, _, _ = greedy
    config = load_tournament(path, REGISTRY)
    lines = (out / "journal.jsonl").read_text().splitlines(keepends=True)
    kept = [line for line in lines if '"type":"tournament"' in line
            or '"type":"match"' in line and json.loads(line)["index"] < 5 * 6]
    journal = tmp_path / "journal.jsonl"
    journal.write_text("".join(kept))
    gauntlets = sprt.Gauntlets(config)
    for line in kept[1:]:
        gauntlets.add(json.loads(line))
    [g] = gauntlets
    [outcome] = sprt_outcomes(journal)
    assert outcome.verdict is None and outcome.sets == g.counted == 5 and outcome.llr == g.llr()
    assert outcome.result() == "no verdict before 10 sets (5 counted)"
    assert g.status().endswith("5 of 200 sets (no verdict before 10 sets)")
    # shuffled, the same outcome
    shuffled = kept[1:]
    random.Random(1).shuffle(shuffled)
    journal.write_text(kept[0] + "".join(shuffled))
    assert sprt_outcomes(journal) == [outcome]


def test_the_simulation_runs_through_the_project_s_functions(tmp_path):
    # a tiny run of bench/stats.py's SPRT section (the full one: python bench/stats.py sprt)
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "stats.py"), "sprt", "--runs", "20",
                           "--elo1", "150", "--json", str(tmp_path / "stats.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads((tmp_path / "stats.json").read_text())["sprt"]) == 8
    rows = [line.split() for line in proc.stdout.splitlines() if line.split()[:1] in (["2"], ["4"])]
    assert len(rows) == 8 and all(0 <= float(r[3]) <= 1 and float(r[8]) >= sprt.MIN_SETS for r in rows)
