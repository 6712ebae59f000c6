"""Standings from journal records: order-free and name-free numbers, the batch rating's order, the
duplicate sets the interval resamples, the live tally, and the files written."""

from __future__ import annotations

import itertools
import json
import random
import tomllib
from dataclasses import asdict

import pytest

from referee.tournament import standings as st
from referee.ranking import competition_ranks

STRENGTH = {"ann": 1.0, "bob": 2.0, "cy": 3.0, "dee": 0.6, "eve": 1.4}


def journal(seed: int = 1, seeds: int = 4, games: dict[str, int] | None = None,
            strength: dict[str, float] | None = None) -> list[dict]:
    """Match records as a tournament writes them: every table of every game, each deal (seed) under
    every rotation of the seats, Plackett-Luce finishing orders, now and then a tie."""
    rng = random.Random(seed)
    strength = strength or STRENGTH
    records = []
    for game, players in (games or {"alpha": 3, "beta": 2}).items():
        for s in range(seeds):
            deal = rng.randrange(1 << 31)
            for t, table in enumerate(itertools.combinations(sorted(strength), players)):
                for r in range(players):
                    seats = list(table[r:] + table[:r])
                    left, place = list(seats), {}
                    while left:
                        x = rng.random() * sum(strength[n] for n in left)
                        for name in left:
                            x -= strength[name]
                            if x <= 0:
                                break
                        place[name] = len(place)
                        left.remove(name)
                    scores = [10 * (players - place[n]) for n in seats]
                    if rng.random() < 0.15:  # a tie: the last two score alike
                        low = sorted(scores)[:2]
                        scores = [low[1] if v == low[0] else v for v in scores]
                    records.append({"type": "match", "index": len(records), "key": f"{game}.t{t}.s{s}.r{r}",
                                    "game": game, "seed": deal, "seats": seats, "scores": scores,
                                    "ranks": competition_ranks(scores), "faults": [0] * players,
                                    "disqualified": []})
    return records


def as_data(standings: dict) -> dict:
    return json.loads(json.dumps(st.as_dict(standings)))


def test_the_same_results_in_any_order_give_identical_standings():
    records = journal()
    first = st.compute(records)
    orders = [list(reversed(records))] + [random.Random(seed).sample(records, len(records)) for seed in range(4)]
    for order in orders:
        # played in another order: the schedule positions follow the new order
        again = st.compute([{**rec, "index": i} for i, rec in enumerate(order)])
        assert again["overall"] == first["overall"]
        assert again["games"] == first["games"]
        assert again["head_to_head"] == first["head_to_head"]


def test_a_single_deal_game_is_order_free_too():
    records = journal(seed=2, seeds=1, games={"alpha": 3})
    first = st.compute(records)
    shuffled = random.Random(3).sample(records, len(records))
    assert st.compute([{**rec, "index": i} for i, rec in enumerate(shuffled)]) == first


def test_an_entrant_that_wins_every_match_ranks_first():
    records = journal(seed=5)
    for rec in records:
        if "cy" in rec["seats"]:
            seat = rec["seats"].index("cy")
            rec["scores"] = [100 if i == seat else min(v, 50) for i, v in enumerate(rec["scores"])]
            rec["ranks"] = competition_ranks(rec["scores"])
    table = st.compute(records, min_sets=4)
    for rows in [table["overall"], *table["games"].values()]:
        assert rows[0].entrant == "cy" and rows[0].wins == rows[0].matches
        assert rows[0].low <= rows[0].rating <= rows[0].high < 2000


def test_renaming_entrants_does_not_change_the_numbers():
    records = journal(seed=6)
    rename = {"ann": "zora", "bob": "al", "cy": "mo", "dee": "bea", "eve": "0x"}
    renamed = [{**rec, "seats": [rename[n] for n in rec["seats"]]} for rec in records]
    first, again = st.compute(records), st.compute(renamed)
    for scope in ["overall", *first["games"]]:
        rows = first["overall"] if scope == "overall" else first["games"][scope]
        other = {r.entrant: r for r in (again["overall"] if scope == "overall" else again["games"][scope])}
        for row in rows:
            assert asdict(other[rename[row.entrant]]) == {**asdict(row), "entrant": rename[row.entrant]}
    for game, pairs in first["head_to_head"].items():
        other = {(p.entrant, p.opponent): p for p in again["head_to_head"][game]}
        for p in pairs:
            q = other[rename[p.entrant], rename[p.opponent]]
            assert asdict(q) == {**asdict(p), "entrant": rename[p.entrant], "opponent": rename[p.opponent]}


def test_stronger_entrants_rate_higher_and_rows_are_sorted_by_rating_then_wins_then_name():
    table = st.compute(journal(seed=7, seeds=8), min_sets=8)
    for rows in [table["overall"], *table["games"].values()]:
        assert [r.entrant for r in rows][0] == "cy" and [r.entrant for r in rows][-1] == "dee"
        assert rows == sorted(rows, key=lambda r: (-r.rating, -r.wins, r.entrant))
        assert abs(sum(r.rating for r in rows)) < 0.05  # mean 0 (up to rounding)
        for r in rows:
            assert r.low <= r.rating <= r.high and r.sigma > 0
    twins = [{"type": "match", "index": i, "game": "g", "seed": i // 2, "seats": seats, "scores": [1, 1],
              "ranks": [1, 1], "faults": [0, 0], "disqualified": []}
             for i, seats in enumerate([["b", "a"], ["a", "b"]] * 3)]
    assert [r.entrant for r in st.compute(twins)["games"]["g"]] == ["a", "b"]


def test_the_interval_resamples_whole_duplicate_sets():
    # each deal favours one seat outright: within a set the rotations cancel, so a's and b's ratings
    # do not move when whole sets are resampled; resampling matches one by one would spread them
    records = []
    for seed in range(10):
        for seats in (["a", "b"], ["b", "a"]):
            records.append({"type": "match", "index": len(records), "game": "g", "seed": seed, "seats": seats,
                            "scores": [1, 0], "ranks": [1, 2], "faults": [0, 0], "disqualified": []})
    rows = st.compute(records)["games"]["g"]
    assert all(r.rating == 0 and r.low == r.high == 0 and r.sigma == 0 for r in rows)


def test_a_single_deal_resamples_its_tables():
    rows = st.compute(journal(seed=8, seeds=1, games={"alpha": 3}), min_sets=1)["games"]["alpha"]
    assert all(r.low < r.rating < r.high for r in rows)


def test_the_live_tally_rates_without_an_interval_and_holds_no_records():
    records = journal(seed=9, seeds=6)
    tally = st.Tally(points=False)
    for rec in records:
        tally.add(rec)
    for _ in range(3):  # each live table takes a few Newton steps from the last
        live = tally.table()
    final = {r.entrant: r for r in st.compute(records)["overall"]}
    assert [r.entrant for r in live] == [r.entrant for r in st.compute(records)["overall"]]
    for r in live:
        assert r.low is None and r.high is None and r.sigma is None
        assert r.rating == pytest.approx(final[r.entrant].rating, abs=0.02)
        assert (r.wins, r.matches, r.mean_rank) == (final[r.entrant].wins, final[r.entrant].matches,
                                                   final[r.entrant].mean_rank)
    # its memory: counts per entrant and per set of seats in play, never per match
    # (by game: each game's ties are its own; two games here)
    assert sum(len(s.choices) for s in tally.stats.values()) <= 2 * sum(len(list(itertools.combinations(STRENGTH, k)))
                                                                        for k in (2, 3))
    assert st.rich_table(live, "live", points=False).row_count == len(live)


def test_the_files_hold_the_standings_and_the_head_to_head_with_the_same_columns(tmp_path):
    table = st.compute(journal(seed=10, seeds=3), min_sets=3)
    table["head_to_head"]["beta"][0] = type(table["head_to_head"]["beta"][0])(
        **{**asdict(table["head_to_head"]["beta"][0]), "diff_low": None, "diff_high": None})  # as with one set
    st.write_all(table, tmp_path, "t")
    data = json.loads((tmp_path / "standings.json").read_text())
    assert st.COLUMNS == ("entrant", "matches", "wins", "mean_rank", "total_points", "mean_points", "faults",
                          "disqualified", "rating", "sigma", "low", "high", "p_best")
    assert all(list(row) == list(st.COLUMNS) for rows in data["games"].values() for row in rows)
    assert all(list(row) == [c for c in st.COLUMNS if "points" not in c and c != "p_best"] for row in data["overall"])
    assert set(data["head_to_head"]) == {"alpha", "beta"} and data["head_to_head"]["beta"][0]["diff_low"] is None
    assert len(data["head_to_head"]["alpha"]) == 10  # every pair of the five entrants met
    toml = tomllib.loads((tmp_path / "standings.toml").read_text())
    assert toml["games"] == data["games"] and toml["overall"] == data["overall"]
    assert "diff_low" not in toml["head_to_head"]["beta"][0]  # TOML has no null
    assert toml["head_to_head"]["alpha"] == data["head_to_head"]["alpha"]
    assert toml["rank_order"] == data["rank_order"] and set(data["rank_order"]["alpha"]) == set(STRENGTH)
    assert data["sets"] == {"alpha": 3, "beta": 3} and data["min_sets"] == {"alpha": 3, "beta": 3}
    md = (tmp_path / "standings.md").read_text()
    assert "## Head to head: alpha" in md and "## Head to head: beta" in md and f"## Across games ({st.ACROSS_NOTE})" in md
    assert md.index("## Game: alpha") < md.index("## Game: beta") < md.index("## Across games")  # each game first
    assert "| # | " + " | ".join(st.COLUMNS) + " |" in md
    header = (tmp_path / "standings.csv").read_text().splitlines()[0]
    assert header == ",".join(("scope",) + st.COLUMNS)


def test_standings_of_a_journal_streamed_are_those_of_its_records(tmp_path, monkeypatch):
    """compute_journal reads the journal in one streamed pass (never read_journal's list) and
    gives the standings of its counted records: a second record of an index is left out, and so
    are an SPRT entry's matches beyond its deciding set."""
    from referee.tournament import sprt

    records = journal(seeds=3)
    for rec in records[::7]:
        rec["scores"] = [v + 0.5 for v in rec["scores"]]
    decision = {"type": "sprt", "game_index": 0, "sets": 1, "llr": 3.0, "verdict": "H1", "first": 0,
                "last": 9, "end": 30}
    lines = [{"type": "tournament", "name": "t"}, *records, {**records[3], "ranks": records[3]["ranks"][::-1]},
             decision]
    path = tmp_path / "journal.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    expected = as_data(st.compute(sprt.counted(records, [decision])))

    def whole(*args, **kwargs):
        raise AssertionError("the whole journal read into a list")

    monkeypatch.setattr(st, "read_journal", whole)
    assert as_data(st.compute_journal(path)) == expected
    assert expected != as_data(st.compute(records)), "the cut must matter here"


def test_a_float_score_stays_a_float_though_an_equal_int_score_came_first():
    """compute keeps a small Result per record, sharing the tuples that repeat: never an int
    tuple for an equal float one (points of 12.0 are written 12.0, of 12 as 12)."""
    base = {"type": "match", "game": "g", "seats": ["a", "b"], "ranks": [1, 2], "faults": [0, 0],
            "disqualified": []}
    records = [{**base, "index": 0, "seed": 1, "scores": [2, 1]}, {**base, "index": 1, "seed": 2, "scores": [2.0, 1.0]}]
    rows = {r.entrant: r for r in st.compute(records)["games"]["g"]}
    assert type(rows["a"].total_points) is float and rows["a"].total_points == 4.0
    rows = {r.entrant: r for r in st.compute(records[:1])["games"]["g"]}
    assert type(rows["a"].total_points) is int


def test_below_min_sets_no_range_is_given_and_the_files_say_why(tmp_path):
    table = st.compute(journal(seed=11, seeds=2))  # the default: 10 sets
    for rows in [table["overall"], *table["games"].values()]:
        assert all(r.sigma is None and r.low is None and r.high is None and r.p_best is None for r in rows)
    assert all(p.diff_low is None and p.diff_high is None and p.los is None
               for pairs in table["head_to_head"].values() for p in pairs)
    assert table["rank_order"] == {"alpha": None, "beta": None} and table["sets"] == {"alpha": 2, "beta": 2}
    st.write_all(table, tmp_path, "t")
    data = json.loads((tmp_path / "standings.json").read_text())
    assert all(row["low"] is None and row["high"] is None and row["sigma"] is None
               for rows in [data["overall"], *data["games"].values()] for row in rows)
    assert data["head_to_head"]["alpha"][0]["los"] is None and data["rank_order"]["alpha"] is None
    toml = tomllib.loads((tmp_path / "standings.toml").read_text())
    assert "low" not in toml["games"]["alpha"][0] and "los" not in toml["head_to_head"]["alpha"][0]
    assert "alpha" not in toml["rank_order"]
    md = (tmp_path / "standings.md").read_text()
    assert md.count("fewer than 10 duplicate sets (2)") >= 4 and "None" not in md
    assert "## Rank order" not in md
    # a file's min_sets, by game: alpha's 2 sets are enough for it, beta's are not
    table = st.compute(journal(seed=11, seeds=2), {"alpha": 2})
    assert all(r.low is not None for r in table["games"]["alpha"]) and table["rank_order"]["alpha"] is not None
    assert all(r.low is None for r in table["games"]["beta"] + table["overall"])


def test_at_min_sets_every_range_is_given_and_the_rank_order_sums_to_one(tmp_path):
    table = st.compute(journal(seed=12, seeds=10))
    for rows in [table["overall"], *table["games"].values()]:
        assert all(r.low < r.rating < r.high and r.sigma > 0 for r in rows)
    for game, rows in table["games"].items():
        assert sum(r.p_best for r in rows) == pytest.approx(1, abs=1e-3)
        order = table["rank_order"][game]
        for a in order:
            for b in order[a]:
                assert order[a][b] + order[b][a] == pytest.approx(1, abs=1e-3)
        assert rows[0].p_best == max(r.p_best for r in rows)
    assert all(p.diff_low is not None and p.los is not None for pairs in table["head_to_head"].values() for p in pairs)
    st.write_all(table, tmp_path, "t")
    md = (tmp_path / "standings.md").read_text()
    assert "## Rank order: alpha" in md and "fewer than" not in md and "None" not in md
