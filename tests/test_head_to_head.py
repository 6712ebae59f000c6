"""Head-to-head records: counts, orientation, the points difference by duplicate set and its interval,
the likelihood of superiority."""

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
    pairs = {(p.entrant, p.opponent): p for p in h2h.pairs(units, ["a", "b", "c"])}
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


def test_los_of_equal_records_is_one_half_and_grows_with_the_margin():
    assert h2h.los(0, 0) == 0.5 and h2h.los(7, 7) == 0.5
    assert h2h.los(10, 0) == pytest.approx(0.5 * (1 + math.erf(math.sqrt(10) / math.sqrt(2))))
    assert h2h.los(60, 40) == pytest.approx(0.97725, abs=1e-5)  # Phi(2)
    assert h2h.los(40, 60) == pytest.approx(1 - h2h.los(60, 40))
    units = [[rec(1, ["a", "b"], [1, 0], [1, 2]), rec(1, ["b", "a"], [1, 0], [1, 2])],
             [rec(2, ["a", "b"], [0, 0], [1, 1])]]
    (pair,) = h2h.pairs(units, ["a", "b"])
    assert (pair.ahead, pair.behind, pair.ties, pair.los) == (1, 1, 1, 0.5)


@pytest.mark.parametrize("df, value", [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423),
                                       (120, 1.9799), (1000, 1.9623)])
def test_t_quantile(df, value):
    assert h2h.t_quantile(df) == pytest.approx(value, abs=1e-4)


def test_the_numbers_do_not_depend_on_the_order_of_the_matches():
    rng = random.Random(4)
    units = [[rec(s, rng.sample(["a", "b", "c"], 3), [rng.random() * 10 for _ in range(3)], [1, 2, 3])
              for _ in range(4)] for s in range(6)]
    first = h2h.pairs(units, ["a", "b", "c"])
    for seed in range(3):
        shuffled = [rng.sample(unit, len(unit)) for unit in units]
        random.Random(seed).shuffle(shuffled)
        assert h2h.pairs(shuffled, ["a", "b", "c"]) == first


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
        (pair,) = h2h.pairs(simulated_sets(rng, 8, 2.5), ["a", "b"])
        covered += pair.diff_low < 2.5 < pair.diff_high
    assert 180 <= covered <= 198  # 95% nominal


def test_the_index_page_shows_a_head_to_head_table_per_game(tmp_path):
    from referee.replay.index import write_index

    lines = [{"type": "tournament", "name": "t"}]
    for index, (seed, seats) in enumerate([(1, ["<a>", "b"]), (1, ["b", "<a>"]), (2, ["<a>", "b"])]):
        lines.append({**rec(seed, seats, [2, 1], [1, 2]), "index": index, "key": f"g.{index}"})
    (tmp_path / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    text = write_index(tmp_path).read_text()
    assert "<h2>Head to head: g</h2>" in text and "&lt;a&gt;" in text and "<a>" not in text
    heads = "".join(f'<th class="{"l" if k in ("entrant", "opponent") else ""}">{k}</th>' for k in h2h.COLUMNS)
    assert heads in text  # the columns of standings.json
