"""Batch ratings: one maximum-likelihood Plackett-Luce fit (Davidson-Luce for ties) on the
finishing ranks of every match at once, and a bootstrap interval for it.

Why: a rating updated one match at a time (OpenSkill, Elo) depends on the order the matches are fed
in; the same results in another order gave other ratings. This fit depends only on the multiset of
results: its inputs are exact integer counts, and its sums run in a fixed order (entrants by name),
so the same results in any order give bit-identical ratings.

Model (Plackett-Luce). Each entrant has a strength g > 0. A match's finishing order is drawn place
by place: first place from all seats with chance proportional to g, the next from the seats left,
and so on. So in any match two entrants both play, P(A finishes ahead of B) = gA / (gA + gB).

Ties (`ties`, TIES): Davidson-Luce by default (Firth, Kosmidis & Turner 2019, the R package
PlackettLuce). At each place the group of seats sharing it is drawn from the seats still in play:
a group T of k seats with chance proportional to delta_k * (the geometric mean of its strengths),
single seats (delta_1 = 1) and tied groups of every size k the stratum's data shows competing in
one normalising sum over all such groups of the seats in play. delta_k, a game's propensity to tie
k seats, is fitted with the strengths, once per stratum (a game: Mayor ties far more than Mau-Mau,
so the overall table does not pool them). In a two-seat match of equals a tie has chance
delta_2 / (2 + delta_2); P(A ahead of B | not tied) stays gA / (gA + gB). A choice from a single
seat says nothing and is left out. Without a tie in the data the model is plain Plackett-Luce,
and is fitted as such (bit-identical to Breslow's fit there).

Breslow's rule (`ties = "breslow"`, the tournament file's option; the default before issue 26):
seats sharing a rank each count as chosen from every seat still in play at that rank (the same
denominator for each), then they all leave together. A tie in a two-seat match thus counts as one
finish ahead for each: it takes a tie for information it is not, and gives narrower intervals
than the data warrants (docs/tournaments.md measures it in Mayor). It is kept for comparison.
The exact "tied in unknown order" likelihood (a sum over the orders a tie hides) was not chosen:
it needs the k! orders of every tie group in every fit step, and has no parameter for a game that
ties more often than chance, which Davidson-Luce's delta_k is.

Prior: every entrant plays one virtual two-seat draw (in Breslow's sense: one win, one loss) against
a virtual reference entrant of strength 1; under Davidson-Luce each log delta_k gets the same
logistic density centred on 0 (delta_k = 1), so a game whose every match ties still fits. An entrant
that always wins, or always loses, still gets a finite rating, and entrants that never met are tied
together; it weighs as much as one real two-seat match, so it fades after a few tens of matches. As
a density on log-strength it is the standard logistic one (sd pi/sqrt(3) = 1.8, about 315 rating
points), centred on the reference.

Scale: rating = 400 * log10(g), shifted so that the mean over the rated entrants is 0. A rating
difference of 400 means the stronger finishes ahead of the weaker 10 times as often as the reverse
(in a head-to-head, or in any match both play), 200 about 3 times, 100 about 1.8 times.

Fit: Newton's method on log-strengths (and log delta_k) with step halving (the log-likelihood is
concave, and the prior makes it strictly so), until a step moves no log-strength more than 1e-4: Newton's error
after it is about the square of that, far below the 0.01 rating points shown. A handful of
steps, each costing the number of distinct sets of seats in play (subsets of the tables), not of
matches (under Davidson-Luce, times the groups a set of s seats allows: at most 2^s - 1).

Interval (`bootstrap`): the matches are given in units resampled together (for the standings, a
duplicate set: the matches of one deal, game and seed, played under several seatings) and strata
resampled apart (for the standings, the games). Each of RESAMPLES resamples draws, in every
stratum, as many units as it holds, with replacement, and is fitted again; a rating's standard
error `se` is the standard deviation of its resampled values, and its 95% interval is

    rating +- t(0.975, n - strata) * sqrt(n / (n - 1)) * se        (n: the units)

Student's quantile for the few units a tournament has, and the factor undoing the bootstrap's
(n - 1) / n shrinking of a variance. The plain 2.5th..97.5th percentile of the resampled values,
used before, is too narrow with few units: it held the true rating for 89-91% of entrants at 10
sets (bench/stats.py, "coverage", measures both).

Rank order (`Rating.best`, `Rating.above`): over the same resamples, how often the entrant rated
best of all (a tie shared out), and how often it rated above each other entrant (a tie counting
half): bootstrap probabilities of the order, P(best) summing to 1 over the entrants.

The draws come from a PRNG seeded with a hash of the units' statistics with the names
left out, so the interval is reproducible, order-free, and (given units in a name-free order)
unchanged by renaming entrants, up to the last bits of the sums.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

SCALE = 400 / math.log(10)  # rating points per unit of natural log-strength
RESAMPLES = 200
PRIOR_DRAWS = 1  # virtual two-seat draws of each entrant against the reference (strength 1)
CONVERGED = 1e-4  # the fit stops after a Newton step moving no log-strength more than this
MAX_STEPS = 100
TIES = ("davidson", "breslow")  # the models of ties a fit can use (the module's docstring)
DEFAULT_TIES = "davidson"

Match = tuple[Sequence[str], Sequence[float]]  # a match's seats (entrant names) and their ranks


@dataclass(frozen=True)
class Rating:
    """An entrant's fitted rating, its bootstrap standard error and 95% interval, and its rank-order
    probabilities: of rating best, and above each other entrant (by name)."""

    rating: float
    se: float
    low: float
    high: float
    best: float = 0.0
    above: dict[str, float] = field(default_factory=dict)


def stages(seats: Sequence[str], ranks: Sequence[float]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """A match's choices under Breslow's rule, best rank first: (the seats still in play, the tied
    seats chosen from them), each as sorted names; a choice among a single seat is left out."""
    placed = sorted(zip(ranks, seats))
    left = sorted(seats)
    out = []
    start, n = 0, len(placed)
    while n - start > 1:
        rank = placed[start][0]
        end = start + 1
        while end < n and placed[end][0] == rank:
            end += 1
        chosen = tuple(name for _, name in placed[start:end])
        out.append((tuple(left), chosen))
        for name in chosen:
            left.remove(name)
        start = end
    return out


class Stats:
    """The sufficient statistics of matches for the fit, as exact counts (so order-free): how
    often each entrant was chosen, and how many choices were made from each set of seats in play."""

    def __init__(self) -> None:
        self.wins: dict[str, int] = {}  # Breslow: times chosen
        self.choices: dict[tuple[str, ...], int] = {}  # Breslow: seats chosen from each set in play
        self.shares: dict[str, int | Fraction] = {}  # Davidson-Luce: 1/k for each group of k it was chosen in
        self.stages: dict[tuple[str, ...], int] = {}  # Davidson-Luce: choices (of a group) from each set
        self.groups: dict[int, int] = {}  # Davidson-Luce: groups of k >= 2 tied seats chosen, by k

    def add(self, seats: Sequence[str], ranks: Sequence[float], times: int = 1) -> None:
        """Count one match (`times` over)."""
        wins, choices, shares, stage_sets, groups = self.wins, self.choices, self.shares, self.stages, self.groups
        for name in seats:
            if name not in wins:
                wins[name] = shares[name] = 0
        for left, chosen in stages(seats, ranks):
            k = len(chosen)
            choices[left] = choices.get(left, 0) + k * times
            stage_sets[left] = stage_sets.get(left, 0) + times
            if k > 1:
                groups[k] = groups.get(k, 0) + times
            for name in chosen:
                wins[name] += times
                shares[name] += times if k == 1 else Fraction(times, k)

    def merged(self, other: Stats) -> None:
        """Add `other`'s counts to these."""
        for name, c in other.wins.items():
            self.wins[name] = self.wins.get(name, 0) + c
            self.shares[name] = self.shares.get(name, 0) + other.shares[name]
        for key, c in other.choices.items():
            self.choices[key] = self.choices.get(key, 0) + c
        for key, c in other.stages.items():
            self.stages[key] = self.stages.get(key, 0) + c
        for k, c in other.groups.items():
            self.groups[k] = self.groups.get(k, 0) + c

    @classmethod
    def of(cls, matches: Iterable[Match]) -> Stats:
        """The statistics of `matches`."""
        stats = cls()
        for seats, ranks in matches:
            stats.add(seats, ranks)
        return stats


def fit(stats: Stats, start: Mapping[str, float] | None = None, steps: int = MAX_STEPS,
        ties: str = DEFAULT_TIES) -> dict[str, float]:
    """Each entrant's log-strength (natural log; the prior's reference has 0) of greatest posterior
    likelihood, by name; `start` warm-starts and `steps` caps the Newton steps (for a live table);
    `ties` is the model of ties (TIES)."""
    if ties != "breslow" and stats.groups:
        return fit_strata([stats], start, steps)
    names = sorted(stats.wins)  # Breslow, or Davidson-Luce without a tie: both plain Plackett-Luce
    index = {name: i for i, name in enumerate(names)}
    keys = sorted(stats.choices)
    sets = [tuple(index[name] for name in key) for key in keys]
    counts = [stats.choices[key] for key in keys]
    wins = [stats.wins[name] + PRIOR_DRAWS for name in names]
    theta = [start.get(name, 0.0) for name in names] if start else None
    return dict(zip(names, _newton(wins, sets, counts, theta, steps)))


def fit_strata(strata: Sequence[Stats], start: Mapping[str, float] | None = None,
               steps: int = MAX_STEPS) -> dict[str, float]:
    """`fit` under Davidson-Luce with one set of tie parameters per stratum (a game's own ties)."""
    return fit_with_ties(strata, start, steps)[0]


def tie_parameters(strata: Sequence[Stats]) -> list[dict[int, float]]:
    """Each stratum's fitted Davidson-Luce tie parameters delta_k, by tie size k (only the sizes its
    data shows)."""
    return [{k: math.exp(v) for k, v in family.items()} for family in fit_with_ties(strata)[1]]


def fit_with_ties(strata: Sequence[Stats], start: Mapping[str, float] | None = None, steps: int = MAX_STEPS,
                  tie_start: Sequence[Mapping[int, float]] | None = None) -> tuple[dict[str, float],
                                                                                 list[dict[int, float]]]:
    """`fit_strata`'s log-strengths by name, and each stratum's log tie parameters by tie size;
    `start` and `tie_start` (as returned) warm-start it (a live table)."""
    names = sorted({name for stats in strata for name in stats.wins})
    index = {name: i for i, name in enumerate(names)}
    shares = [float(PRIOR_DRAWS + sum((s.shares.get(name, 0) for s in strata), Fraction(0))) for name in names]
    families = []
    phi0 = []
    for f, stats in enumerate(strata):
        sizes = tuple(sorted(k for k, c in stats.groups.items() if c))
        keys = sorted(stats.stages)
        families.append((sizes, [stats.groups[k] for k in sizes], [tuple(index[n] for n in key) for key in keys],
                         [stats.stages[key] for key in keys]))
        given = tie_start[f] if tie_start is not None and f < len(tie_start) else {}
        phi0 += [given.get(k, 0.0) for k in sizes]
    theta0 = [start.get(name, 0.0) for name in names] if start else None
    theta, phi = _dl_newton(shares, families, theta0, phi0, steps)
    out, at = [], 0
    for sizes, *_ in families:
        out.append(dict(zip(sizes, phi[at:at + len(sizes)])))
        at += len(sizes)
    return dict(zip(names, theta)), out


def centred(theta: Mapping[str, float]) -> dict[str, float]:
    """Log-strengths on the rating scale (400 log10), shifted to mean 0 over the entrants given."""
    names = sorted(theta)
    points = [SCALE * theta[name] for name in names]
    mean = math.fsum(points) / len(points) if points else 0.0
    return {name: p - mean for name, p in zip(names, points)}


def rate(matches: Iterable[Match], ties: str = DEFAULT_TIES) -> dict[str, float]:
    """The batch rating of every entrant of `matches` (mean 0), by name."""
    return centred(fit(Stats.of(matches), ties=ties))


def bootstrap(strata: Sequence[Sequence[Stats]], resamples: int = RESAMPLES,
              ties: str = DEFAULT_TIES) -> dict[str, Rating]:
    """Each entrant's rating with its bootstrap standard error, interval and rank-order
    probabilities, by name. `strata` holds units (the statistics of matches resampled together) in
    a canonical order; strata are resampled apart (see the module's docstring)."""
    names, point, samples = resampled(strata, resamples, ties)
    if not names:
        return {}
    units = sum(len(stratum) for stratum in strata)
    n = len(names)
    best = [0.0] * n
    above = [[0.0] * n for _ in range(n)]
    for r in range(resamples):
        values = [samples[i][r] for i in range(n)]
        top = max(values)
        winners = [i for i in range(n) if values[i] == top]
        for i in winners:
            best[i] += 1 / len(winners)
        for i in range(n):
            for j in range(n):
                if i != j:
                    above[i][j] += 1.0 if values[i] > values[j] else 0.5 if values[i] == values[j] else 0.0
    out = {}
    for i, name in enumerate(names):
        se = _sd(samples[i])
        half = widening(units, len(strata)) * se
        out[name] = Rating(point[i], se, point[i] - half, point[i] + half, best[i] / resamples,
                           {names[j]: above[i][j] / resamples for j in range(n) if j != i})
    return out


def widening(units: int, strata: int) -> float:
    """The bootstrap standard errors in a 95% interval's half-width: t(0.975, units - strata) *
    sqrt(units / (units - 1)) (1.96 when there are too few units to say more)."""
    from referee.tournament.head_to_head import t_quantile

    if units - strata < 1 or units < 2:
        return 1.959963984540054
    return t_quantile(units - strata) * math.sqrt(units / (units - 1))


def resampled(strata: Sequence[Sequence[Stats]], resamples: int = RESAMPLES,
              ties: str = DEFAULT_TIES) -> tuple[list[str], list[float], list[list[float]]]:
    """The entrants by name, their ratings, and each one's ratings over `resamples` bootstrap
    resamples of the units (stratum by stratum), in a reproducible, name-free order of draws."""
    units = [unit for stratum in strata for unit in stratum]
    names = sorted({name for unit in units for name in unit.wins})
    if not names:
        return [], [], []
    if ties != "breslow" and any(unit.groups for unit in units):
        return _dl_resampled(strata, names, resamples)
    # Breslow, or Davidson-Luce without a tie: both are then plain Plackett-Luce, fitted as such
    index = {name: i for i, name in enumerate(names)}
    keys = sorted({key for unit in units for key in unit.choices})
    where = {key: j for j, key in enumerate(keys)}
    sets = [tuple(index[name] for name in key) for key in keys]
    unit_wins = [[(index[name], c) for name, c in sorted(unit.wins.items()) if c] for unit in units]
    unit_choices = [[(where[key], c) for key, c in sorted(unit.choices.items())] for unit in units]

    def solve(times: list[int], start: list[float] | None) -> list[float]:
        wins = [PRIOR_DRAWS] * len(names)
        counts = [0] * len(keys)
        for u, m in enumerate(times):
            if m:
                for i, c in unit_wins[u]:
                    wins[i] += m * c
                for j, c in unit_choices[u]:
                    counts[j] += m * c
        used = [j for j, c in enumerate(counts) if c]
        return _newton(wins, [sets[j] for j in used], [counts[j] for j in used], start, MAX_STEPS)

    full = solve([1] * len(units), None)
    point = _centred_list(full)
    rng = random.Random(_data_seed(strata))
    samples: list[list[float]] = [[] for _ in names]
    for _ in range(resamples):
        times = [0] * len(units)
        offset = 0
        for stratum in strata:
            size = len(stratum)
            for _ in range(size):
                times[offset + rng.randrange(size)] += 1
            offset += size
        for i, value in enumerate(_centred_list(solve(times, full))):
            samples[i].append(value)
    return names, point, samples


def percentile(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """The (1 - level) / 2 and (1 + level) / 2 order statistics of `values` (the plain percentile
    interval, kept for bench/stats.py's comparison)."""
    ordered = sorted(values)
    cut = max(0, int((len(ordered) + 1) * (1 - level) / 2) - 1)
    return ordered[cut], ordered[len(ordered) - 1 - cut]


def _dl_resampled(strata: Sequence[Sequence[Stats]], names: list[str],
                  resamples: int) -> tuple[list[str], list[float], list[list[float]]]:
    """`resampled` under Davidson-Luce: each stratum with its own tie parameters, for the tie sizes
    its whole data shows (a resample without one of them keeps it, held by its prior)."""
    index = {name: i for i, name in enumerate(names)}
    layout = []  # per stratum: its tie sizes, its sets' keys, and per unit its counts as index lists
    for stratum in strata:
        sizes = tuple(sorted({k for unit in stratum for k, c in unit.groups.items() if c}))
        keys = sorted({key for unit in stratum for key in unit.stages})
        where = {key: j for j, key in enumerate(keys)}
        per_unit = [([(index[n], c) for n, c in sorted(unit.shares.items()) if c],
                     [(where[key], c) for key, c in sorted(unit.stages.items())],
                     [(sizes.index(k), c) for k, c in sorted(unit.groups.items()) if c]) for unit in stratum]
        layout.append((sizes, [tuple(index[n] for n in key) for key in keys], per_unit))

    def solve(times: list[list[int]], start: tuple[list[float], list[float]] | None) -> tuple[list[float], list[float]]:
        shares = [Fraction(PRIOR_DRAWS)] * len(names)
        families = []
        for (sizes, sets, per_unit), weights in zip(layout, times):
            counts, groups = [0] * len(sets), [0] * len(sizes)
            for (unit_shares, unit_stages, unit_groups), m in zip(per_unit, weights):
                if m:
                    for i, c in unit_shares:
                        shares[i] += m * c
                    for j, c in unit_stages:
                        counts[j] += m * c
                    for j, c in unit_groups:
                        groups[j] += m * c
            used = [j for j, c in enumerate(counts) if c]
            families.append((sizes, groups, [sets[j] for j in used], [counts[j] for j in used]))
        return _dl_newton([float(x) for x in shares], families, *(start or (None, None)), MAX_STEPS)

    full = solve([[1] * len(stratum) for stratum in strata], None)
    point = _centred_list(full[0])
    rng = random.Random(_data_seed(strata))
    samples: list[list[float]] = [[] for _ in names]
    for _ in range(resamples):
        times = []
        for stratum in strata:
            size = len(stratum)
            drawn = [0] * size
            for _ in range(size):
                drawn[rng.randrange(size)] += 1
            times.append(drawn)
        for i, value in enumerate(_centred_list(solve(times, full)[0])):
            samples[i].append(value)
    return names, point, samples


@lru_cache(maxsize=256)
def groups_of(seats: int, sizes: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The groups a Davidson-Luce stage may choose among `seats` seats in play: (its place among the
    tie sizes + 1, or 0 for a single seat; the positions of its seats), single seats first."""
    out = [(0, (i,)) for i in range(seats)]
    for j, k in enumerate(sizes):
        if k <= seats:
            out += [(j + 1, combo) for combo in itertools.combinations(range(seats), k)]
    return tuple(out)


def _dl_newton(shares: list[float], families: list[tuple[tuple[int, ...], list[int], list[tuple[int, ...]], list[int]]],
               theta: list[float] | None, phi: list[float] | None, steps: int) -> tuple[list[float], list[float]]:
    """Log-strengths and log tie parameters maximising the Davidson-Luce log-likelihood (with the
    prior). `families`: per stratum (tie sizes, groups chosen of each size, sets in play, choices
    from each); the log-likelihood is concave (a log-linear model over the groups), the prior makes
    it strictly so, and Newton's method with step halving finds its maximum as `_newton` does."""
    n = len(shares)
    compiled = []  # per set in play: its choices, and its groups as (tie parameter or -1, seats, 1/k)
    at = n
    for sizes, _, sets, counts in families:
        for members, c in zip(sets, counts):
            options = [(at + j - 1 if j else -1, tuple(members[q] for q in combo), 1 / len(combo))
                       for j, combo in groups_of(len(members), sizes)]
            compiled.append((c, options))
        at += len(sizes)
    x = list(theta if theta is not None else [0.0] * n) + list(phi if phi else [0.0] * (at - n))
    observed = list(shares) + [float(PRIOR_DRAWS + g) for _, groups, _, _ in families for g in groups]
    for _ in range(steps):
        loglik, grad, hess = _dl_derivatives(x, observed, compiled)
        step = _solve(hess, grad)
        size = max((abs(s) for s in step), default=0.0)
        scale = 1.0
        while True:
            new = [t + scale * s for t, s in zip(x, step)]
            if size * scale < 1e-3 or scale < 1e-9 or _dl_derivatives(new, observed, compiled, False)[0] >= loglik:
                break
            scale /= 2
        x = new
        if size < CONVERGED:
            break
    return x[:n], x[n:]


def _dl_derivatives(x: list[float], observed: list[float], compiled: list, second: bool = True
                    ) -> tuple[float, list[float], list[list[float]]]:
    """The Davidson-Luce log-likelihood with the prior, its gradient, and minus its Hessian."""
    exp, log = math.exp, math.log
    m = len(x)
    loglik = 0.0
    grad = [0.0] * m
    hess = [[0.0] * m for _ in range(m)] if second else []
    for i, (t, w) in enumerate(zip(x, observed)):  # each parameter's logistic prior, and what was seen
        p = 1 / (1 + exp(-t))
        loglik += w * t - 2 * PRIOR_DRAWS * _softplus(t)
        grad[i] = w - 2 * PRIOR_DRAWS * p
        if second:
            hess[i][i] = 2 * PRIOR_DRAWS * p * (1 - p)
    for c, options in compiled:
        etas = []
        for j, seats, inv in options:
            if inv == 1.0:
                etas.append(x[seats[0]])
            else:
                etas.append(x[j] + sum([x[k] for k in seats]) * inv)
        top = max(etas)
        weights = [exp(e - top) for e in etas]
        total = sum(weights)
        loglik -= c * (top + log(total))
        if not second:  # the line search needs the log-likelihood only
            continue
        mean: dict[int, float] = {}
        scale = c / total
        for (j, seats, inv), w in zip(options, weights):
            cp = scale * w  # c times the group's chance
            if inv == 1.0:
                k = seats[0]
                mean[k] = mean.get(k, 0.0) + cp
                if second:
                    hess[k][k] += cp
                continue
            share = cp * inv
            for k in seats:
                mean[k] = mean.get(k, 0.0) + share
            mean[j] = mean.get(j, 0.0) + cp
            if second:  # E[v v^T] over the groups (v: 1/k on its seats, 1 on its tie parameter)
                both = share * inv
                for k in seats:
                    row = hess[k]
                    for l in seats:
                        row[l] += both
                    row[j] += share
                    hess[j][k] += share
                hess[j][j] += cp
        for a, ea in mean.items():
            grad[a] -= ea
            if second:
                row = hess[a]
                for b, eb in mean.items():
                    row[b] -= ea * eb / c
    return loglik, grad, hess


def _sd(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


def _centred_list(theta: list[float]) -> list[float]:
    points = [SCALE * t for t in theta]
    mean = math.fsum(points) / len(points)
    return [p - mean for p in points]


def _data_seed(strata: Sequence[Sequence[Stats]]) -> int:
    """A PRNG seed from the statistics, unit by unit in the given order, with the names left out."""
    shape = [[[sorted((len(key), c) for key, c in unit.choices.items()), sorted(unit.wins.values())]
              for unit in stratum] for stratum in strata]
    digest = hashlib.sha256(json.dumps(shape, separators=(",", ":")).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _newton(wins: list[int], sets: list[tuple[int, ...]], counts: list[int], start: list[float] | None,
            steps: int) -> list[float]:
    """Log-strengths maximising the log-likelihood (with the prior) of the given statistics."""
    theta = list(start) if start is not None else [0.0] * len(wins)
    for _ in range(steps):
        loglik, grad, hess = _derivatives(theta, wins, sets, counts)
        step = _solve(hess, grad)
        size = max((abs(s) for s in step), default=0.0)
        scale = 1.0
        while True:  # halve a long step until the likelihood rises (a short one is taken as it is)
            new = [t + scale * s for t, s in zip(theta, step)]
            if size * scale < 1e-3 or scale < 1e-9 or _loglik(new, wins, sets, counts) >= loglik:
                break
            scale /= 2
        theta = new
        if size < CONVERGED:  # Newton converges quadratically: the error left is about size**2
            break
    return theta


def _loglik(theta: list[float], wins: list[int], sets: list[tuple[int, ...]], counts: list[int]) -> float:
    exp, log = math.exp, math.log
    total = 0.0
    for t, w in zip(theta, wins):
        total += w * t - 2 * PRIOR_DRAWS * _softplus(t)
    for members, c in zip(sets, counts):
        values = [theta[k] for k in members]
        top = max(values)
        total -= c * (top + log(sum([exp(v - top) for v in values])))
    return total


def _derivatives(theta: list[float], wins: list[int], sets: list[tuple[int, ...]],
                 counts: list[int]) -> tuple[float, list[float], list[list[float]]]:
    """The log-likelihood, its gradient, and minus its Hessian (positive definite) at `theta`."""
    exp, log = math.exp, math.log
    n = len(theta)
    loglik = 0.0
    grad = [0.0] * n
    hess = [[0.0] * n for _ in range(n)]
    for i, (t, w) in enumerate(zip(theta, wins)):
        p = 1 / (1 + exp(-t))  # the chance of beating the reference
        loglik += w * t - 2 * PRIOR_DRAWS * _softplus(t)
        grad[i] = w - 2 * PRIOR_DRAWS * p
        hess[i][i] = 2 * PRIOR_DRAWS * p * (1 - p)
    for members, c in zip(sets, counts):
        if len(members) == 2:  # most sets in most games: written out
            a, b = members
            ta, tb = theta[a], theta[b]
            if ta >= tb:
                other = exp(tb - ta)
                loglik -= c * (ta + log(1 + other))
                pa, pb = 1 / (1 + other), other / (1 + other)
            else:
                other = exp(ta - tb)
                loglik -= c * (tb + log(1 + other))
                pa, pb = other / (1 + other), 1 / (1 + other)
            grad[a] -= c * pa
            grad[b] -= c * pb
            v = c * pa * pb
            hess[a][a] += v
            hess[b][b] += v
            hess[a][b] -= v
            hess[b][a] -= v
            continue
        values = [theta[k] for k in members]
        top = max(values)
        weights = [exp(v - top) for v in values]
        total = sum(weights)
        loglik -= c * (top + log(total))
        shares = [x / total for x in weights]
        for k, p in zip(members, shares):
            cp = c * p
            grad[k] -= cp
            row = hess[k]
            row[k] += cp
            for l, q in zip(members, shares):
                row[l] -= cp * q
    return loglik, grad, hess


def _softplus(t: float) -> float:
    """log(1 + e^t), without overflow."""
    return t + math.log1p(math.exp(-t)) if t > 0 else math.log1p(math.exp(t))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix x = vector, for a symmetric positive definite matrix (Cholesky)."""
    n = len(vector)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = low[i]
        for j in range(i + 1):
            other = low[j]
            s = matrix[i][j] - sum(row[k] * other[k] for k in range(j))
            row[j] = math.sqrt(max(s, 1e-300)) if i == j else s / other[j]
    y = [0.0] * n
    for i in range(n):
        y[i] = (vector[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x
