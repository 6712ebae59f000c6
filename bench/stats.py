"""Statistics with known truth (issue 26): simulated tournaments through the project's own
functions, each section printing a table; `python bench/stats.py [section ...]` (every section
without one). Figures go to bench/results/stats.json as well.

Sections:
- `coverage`: how often the standings' 95% rating interval (referee/tournament/ratings.py) holds
  the true rating, by number of duplicate sets and table size, beside the plain percentile
  interval of the same resamples. A set is one deal of a game played by every table under every
  seating (all pairs, both seatings, at 2 seats; the 5 tables of 4 under 4 rotations at 4 seats).
  Finishing orders are drawn Plackett-Luce from each entrant's strength times a deal-by-entrant
  effect (some deals suit some entrants; lognormal, sd TAU on the log scale) and a deal-by-seat one
  (seat luck, sd TAU). The "true" rating is the fit of the same model on TRUTH_SETS sets (what
  the estimate tends to: the deal effects flatten the ratings a little), computed once per case.
  Monte Carlo standard error: the standard deviation of the per-run coverage over sqrt(runs).
- `los`: how often the head-to-head LOS (referee/tournament/head_to_head.py) passes 0.95 between
  two equal entrants (nominal: 5%), with the per-set LOS the standings now give and the per-seating
  count Phi((ahead - behind) / sqrt(ahead + behind)) used before, with and without a
  deal-by-entrant effect, at 2 seats (both seatings per set) and 4 (4 rotations of one table).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.tournament import head_to_head, ratings  # noqa: E402

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


SECTIONS = ("coverage", "los")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sections", nargs="*", help=f"the sections to run: {', '.join(SECTIONS)} (all by default)")
    parser.add_argument("--runs", type=int, default=2000, help="simulated tournaments per case")
    parser.add_argument("--quick", action="store_true", help="200 runs per case, fewer cases")
    parser.add_argument("--cases", help="coverage cases as SEATSxSETS, comma-separated (e.g. 2x10,4x30)")
    args = parser.parse_args()
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}: one of {', '.join(SECTIONS)}")
    runs = 200 if args.quick else args.runs
    results = {}
    for section in args.sections or SECTIONS:
        if section == "coverage":
            cases = [(2, 10), (4, 10)] if args.quick else [(2, 5), (2, 10), (2, 20), (2, 30), (4, 10), (4, 30)]
            if args.cases:
                cases = [tuple(int(x) for x in case.split("x")) for case in args.cases.split(",")]
            results["coverage"] = coverage(runs, cases)
        elif section == "los":
            cases = [(2, 10, TAU), (4, 10, TAU)] if args.quick else [
                (2, 10, 0.0), (2, 10, 0.5), (2, 10, 1.5), (2, 30, 1.5), (4, 10, 0.0), (4, 10, 0.5), (4, 10, 1.5),
                (4, 30, 1.5)]
            results["los"] = los(runs, cases)
        print()
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    name = "stats" if not args.sections else "stats-" + "-".join(args.sections)
    (out / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
