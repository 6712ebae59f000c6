"""Head-to-head records: counts, orientation, the points difference by duplicate set and its interval,
the likelihood of superiority over sets, and no interval or LOS below min_sets."""

from __future__ import annotations

import json
import math
import random

import pytest

from referee.tournament import head_to_head as h2h


def rec(seed: int, seats: list[str], scores: list[float], ranks: list[int]) -> dict:
    return {"type": "match", "game": "g", "seed": seed, "seats": seats, "scores": scores, "ranks": ranks,
            "faults": [0] * len(seats), "disqualified": []}


def test_counts_on_a_small_journal():
    units = [
        [rec(1, ["a", "b", "c"], [9, 5, 5], [1, 2, 2]), rec(1, ["b", "c", "a"], [7, 1, 3], [1, 3, 2])],
        [rec(2, ["c", "a", "b"], [4, 4, 0], [1, 1, 3])],
    ]
    pairs = {(p.entrant, p.opponent): p for p in h2h.pairs(units, ["a", "b", "c"], min_sets=2)}
    assert set(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    ab, ac, bc = pairs["a", "b"], pairs["a", "c"], pairs["b", "c"]
    assert (ab.matches, ab.ahead, ab.behind, ab.ties, ab.sets) == (3, 2, 1, 0, 2)
    assert (ac.matches, ac.ahead, ac.behind, ac.ties) == (3, 2, 0, 1)
    assert (bc.matches, bc.ahead, bc.behind, bc.ties) == (3, 1, 1, 1)
    # a - b: set 1 has (9-5) and (3-7): mean 0; set 2 has 4-0 = 4; the mean over sets is 2
    assert ab.mean_diff == 2.0
    assert ab.diff_low == pytest.approx(2 - 12.7062 * 2, abs=1e-3) and ab.diff_high == pytest.approx(2 + 12.7062 * 2,
                                                                                                        abs=1e-3)
    assert [(p.entrant, p.opponent) for p in h2h.pairs(units, ["a", "b", "c"])] == [("a", "b"), ("a", "c"),
                                                                                     ("b", "c")]


def test_the_entrant_is_the_one_higher_in_the_standings():
    units = [[rec(1, ["a", "b"], [3, 1], [1, 2])], [rec(2, ["b", "a"], [2, 2], [1, 1])]]
    (pair,) = h2h.pairs(units, ["b", "a"])
    assert (pair.entrant, pair.opponent, pair.ahead, pair.behind, pair.ties) == ("b", "a", 0, 1, 1)
    assert pair.mean_diff == -1.0


def test_a_single_set_has_no_interval():
    (pair,) = h2h.pairs([[rec(1, ["a", "b"], [3, 1], [1, 2]), rec(1, ["b", "a"], [0, 1], [2, 1])]], ["a", "b"])
    assert pair.sets == 1 and pair.mean_diff == 1.5 and pair.diff_low is None and pair.diff_high is None


def test_los_is_students_t_over_the_per_set_scores():
    assert h2h.los([0.5]) is None and h2h.los([0.0, 0.0]) == 0.5 and h2h.los([1.0, 1.0]) == 1.0
    assert h2h.los([-1.0, 1.0, 0.0]) == 0.5
    # mean 0.5, sd 1/sqrt(3) over 4 sets: t = sqrt(3) with 3 degrees of freedom, where Student's
    # distribution function is 1/2 + (x / (1 + x^2) + atan(x)) / pi at x = t / sqrt(3) = 1
    exact = 0.5 + (0.5 + math.pi / 4) / math.pi
    assert h2h.los([0.0, 1.0, 0.0, 1.0]) == pytest.approx(exact, abs=1e-9)
    assert h2h.los([0.0, -1.0, 0.0, -1.0]) == pytest.approx(1 - exact, abs=1e-9)
    units = [[rec(1, ["a", "b"], [1, 0], [1, 2]), rec(1, ["b", "a"], [1, 0], [1, 2])],
             [rec(2, ["a", "b"], [0, 0], [1, 1])]]
    (pair,) = h2h.pairs(units, ["a", "b"], min_sets=2)
    assert (pair.ahead, pair.behind, pair.ties, pair.los) == (1, 1, 1, 0.5)


def test_the_set_is_the_unit_of_the_los():
    """Seatings that agree within each set while the sets disagree: as many sets won as lost, so
    nothing says one is better (LOS 0.5), where counting seatings as independent meetings (a's sets
    happen to hold more of them) said about 1."""
    units = []
    for seed in range(12):
        winner, meetings = ("a", 15) if seed % 2 else ("b", 10)
        units.append([rec(seed, seats, [1 if n == winner else 0 for n in seats],
                          [1 if n == winner else 2 for n in seats]) for seats in (["a", "b"], ["b", "a"])] * meetings)
    (pair,) = h2h.pairs(units, ["a", "b"])
    assert (pair.ahead, pair.behind, pair.sets) == (180, 120, 12)
    assert pair.los == 0.5
    old = 0.5 * (1 + math.erf((180 - 120) / math.sqrt(2 * 300)))  # Phi((ahead - behind) / sqrt(ahead + behind))
    assert old > 0.999


def test_below_min_sets_there_is_no_interval_and_no_los():
    rng = random.Random(3)
    units = simulated_sets(rng, 9, 2.5)
    (pair,) = h2h.pairs(units, ["a", "b"])  # the default: 10 sets
    assert pair.sets == 9 and pair.diff_low is None and pair.diff_high is None and pair.los is None
    (pair,) = h2h.pairs(units, ["a", "b"], min_sets=9)
    assert pair.diff_low < pair.mean_diff < pair.diff_high and 0 <= pair.los <= 1
    (pair,) = h2h.pairs(units + simulated_sets(rng, 1, 2.5), ["a", "b"])
    assert pair.diff_low is not None and pair.los is not None


@pytest.mark.parametrize("df, value", [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423),
                                       (120, 1.9799), (1000, 1.9623)])
def test_t_quantile(df, value):
    assert h2h.t_quantile(df) == pytest.approx(value, abs=1e-4)


def test_the_numbers_do_not_depend_on_the_order_of_the_matches():
    rng = random.Random(4)
    units = [[rec(s, rng.sample(["a", "b", "c"], 3), [rng.random() * 10 for _ in range(3)], [1, 2, 3])
              for _ in range(4)] for s in range(6)]
    first = h2h.pairs(units, ["a", "b", "c"], min_sets=2)
    assert all(p.los is not None for p in first)
    for seed in range(3):
        shuffled = [rng.sample(unit, len(unit)) for unit in units]
        random.Random(seed).shuffle(shuffled)
        assert h2h.pairs(shuffled, ["a", "b", "c"], min_sets=2) == first


def simulated_sets(rng: random.Random, sets: int, true_diff: float) -> list[list[dict]]:
    """Duplicate sets of a two-seat game: a deal's luck favours a seat (the same in both seatings);
    a's points exceed b's by `true_diff` on average."""
    units = []
    for seed in range(sets):
        luck = rng.gauss(0, 10)  # the deal favours seat 0 by this
        unit = []
        for seats in (["a", "b"], ["b", "a"]):
            skill = {"a": true_diff, "b": 0.0}
            scores = [skill[seats[0]] + luck + rng.gauss(0, 3), skill[seats[1]] + rng.gauss(0, 3)]
            ranks = [1, 2] if scores[0] > scores[1] else [2, 1]
            unit.append(rec(seed, seats, scores, ranks))
        units.append(unit)
    return units


def test_the_interval_contains_the_true_difference_on_simulated_data():
    rng = random.Random(12)
    (pair,) = h2h.pairs(simulated_sets(rng, 30, 2.5), ["a", "b"])
    assert pair.diff_low < 2.5 < pair.diff_high
    covered = 0
    for _ in range(200):
        (pair,) = h2h.pairs(simulated_sets(rng, 8, 2.5), ["a", "b"], min_sets=8)
        covered += pair.diff_low < 2.5 < pair.diff_high
    assert 180 <= covered <= 198  # 95% nominal


def test_the_index_page_shows_a_head_to_head_table_per_game(tmp_path):
    from referee.tournament.index import write_index

    lines = [{"type": "tournament", "name": "t"}]
    for index, (seed, seats) in enumerate([(1, ["<a>", "b"]), (1, ["b", "<a>"]), (2, ["<a>", "b"])]):
        lines.append({**rec(seed, seats, [2, 1], [1, 2]), "index": index, "key": f"g.{index}"})
    (tmp_path / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    text = write_index(tmp_path).read_text()
    assert "<h2>Head to head: g</h2>" in text and "&lt;a&gt;" in text and "<a>" not in text
    heads = "".join(f'<th class="{"l" if k in ("entrant", "opponent") else ""}">{k}</th>' for k in h2h.COLUMNS)
    assert heads in text  # the columns of standings.json
