"""Ranks in a match result (C-5)."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def competition_ranks(measure: Sequence[float], disqualified: Collection[int] = ()) -> list[int]:
    """Rank seats by `measure` (higher is better), 1 = best, ties share ("1, 2, 2, 4").

    Disqualified seats rank below every other seat; among themselves by the measure (C-5).
    """
    n = len(measure)
    keys = [(0 if seat in disqualified else 1, measure[seat]) for seat in range(n)]
    return [1 + sum(1 for other in keys if other > keys[seat]) for seat in range(n)]
