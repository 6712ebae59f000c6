"""The goodness-of-fit line (referee/tournament/fit.py): pairwise counts, the factor, a scale that
fits and one that does not, order-free and reproducible numbers, and the standings' line."""

from __future__ import annotations

import json
import math
import random

import pytest

from referee.tournament import fit

STRENGTH = {"a": 0.0, "b": 0.3, "c": 0.6, "d": 0.9, "e": 1.2}  # log-strengths


def tournament(seed: int, finish, sets: int = 10) -> list[tuple[list[str], list[int]]]:
    """Every 4-seat table of the five entrants under its 4 rotations, `sets` deals; ranks from `finish`."""
    rng = random.Random(seed)
    names = sorted(STRENGTH)
    out = []
    for _ in range(sets):
        for left_out in names:
            table = [n for n in names if n != left_out]
            for r in range(4):
                seats = table[r:] + table[:r]
                out.append((seats, finish(rng, seats)))
    return out


def plackett_luce(rng: random.Random, seats: list[str]) -> list[int]:
    left, order = list(seats), []
    while left:
        x = rng.random() * sum(math.exp(STRENGTH[s]) for s in left)
        for name in left:
            x -= math.exp(STRENGTH[name])
            if x <= 0:
                break
        order.append(name)
        left.remove(name)
    return [order.index(s) + 1 for s in seats]


def steep(rng: random.Random, seats: list[str]) -> list[int]:
    """The winner drawn Plackett-Luce, the other places at random: the fit, reading strength in every
    place, rates the gaps smaller than the pairwise odds the winners make."""
    ranks = plackett_luce(rng, seats)
    rest = [s for s, r in zip(seats, ranks) if r != 1]
    rng.shuffle(rest)
    return [1 if r == 1 else rest.index(s) + 2 for s, r in zip(seats, ranks)]


def test_pair_counts_leave_ties_apart():
    counts = fit.pair_counts([(["b", "a", "c"], [1, 2, 2]), (["a", "b"], [1, 2]), (["a", "b"], [1, 1])])
    assert counts == {("a", "b"): [1, 1], ("b", "c"): [1, 0]}
    assert fit.pair_counts([(["a", "b"], [2, 1])], [3]) == {("a", "b"): [0, 3]}


def test_the_factor_is_the_slope_of_observed_on_predicted_log_odds():
    pairs = {("a", "b"): [100, 300]}
    gap = fit.gaps(pairs, {"a": 0.0, "b": 1.0})
    assert gap == {("a", "b"): -1.0}
    # b ahead 3 times in 4: observed log-odds log 3, predicted 1: the factor is log 3
    assert fit.factor(pairs, gap) == pytest.approx(math.log(3), abs=1e-6)
    assert fit.factor({("a", "b"): [1, 1]}, {("a", "b"): 0.0}) == 1.0  # no gap: nothing to scale
    assert fit.deviance({("a", "b"): [100, 100]}, {("a", "b"): 0.0}) == pytest.approx(0)


def test_with_ties_the_predicted_odds_are_the_models_own():
    # two seats: P(a ahead) : P(b ahead) is ga : gb whatever delta; four seats with ties: close to it
    theta = {"a": 0.0, "b": 1.0, "c": 0.5, "d": -0.5}
    two = fit.gaps({("a", "b"): [1, 1]}, theta, {2: 0.7}, {("a", "b"): 5})
    assert two[("a", "b")] == pytest.approx(-1.0, abs=1e-12)
    four = fit.gaps({("a", "b"): [1, 1]}, theta, {2: 0.3, 4: 0.1}, {("a", "b", "c", "d"): 5})
    assert four[("a", "b")] != pytest.approx(-1.0, abs=1e-3) and -1.5 < four[("a", "b")] < -0.5


def test_a_tournament_drawn_from_the_model_fits():
    result = fit.check(tournament(1, plackett_luce))
    assert not result.warns and result.p > 0.05 and 0.8 < result.factor < 1.25
    assert "the scale fits" in result.line("g")


def test_steeper_pairwise_odds_than_the_ratings_say_warn():
    result = fit.check(tournament(2, steep))
    assert result.factor > 1.15 and result.warns and result.p == pytest.approx(2 / 201)  # beyond every simulation
    assert result.line("Presidente").startswith("Presidente: the ratings understate the pairwise odds by a factor")


def test_the_fit_is_order_free_and_reproducible():
    matches = tournament(3, plackett_luce, sets=6)
    first = fit.check(matches, simulations=30)
    shuffled = list(matches)
    random.Random(0).shuffle(shuffled)
    assert fit.check(shuffled, simulations=30) == first == fit.check(matches, simulations=30)
    assert json.loads(json.dumps(first.record()))["pairs"] == 10
    assert fit.check([(["a", "b"], [1, 1])]) is None  # no decisive pair: nothing to judge


def with_ties(rng: random.Random, seats: list[str]) -> list[int]:
    """Plackett-Luce, the last two tied half the time."""
    ranks = plackett_luce(rng, seats)
    return [3 if r == 4 else r for r in ranks] if rng.random() < 0.5 else ranks


def test_the_standings_give_the_line_per_game_only_at_min_sets(tmp_path):
    from referee.tournament import standings as st

    records = [{"type": "match", "index": i, "game": "g", "seed": i // 20, "seats": seats, "ranks": ranks,
                "scores": [-r for r in ranks], "faults": [0] * 4, "disqualified": []}
               for i, (seats, ranks) in enumerate(tournament(4, with_ties, sets=10))]
    table = st.compute(records)
    assert isinstance(table["fit"]["g"], fit.Fit) and table["ties"]["model"] == "davidson-luce"
    shuffled = random.Random(1).sample(records, len(records))
    again = st.compute([{**rec, "index": i} for i, rec in enumerate(shuffled)])
    assert again["fit"] == table["fit"] and again["ties"] == table["ties"] and "2" in table["ties"]["delta"]["g"]
    assert st.compute(records, min_sets=11)["fit"]["g"] is None
    st.write_all(table, tmp_path)
    data = json.loads((tmp_path / "standings.json").read_text())
    assert data["fit"]["g"]["pairs"] == 10 and data["ties"]["model"] == "davidson-luce"
    text = (tmp_path / "standings.md").read_text()
    assert "## Fit of the rating scale" in text and "- g: observed pairwise log-odds" in text
    assert "fit,g," in (tmp_path / "standings.csv").read_text()
    assert st.compute(records, ties="breslow")["ties"]["model"] == "breslow"


def test_a_journal_made_under_breslow_is_read_under_breslow(tmp_path):
    from referee.tournament import standings as st

    records = [{"type": "match", "index": i, "game": "g", "seed": i // 2, "seats": seats, "ranks": ranks,
                "scores": [-r for r in ranks], "faults": [0, 0], "disqualified": []}
               for i, (seats, ranks) in enumerate([(["a", "b"], [1, 1]), (["b", "a"], [1, 2])] * 6)]
    for head, model in (({"type": "tournament", "name": "t"}, "davidson-luce"),
                        ({"type": "tournament", "name": "t", "ties": "breslow"}, "breslow")):
        path = tmp_path / "journal.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in [head, *records]))
        table = st.compute_journal(path)
        assert table["ties"]["model"] == model
        assert "Ties: " + ("Breslow" if model == "breslow" else "Davidson-Luce") in st.fit_lines(table)[-1]
