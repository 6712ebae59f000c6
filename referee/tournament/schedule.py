"""A tournament's schedule: its game entries, every match they make (`matches`, each a
MatchSpec with its schedule index and key), the order a run starts them in (`play_order`), each
entry's span of indices (`spans`), and the deal seeds (`derive_seed`). Pure: no file, no clock;
config.py reads the tournament file into these, sprt.py and the run read them.

A match key names the match in file names, the journal and the pages (`match_key`, read back by
`key_reader`): its game entry, table, seed and seating, e.g. `maumau-t07-seed02-seating1`. A
journal written before issue 29 keeps the keys it was written with (`matches(dotted=True)`).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
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


def matches(seed: int, games: Sequence[GameEntry], dotted: bool = False) -> list[MatchSpec]:
    """Every match of the tournament, in a fixed order: game entry, table, seed, seating; an
    entry with an SPRT goes seed by seed instead (seed, table, seating), so that each of its
    duplicate sets, every match of one seed, is contiguous and played before the next.
    Keys as `match_key` makes them; `dotted`: as before issue 29 (GAME.gG.tT.sS.rR), for a
    journal written with those."""
    specs: list[MatchSpec] = []
    labels = entry_labels([entry.game for entry in games])
    for g_index, entry in enumerate(games):
        seeds = [derive_seed(seed, entry.game, g_index, i) for i in range(entry.seeds)]
        orders = seating_orders(entry)
        # one tuple per seating of each table, shared by every seed's match
        arranged = [[tuple(table[i] for i in order) for order in orders] for table in tables(entry)]
        if entry.sprt is None:
            cells = ((t, s) for t in range(len(arranged)) for s in range(len(seeds)))
        else:
            cells = ((t, s) for s in range(len(seeds)) for t in range(len(arranged)))
        widths = (len(str(len(arranged) - 1)), len(str(len(seeds) - 1)), len(str(len(orders) - 1)))
        for t_index, s_index in cells:
            for r, seats in enumerate(arranged[t_index]):
                key = (f"{entry.game}.g{g_index}.t{t_index}.s{s_index}.r{r}" if dotted
                       else match_key(labels[g_index], (t_index, s_index, r), widths))
                specs.append(MatchSpec(len(specs), key, entry.game, entry.config, seeds[s_index], seats))
    return specs


#: a match key's fields after its entry's label: table, seed (its number among the entry's
#: seeds, from 0: the seed itself is the record's `seed`), seating (of the entry's design)
KEY_FIELDS = ("t", "seed", "seating")


def entry_labels(games: Sequence[str]) -> list[str]:
    """Each game entry's part of its match keys: its game's name, safe in a file name on every
    OS and in a URL (any character but an ASCII letter, digit or _ becomes _), followed by
    `-games<g>` (its index in the file's [[games]], from 0, zero-padded) when another entry's
    reads the same, letter case aside (file systems that ignore case would mix their files up)."""
    names = [re.sub(r"[^A-Za-z0-9_]", "_", game)[:64] or "game" for game in games]
    count = Counter(name.casefold() for name in names)
    width = len(str(len(names) - 1))  # padded as the other numbers, so the entries sort too
    return [f"{name}-games{g:0{width}d}" if count[name.casefold()] > 1 else name for g, name in enumerate(names)]


def match_key(label: str, numbers: tuple[int, int, int], widths: tuple[int, int, int]) -> str:
    """A match's key: its entry's label, then table, seed and seating (KEY_FIELDS), each number
    zero-padded to the entry's widest, so the keys of an entry sort as its schedule does."""
    return "-".join([label, *(f"{name}{n:0{w}d}" for name, n, w in zip(KEY_FIELDS, numbers, widths))])


def key_reader(games: Sequence[str] | None) -> Callable[[str], tuple[int, int, int, int] | None]:
    """What reads (entry, table, seed, seating) back from a match key, or None from a key that
    is no scheduled match's: for a tournament of the game entries `games` (their game names, in
    order), or with None for the keys of before issue 29 (GAME.gG.tT.sS.rR)."""
    def dotted(key: str) -> tuple[int, int, int, int] | None:
        try:
            g, t, s, r = (int(part[1:]) for part in key.rsplit(".", 4)[1:])
        except ValueError:
            return None
        return g, t, s, r

    if games is None:
        return dotted
    entries = {label: g for g, label in enumerate(entry_labels(games))}

    def readable(key: str) -> tuple[int, int, int, int] | None:
        label, *fields = key.rsplit("-", len(KEY_FIELDS))
        if label not in entries or len(fields) != len(KEY_FIELDS):
            return None
        numbers = [f[len(name):] for name, f in zip(KEY_FIELDS, fields) if f.startswith(name)]
        if len(numbers) != len(KEY_FIELDS) or not all(n.isdigit() and n.isascii() for n in numbers):
            return None
        t, s, r = map(int, numbers)
        return entries[label], t, s, r

    return readable


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


def describe(seed: int, games: Sequence[GameEntry]) -> dict[str, Any]:
    """What the schedule is made of, as a journal's head keeps it, so that a refused --resume
    can say what changed: the tournament's seed and, per game entry, what decides its matches
    (its game, config, table size, schedule, a gauntlet's focus, seeds, a duplicate entry's
    seating design, its entrants in order; its SPRT is the head's `sprt`)."""
    described = []
    for entry in games:
        described.append({"game": entry.game, "config": entry.config, "players": entry.players,
                          "schedule": entry.schedule,
                          **({"focus": entry.focus} if entry.schedule == "gauntlet" else {}),
                          "seeds": entry.seeds, "duplicate": entry.duplicate,
                          **({"seating": entry.seating} if entry.duplicate else {}),
                          "entrants": list(entry.entrants)})
    return {"seed": seed, "games": described}


def derive_seed(seed: int, game: str, g_index: int, i: int) -> int:
    """The i-th deal seed of a game entry: stable across runs and machines."""
    digest = hashlib.sha256(f"{seed}/{game}/{g_index}/{i}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def seating_orders(entry: GameEntry) -> tuple[designs.Seating, ...]:
    """The seatings each seed of a table is played under: the entry's design with `duplicate`
    (match key suffix `-seating<n>`: the n-th seating of the design), else the table's own order."""
    if entry.duplicate:
        return designs.seatings(entry.seating, entry.players)
    return (tuple(range(entry.players)),)


def tables(entry: GameEntry) -> list[tuple[str, ...]]:
    """The tables of a game entry: every combination (round-robin) or the focus against the field."""
    if entry.schedule == "round-robin":
        return list(itertools.combinations(entry.entrants, entry.players))
    field_ = [e for e in entry.entrants if e != entry.focus]
    return [(entry.focus,) + combo for combo in itertools.combinations(field_, entry.players - 1)]
