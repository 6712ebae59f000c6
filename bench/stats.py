"""Benchmark: the statistics' promises checked in simulation, where the truth is known.

Each section simulates tournaments whose true strengths are set, runs them through the project's
own functions and prints a table of how often a number said something false, with its Monte
Carlo standard error (MCSE = sqrt(p (1 - p) / runs)). A promise holds when the measured rate is
at most its nominal value plus two MCSE.

Sections (run one by name, or all without one):
- `sprt`: the SPRT's wrong verdicts and average sets (referee/tournament/sprt.py), for 2 and 4
  seats, a focus equal to the field (true Elo elo0: accepting H1 is wrong, at most alpha) and one
  elo1 better (accepting H0 is wrong, at most beta), with and without seat luck.
- `coverage`: how often the standings' 95% rating interval (referee/tournament/ratings.py) holds
  the true rating, by number of duplicate sets and table size, beside the plain percentile
  interval of the same resamples. A set is one deal of a game played by every table under every
  seating (all pairs, both seatings, at 2 seats; the 5 tables of 4 under 4 rotations at 4 seats).
  Finishing orders are drawn Plackett-Luce from each entrant's strength times a deal-by-entrant
  effect (some deals suit some entrants; lognormal, sd TAU on the log scale) and a deal-by-seat one
  (seat luck, sd TAU). The "true" rating is the fit of the same model on TRUTH_SETS sets (what
  the estimate tends to: the deal effects flatten the ratings a little), computed once per case.
  Monte Carlo standard error: the standard deviation of the per-run coverage over sqrt(runs).
- `ties`: the rating interval's coverage when matches tie as often as in Mayor (finishing orders
  Davidson-Luce, MAYOR_DELTAS, with the same deal effects as `coverage`), under the default
  Davidson-Luce fit and under Breslow's rule, each of its own large-sample limit (TRUTH_SETS / 4
  sets), with the interval's mean width over the true ratings' range (each model has its scale).
- `fit`: how often the standings' goodness-of-fit line (referee/tournament/fit.py) warns on
  tournaments drawn from the model itself (nominal: fit.ALPHA), and how often its p is below 0.05,
  with and without ties, and once with deal effects (where the model does not hold exactly).
- `los`: how often the head-to-head LOS (referee/tournament/head_to_head.py) passes 0.95 between
  two equal entrants (nominal: 5%), with the per-set LOS the standings now give and the per-seating
  count Phi((ahead - behind) / sqrt(ahead + behind)) used before, with and without a
  deal-by-entrant effect, at 2 seats (both seatings per set) and 4 (4 rotations of one table).

Usage: python bench/stats.py [SECTION ...] [--runs N] [--seed S] [--elo1 E] [--model normalized]
       [--quick] [--cases SEATSxSETS,...]
Prints a table per section and writes them to bench/results/stats.json. Needs numpy (a dev
dependency). Never asserts anything; `sprt` at 4,000 runs takes about a minute on one core,
`coverage` at 2,000 runs much longer (a bootstrap fit per run).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.tournament import designs, head_to_head, ratings, sprt  # noqa: E402

# -- SPRT --------------------------------------------------------------------------------------

DEAL_SD = 0.5  # a deal-by-entrant effect (some deals suit some players), in log-strength
SEAT_SD = 1.0  # seat luck: a deal favours some seats, in log-strength, beside a fixed edge
SEAT_EDGE = 0.3  # the first seat's fixed edge over the others (seat luck only)
MAX_SETS = 3000  # a run without a verdict by then counts as no verdict (neither error)


@dataclass(frozen=True)
class SprtCase:
    """One simulated situation: table size, the focus's true Elo, and whether seats matter."""

    players: int
    truth: str  # "equal" (true Elo elo0) or "elo1"
    seat_luck: bool


def _seat_effects(k: int, seat_luck: bool) -> np.ndarray:
    """The fixed log-strength edge of each seat."""
    edge = np.zeros(k)
    if seat_luck:
        edge[0] = SEAT_EDGE
    return edge


def _expected_score(delta: float, k: int, seat_luck: bool) -> float:
    """The focus's exact expected set score at log-strength advantage delta over each of the field.

    Under Plackett-Luce the focus finishes ahead of one opponent with probability
    logistic(x_focus - x_opponent), whatever the other seats; the deal's and seats' random effects
    add a normal of known variance to that difference (integrated by Gauss-Hermite)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()
    sd = math.sqrt(2 * DEAL_SD ** 2 + (2 * SEAT_SD ** 2 if seat_luck else 0.0))
    edge = _seat_effects(k, seat_luck)
    total = count = 0.0
    for seating in designs.seatings("balanced", k):
        focus_seat = seating.index(0)  # table position 0 is the focus
        for seat in range(k):
            if seat == focus_seat:
                continue
            z = delta + edge[focus_seat] - edge[seat] + sd * nodes
            total += float(np.sum(weights / (1 + np.exp(-z))))
            count += 1
    return total / count


def _delta_for(score: float, k: int, seat_luck: bool) -> float:
    """The log-strength advantage whose expected set score is `score` (bisection)."""
    low, high = -5.0, 5.0
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (mid, high) if _expected_score(mid, k, seat_luck) < score else (low, mid)
    return (low + high) / 2


def _delta_for_t(t: float, k: int, seat_luck: bool, seed: int, sample: int = 40000) -> float:
    """The log-strength advantage whose set scores have (mean - 1/2) / sd = t (normalized Elo):
    the mean exact (`_expected_score`), the sd from `sample` simulated sets, the same draws at
    every step of the bisection (its Monte Carlo error is about 0.4% of t at 40,000 sets)."""
    low, high = 0.0, 5.0
    for _ in range(40):
        mid = (low + high) / 2
        scores = _set_scores(np.random.default_rng(seed + 1), sample, k, mid, seat_luck)
        above = (_expected_score(mid, k, seat_luck) - 0.5) / scores.std() > t
        low, high = (low, mid) if above else (mid, high)
    return (low + high) / 2


def _set_scores(rng: np.random.Generator, n: int, k: int, delta: float, seat_luck: bool) -> np.ndarray:
    """n duplicate sets' scores for the focus (entrant 0): every seating of the balanced design on
    one deal, the finishing order drawn from Plackett-Luce (Gumbel-max)."""
    orders = np.array(designs.seatings("balanced", k))  # [seating, seat] -> table position
    m = len(orders)
    strength = np.zeros((n, k))
    strength[:, 0] = delta
    strength += rng.normal(0, DEAL_SD, (n, k))  # by entrant, the same in every seating of the deal
    seat = np.tile(_seat_effects(k, seat_luck), (n, 1))
    if seat_luck:
        seat += rng.normal(0, SEAT_SD, (n, k))  # by seat, the same in every seating of the deal
    # x[set, seating, seat]: the strength of whoever sits there, plus the seat's luck
    x = np.take_along_axis(strength[:, None, :], np.broadcast_to(orders, (n, m, k)), axis=2) + seat[:, None, :]
    x = x + rng.gumbel(size=x.shape)
    focus_seat = np.argmax(orders == 0, axis=1)  # [seating]
    mine = x[:, np.arange(m), focus_seat]  # [set, seating]
    ahead = (x < mine[:, :, None]).sum(axis=2)  # the other seats the focus finished ahead of
    return ahead.mean(axis=1) / (k - 1)


def _one_run(test: sprt.Sprt, draw: Callable[[int], np.ndarray]) -> tuple[str | None, int]:
    """One SPRT run: sets drawn in blocks, tested set by set as the gauntlet does (sprt.Sprt)."""
    scores: list[float] = []
    while len(scores) < MAX_SETS:
        scores.extend(draw(64).tolist())
        verdict, n = test.first_decision(scores)
        if verdict is not None:
            return verdict, n
    return None, MAX_SETS


def sprt_section(args: argparse.Namespace) -> list[dict[str, object]]:
    """Wrong-verdict rates and average sets of the SPRT, per case (printed, and returned as rows)."""
    runs = args.runs
    test = sprt.Sprt(elo0=0, elo1=args.elo1, alpha=0.05, beta=0.05, model=args.model)
    print(f"SPRT ({test.model} Elo): elo0 {test.elo0:g}, elo1 {test.elo1:g}, alpha {test.alpha:g}, beta {test.beta:g}, "
          f"{runs} runs a case, balanced seatings, deal-by-entrant sd {DEAL_SD}, "
          f"seat luck sd {SEAT_SD} + first-seat edge {SEAT_EDGE} (log-strength)")
    print(f"{'seats':>5} {'truth':>6} {'seat luck':>9} {'wrong':>7} {'MCSE':>7} {'nominal':>7} "
          f"{'holds':>5} {'no verdict':>10} {'mean sets':>9} {'time':>6}")
    rng = np.random.default_rng(args.seed)
    rows: list[dict[str, object]] = []
    for k in (2, 4):
        for seat_luck in (False, True):
            for truth in ("equal", "elo1"):
                started = time.monotonic()
                if truth == "equal":  # elo0 = 0: an expected set score of 1/2 in either model
                    delta = _delta_for(sprt.expected_score(test.elo0), k, seat_luck)
                elif test.model == sprt.LOGISTIC:
                    delta = _delta_for(sprt.expected_score(test.elo1), k, seat_luck)
                else:
                    delta = _delta_for_t(sprt.nelo_t(test.elo1), k, seat_luck, args.seed)
                wrong_verdict, nominal = (sprt.H1, test.alpha) if truth == "equal" else (sprt.H0, test.beta)
                wrong = undecided = total_sets = 0
                for _ in range(runs):
                    verdict, n = _one_run(test, lambda n: _set_scores(rng, n, k, delta, seat_luck))
                    wrong += verdict == wrong_verdict
                    undecided += verdict is None
                    total_sets += n
                p = wrong / runs
                mcse = math.sqrt(p * (1 - p) / runs)
                holds = "yes" if p <= nominal + 2 * mcse else "NO"
                print(f"{k:>5} {truth:>6} {'yes' if seat_luck else 'no':>9} {p:>7.4f} {mcse:>7.4f} "
                      f"{nominal:>7.3f} {holds:>5} {undecided:>10} {total_sets / runs:>9.1f} "
                      f"{time.monotonic() - started:>5.0f}s", flush=True)
                rows.append({"seats": k, "truth": truth, "seat_luck": seat_luck, "runs": runs, "wrong": p,
                             "mcse": mcse, "nominal": nominal, "holds": holds == "yes", "undecided": undecided,
                             "mean_sets": total_sets / runs, "elo0": test.elo0, "elo1": test.elo1,
                             "model": test.model})
    return rows


# -- ratings: coverage and LOS ---------------------------------------------------------------------

TAU = 0.3  # sd of the deal-by-entrant and deal-by-seat effects on log-strength
TRUTH_SETS = 4000
STRENGTHS = (-150.0, -75.0, 0.0, 75.0, 150.0)  # the entrants' ratings without deal effects
NAMES = ("a", "b", "c", "d", "e")


def _finish(rng: random.Random, strengths: list[float]) -> list[int]:
    """Finishing ranks of one match, Plackett-Luce on exp(strengths) (no ties)."""
    left = list(range(len(strengths)))
    ranks = [0] * len(strengths)
    for place in range(1, len(strengths) + 1):
        weights = [math.exp(strengths[k]) for k in left]
        pick = rng.random() * sum(weights)
        for k, w in zip(left, weights):
            pick -= w
            if pick <= 0:
                break
        ranks[k] = place
        left.remove(k)
    return ranks


def _tables(seats: int) -> list[list[list[str]]]:
    """One set's tables, each under its seatings (lists of seated names)."""
    if seats == 2:
        pairs = [(a, b) for i, a in enumerate(NAMES) for b in NAMES[i + 1:]]
        return [[[a, b], [b, a]] for a, b in pairs]
    tables = [[n for n in NAMES if n != out] for out in NAMES]
    return [[table[r:] + table[:r] for r in range(len(table))] for table in tables]


def simulated_set(rng: random.Random, seats: int, tau: float, theta: dict[str, float]) -> list[tuple[list[str], list[int]]]:
    """One duplicate set: every table under every seating, one deal's effects shared."""
    suits = {n: rng.gauss(0, tau) for n in NAMES}
    luck = [rng.gauss(0, tau) for _ in range(seats)]
    out = []
    for table in _tables(seats):
        for seating in table:
            strengths = [theta[n] + suits[n] + luck[s] for s, n in enumerate(seating)]
            out.append((seating, _finish(rng, strengths)))
    return out


def coverage_case(seats: int, sets: int, runs: int, seed: int) -> dict:
    """One coverage case: its figures (see the module docstring)."""
    theta = {n: r / ratings.SCALE for n, r in zip(NAMES, STRENGTHS)}
    rng = random.Random(seed)
    big = ratings.Stats()
    for _ in range(TRUTH_SETS):
        for seating, ranks in simulated_set(rng, seats, TAU, theta):
            big.add(seating, ranks)
    truth = ratings.centred(ratings.fit(big))
    held = {"t": [], "percentile": []}
    everyone = {"t": 0, "percentile": 0}
    widths = []
    for _ in range(runs):
        units = []
        for _ in range(sets):
            unit = ratings.Stats()
            for seating, ranks in simulated_set(rng, seats, TAU, theta):
                unit.add(seating, ranks)
            units.append(unit)
        names, point, samples = ratings.resampled([units])
        half = ratings.widening(len(units), 1)
        t_hits = percentile_hits = 0
        for i, name in enumerate(names):
            se = ratings._sd(samples[i])
            t_hits += point[i] - half * se <= truth[name] <= point[i] + half * se
            low, high = ratings.percentile(samples[i])
            percentile_hits += low <= truth[name] <= high
            widths.append(2 * half * se)
        held["t"].append(t_hits / len(names))
        held["percentile"].append(percentile_hits / len(names))
        everyone["t"] += t_hits == len(names)
        everyone["percentile"] += percentile_hits == len(names)
    out = {"seats": seats, "sets": sets, "runs": runs, "mean_width": round(sum(widths) / len(widths), 1)}
    for method, values in held.items():
        mean = sum(values) / runs
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (runs - 1))
        out[method] = round(mean, 4)
        out[f"{method}_mcse"] = round(sd / math.sqrt(runs), 4)
        out[f"{method}_all"] = round(everyone[method] / runs, 4)
    return out


def coverage(runs: int, cases: list[tuple[int, int]]) -> list[dict]:
    """The `coverage` section: a row per (seats, sets) case."""
    rows = []
    print(f"coverage of the 95% rating interval, {runs} runs per case, 5 entrants, TAU={TAU}")
    print(f"{'seats':>5} {'sets':>4} {'t-interval':>10} {'+-mcse':>7} {'all':>6} {'percentile':>10} {'+-mcse':>7}"
          f" {'all':>6} {'width':>6} {'secs':>5}")
    for k, (seats, sets) in enumerate(cases):
        start = time.time()
        row = coverage_case(seats, sets, runs, 1000 + k)
        row["seconds"] = round(time.time() - start, 1)
        rows.append(row)
        print(f"{seats:>5} {sets:>4} {row['t']:>10.4f} {row['t_mcse']:>7.4f} {row['t_all']:>6.3f} "
              f"{row['percentile']:>10.4f} {row['percentile_mcse']:>7.4f} {row['percentile_all']:>6.3f} "
              f"{row['mean_width']:>6.1f} {row['seconds']:>5.0f}", flush=True)
    return rows


def _old_los(ahead: int, behind: int) -> float:
    """The per-seating LOS the standings gave before issue 26."""
    if ahead + behind == 0:
        return 0.5
    return 0.5 * (1 + math.erf((ahead - behind) / math.sqrt(2 * (ahead + behind))))


def los_case(seats: int, sets: int, tau: float, runs: int, seed: int) -> dict:
    """One LOS case between equal entrants: how often each LOS of a against b passes 0.95."""
    rng = random.Random(seed)
    theta = {n: 0.0 for n in NAMES}
    table = [list(NAMES[:seats])]
    table = [[table[0][r:] + table[0][:r] for r in range(seats)]]
    new = old = 0
    for _ in range(runs):
        units = []
        for s in range(sets):
            suits = {n: rng.gauss(0, tau) for n in NAMES}
            luck = [rng.gauss(0, tau) for _ in range(seats)]
            unit = []
            for seating in table[0]:
                ranks = _finish(rng, [theta[n] + suits[n] + luck[i] for i, n in enumerate(seating)])
                unit.append({"seed": s, "seats": seating, "ranks": ranks, "scores": [-r for r in ranks]})
            units.append(unit)
        pair = next(p for p in head_to_head.pairs(units, list(NAMES), min_sets=1)
                    if {p.entrant, p.opponent} == {"a", "b"})
        los = pair.los if pair.entrant == "a" else 1 - pair.los
        ahead, behind = (pair.ahead, pair.behind) if pair.entrant == "a" else (pair.behind, pair.ahead)
        new += los > 0.95
        old += _old_los(ahead, behind) > 0.95
    out = {"seats": seats, "sets": sets, "tau": tau, "runs": runs}
    for name, count in (("per_set", new), ("per_seating", old)):
        p = count / runs
        out[name] = round(p, 4)
        out[f"{name}_mcse"] = round(math.sqrt(p * (1 - p) / runs), 4)
    return out


def los(runs: int, cases: list[tuple[int, int, float]]) -> list[dict]:
    """The `los` section: a row per (seats, sets, tau) case."""
    rows = []
    print(f"LOS > 0.95 of a over b, two equal entrants (nominal 0.05), {runs} runs per case")
    print(f"{'seats':>5} {'sets':>4} {'tau':>4} {'per-set':>8} {'+-mcse':>7} {'per-seating':>11} {'+-mcse':>7}")
    for k, (seats, sets, tau) in enumerate(cases):
        row = los_case(seats, sets, tau, runs, 2000 + k)
        rows.append(row)
        print(f"{seats:>5} {sets:>4} {tau:>4} {row['per_set']:>8.4f} {row['per_set_mcse']:>7.4f} "
              f"{row['per_seating']:>11.4f} {row['per_seating_mcse']:>7.4f}", flush=True)
    return rows



# -- ties (Davidson-Luce) and the fit line ----------------------------------------------------------

MAYOR_DELTAS = {2: 0.3, 3: 0.03, 4: 0.1}  # Davidson-Luce tie parameters fitted on a 240-match Mayor run
PAIR_DELTAS = {2: 0.9}  # two seats: about 30% ties between equals


def _finish_dl(rng: random.Random, strengths: list[float], deltas: dict[int, float]) -> list[int]:
    """Finishing ranks of one match drawn from the Davidson-Luce model (log-strengths, tie
    parameters by tie size), place by place."""
    left = list(range(len(strengths)))
    ranks = [0] * len(strengths)
    place = 1
    while len(left) > 1:
        groups = [(k, combo) for k in [1, *sorted(deltas)] if k <= len(left)
                  for combo in itertools.combinations(left, k)]
        weights = [(1.0 if k == 1 else deltas[k]) * math.exp(sum(strengths[i] for i in combo) / k)
                   for k, combo in groups]
        pick = rng.random() * sum(weights)
        chosen = groups[-1][1]
        for (_, combo), w in zip(groups, weights):
            pick -= w
            if pick <= 0:
                chosen = combo
                break
        for i in chosen:
            ranks[i] = place
        place += len(chosen)
        left = [i for i in left if i not in chosen]
    for i in left:
        ranks[i] = place
    return ranks


def simulated_dl_set(rng: random.Random, seats: int, tau: float, theta: dict[str, float],
                     deltas: dict[int, float]) -> list[tuple[list[str], list[int]]]:
    """One duplicate set (as `simulated_set`), finishing orders Davidson-Luce with ties."""
    suits = {n: rng.gauss(0, tau) for n in NAMES}
    luck = [rng.gauss(0, tau) for _ in range(seats)]
    return [(seating, _finish_dl(rng, [theta[n] + suits[n] + luck[s] for s, n in enumerate(seating)], deltas))
            for table in _tables(seats) for seating in table]


def ties_case(seats: int, sets: int, runs: int, seed: int, deltas: dict[int, float]) -> dict:
    """One ties case: coverage and mean width of the 95% rating interval under Davidson-Luce (of
    its own large-sample limit) and under Breslow's rule (of its own), the share of matches tied."""
    theta = {n: r / ratings.SCALE for n, r in zip(NAMES, STRENGTHS)}
    rng = random.Random(seed)
    big = ratings.Stats()
    tied = matches = 0
    for _ in range(TRUTH_SETS // 4):
        for seating, ranks in simulated_dl_set(rng, seats, TAU, theta, deltas):
            big.add(seating, ranks)
            matches += 1
            tied += len(set(ranks)) < len(ranks)
    truth = {model: ratings.centred(ratings.fit(big, ties=model)) for model in ratings.TIES}
    held = {model: [] for model in ratings.TIES}
    widths = {model: [] for model in ratings.TIES}
    for _ in range(runs):
        units = []
        for _ in range(sets):
            unit = ratings.Stats()
            for seating, ranks in simulated_dl_set(rng, seats, TAU, theta, deltas):
                unit.add(seating, ranks)
            units.append(unit)
        half = ratings.widening(len(units), 1)
        for model in ratings.TIES:
            names, point, samples = ratings.resampled([units], ties=model)
            hits = 0
            for i, name in enumerate(names):
                se = ratings._sd(samples[i])
                hits += point[i] - half * se <= truth[model][name] <= point[i] + half * se
                widths[model].append(2 * half * se)
            held[model].append(hits / len(names))
    out = {"seats": seats, "sets": sets, "runs": runs, "tied": round(tied / matches, 3),
           "deltas": {str(k): v for k, v in deltas.items()}}
    for model in ratings.TIES:
        values = held[model]
        mean = sum(values) / runs
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, runs - 1))
        out[model] = round(mean, 4)
        out[f"{model}_mcse"] = round(sd / math.sqrt(runs), 4)
        out[f"{model}_width"] = round(sum(widths[model]) / len(widths[model]), 1)
        spread = max(truth[model].values()) - min(truth[model].values())
        out[f"{model}_width_per_spread"] = round(out[f"{model}_width"] / spread, 3)
    return out


def ties_section(args: argparse.Namespace) -> list[dict]:
    """`ties`: the rating interval's coverage with Mayor-like ties, Davidson-Luce beside Breslow."""
    cases = [(4, 10, MAYOR_DELTAS)] if args.quick else [(4, 10, MAYOR_DELTAS), (4, 30, MAYOR_DELTAS),
                                                         (2, 10, PAIR_DELTAS)]
    if args.cases:
        cases = [(int(a), int(b), MAYOR_DELTAS if a == "4" else PAIR_DELTAS)
                 for a, b in (case.split("x") for case in args.cases.split(","))]
    runs = 200 if args.quick else args.runs
    rows = []
    print(f"coverage of the 95% rating interval with ties, {runs} runs per case, 5 entrants, TAU={TAU}; "
          "width/spread: the interval's mean width over the true ratings' range (each model's own scale)")
    print(f"{'seats':>5} {'sets':>4} {'tied':>5} {'davidson':>8} {'+-mcse':>7} {'width/spread':>12} "
          f"{'breslow':>8} {'+-mcse':>7} {'width/spread':>12}")
    for k, (seats, sets, deltas) in enumerate(cases):
        row = ties_case(seats, sets, runs, 3000 + k, deltas)
        rows.append(row)
        print(f"{seats:>5} {sets:>4} {row['tied']:>5.2f} {row['davidson']:>8.4f} {row['davidson_mcse']:>7.4f} "
              f"{row['davidson_width_per_spread']:>12.3f} {row['breslow']:>8.4f} {row['breslow_mcse']:>7.4f} "
              f"{row['breslow_width_per_spread']:>12.3f}", flush=True)
    return rows


def fit_case(seats: int, sets: int, tau: float, runs: int, seed: int, deltas: dict[int, float]) -> dict:
    """One fit case: how often the goodness-of-fit line warns (p < fit.ALPHA) and how often its p is
    below 0.05, on tournaments drawn from the model itself (deal effects sd `tau`: 0, the model true)."""
    from referee.tournament import fit

    theta = {n: r / ratings.SCALE for n, r in zip(NAMES, STRENGTHS)}
    rng = random.Random(seed)
    warned = below = 0
    factors = []
    for _ in range(runs):
        matches = [m for _ in range(sets) for m in simulated_dl_set(rng, seats, tau, theta, deltas)]
        result = fit.check(matches)
        warned += result.warns
        below += result.p < 0.05
        factors.append(result.factor)
    out = {"seats": seats, "sets": sets, "tau": tau, "runs": runs, "alpha": fit.ALPHA,
           "mean_factor": round(sum(factors) / runs, 4)}
    for name, count in (("warns", warned), ("p_below_0.05", below)):
        p = count / runs
        out[name] = round(p, 4)
        out[f"{name}_mcse"] = round(math.sqrt(p * (1 - p) / runs), 4)
    return out


def fit_section(args: argparse.Namespace) -> list[dict]:
    """`fit`: the goodness-of-fit line's false alarms when the model holds (and with deal effects)."""
    cases = [(4, 10, 0.0, MAYOR_DELTAS)] if args.quick else [
        (4, 10, 0.0, MAYOR_DELTAS), (4, 10, 0.0, {}), (2, 10, 0.0, PAIR_DELTAS), (4, 10, TAU, MAYOR_DELTAS)]
    runs = 200 if args.quick else args.runs
    rows = []
    print(f"goodness-of-fit warnings on tournaments drawn from the model, {runs} runs per case, 5 entrants")
    print(f"{'seats':>5} {'sets':>4} {'tau':>4} {'ties':>5} {'warns':>6} {'+-mcse':>7} {'p<0.05':>7} {'+-mcse':>7} "
          f"{'factor':>7}")
    for k, (seats, sets, tau, deltas) in enumerate(cases):
        row = fit_case(seats, sets, tau, runs, 4000 + k, deltas)
        rows.append(row)
        print(f"{seats:>5} {sets:>4} {tau:>4} {'yes' if deltas else 'no':>5} {row['warns']:>6.4f} "
              f"{row['warns_mcse']:>7.4f} {row['p_below_0.05']:>7.4f} {row['p_below_0.05_mcse']:>7.4f} "
              f"{row['mean_factor']:>7.3f}", flush=True)
    return rows


def coverage_section(args: argparse.Namespace) -> list[dict]:
    """`coverage`, its cases from --quick / --cases."""
    cases = [(2, 10), (4, 10)] if args.quick else [(2, 5), (2, 10), (2, 20), (2, 30), (4, 10), (4, 30)]
    if args.cases:
        cases = [tuple(int(x) for x in case.split("x")) for case in args.cases.split(",")]
    return coverage(200 if args.quick else args.runs, cases)


def los_section(args: argparse.Namespace) -> list[dict]:
    """`los`, its cases from --quick."""
    cases = [(2, 10, TAU), (4, 10, TAU)] if args.quick else [
        (2, 10, 0.0), (2, 10, 0.5), (2, 10, 1.5), (2, 30, 1.5), (4, 10, 0.0), (4, 10, 0.5), (4, 10, 1.5),
        (4, 30, 1.5)]
    return los(200 if args.quick else args.runs, cases)


SECTIONS: dict[str, Callable[[argparse.Namespace], list[dict[str, object]]]] = {
    "sprt": sprt_section, "coverage": coverage_section, "los": los_section, "ties": ties_section,
    "fit": fit_section}
RESULTS = Path(__file__).resolve().parent / "results" / "stats.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sections", nargs="*", help=f"which sections: {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--runs", type=int, default=2000, help="simulated runs per case (default 2000)")
    parser.add_argument("--seed", type=int, default=26, help="the simulation's seed")
    parser.add_argument("--elo1", type=float, default=50.0, help="sprt: the test's elo1 (elo0 is 0; default 50)")
    parser.add_argument("--json", type=Path, default=RESULTS, help=f"where to write the figures (default {RESULTS})")
    parser.add_argument("--model", choices=sprt.MODELS, default=sprt.LOGISTIC,
                        help="sprt: what elo0 and elo1 are in (default logistic)")
    parser.add_argument("--quick", action="store_true", help="coverage, los: 200 runs per case, fewer cases")
    parser.add_argument("--cases", help="coverage, ties: the cases as SEATSxSETS, comma-separated (e.g. 2x10,4x30)")
    args = parser.parse_args()
    unknown = [name for name in args.sections if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r} (sections: {', '.join(SECTIONS)})")
    results = {name: SECTIONS[name](args) for name in args.sections or SECTIONS}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"seed": args.seed, **results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
