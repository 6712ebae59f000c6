"""Standings from a results journal: counts, points, a batch Plackett-Luce rating with a bootstrap
95% interval, and head-to-head records per game.

The rating (referee/tournament/ratings.py) is one maximum-likelihood fit on the finishing ranks of every match
at once, on an Elo-like scale (mean 0 over the table's entrants; 400 points apart, the stronger
finishes ahead of the weaker 10 times as often). It depends only on the multiset of results, never
on their order: a resumed tournament, or the same results in any order, give identical standings.

`low` / `high`, the 95% interval, and `sigma`, the standard error, come from 200 bootstrap
resamples of the duplicate sets (the matches of one deal, game and seed, played under several
seatings, drawn together; each game's sets drawn apart), so they say how far the rating could move
had other deals been dealt (the interval: rating +- Student's t times sigma, ratings.py says why).
`p_best`: how often the entrant rated best of its game over those resamples; `rank_order` holds,
per game, how often each entrant rated above each other one.

No number without its certainty: a game of fewer than `min_sets` duplicate sets (default 10, the
tournament file's `min_sets`, kept in the journal's head) gets no sigma, interval, p_best or rank
order (None: "-" in tables, with a note saying why), nor its head-to-head pairs an interval or
LOS; the overall table gets none unless every game has its `min_sets`. A `min_sets` of 1 or less
brings back the old behaviour for a single deal: its tables (a table's seatings of that deal
together) are resampled instead, or, with a single table, its matches.

Ties: the ratings' model of ties is Davidson-Luce, each game with its own tie parameters
(`ties = "breslow"` in the tournament file, kept in the journal's head, for the rule used before);
`ties` in the standings says which model made the numbers. `fit`, per game: does the rating scale
fit the game's pairwise results (referee/tournament/fit.py; None below `min_sets`).

Tables are sorted by rating, then wins, then name. The overall table rates each entrant across every
game it played, in one fit: it compares entrants fairly only when they played the same games, so
the reports lead with each game's table and show the overall one only for the entrants that
played every game (`across_games`); the JSON, CSV and TOML files keep it whole.
Head-to-head records: referee/tournament/head_to_head.py.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from referee.tournament import fit, head_to_head, ratings
from referee.tournament.head_to_head import MIN_SETS

OVERALL_NOTE = "all games; each entrant rated across every game it played"
#: what the cross-game table of the reports is (issue 26: each game's standings lead; entrants are
#: compared across games only where they played the same games)
ACROSS_NOTE = "across games: only the entrants that played every game, each rated across all of them in one fit"


def _name(row: Any) -> str:
    return row["entrant"] if isinstance(row, dict) else row.entrant


def across_games(overall: list[Any], games: dict[str, list[Any]]) -> list[Any] | None:
    """The overall rows the reports show as the cross-game table: those of the entrants that played
    every game, in the overall order; None where there is no such table (one game, or fewer than
    two entrants that played them all: a rating across games compares no one else fairly)."""
    if len(games) < 2:
        return None
    shared = set.intersection(*({_name(r) for r in rows} for rows in games.values()))
    rows = [r for r in overall if _name(r) in shared]
    return rows if len(rows) >= 2 else None


@dataclass
class Row:
    """One entrant's line in a standings table (sigma, low, high: None where no interval is
    computed, as in the live table)."""

    entrant: str
    matches: int = 0
    wins: int = 0
    mean_rank: float = 0.0
    total_points: float = 0.0
    mean_points: float = 0.0
    faults: int = 0
    disqualified: int = 0
    rating: float = 0.0
    sigma: float | None = 0.0
    low: float | None = 0.0
    high: float | None = 0.0
    p_best: float | None = None  # how often it rated best of its game over the bootstrap resamples


def read_journal(path: str | Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The journal's tournament line and its match records; a torn last line is ignored, and so
    is a second record of the same schedule index (the first wins): a match counts once.
    Anything else that is no journal line is a UsageError naming the line."""
    head = None
    records: list[dict[str, Any]] = []
    for rec in iter_journal(path):
        if rec["type"] == "tournament":
            head = rec  # the last one, as ever (a journal has one, its first line)
        else:
            records.append(rec)
    return head, records


def iter_journal(path: str | Path, failures: bool = False) -> Iterator[dict[str, Any]]:
    """The journal's tournament lines and match records, one at a time as they are read (what
    `read_journal` collects): memory holds one record, and the schedule indices seen. With
    `failures`, the records of matches that failed on the referee's side too (every one: they
    count for no one, and a match may fail in one run and be played in the next).

    A match record is yielded for the first record of its index only; a torn last line is
    ignored; anything else that is no journal line is a UsageError naming the line (raised when
    the reading reaches it: what came before it was yielded already)."""
    from referee.errors import UsageError

    seen: set[int] = set()
    torn: tuple[int, str] | None = None  # a line that is no JSON: an error unless it is the last
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                if torn is not None:
                    raise UsageError(f"{path}, line {torn[0]}: not JSON: {torn[1][:60]!r}")
                try:
                    rec = json.loads(line)
                except ValueError:
                    torn = (number, line)  # fine as the last line: cut by a crash, never acknowledged
                    continue
                if type(rec) is not dict:
                    raise UsageError(f"{path}, line {number}: not a journal record (a JSON object)")
                if rec.get("type") == "tournament":
                    yield rec
                elif rec.get("type") == "match":
                    problem = _match_problem(rec)
                    if problem:
                        raise UsageError(f"{path}, line {number}: a match record {problem}")
                    if rec["index"] not in seen:
                        seen.add(rec["index"])
                        yield rec
                elif failures and rec.get("type") == "failure":
                    if type(rec.get("index")) is not int or not isinstance(rec.get("error"), str):
                        raise UsageError(f"{path}, line {number}: a failure record without an integer index "
                                         "and its error")
                    yield rec
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a journal: it is not UTF-8 text") from None


def _match_problem(rec: dict[str, Any]) -> str | None:
    """What keeps a match record from being counted (None: nothing)."""
    seats = rec.get("seats")
    if type(rec.get("index")) is not int:
        return "without an integer index"
    if not isinstance(rec.get("game"), str):
        return "without a game"
    if not isinstance(seats, list) or not seats or not all(isinstance(name, str) for name in seats):
        return "without its seats (a list of entrant names)"
    for key in ("ranks", "scores", "faults"):
        values = rec.get(key)
        if (not isinstance(values, list) or len(values) != len(seats)
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)):
            return f"whose {key} are not one number per seat"
    if not isinstance(rec.get("disqualified"), list):
        return "without its disqualified seats"
    return None


class Tally:
    """Standings of one scope, counted one match at a time: memory grows with the entrants (and the
    distinct tables), never with the matches. Its table is the live one: a rating, no interval.
    With `rate` False it only counts (`counts`): `compute` rates the whole journal itself."""

    def __init__(self, points: bool = True, rate: bool = True) -> None:
        self.points = points
        self.rate = rate
        self.rows: dict[str, Row] = {}
        self.rank_sum: dict[str, int | float] = {}
        self.point_sum: dict[str, int | Fraction] = {}  # exact, so the totals are order-free
        self.stats: dict[str, ratings.Stats] = {}  # by game: each game ties in its own way (ratings.py)
        self._theta: dict[str, float] | None = None
        self._ties: list[dict[int, float]] | None = None

    def add(self, rec: dict[str, Any]) -> None:
        """Count one match record."""
        rows = self.rows
        for seat, name in enumerate(rec["seats"]):
            row = rows.get(name)
            if row is None:
                row = rows[name] = Row(name)
                self.rank_sum[name] = self.point_sum[name] = 0
            row.matches += 1
            row.wins += rec["ranks"][seat] == 1
            self.rank_sum[name] += rec["ranks"][seat]
            row.faults += rec["faults"][seat]
            row.disqualified += seat in rec["disqualified"]
            if self.points:
                score = rec["scores"][seat]
                self.point_sum[name] += Fraction(score) if isinstance(score, float) else score
        if self.rate:
            self.stats.setdefault(rec["game"], ratings.Stats()).add(rec["seats"], rec["ranks"])

    def counts(self) -> dict[str, Row]:
        """The rows with their means, by name; no rating yet."""
        out = {}
        for name, r in self.rows.items():
            points = self.point_sum[name]
            total = points if type(points) is int else round(float(points), 4)  # 12, not 12.0, as before
            out[name] = replace(r, mean_rank=round(float(self.rank_sum[name]) / r.matches, 4), total_points=total,
                                mean_points=round(total / r.matches, 4))
        return out

    def table(self) -> list[Row]:
        """The live table: the batch rating of the matches so far (warm-started from the last
        table's, a few Newton steps at most), no interval; sorted like the standings."""
        strata = [self.stats[game] for game in sorted(self.stats)]
        if any(stats.groups for stats in strata):  # Davidson-Luce, a game's tie parameters its own
            self._theta, self._ties = ratings.fit_with_ties(strata, self._theta, 3, self._ties)
        else:
            self._theta = ratings.fit(_merged(strata), self._theta, steps=3)
        rated = ratings.centred(self._theta)
        return _sorted([replace(r, rating=round(rated[name], 2), sigma=None, low=None, high=None)
                        for name, r in self.counts().items()])


class Result:
    """A match record as the standings count it: its game, seed, seats, ranks, scores, faults and
    disqualified seats, read as the record is (`result["seats"]`), nothing else of it. The final
    standings of a big run hold one per match: a few hundred bytes, where a journal record
    parsed takes several kilobytes; the tuples that repeat (seatings, ranks, faults) are shared
    through `shared`."""

    __slots__ = ("game", "seed", "seats", "ranks", "scores", "faults", "disqualified")

    def __init__(self, rec: dict[str, Any], shared: dict[Any, Any]) -> None:
        self.game = shared.setdefault(rec["game"], rec["game"])
        self.seed = rec.get("seed")
        for name in ("seats", "ranks", "scores", "faults", "disqualified"):
            value = tuple(rec[name])
            # only tuples of ints or of names: (1, 2) == (1.0, 2.0), and a float score must stay one
            if all(type(v) is int or type(v) is str for v in value):
                value = shared.setdefault(value, value)
            setattr(self, name, value)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


def failed_matches(path: str | Path) -> list[dict[str, Any]]:
    """The journal's matches that failed on the referee's side and were not played since
    (`--resume` plays them again): each one's last failure record, without its traceback, in
    schedule order. Memory holds the failures only (and the indices `iter_journal` keeps)."""
    failed: dict[int, dict[str, Any]] = {}
    played: set[int] = set()
    for rec in iter_journal(path, failures=True):
        if rec["type"] == "match":
            played.add(rec["index"])
            failed.pop(rec["index"], None)
        elif rec["type"] == "failure" and rec["index"] not in played:
            failed[rec["index"]] = {k: v for k, v in rec.items() if k != "traceback"}
    return [failed[index] for index in sorted(failed)]


def failure_groups(failed: Iterable[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Failed matches grouped by their error's first line: (error, the keys of its matches), the
    most frequent first (then by error)."""
    groups: dict[str, list[str]] = {}
    for rec in failed:
        groups.setdefault(rec["error"], []).append(str(rec.get("key", rec["index"])))
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def counted_journal(path: str | Path) -> Iterator[dict[str, Any]]:
    """A journal's counted match records (sprt.counted: an SPRT entry's matches beyond its
    deciding set left out), one at a time as they are read: memory never holds them all."""
    from referee.tournament import sprt

    decisions = sprt.read_decisions(path)
    return sprt.iter_counted((r for r in iter_journal(path) if r["type"] == "match"), decisions)


def sprt_outcomes(path: str | Path) -> list[Any]:
    """Every SPRT game entry's `sprt.Outcome` (verdict, LLR, bounds, sets) from a journal: its
    head, its counted matches and its decision records, streamed."""
    from referee.tournament import sprt

    head = next((r for r in iter_journal(path) if r["type"] == "tournament"), None)
    if not (head or {}).get("sprt"):
        return []
    return sprt.outcomes(head, counted_journal(path), sprt.read_decisions(path))


def compute_journal(path: str | Path) -> dict[str, Any]:
    """`compute` of a journal's counted match records (`counted_journal`), read in one streamed
    pass: memory holds a `Result` per match, never the records; `min_sets` and `ties` from its head."""
    head = next((r for r in iter_journal(path) if r["type"] == "tournament"), None) or {}
    return compute(counted_journal(path), journal_min_sets(head), journal_ties(head))


def journal_ties(head: dict[str, Any]) -> str:
    """The ratings' model of ties a journal's head names (ratings.TIES), else the default."""
    return head.get("ties") if head.get("ties") in ratings.TIES else ratings.DEFAULT_TIES


def journal_min_sets(head: dict[str, Any]) -> dict[str, int]:
    """The `min_sets` of each game a journal's head names (games it leaves out: MIN_SETS)."""
    given = head.get("min_sets")
    if not isinstance(given, dict):
        return {}
    return {g: n for g, n in given.items() if isinstance(g, str) and type(n) is int}


def compute(records: Iterable[dict[str, Any]], min_sets: int | dict[str, int] | None = None,
            ties: str = ratings.DEFAULT_TIES) -> dict[str, Any]:
    """Standings overall and per game, head-to-head records per game, how many duplicate sets each
    game's records make and the `min_sets` each was judged by, as {"overall": [Row], "games":
    {game: [Row]}, "head_to_head": {game: [Pair]}, "rank_order": {game: {entrant: {opponent: P}} or
    None}, "sets": {game: int}, "min_sets": {game: int}, "ties": {"model": str, "delta": {game:
    {size: delta}}}, "fit": {game: fit.Fit or None}}; the same for records in any order.
    `min_sets`: one for every game, or by game (MIN_SETS for a game left out); `ties`: the
    ratings' model of ties (ratings.TIES).
    Of each record only its `Result` is kept: pass an iterator, and the records are not held."""
    by_game: dict[str, list[Result]] = {}
    shared: dict[Any, Any] = {}
    for rec in records:
        by_game.setdefault(rec["game"], []).append(Result(rec, shared))
    games = sorted(by_game)
    least = {game: (min_sets if isinstance(min_sets, int) else (min_sets or {}).get(game, MIN_SETS))
             for game in games}
    sets = {game: duplicate_sets(by_game[game]) for game in games}
    sure = {game: len(sets[game]) >= least[game] for game in games}
    stats = {game: [ratings.Stats.of((r["seats"], r["ranks"]) for r in unit) for unit in _units(sets[game])]
             for game in games}
    rated = {game: ratings.bootstrap([stats[game]], ties=ties) if sure[game] else _point([stats[game]], ties)
             for game in games}
    # one game: the overall fit is the game's (the same units in the one stratum)
    if len(games) == 1:
        overall = rated[games[0]]
    elif all(sure.values()):
        overall = ratings.bootstrap([stats[game] for game in games], ties=ties)
    else:
        overall = _point([stats[game] for game in games], ties)
    whole = {game: _merged(stats[game]) for game in games}
    davidson = ties != "breslow"
    tables = {game: _table(by_game[game], rated[game], True, sure[game]) for game in games}
    return {
        "overall": _table([r for game in games for r in by_game[game]], overall, False, all(sure.values()),
                          best=False),
        "games": tables,
        "head_to_head": {game: head_to_head.pairs(sets[game], [r.entrant for r in tables[game]], least[game])
                         for game in games},
        "rank_order": {game: ({r.entrant: {o: round(p, 4) for o, p in sorted(rated[game][r.entrant].above.items())}
                               for r in tables[game]} if sure[game] else None) for game in games},
        "sets": {game: len(sets[game]) for game in games},
        "min_sets": least,
        # which model of ties made the ratings, and each game's fitted tie parameters (delta by tie size)
        "ties": {"model": "davidson-luce" if davidson else "breslow",
                 "delta": {game: ({str(k): round(d, 4) for k, d in ratings.tie_parameters([whole[game]])[0].items()}
                                  if davidson else {}) for game in games}},
        # per game: the rating scale's goodness of fit (referee/tournament/fit.py; None below min_sets)
        "fit": {game: fit.check([(r["seats"], r["ranks"]) for r in by_game[game]], ties) if sure[game] else None
                for game in games},
    }


class ResourceTally:
    """Each entrant's resources over the match records that carry them (referee.resources, issue 29),
    counted one record at a time: memory grows with the entrants, never with the matches; the
    same rows for the records in any order (integer sums, a histogram of counts)."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Any]] = {}

    def add(self, rec: dict[str, Any]) -> None:
        """Count one match record's `resources` (a record without them counts for nothing here)."""
        found = rec.get("resources")
        if not isinstance(found, list) or len(found) != len(rec["seats"]):
            return
        for name, r in zip(rec["seats"], found):
            if not isinstance(r, dict):
                continue
            row = self._rows.setdefault(name, {"matches": 0, "decisions": 0, "hist": {}, "ms_max": None,
                                               "cpu_ms": None, "cpu_ms_max": None, "peak_mb": None,
                                               "measured": set()})
            row["matches"] += 1
            if type(r.get("decisions")) is int:
                row["decisions"] += r["decisions"]
            for k, n in resource_hist(r.get("ms_hist")).items():
                row["hist"][k] = row["hist"].get(k, 0) + n
            row["ms_max"] = _most(row["ms_max"], r.get("ms_max"))
            cpu = r.get("cpu_s")
            if _number(cpu):
                ms = round(cpu * 1000)  # exact integer sums: the total is the same in any order
                row["cpu_ms"] = (row["cpu_ms"] or 0) + ms
                row["cpu_ms_max"] = _most(row["cpu_ms_max"], ms)
            row["peak_mb"] = _most(row["peak_mb"], r.get("peak_mb"))
            if isinstance(r.get("measured"), str):
                row["measured"].add(r["measured"])

    def rows(self) -> list[dict[str, Any]]:
        """Per entrant, by name: matches and decisions counted, the p50 and p90 of its decision
        times pooled over them (from the histograms: within 5%), its longest decision, its CPU
        seconds in all and in its costliest match, its largest peak MB (None: never measured),
        and how they were measured."""
        from referee.resources import hist_percentile

        out = []
        for name in sorted(self._rows):
            row = self._rows[name]
            p50, p90 = (hist_percentile(row["hist"], q) for q in (0.5, 0.9))
            top = row["ms_max"]
            out.append({"entrant": name, "matches": row["matches"], "decisions": row["decisions"],
                        "ms_p50": _capped(p50, top), "ms_p90": _capped(p90, top), "ms_max": top,
                        "cpu_s": None if row["cpu_ms"] is None else round(row["cpu_ms"] / 1000, 3),
                        "cpu_s_max": None if row["cpu_ms_max"] is None else round(row["cpu_ms_max"] / 1000, 3),
                        "peak_mb": row["peak_mb"], "measured": sorted(row["measured"])})
        return out


def resource_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """`ResourceTally.rows` of these match records."""
    tally = ResourceTally()
    for rec in records:
        tally.add(rec)
    return tally.rows()


def resource_hist(hist: Any) -> dict[int, int]:
    """A journal record's `ms_hist` as {bin: count} ({} if it has none: referee.resources.histogram)."""
    from referee.resources import hist_counts

    return hist_counts(hist) if isinstance(hist, list) else {}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and value >= 0


def _most(a: Any, b: Any) -> Any:
    """The larger of two figures, either of which may be missing (None, or not a number)."""
    if not _number(b):
        return a
    return b if a is None or b > a else a


def _capped(value: float | None, top: float | None) -> float | None:
    """A pooled percentile (a bin's middle) no larger than the longest decision, to 0.1 ms."""
    if value is None:
        return None
    return round(min(value, top) if top is not None else value, 1)


def _merged(units: list[ratings.Stats]) -> ratings.Stats:
    """The statistics of all of `units` together."""
    stats = ratings.Stats()
    for unit in units:
        stats.merged(unit)
    return stats


def _point(strata: list[list[ratings.Stats]], ties: str = ratings.DEFAULT_TIES) -> dict[str, ratings.Rating]:
    """The ratings of the strata's units without any bootstrap (too few sets for an interval: none
    is shown); under Davidson-Luce each stratum (game) with its own tie parameters."""
    whole = [_merged(units) for units in strata]
    if ties != "breslow" and any(stats.groups for stats in whole):
        rated = ratings.centred(ratings.fit_strata(whole))
    else:
        rated = ratings.centred(ratings.fit(_merged([s for s in whole]), ties="breslow"))
    return {name: ratings.Rating(value, 0.0, value, value) for name, value in rated.items()}


def duplicate_sets(records: Iterable[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """One game's records in duplicate sets (the matches of one seed), in a canonical order: sets
    by seed, records by their results; a record without a seed is a set alone."""
    sets: dict[tuple, list[dict[str, Any]]] = {}
    for rec in records:
        seed = rec.get("seed")
        key = (0, seed, ()) if type(seed) is int else (1, 0, _content(rec))
        sets.setdefault(key, []).append(rec)
    return [sorted(sets[key], key=_content) for key in sorted(sets)]


def _units(sets: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """The units the rating's bootstrap resamples: the duplicate sets; with a single set, its
    tables (a table's seatings together, tables by their entrants' names); with a single table,
    its matches."""
    if len(sets) != 1:
        return sets
    tables: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for rec in sets[0]:
        tables.setdefault(tuple(sorted(rec["seats"])), []).append(rec)
    if len(tables) > 1:
        return [tables[key] for key in sorted(tables)]
    return [[rec] for rec in sets[0]]


def _content(rec: dict[str, Any]) -> tuple:
    """A record's result, for a canonical order (its place in the schedule left out)."""
    return (rec["seats"], rec["ranks"], rec["scores"], rec["faults"], sorted(rec["disqualified"]))


def _table(records: list[dict[str, Any]], rated: dict[str, ratings.Rating], points: bool, sure: bool,
           best: bool = True) -> list[Row]:
    """The finished, sorted rows of one scope, its ratings given; with `sure` False (too few sets)
    no sigma, interval or p_best, with `best` False no p_best."""
    tally = Tally(points, rate=False)
    for rec in records:
        tally.add(rec)
    rows = []
    for name, row in tally.counts().items():
        r = rated[name]
        if not sure:
            rows.append(replace(row, rating=round(r.rating, 2), sigma=None, low=None, high=None, p_best=None))
            continue
        rows.append(replace(row, rating=round(r.rating, 2), sigma=round(r.se, 2), low=round(r.low, 2),
                            high=round(r.high, 2), p_best=round(r.best, 4) if best else None))
    return _sorted(rows)


def _sorted(rows: list[Row]) -> list[Row]:
    """Rows by rating, then wins, then name."""
    return sorted(rows, key=lambda r: (-r.rating, -r.wins, r.entrant))


def as_dict(standings: dict[str, Any], name: str = "") -> dict[str, Any]:
    """JSON-ready standings (a number needing more duplicate sets than its game has is None)."""
    points = ("total_points", "mean_points", "p_best")  # each game's own unit: no overall sum; p_best per game
    return {
        "tournament": name,
        "overall": [{k: v for k, v in asdict(r).items() if k not in points} for r in standings["overall"]],
        "games": {g: [asdict(r) for r in rows] for g, rows in standings["games"].items()},
        "head_to_head": {g: [asdict(p) for p in pairs] for g, pairs in standings.get("head_to_head", {}).items()},
        # per game: how many duplicate sets it had, and how many it needed for intervals, LOS and rank order
        "sets": dict(standings.get("sets", {})),
        "min_sets": dict(standings.get("min_sets", {})),
        # per game: P(entrant rated above opponent) over the bootstrap resamples (None: too few sets)
        "rank_order": dict(standings.get("rank_order", {})),
        # the ratings' model of ties, with each game's fitted tie parameters (delta_k by tie size k)
        "ties": standings.get("ties", {"model": "davidson-luce", "delta": {}}),
        # per game: does the rating scale fit its pairwise results (referee/tournament/fit.py; None: too few sets)
        "fit": {g: (f.record() if f is not None else None) for g, f in standings.get("fit", {}).items()},
        # every entrant's faults by kind (referee.tournament.reporting.FaultRow), when the caller added them
        "faults": [r.record() for r in standings.get("faults", [])],
        # every entrant's conduct penalties (referee.game.penalty) by reason, when there are some
        **({"penalties": list(standings["penalties"])} if standings.get("penalties") else {}),
        # every entrant's decision times, CPU and peak memory (ResourceTally), when its records had some
        **({"resources": list(standings["resources"])} if standings.get("resources") else {}),
        # matches failed on the referee's side, by error (only when there are some: counted for no one)
        **({"failed": [{"error": error, "count": len(keys), "matches": keys}
                       for error, keys in failure_groups(standings["failed"])]} if standings.get("failed") else {}),
        # each SPRT game entry's test, LLR, sets and verdict (referee.tournament.sprt.Outcome), when it has some
        **({"sprt": [o.record() for o in standings["sprt"]]} if standings.get("sprt") else {}),
    }


def _without_none(data: dict[str, Any]) -> dict[str, Any]:
    """`as_dict`'s data for TOML, which has no null: a row or head-to-head pair leaves out a None
    value, and a game without rank order is left out of it."""
    def kept(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in row.items() if v is not None} for row in rows]

    tests = {"sprt": kept(data["sprt"])} if "sprt" in data else {}
    if "resources" in data:
        tests["resources"] = kept(data["resources"])
    return {**data, "overall": kept(data["overall"]), "games": {g: kept(rows) for g, rows in data["games"].items()},
            "head_to_head": {g: kept(rows) for g, rows in data["head_to_head"].items()},
            "rank_order": {g: order for g, order in data["rank_order"].items() if order is not None},
            "fit": {g: f for g, f in data["fit"].items() if f is not None}, **tests}


FIT_COLUMNS = ("factor", "p", "deviance", "p_deviance", "pairs", "simulations", "warns")
COLUMNS = ("entrant", "matches", "wins", "mean_rank", "total_points", "mean_points", "faults",
           "disqualified", "rating", "sigma", "low", "high", "p_best")


def write_all(standings: dict[str, Any], out_dir: Path, name: str = "", score_notes: Sequence[str] = ()) -> list[Path]:
    """Write standings.json, .csv, .md and .toml into `out_dir`; returns the paths. `score_notes`:
    what some games' points are ("<title>: <what>", from their describers), for the Markdown."""
    import tomli_w

    data = as_dict(standings, name)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    p = out_dir / "standings.json"
    p.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    paths.append(p)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("scope",) + COLUMNS)
    for scope, rows in [("overall", data["overall"])] + list(data["games"].items()):
        for r in rows:
            w.writerow((scope,) + tuple(r.get(c, "") for c in COLUMNS))
    if data.get("sprt"):  # a second table, after a blank line, under its own header
        from referee.tournament import sprt

        w.writerow(())
        w.writerow(("scope",) + sprt.COLUMNS)
        for t in data["sprt"]:
            w.writerow(("sprt",) + tuple("" if t[c] is None else t[c] for c in sprt.COLUMNS))
    if any(f is not None for f in data["fit"].values()):  # the same: each game's goodness of fit
        w.writerow(())
        w.writerow(("scope", "game") + FIT_COLUMNS)
        for game, f in data["fit"].items():
            if f is not None:
                w.writerow(("fit", game) + tuple(f[c] for c in FIT_COLUMNS))
    p = out_dir / "standings.csv"
    p.write_text(buf.getvalue(), encoding="utf-8")
    paths.append(p)
    p = out_dir / "standings.md"
    p.write_text(markdown(data, score_notes), encoding="utf-8")
    paths.append(p)
    p = out_dir / "standings.toml"
    p.write_text(tomli_w.dumps(_without_none(data)), encoding="utf-8")
    paths.append(p)
    return paths


def markdown(data: dict[str, Any], score_notes: Sequence[str] = ()) -> str:
    """The standings as Markdown tables, each game's first, then the cross-game table where
    entrants played the same games (`across_games`), then the head-to-head records per game;
    `score_notes` say what some games' points are ("<title>: <what>")."""
    points = f"scores ({'; '.join(score_notes)})" if score_notes else "scores"
    lines = [f"# Standings{': ' + data['tournament'] if data['tournament'] else ''}", ""]
    scopes = [(f"Game: {g}", r) for g, r in data["games"].items()]
    across = across_games(data["overall"], data["games"])
    if across is not None:
        scopes.append((f"Across games ({ACROSS_NOTE})", across))
    few = few_sets(data)
    for scope, rows in scopes:
        lines += _markdown_table(scope, ("#",) + COLUMNS, [[i] + ["-" if r.get(c) is None else r[c] for c in COLUMNS]
                                                           for i, r in enumerate(rows, 1)])
        game = scope[len("Game: "):] if scope.startswith("Game: ") else None
        note = few.get(game) if game is not None else overall_note(data)
        if note:
            lines[-1:] = [note, ""]
    for game, pairs in data.get("head_to_head", {}).items():
        lines += _markdown_table(f"Head to head: {game}", head_to_head.COLUMNS,
                                 [["-" if p[c] is None else p[c] for c in head_to_head.COLUMNS] for p in pairs])
        if game in few:
            lines[-1:] = [few[game], ""]
    for game, order in data.get("rank_order", {}).items():
        if order is None:
            continue
        names = list(order)
        best = {r["entrant"]: r.get("p_best") for r in data["games"].get(game, [])}
        lines += _markdown_table(f"Rank order: {game} (P(row rated above column) over the bootstrap resamples)",
                                 ("entrant", "p_best") + tuple(names),
                                 [[n, best.get(n, "-")] + ["" if o == n else order[n][o] for o in names]
                                  for n in names])
    lines += ["## Fit of the rating scale", "", *[f"- {line}" for line in fit_lines(data)], ""]
    if data.get("sprt"):
        from referee.tournament import sprt

        heads = ("game", "focus", "test", "sets", "LLR (bounds)", "verdict", "Elo (95%)", "los")
        lines += _markdown_table("SPRT", heads, [_sprt_row(t) for t in data["sprt"]])
        lines += [f"SPRT: a gauntlet's sequential test of its focus against the field: H1 (elo1) accepted when "
                  f"the LLR reaches its upper bound, H0 (elo0) at its lower one, never before {sprt.MIN_SETS} "
                  "duplicate sets; Elo: the focus's mean pairwise score over the sets counted, with its 95% "
                  "interval, and los the probability that it is above 1/2 (docs/tournaments.md, SPRT).", ""]
    if data.get("faults"):
        heads = ("entrant", "kind", "count", "first_matches", "logs", "example")
        lines += _markdown_table("Faults", heads, [[", ".join(r[c]) if isinstance(r[c], list) else
                                                    str(r[c]).replace("|", "\\|") for c in heads]
                                                   for r in data["faults"]])
    if data.get("penalties"):
        heads = ("entrant", "why", "ruling", "times", "matches")
        lines += _markdown_table("Penalties (for a seat's conduct under the rules)", heads,
                                 [[str(r[c]).replace("|", "\\|") for c in heads] for r in data["penalties"]])
    if data.get("resources"):
        lines += _markdown_table("Resources (per entrant, over its matches)", RESOURCE_HEADS,
                                 [resource_cells(r) for r in data["resources"]])
        lines[-1:] = [RESOURCE_NOTE, ""]
    if data.get("failed"):
        total = sum(g["count"] for g in data["failed"])
        lines += _markdown_table(f"Failed matches ({total}: failed on the referee's side, counted for no one; "
                                 "`referee tournament --resume` plays them again)", ("error", "count", "matches"),
                                 [[g["error"].replace("|", "\\|"), g["count"], _first_keys(g["matches"])]
                                  for g in data["failed"]])
    lines += [
        "Rating: a batch Plackett-Luce fit of every match's finishing ranks (400 points apart, the stronger "
        "finishes ahead of the weaker 10 times as often; mean 0 over the table's entrants); sigma: its "
        "bootstrap standard error over duplicate sets (a deal's matches resampled together); low/high: its "
        "95% interval, rating +- Student's t times sigma; p_best: how often it rated best of its game over "
        "the resamples (the rank order tables: how often above each other entrant). Fit: the observed "
        "pairwise log-odds (how often each entrant finished ahead of each other, ties apart) as a multiple "
        "of the ones the ratings predict, judged against simulations from the fitted model (a warning "
        "when the scale does not fit the game); ties: Davidson-Luce unless said otherwise. Below a game's min_sets "
        "duplicate sets none of these is given ('-'). The cross-game table (only where two entrants or more "
        "played every game) rates those entrants across every game in one fit: it compares fairly only "
        f"entrants of the same games. Points are each game's own {points}; the cross-game table has none.",
        "",
        "Head to head: `entrant` is the one higher in the game's standings; ahead/behind/ties count its "
        "finishes against the opponent; mean_diff is its points minus the opponent's, averaged by "
        "duplicate set, diff_low/diff_high the Student's t 95% interval over the sets; los: the likelihood "
        "of superiority over the sets (Student's t of its per-set finishes ahead minus behind: a set's "
        "seatings share a deal, the set is the unit); '-' below min_sets duplicate sets.",
    ]
    return "\n".join(lines) + "\n"


RESOURCE_HEADS = ("entrant", "matches", "moves", "p50 ms", "p90 ms", "max ms", "CPU s", "CPU s max", "peak MB",
                  "measured")
RESOURCE_NOTE = ("Resources: p50 and p90 of the entrant's move times pooled over all its moves (from a histogram "
                 "of 1/8-octave bins: within 5%), its longest move; CPU seconds of its bot's processes in all and "
                 "in its costliest match (max), the largest peak resident memory of one of them; measured: "
                 "process (a process started for the match), cgroup (its peak from its sandbox's memory cgroup), "
                 "approximate (a process kept from earlier matches: its peak since it started), in-process (a "
                 "strategy: times only); '-': unknown.")


def resource_cells(r: dict[str, Any]) -> list[str]:
    """One entrant's resources as table cells (`ResourceTally.rows`; '-' for None)."""
    from referee.resources import shown

    return [str(r["entrant"]).replace("|", "\\|"), str(r["matches"]), str(r["decisions"]),
            *(shown(r.get(k), ms=True) for k in ("ms_p50", "ms_p90", "ms_max")),
            *(shown(r.get(k)) for k in ("cpu_s", "cpu_s_max", "peak_mb")), ", ".join(r.get("measured") or ()) or "-"]


def _sprt_row(t: dict[str, Any]) -> list[Any]:
    """One SPRT entry's Markdown row."""
    def elo(value: float | None) -> str:
        return "-" if value is None else f"{value:+g}"

    model = "" if t["model"] == "logistic" else f" {t['model']}"
    return [f"games[{t['game_index']}] {t['game']}", t["focus"],
            f"[{t['elo0']:g}, {t['elo1']:g}]{model} alpha {t['alpha']:g} beta {t['beta']:g}",
            f"{t['sets']} ({t['matches']} matches)", f"{t['llr']:.2f} ({t['lower']:.2f}, {t['upper']:.2f})",
            t["result"], "-" if t["elo"] is None else f"{elo(t['elo'])} ({elo(t['elo_low'])}..{elo(t['elo_high'])})",
            "-" if t["los"] is None else f"{t['los']:.3f}"]


def ties_line(data: dict[str, Any]) -> str:
    """Which model of ties made the ratings, with each game's fitted tie parameters."""
    ties = data.get("ties") or {}
    if ties.get("model") == "breslow":
        return "Ties: Breslow's rule (each tied seat counted as finishing ahead of the others tied with it)"
    shown = [f"{game} " + ", ".join(f"delta_{k} = {d:g}" for k, d in deltas.items())
             for game, deltas in ties.get("delta", {}).items() if deltas]
    return "Ties: Davidson-Luce" + (f" ({'; '.join(shown)})" if shown else " (no ties in the results)")


def fit_lines(data: dict[str, Any]) -> list[str]:
    """Each game's goodness-of-fit line (a warning when the rating scale does not fit), then the
    model of ties; "-" for a game below its min_sets. `data`: `as_dict`'s or `compute`'s."""
    out = []
    for game, record in data.get("fit", {}).items():  # as_dict's records, or compute's fit.Fit
        if record is None:
            out.append(f"{game}: - (no fit line below min_sets duplicate sets)")
        elif isinstance(record, fit.Fit):
            out.append(record.line(game))
        else:
            out.append(fit.Fit(**{k: v for k, v in record.items() if k != "warns"}).line(game))
    return out + [ties_line(data)]


def few_sets(data: dict[str, Any]) -> dict[str, str]:
    """Per game of fewer duplicate sets than its min_sets: the note saying why its ranges are "-"."""
    least = data.get("min_sets", {})
    return {game: head_to_head.few_sets_note(n, least.get(game, MIN_SETS))
            for game, n in data.get("sets", {}).items() if n < least.get(game, MIN_SETS)}


def overall_note(data: dict[str, Any]) -> str | None:
    """Why the overall table's ranges are "-" (some game has fewer sets than its min_sets), or None."""
    least = data.get("min_sets", {})
    short = [f"{game} ({n} of {least.get(game, MIN_SETS)})" for game, n in data.get("sets", {}).items()
             if n < least.get(game, MIN_SETS)]
    return "-: fewer duplicate sets than min_sets in " + ", ".join(short) if short else None


def _first_keys(keys: Sequence[str], shown: int = 10) -> str:
    """The first `shown` match keys, and how many more."""
    return ", ".join(keys[:shown]) + (f", ... ({len(keys) - shown} more)" if len(keys) > shown else "")


def _markdown_table(title: str, heads: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = [f"## {title}", "", "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines + [""]


def rich_resources(rows: list[dict[str, Any]]):
    """The entrants' resources (`ResourceTally.rows`) as a rich table, cells wrapped rather than cut."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text("Resources", style="italic"), box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True)
    for col in RESOURCE_HEADS:
        table.add_column(col, justify="left" if col in ("entrant", "measured") else "right", overflow="fold")
    for r in rows:
        cells = resource_cells(r)
        table.add_row(Text(str(r["entrant"])), *cells[1:])
    return table


def rich_table(rows: list[Row], title: str, limit: int | None = None, points: bool = True, note: str | None = None):
    """A rich Table of standings rows (narrow enough for an 80-column terminal), `note` under it (why
    a range is "-"); a P(best) column when the rows have one."""
    from rich import box
    from rich.table import Table

    from rich.text import Text

    # names are the user's (a tournament file) or a journal's: shown as they are, never markup
    table = Table(title=Text(title, style="italic"), box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    heads = ["#", "entrant", "played", "wins", "rank", "points", "faults", "DQ", "rating", "95% range"]
    best = any(r.p_best is not None for r in rows)
    if best:
        heads.append("P(best)")
    if not points:
        heads.remove("points")
    for col in heads:
        table.add_column(col, justify="left" if col == "entrant" else "right", min_width=len(col),
                         overflow="fold")  # narrow terminals wrap a cell rather than cut it
    for i, r in enumerate(rows[:limit] if limit else rows, 1):
        cells = [str(i), Text(r.entrant), str(r.matches), str(r.wins), f"{r.mean_rank:.2f}", f"{r.total_points:g}",
                 str(r.faults), str(r.disqualified), f"{r.rating:.1f}",
                 "-" if r.low is None or r.high is None else f"{r.low:.1f}..{r.high:.1f}"]
        if best:
            cells.append("-" if r.p_best is None else f"{r.p_best:.2f}")
        if not points:
            del cells[5]
        table.add_row(*cells)
    if note:
        table.caption = Text(note, style="italic")
    return table
