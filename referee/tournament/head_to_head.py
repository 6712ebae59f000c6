"""Head-to-head records of one game: for every pair of entrants seated together, how often each
finished ahead of the other, their mean points difference with a 95% interval, and the likelihood
of superiority.

Why: a rating sums everything up in one number; a pair's own record says whether one entrant
really beats the other, and how sure that is.

Per pair (`entrant` is the one higher in the game's standings, `opponent` the other): the matches
both played; `ahead` / `behind` / `ties`, how often the entrant finished ahead of, behind, or level
with the opponent. `mean_diff` is the entrant's points minus the opponent's, each game in its own
unit (Mau Mau: penalty points, so a negative difference is good), averaged by duplicate set: per
set (the matches of one deal, game and seed, played under several seatings; the unit of
independence) the mean over the pair's matches in it, then the mean over sets. `diff_low` /
`diff_high`: Student's t 95% interval of that mean over the sets. `los`: the likelihood of
superiority, over sets too: per set, the entrant's finishes ahead minus behind over the pair's
matches in it (from -1 to 1); the LOS is Student's t distribution function (sets - 1 degrees of
freedom) at the mean of those per-set scores over its standard error: the chance, under a flat
prior, that the entrant's true mean per set is above 0. A set's seatings share a deal and are
correlated, so the set is the unit: counting seatings as independent meetings (chess engines'
Phi((ahead - behind) / sqrt(ahead + behind))), between equals whom some deals suit, passed 0.95
in 7.3-7.8% of simulated 4-seat tournaments instead of 5% (bench/stats.py, "los"; per set: 4.7-6.0%).

Below `min_sets` duplicate sets (default MIN_SETS, the tournament file's `min_sets`) a pair has
no interval and no LOS (None: "-" in tables): with fewer deals they claim more than they know.

Every sum is exact (math.fsum) or of integers, so the numbers do not depend on the order of the
matches.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MIN_SETS = 10  # duplicate sets below which no interval, LOS or rank-order probability is given

COLUMNS = ("entrant", "opponent", "matches", "ahead", "behind", "ties", "sets", "mean_diff", "diff_low",
           "diff_high", "los")


@dataclass(frozen=True)
class Pair:
    """The head-to-head record of two entrants in one game (see the module docstring)."""

    entrant: str
    opponent: str
    matches: int
    ahead: int
    behind: int
    ties: int
    sets: int
    mean_diff: float
    diff_low: float | None
    diff_high: float | None
    los: float | None


def pairs(units: Sequence[Sequence[dict[str, Any]]], order: Sequence[str], min_sets: int = MIN_SETS) -> list[Pair]:
    """Every pair of entrants seated together in the matches of `units` (duplicate sets of one game's
    journal records), the entrant higher in `order` (the standings) first, in standings order; a
    pair met in fewer than `min_sets` sets has no interval and no LOS."""
    place = {name: i for i, name in enumerate(order)}

    def rank(name: str) -> tuple[int, str]:
        return place.get(name, len(place)), name

    counts: dict[tuple[str, str], list[int]] = {}  # (entrant, opponent): [matches, ahead, behind, ties]
    diffs: dict[tuple[str, str], list[float]] = {}  # the pair's mean difference in each set
    scores: dict[tuple[str, str], list[float]] = {}  # the pair's (ahead - behind) / meetings in each set
    for unit in units:
        in_set: dict[tuple[str, str], list[float]] = {}
        apart: dict[tuple[str, str], list[int]] = {}
        for rec in unit:
            seats, ranks, points = rec["seats"], rec["ranks"], rec["scores"]
            for x in range(len(seats)):
                for y in range(x + 1, len(seats)):
                    if seats[x] == seats[y]:
                        continue
                    # the entrant higher in the standings first
                    i, j = (x, y) if rank(seats[x]) < rank(seats[y]) else (y, x)
                    count = counts.setdefault((seats[i], seats[j]), [0, 0, 0, 0])
                    count[0] += 1
                    count[1 if ranks[i] < ranks[j] else 2 if ranks[i] > ranks[j] else 3] += 1
                    in_set.setdefault((seats[i], seats[j]), []).append(points[i] - points[j])
                    apart.setdefault((seats[i], seats[j]), []).append((ranks[i] < ranks[j]) - (ranks[i] > ranks[j]))
        for key, values in in_set.items():
            diffs.setdefault(key, []).append(math.fsum(values) / len(values))
            scores.setdefault(key, []).append(sum(apart[key]) / len(apart[key]))
    out = []
    for (a, b), (matches, ahead, behind, ties) in counts.items():
        mean, low, high = mean_interval(diffs[(a, b)])
        sure = len(diffs[(a, b)]) >= min_sets
        superiority = los(scores[(a, b)]) if sure else None
        out.append(Pair(a, b, matches, ahead, behind, ties, len(diffs[(a, b)]), round(mean, 4),
                        None if low is None or not sure else round(low, 4),
                        None if high is None or not sure else round(high, 4),
                        None if superiority is None else round(superiority, 4)))
    return sorted(out, key=lambda p: (rank(p.entrant), rank(p.opponent)))


def los(set_scores: Sequence[float]) -> float | None:
    """The likelihood of superiority over per-set scores: Student's t distribution function (n - 1
    degrees of freedom) at their mean over its standard error; 1, 0 or 0.5 when they are all equal
    (by their sign); None for fewer than 2 sets."""
    n = len(set_scores)
    if n < 2:
        return None
    mean = math.fsum(set_scores) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in set_scores) / (n - 1))
    if sd < 1e-12:
        return 1.0 if mean > 0 else 0.0 if mean < 0 else 0.5
    return t_cdf(mean / (sd / math.sqrt(n)), n - 1)


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom."""
    half = _central(abs(t), df) / 2
    return 0.5 + half if t >= 0 else 0.5 - half


def mean_interval(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """The mean of `values` and its Student's t 95% interval (None, None for fewer than 2 values)."""
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return mean, None, None
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = t_quantile(len(values) - 1) * sd / math.sqrt(len(values))
    return mean, mean - half, mean + half


@lru_cache(maxsize=None)
def t_quantile(df: int) -> float:
    """The 97.5th percentile of Student's t with `df` degrees of freedom (a 95% two-sided interval)."""
    if df > 300:  # Cornish-Fisher expansion about the normal quantile: exact to ~1e-10 here
        z = 1.959963984540054
        return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
                + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))
    low, high = 0.0, 1000.0
    for _ in range(200):  # bisection on the exact distribution function
        mid = (low + high) / 2
        if _central(mid, df) < 0.95:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _central(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with `df` degrees of freedom (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:
        if df == 1:
            return 2 * theta / math.pi
        term, total = 1.0, 1.0
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for k in range(1, df // 2):
        term *= c2 * (2 * k - 1) / (2 * k)
        total += term
    return math.sin(theta) * total


def rich_table(pairs: Sequence[Pair], title: str, order: Sequence[str], most: int = 15, min_sets: int = MIN_SETS):
    """A rich Table of head-to-head pairs (narrow enough for an 80-column terminal): every pair when
    there are at most `most`, else only neighbours in `order` (the standings), as its title says."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    if len(pairs) > most:
        neighbours = set(zip(order, order[1:]))
        pairs = [p for p in pairs if (p.entrant, p.opponent) in neighbours]
        title += " (neighbours in the standings; every pair in standings.md)"
    # names are the user's (a tournament file) or a journal's: shown as they are, never markup
    table = Table(title=Text(title, style="italic"), box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for col in ("entrant", "opponent", "matches", "ahead", "behind", "ties", "mean_diff", "95% range", "los"):
        table.add_column(col, justify="left" if col in ("entrant", "opponent") else "right", min_width=len(col),
                         overflow="fold")  # narrow terminals wrap a cell rather than cut it
    for p in pairs:
        span = "-" if p.diff_low is None or p.diff_high is None else f"{p.diff_low:.2f}..{p.diff_high:.2f}"
        table.add_row(Text(p.entrant), Text(p.opponent), str(p.matches), str(p.ahead), str(p.behind), str(p.ties),
                      f"{p.mean_diff:.2f}", span, "-" if p.los is None else f"{p.los:.3f}")
    short = [p.sets for p in pairs if p.sets < min_sets]
    if short:
        table.caption = Text(few_sets_note(min(short), min_sets), style="italic")
    return table


def few_sets_note(sets: int, min_sets: int) -> str:
    """Why a range (or LOS) is "-": the note beside it."""
    return (f"-: fewer than {min_sets} duplicate sets ({sets}): no range, LOS or rank-order probability "
            "(set min_sets to change it)")
