"""Goodness of fit of a game's ratings: do the rating gaps say the pairwise odds the results show?

Why: the rating scale promises that 400 points apart, the stronger finishes ahead of the weaker 10
times as often (referee/tournament/ratings.py). The fit makes the ratings explain each entrant's
finishes as a whole; it never checks that the gaps match what each pair did. In a game where the
order among the strong is steadier than among the weak (or the reverse), or where a hierarchy
forms at the table, the gaps can come out too small or too large for every pair at once, and
every range, P(best) and head-to-head reading of them with it.

Statistic. For each pair of entrants, the matches both played give `ahead` (A finished ahead of B)
and `behind` (ties left apart); the fitted model predicts log-odds x = thetaA - thetaB (natural
log-strengths: P(A ahead | not tied) = 1 / (1 + e^-x)). `factor` is the maximum-likelihood beta of
P(A ahead) = 1 / (1 + e^(-beta x)) over every pair's counts: 1 when the gaps say the observed odds,
1.5 when the observed log-odds are half as large again as the gaps predict (the ratings understate
them), 0.7 when they overstate them. `deviance` is the binomial deviance of the pairs' counts
from the fitted model's prediction (beta = 1): how far they are, pair by pair, in any direction.

How sure (`p`, `p_deviance`): a parametric bootstrap. SIMULATIONS times, the same matches (the same
tables, as often) are drawn from the fitted model itself (strengths and, under Davidson-Luce, the
game's tie parameters), the model is fitted again to each simulated tournament, and the statistic
computed again: the spread of `factor` and `deviance` when the model is true, whatever the pairs'
numbers of matches and the fit's own pull towards the data (which a simulation from the fitted
ratings without refitting would leave out). `p` is the two-sided bootstrap p-value of `factor`: 2 (1
+ the simulated factors as far out on its side) / (SIMULATIONS + 1), `p_deviance` the one-sided one
of the deviance ((1 + the simulated deviances as large) / (SIMULATIONS + 1)). A game warns when `p`
is at most ALPHA (0.01): when its factor is beyond every one of the 200 simulated ones, which
happens with chance 2 / 201 when the model holds (a few games at once seldom warn by chance). A
normal approximation to the simulated factors (which could give p = 0.002 from 100 simulations) was
tried and warned in 2.0% (± 0.6, 540 runs) of 2-seat tournaments drawn from the model, against 1% nominal
(bench/stats.py, `fit`): the factor's tails are not normal there. The simulation draws matches
independently, as the model does; deal effects shared by a duplicate set's matches widen the real
statistic's spread beyond the simulated one, so with strong deal effects a warning is likelier than
ALPHA (bench/stats.py, `fit`, measures the false alarms when the model holds).

Deterministic: the draws come from a PRNG seeded from the statistics with the names left out (as the
ratings' bootstrap's), the tables are taken in a canonical order, so any order of the same matches
gives the same numbers. That order is by name: renaming entrants leaves `factor` and `deviance` as
they are (up to the last bits of the sums) but deals the draws to other tables, so `p` and
`p_deviance` move within their Monte Carlo noise. Below a game's `min_sets` no fit line is given
(the standings say so).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from referee.tournament import ratings

SIMULATIONS = 200
ALPHA = 0.01
MAX_FACTOR = 100.0  # a factor beyond this (pairs all one-sided) is shown as this


@dataclass(frozen=True)
class Fit:
    """A game's goodness of fit: the factor between observed and predicted pairwise log-odds and
    its bootstrap p-value, the deviance and its p-value, over `pairs` pairs and `simulations`."""

    factor: float
    p: float
    deviance: float
    p_deviance: float
    pairs: int
    simulations: int

    @property
    def warns(self) -> bool:
        """Whether the rating scale does not fit the game's results (p at most ALPHA)."""
        return self.p <= ALPHA + 1e-12

    def line(self, game: str) -> str:
        """The one-line reading of it, a warning when the scale does not fit."""
        if self.warns:
            how = "understate" if self.factor > 1 else "overstate"
            size = self.factor if self.factor > 1 else 1 / self.factor if self.factor > 0 else math.inf
            return (f"{game}: the ratings {how} the pairwise odds by a factor {size:.2f} ({_p(self.p)}): "
                    "the rating scale does not fit this game's results")
        return (f"{game}: observed pairwise log-odds {self.factor:.2f} times the ratings' ({_p(self.p)}), "
                f"deviance {self.deviance:.1f} over {self.pairs} pairs ({_p(self.p_deviance)}): the scale fits")

    def record(self) -> dict[str, float | int | bool]:
        """As JSON: its fields and whether it warns."""
        return {"factor": round(self.factor, 4), "p": round(self.p, 4), "deviance": round(self.deviance, 3),
                "p_deviance": round(self.p_deviance, 4), "pairs": self.pairs, "simulations": self.simulations,
                "warns": self.warns}


def _p(p: float) -> str:
    """A p-value as shown."""
    return f"p = {p:.3f}"


def pair_counts(matches: Sequence[tuple[Sequence[str], Sequence[float]]],
                times: Sequence[int] | None = None) -> dict[tuple[str, str], list[int]]:
    """For each pair (by name, the lesser first) that met: [first ahead, second ahead], ties apart;
    `times`: how often each match counts (once each without it)."""
    out: dict[tuple[str, str], list[int]] = {}
    for m, (seats, ranks) in enumerate(matches):
        t = times[m] if times is not None else 1
        for i, a in enumerate(seats):
            for j in range(i + 1, len(seats)):
                b = seats[j]
                if ranks[i] == ranks[j] or a == b:
                    continue
                key, first = ((a, b), ranks[i] < ranks[j]) if a < b else ((b, a), ranks[j] < ranks[i])
                counts = out.setdefault(key, [0, 0])
                counts[0 if first else 1] += t
    return out


Gaps = dict[tuple[str, str], float]  # a pair's predicted log-odds of the first finishing ahead of the second


def gaps(pairs: dict[tuple[str, str], list[int]], theta: dict[str, float], deltas: dict[int, float] | None = None,
         tables: dict[tuple[str, ...], int] | None = None) -> Gaps:
    """Each pair's predicted log-odds of the first finishing ahead of the second, ties apart: the gap
    in log-strength, which is exact without ties; with tie parameters `deltas`, the model's own
    chances at the `tables` (sorted names: how many matches each had) both sat at."""
    if not deltas or not tables or max(len(t) for t in tables) > 6:
        return {(a, b): theta[a] - theta[b] for a, b in pairs}
    drawer = _Drawer(theta, deltas)
    ahead: dict[tuple[str, str], list[float]] = {}
    for table in sorted(tables):
        outcomes, chances = drawer.distribution(table)
        n = tables[table]
        for i, a in enumerate(table):
            for j in range(i + 1, len(table)):
                sums = ahead.setdefault((a, table[j]), [0.0, 0.0])
                for ranks, q in zip(outcomes, chances):
                    if ranks[i] != ranks[j]:
                        sums[0 if ranks[i] < ranks[j] else 1] += n * q
    return {pair: (math.log(ahead[pair][0] / ahead[pair][1]) if pair in ahead and min(ahead[pair]) > 0
                   else theta[pair[0]] - theta[pair[1]]) for pair in pairs}


def factor(pairs: dict[tuple[str, str], list[int]], gap: Gaps) -> float:
    """The maximum-likelihood beta of P(first ahead) = 1 / (1 + e^(-beta x)), x the pair's `gap`."""
    data = [(gap[pair], c[0], c[1]) for pair, c in sorted(pairs.items()) if c[0] + c[1]]
    if sum((a + b) * x * x for x, a, b in data) < 1e-12:
        return 1.0  # no gap anywhere: nothing to scale
    beta = 1.0
    for _ in range(50):
        grad = hess = 0.0
        for x, a, b in data:
            p = 1 / (1 + math.exp(-beta * x))
            grad += x * (a - (a + b) * p)
            hess += (a + b) * x * x * p * (1 - p)
        if hess <= 1e-300:
            break
        step = grad / hess
        beta = max(-MAX_FACTOR, min(MAX_FACTOR, beta + step))
        if abs(step) < 1e-9 or abs(beta) == MAX_FACTOR:
            break
    return beta


def deviance(pairs: dict[tuple[str, str], list[int]], gap: Gaps) -> float:
    """The binomial deviance of the pairs' counts from the model's P(first ahead | not tied)."""
    total = []
    for pair, (ahead, behind) in sorted(pairs.items()):
        n = ahead + behind
        if not n:
            continue
        p = 1 / (1 + math.exp(-gap[pair]))
        for seen, expected in ((ahead, n * p), (behind, n * (1 - p))):
            if seen:
                total.append(2 * seen * math.log(seen / max(expected, 1e-300)))
    return math.fsum(total)


def check(matches: Sequence[tuple[Sequence[str], Sequence[float]]], ties: str = ratings.DEFAULT_TIES,
          simulations: int = SIMULATIONS) -> Fit | None:
    """A game's goodness of fit (None when no pair has a decisive result): the same for its matches
    in any order."""
    stats = ratings.Stats.of(matches)
    pairs = pair_counts(matches)
    if not any(sum(c) for c in pairs.values()):
        return None
    davidson = ties != "breslow" and bool(stats.groups)
    if davidson:
        theta, phi = ratings.fit_with_ties([stats])
        deltas = {k: math.exp(v) for k, v in phi[0].items()}
    else:
        theta, phi, deltas = ratings.fit(stats, ties=ties), [], {}
    # the tables, as sorted names with how many matches each had, in a canonical order
    tables: dict[tuple[str, ...], int] = {}
    for seats, _ in matches:
        key = tuple(sorted(seats))
        tables[key] = tables.get(key, 0) + 1
    order = sorted(tables)
    gap = gaps(pairs, theta, deltas, tables)
    seen = factor(pairs, gap), deviance(pairs, gap)
    rng = random.Random(_seed(stats, pairs))
    draw = _Drawer(theta, deltas)
    far = extreme = deep = 0
    for _ in range(simulations):
        outcomes: dict[tuple[tuple[str, ...], tuple[int, ...]], int] = {}  # counted: far fewer than matches
        for table in order:
            for _ in range(tables[table]):
                key = (table, draw(rng, table))
                outcomes[key] = outcomes.get(key, 0) + 1
        keys = list(outcomes)
        simulated = ratings.Stats()
        for table, ranks in keys:
            simulated.add(table, ranks, outcomes[table, ranks])
        counts = pair_counts(keys, [outcomes[key] for key in keys])
        if davidson and simulated.groups:  # warm-started from the fitted model: a few Newton steps
            again, tie_logs = ratings.fit_with_ties([simulated], theta, ratings.MAX_STEPS, phi)
            again_gap = gaps(counts, again, {k: math.exp(v) for k, v in tie_logs[0].items()}, tables)
        else:
            again_gap = gaps(counts, ratings.fit(simulated, start=theta, ties=ties))
        value = factor(counts, again_gap)
        far += value >= seen[0]
        extreme += value <= seen[0]
        deep += deviance(counts, again_gap) >= seen[1]
    p = min(1.0, 2 * (1 + min(far, extreme)) / (simulations + 1))
    return Fit(seen[0], p, seen[1], (1 + deep) / (simulations + 1),
               sum(1 for c in pairs.values() if sum(c)), simulations)


class _Drawer:
    """Finishing ranks drawn from the Davidson-Luce model (plain Plackett-Luce without tie sizes) of
    the given log-strengths and tie parameters: each table's every outcome and its chance worked out
    once (up to 6 seats: 4,683 outcomes at most), then one draw per match."""

    def __init__(self, theta: dict[str, float], deltas: dict[int, float]) -> None:
        self.theta = theta
        self.sizes = tuple(sorted(deltas))
        self.logs = [0.0] + [math.log(deltas[k]) for k in self.sizes]
        self.cache: dict[tuple[str, ...], tuple[list[tuple[int, ...]], list[float]]] = {}
        self.chances: dict[tuple[str, ...], list[float]] = {}

    def __call__(self, rng: random.Random, seats: tuple[str, ...]) -> tuple[int, ...]:
        """Ranks of `seats` (by seat)."""
        if len(seats) > 6:
            return self._staged(rng, seats)
        outcomes, _ = self.distribution(seats)
        cumulative = self.cache[seats][1]
        return outcomes[min(bisect.bisect_left(cumulative, rng.random() * cumulative[-1]), len(outcomes) - 1)]

    def distribution(self, seats: tuple[str, ...]) -> tuple[list[tuple[int, ...]], list[float]]:
        """Every outcome (ranks by seat) of a table of up to 6 seats, and its chance."""
        if seats not in self.cache:
            outcomes: list[tuple[int, ...]] = []
            chances: list[float] = []
            self._enumerate(seats, tuple(range(len(seats))), [0] * len(seats), 1, 1.0, outcomes, chances)
            cumulative, total = [], 0.0
            for c in chances:
                total += c
                cumulative.append(total)
            self.cache[seats] = (outcomes, cumulative)
            self.chances[seats] = chances
        return self.cache[seats][0], self.chances[seats]

    def _groups(self, seats: tuple[str, ...], left: tuple[int, ...]) -> list[tuple[tuple[int, ...], float]]:
        """The groups that may take the next place among `left`, each with its chance."""
        weights = [(tuple(left[q] for q in combo),
                    math.exp(self.logs[j] + math.fsum(self.theta[seats[left[q]]] for q in combo) / len(combo)))
                   for j, combo in ratings.groups_of(len(left), self.sizes)]
        total = math.fsum(w for _, w in weights)
        return [(group, w / total) for group, w in weights]

    def _enumerate(self, seats: tuple[str, ...], left: tuple[int, ...], ranks: list[int], place: int,
                   chance: float, outcomes: list[tuple[int, ...]], chances: list[float]) -> None:
        if len(left) <= 1:
            if left:
                ranks[left[0]] = place
            outcomes.append(tuple(ranks))
            chances.append(chance)
            return
        for group, p in self._groups(seats, left):
            for k in group:
                ranks[k] = place
            self._enumerate(seats, tuple(k for k in left if k not in group), ranks, place + len(group),
                            chance * p, outcomes, chances)

    def _staged(self, rng: random.Random, seats: tuple[str, ...]) -> tuple[int, ...]:
        """Ranks drawn place by place (a big table: too many outcomes to list)."""
        ranks = [0] * len(seats)
        left = tuple(range(len(seats)))
        place = 1
        while left:
            if len(left) == 1:
                ranks[left[0]] = place
                break
            pick = rng.random()
            groups = self._groups(seats, left)
            chosen = groups[-1][0]
            for group, p in groups:
                pick -= p
                if pick <= 0:
                    chosen = group
                    break
            for k in chosen:
                ranks[k] = place
            place += len(chosen)
            left = tuple(k for k in left if k not in chosen)
        return tuple(ranks)


def _seed(stats: ratings.Stats, pairs: dict[tuple[str, str], list[int]]) -> int:
    """A PRNG seed from the statistics with the names left out."""
    shape = [sorted((len(key), c) for key, c in stats.choices.items()), sorted(stats.wins.values()),
             sorted(sorted(c) for c in pairs.values())]
    digest = hashlib.sha256(json.dumps(shape, separators=(",", ":")).encode()).digest()
    return int.from_bytes(digest[:8], "big")
