"""A tournament's schedule: its game entries, every match they make (`matches`, each a
MatchSpec with its schedule index and key), the order a run starts them in (`play_order`), each
entry's span of indices (`spans`), and the deal seeds (`derive_seed`). Pure: no file, no clock;
config.py reads the tournament file into these, sprt.py and the run read them.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.tournament import designs
from referee.tournament.head_to_head import MIN_SETS as DEFAULT_MIN_SETS  # the standings' (issue 26)


@dataclass(frozen=True)
class GameEntry:
    """One game of the tournament: its config, table size, schedule and seeds, with `duplicate`
    the seating design each seed is played under (referee/tournament/designs.py), and for a gauntlet the
    SPRT that may stop it early (referee/tournament/sprt.py; `seeds` is then the most it plays)."""

    game: str
    config: dict[str, Any]
    players: int
    schedule: str
    focus: str | None
    seeds: int
    duplicate: bool
    entrants: tuple[str, ...]
    seating: str = "balanced"  # one of designs.DESIGNS; used only with `duplicate`
    sprt: Any = None  # its SPRT (an sprt.Sprt), only with schedule "gauntlet": sprt.py reads the schedule
    # duplicate sets below which the standings give no rating range, head-to-head range, LOS or
    # rank order (referee/tournament/standings.py)
    min_sets: int = DEFAULT_MIN_SETS


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """One match to play: its place in the schedule, game, config, seed and seated entrants.
    (Slotted: a tournament holds its whole schedule, so each spec is kept small.)"""

    index: int
    key: str
    game: str
    config: dict[str, Any]
    seed: int
    seats: tuple[str, ...]


def matches(seed: int, games: Sequence[GameEntry]) -> list[MatchSpec]:
    """Every match of the tournament, in a fixed order: game entry, table, seed, seating; an
    entry with an SPRT goes seed by seed instead (seed, table, seating), so that each of its
    duplicate sets, every match of one seed, is contiguous and played before the next."""
    specs: list[MatchSpec] = []
    for g_index, entry in enumerate(games):
        seeds = [derive_seed(seed, entry.game, g_index, i) for i in range(entry.seeds)]
        orders = seating_orders(entry)
        # one tuple per seating of each table, shared by every seed's match
        arranged = [[tuple(table[i] for i in order) for order in orders] for table in tables(entry)]
        if entry.sprt is None:
            cells = ((t, s) for t in range(len(arranged)) for s in range(len(seeds)))
        else:
            cells = ((t, s) for s in range(len(seeds)) for t in range(len(arranged)))
        for t_index, s_index in cells:
            for r, seats in enumerate(arranged[t_index]):
                key = f"{entry.game}.g{g_index}.t{t_index}.s{s_index}.r{r}"
                specs.append(MatchSpec(len(specs), key, entry.game, entry.config, seeds[s_index], seats))
    return specs

def play_order(games: Sequence[GameEntry], matches: list[MatchSpec]) -> list[MatchSpec]:
    """`matches` (the tournament's `matches()`) in the order a run starts them, which only
    time depends on: the schedule indices, keys and journal are those of `matches()`.

    Chosen for reused bot processes (referee/bots/pool.py), which never play a deal twice:
    the tables of an entry share its seeds, so one process can play at most one match per
    seed of an entry. An entry without an SPRT goes table, seating, seed (a run of its seeds
    at one seating, its processes kept from match to match); an SPRT entry keeps its
    duplicate sets whole and in order (referee/tournament/sprt.py). The entries are
    interleaved run by run, each spread evenly over the whole, so a process that has played
    every seed of one entry plays on in the others."""
    runs_of = [_runs(entry, span, matches) for entry, span in zip(games, spans(games))]
    done = [0] * len(runs_of)
    order: list[MatchSpec] = []
    for _ in range(sum(map(len, runs_of))):
        # the entry furthest behind its even spread (the first of equals)
        g = min((g for g, runs in enumerate(runs_of) if done[g] < len(runs)),
                key=lambda g: ((done[g] + 0.5) / len(runs_of[g]), g))
        order += runs_of[g][done[g]]
        done[g] += 1
    return order

def _runs(entry: GameEntry, span: range, matches: list[MatchSpec]) -> list[list[MatchSpec]]:
    """An entry's matches as `play_order` takes them, run by run: each table's seatings one
    after another, every seed of the seating in a run; with an SPRT each duplicate set is a run."""
    entry_matches = matches[span.start:span.stop]
    seatings = designs.size(entry.seating, entry.players) if entry.duplicate else 1
    per_seed = len(entry_matches) // entry.seeds
    if entry.sprt is not None:  # index order: (seed, table, seating)
        return [entry_matches[k:k + per_seed] for k in range(0, len(entry_matches), per_seed)]
    # index order (table, seed, seating): a table's block holds seeds x seatings
    block = entry.seeds * seatings
    return [[entry_matches[t + s * seatings + r] for s in range(entry.seeds)]
            for t in range(0, len(entry_matches), block) for r in range(seatings)]

def spans(games: Sequence[GameEntry]) -> list[range]:
    """Each game entry's schedule indices in `matches()` (counted, not built)."""
    spans, start = [], 0
    for entry in games:
        n, k = len(entry.entrants), entry.players
        tables_n = math.comb(n, k) if entry.schedule == "round-robin" else math.comb(n - 1, k - 1)
        count = tables_n * entry.seeds * (designs.size(entry.seating, k) if entry.duplicate else 1)
        spans.append(range(start, start + count))
        start += count
    return spans


def derive_seed(seed: int, game: str, g_index: int, i: int) -> int:
    """The i-th deal seed of a game entry: stable across runs and machines."""
    digest = hashlib.sha256(f"{seed}/{game}/{g_index}/{i}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def seating_orders(entry: GameEntry) -> tuple[designs.Seating, ...]:
    """The seatings each seed of a table is played under: the entry's design with `duplicate`
    (match key suffix `.r<n>`: the n-th seating of the design), else the table's own order."""
    if entry.duplicate:
        return designs.seatings(entry.seating, entry.players)
    return (tuple(range(entry.players)),)


def tables(entry: GameEntry) -> list[tuple[str, ...]]:
    """The tables of a game entry: every combination (round-robin) or the focus against the field."""
    if entry.schedule == "round-robin":
        return list(itertools.combinations(entry.entrants, entry.players))
    field_ = [e for e in entry.entrants if e != entry.focus]
    return [(entry.focus,) + combo for combo in itertools.combinations(field_, entry.players - 1)]
