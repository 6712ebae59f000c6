"""Which table the ladder plays next: where a set tells most (Kaggle's and CodinGame's matchmaking).

1. The first seat goes to the active entrant with the fewest complete sets: a newcomer is
   played at once, and no entrant is left behind.
2. Each further seat goes to the entrant whose rating interval overlaps most those of the
   entrants already at the table (summed): a set between entrants whose order is uncertain moves
   the standings most; one between entrants far apart tells little. Overlap of two 95% intervals:
   the length they share over the shorter one's (1: one inside the other, 0: apart); an entrant
   without an interval yet (fewer than min_sets sets) overlaps everyone fully. Among equal overlaps,
   the fewest sets first.
Ties left are broken by a seeded draw (SHA-256 of the ladder's seed, the set's number and the
entrant's key), never by the order of names. Seats are then taken in that order; each set plays
every seating of the table (the design), so the order does not favour anyone."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

Interval = tuple[float, float] | None


def overlap(a: Interval, b: Interval) -> float:
    """How much two rating intervals overlap: shared length over the shorter's (None: 1)."""
    if a is None or b is None:
        return 1.0
    shorter = min(a[1] - a[0], b[1] - b[0])
    shared = min(a[1], b[1]) - max(a[0], b[0])
    if shorter <= 0:
        return 1.0 if shared >= 0 else 0.0
    return max(0.0, min(1.0, shared / shorter))


def draw(seed: int, number: int, key: str) -> str:
    """The tie-breaking draw of an entrant for set `number`."""
    return hashlib.sha256(f"{seed}/{number}/{key}".encode()).hexdigest()


def choose(active: Sequence[str], sets: Mapping[str, int], intervals: Mapping[str, Interval], seats: int,
           seed: int, number: int) -> list[str] | None:
    """The next table's entrants (see the module's docstring); None with fewer active than seats."""
    if len(active) < seats:
        return None
    left = set(active)
    first = min(left, key=lambda e: (sets.get(e, 0), draw(seed, number, e)))
    table = [first]
    left.discard(first)
    while len(table) < seats:
        best = min(left, key=lambda e: (-sum(overlap(intervals.get(e), intervals.get(t)) for t in table),
                                        sets.get(e, 0), draw(seed, number, e)))
        table.append(best)
        left.discard(best)
    return table
