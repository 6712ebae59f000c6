"""referee.tournament.designs: the seating designs of duplicate tournaments, and their use in the schedule."""

from __future__ import annotations

import math
from dataclasses import replace
from collections import Counter
from pathlib import Path

import pytest

from referee.tournament import designs
from referee.plugins import load_registry
from referee.runner import Limits
from referee.tournament.run import play
from referee.tournament.config import MatchSpec, _count, derive_seed, load_tournament, tables

REGISTRY = load_registry()
KS = range(2, 11)  # every table size a built-in game allows (Mau Mau: 2 to 10)
#: seatings per deal seed of the balanced design, by table size
BALANCED_SIZES = {2: 2, 3: 6, 4: 24, 5: 20, 6: 60, 7: 42, 8: 56, 9: 72, 10: 360}


def is_seating(p, k) -> bool:
    return sorted(p) == list(range(k))


def pair_counts(design, k) -> Counter:
    """(entrant x, entrant y, seat of x, seat of y) -> how many seatings put them there."""
    counts = Counter()
    for p in design:
        for i in range(k):
            for j in range(k):
                if i != j:
                    counts[p[i], p[j], i, j] += 1
    return counts


# -- the designs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("k", KS)
def test_balanced_seats_every_pair_of_entrants_in_every_pair_of_seats_equally_often(k):
    design = designs.balanced(k)
    assert len(design) == BALANCED_SIZES[k] == designs.size("balanced", k)
    assert design[0] == tuple(range(k)) and len(set(design)) == len(design)
    assert all(is_seating(p, k) for p in design)
    counts = pair_counts(design, k)
    assert len(counts) == (k * (k - 1)) ** 2 and len(set(counts.values())) == 1
    assert counts[0, 1, 0, 1] == len(design) // (k * (k - 1))


@pytest.mark.parametrize("k", KS)
def test_balanced_puts_each_entrant_in_each_seat_equally_often(k):
    design = designs.balanced(k)
    seats = Counter((x, s) for p in design for s, x in enumerate(p))
    assert len(seats) == k * k and set(seats.values()) == {len(design) // k}


@pytest.mark.parametrize("k", KS)
def test_balanced_puts_each_entrant_at_each_offset_after_every_other_equally_often(k):
    design = designs.balanced(k)
    offsets = Counter()
    for p in design:
        seat = {x: s for s, x in enumerate(p)}
        for x in range(k):
            for y in range(k):
                if x != y:
                    offsets[x, y, (seat[y] - seat[x]) % k] += 1  # y sits that many seats after x
    assert len(offsets) == k * (k - 1) * (k - 1) and set(offsets.values()) == {len(design) // (k - 1)}


@pytest.mark.parametrize("k", range(2, 5))
def test_up_to_4_seats_balanced_is_every_order(k):
    assert designs.balanced(k) == designs.all_orders(k)


@pytest.mark.parametrize("k", [5, 7, 8, 9])
def test_prime_powers_get_the_fewest_seatings_a_pair_balanced_design_can_have(k):
    # each ordered pair of entrants in each ordered pair of seats exactly once: k (k - 1) seatings
    assert set(pair_counts(designs.balanced(k), k).values()) == {1}


@pytest.mark.parametrize("k", range(1, 8))
def test_all_orders_is_every_permutation_and_closed_under_swapping_two_entrants(k):
    design = designs.all_orders(k)
    assert len(design) == math.factorial(k) == designs.size("all", k) and len(set(design)) == len(design)
    assert design[0] == tuple(range(k))
    as_set = set(design)
    for x in range(k):
        for y in range(x + 1, k):
            swap = {x: y, y: x}
            assert {tuple(swap.get(i, i) for i in p) for p in design} == as_set


@pytest.mark.parametrize("k", range(1, 11))
def test_rotation_is_the_k_rotations_and_keeps_every_offset_fixed(k):
    design = designs.rotation(k)
    table = tuple(f"e{i}" for i in range(k))
    assert [tuple(table[i] for i in p) for p in design] == [table[r:] + table[:r] for r in range(k)]
    assert designs.size("rotation", k) == k
    for x in range(k):
        for y in range(k):  # y sits the same number of seats after x in every seating
            assert len({(p.index(y) - p.index(x)) % k for p in design}) == 1


@pytest.mark.parametrize("k", [11, 12, 13, 14, 16])
def test_balanced_beyond_10_seats_stays_pair_balanced(k):
    design = designs.balanced(k)
    assert len(design) == designs.size("balanced", k) and len(set(pair_counts(design, k).values())) == 1


def test_size_never_builds_a_huge_design():
    assert designs.size("all", 10) == 3_628_800
    assert designs.size("balanced", 15) == math.factorial(15)  # neither 15 nor 14 a prime power: every order
    with pytest.raises(ValueError):
        designs.seatings("latin", 4)


# -- the schedule ----------------------------------------------------------------------------------

ENTRANTS = "".join(f'[[entrants]]\nname = "e{i}"\nstrategy = "random"\n' for i in range(7))


def tournament(tmp_path: Path, games: str, top: str = ""):
    path = tmp_path / "t.toml"
    path.write_text("seed = 5\n" + top + ENTRANTS + games)
    return load_tournament(path, REGISTRY)


def old_matches(config) -> list[MatchSpec]:
    """The schedule as `matches()` built it before seating designs (cyclic rotations only)."""
    specs: list[MatchSpec] = []
    for g_index, entry in enumerate(config.games):
        seeds = [derive_seed(config.seed, entry.game, g_index, i) for i in range(entry.seeds)]
        for t_index, table in enumerate(tables(entry)):
            rotations = [table[r:] + table[:r] for r in range(len(table) if entry.duplicate else 1)]
            for s_index, seed in enumerate(seeds):
                for r, seats in enumerate(rotations):
                    key = f"{entry.game}.g{g_index}.t{t_index}.s{s_index}.r{r}"
                    specs.append(MatchSpec(len(specs), key, entry.game, entry.config, seed, seats))
    return specs


GAMES = [
    '[[games]]\ngame = "maumau"\nplayers = 3\nseeds = 2\n',
    '[[games]]\ngame = "maumau"\nplayers = 5\nschedule = "gauntlet"\nfocus = "e2"\n',
    '[[games]]\ngame = "presidente"\nseeds = 2\n[[games]]\ngame = "maumau"\nplayers = 6\nentrants = '
    '["e0", "e1", "e2", "e3", "e4", "e5"]\nduplicate = false\n',
]


@pytest.mark.parametrize("games", GAMES)
def test_the_rotation_seating_reproduces_the_old_schedule_exactly(tmp_path, games):
    config = tournament(tmp_path, games, 'duplicate = true\nseating = "rotation"\n')
    # with the keys of then (issue 29 made them readable: a journal of before keeps its own)
    assert config.matches(dotted=True) == old_matches(config)
    plain = tournament(tmp_path, games)  # no duplicate: one seating, as before
    assert plain.matches(dotted=True) == old_matches(plain)
    assert [replace(m, key="") for m in config.matches()] == [replace(m, key="") for m in old_matches(config)]


@pytest.mark.parametrize("seating", designs.DESIGNS)
@pytest.mark.parametrize("games", GAMES + ['[[games]]\ngame = "mayor"\nschedule = "gauntlet"\nfocus = "e0"\n'])
def test_the_counted_schedule_is_the_schedule_built_for_every_design(tmp_path, games, seating):
    config = tournament(tmp_path, games, f'duplicate = true\nseating = "{seating}"\n')
    matches = config.matches()
    assert sum(_count(g, f"games[{i}]", {})[0] for i, g in enumerate(config.games)) == len(matches)
    assert len({m.key for m in matches}) == len(matches)
    assert [m.index for m in matches] == list(range(len(matches)))


def test_a_duplicate_set_is_the_design_applied_to_the_table(tmp_path):
    config = tournament(tmp_path, '[[games]]\ngame = "maumau"\nplayers = 5\nentrants = ["e0", "e1", "e2", '
                                  '"e3", "e4"]\nduplicate = true\n')
    matches = config.matches()
    table = ("e0", "e1", "e2", "e3", "e4")
    assert [m.seats for m in matches] == [tuple(table[i] for i in p) for p in designs.balanced(5)]
    assert len({m.seed for m in matches}) == 1
    assert [m.key for m in matches[:2]] == ["maumau-t0-seed0-seating00", "maumau-t0-seed0-seating01"]  # 20 seatings


# -- two entrants that play alike come out alike (issue 16) ---------------------------------------------


@pytest.mark.parametrize("game, players, others", [
    ("presidente", 4, ["presidente-greedy", "random"]),
    ("mayor", 4, ["mayor-greedy", "random"]),
    ("maumau", 3, ["random"]),
])
def test_two_copies_of_a_deterministic_entrant_get_equal_wins_mean_rank_points_and_rating(tmp_path, game, players,
                                                                                          others):
    # issue 16's acceptance test: the standings themselves (batch rating and interval included)
    from referee.tournament import standings

    entrants = "".join(f'[[entrants]]\nname = "{n}"\nstrategy = "first"\n' for n in ("first-a", "first-b"))
    entrants += "".join(f'[[entrants]]\nstrategy = "{s}"\n' for s in others)
    path = tmp_path / "t.toml"
    path.write_text(f'seed = 16\nduplicate = true\nseeds = 2\n{entrants}[[games]]\ngame = "{game}"\n'
                    f'players = {players}\n')
    config = load_tournament(path, REGISTRY)
    records = [play(spec, config.entrants, Limits(), str(tmp_path / "out")) for spec in config.matches()]
    table = standings.compute(records, min_sets=2)  # 2 sets: ranges and rank order given here (issue 26)
    rows = {row.entrant: row for row in table["games"][game]}
    a, b = rows["first-a"], rows["first-b"]
    assert (a.matches, a.wins, a.mean_rank, a.total_points) == (b.matches, b.wins, b.mean_rank, b.total_points)
    assert (a.rating, a.low, a.high, a.p_best) == (b.rating, b.low, b.high, b.p_best) and a.low is not None
    order = table["rank_order"][game]  # not 0.5 between them: a resample of 2 sets need not be symmetric
    assert order["first-a"]["first-b"] + order["first-b"]["first-a"] == pytest.approx(1)


def test_under_the_old_rotation_two_copies_come_out_unequal(tmp_path):
    # what issue 16 found: cyclic rotations keep neighbours fixed, so seating luck does not cancel
    from referee.tournament import standings

    entrants = "".join(f'[[entrants]]\nname = "{n}"\nstrategy = "first"\n' for n in ("first-a", "first-b"))
    entrants += '[[entrants]]\nstrategy = "presidente-greedy"\n[[entrants]]\nstrategy = "random"\n'
    path = tmp_path / "t.toml"
    path.write_text(f'seed = 16\nduplicate = true\nseating = "rotation"\nseeds = 2\n{entrants}[[games]]\n'
                    'game = "presidente"\nplayers = 4\n')
    config = load_tournament(path, REGISTRY)
    records = [play(spec, config.entrants, Limits(), str(tmp_path / "out")) for spec in config.matches()]
    rows = {row.entrant: row for row in standings.compute(records)["games"]["presidente"]}
    a, b = rows["first-a"], rows["first-b"]
    assert (a.wins, a.mean_rank, a.total_points, a.rating) != (b.wins, b.mean_rank, b.total_points, b.rating)
