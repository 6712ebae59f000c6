"""The SPRT of a gauntlet (issue 16): stop a game entry early once it is clear whether its focus
is better than the field, as fastchess and cutechess stop an engine match.

What "Elo" means at a multiplayer table: in each match the focus's pairwise score is the fraction
of the other seats it finished ahead of (ties count half; ranks are the record's competition
ranks, a disqualified seat ranking last). A duplicate set, the unit of independence, is every
match of one deal seed of the entry (each table of the gauntlet, each seating; the tables of a
seed share its deals, so they are not independent of one another); its score is the focus's mean
pairwise score over the set. An Elo difference d stands for an expected pairwise score
L(d) = 1 / (1 + 10^(-d / 400)) against one entrant of the field.

The test is the GSPRT over set scores (Van den Bergh's generalised SPRT; fastchess's model
generalised from a pentanomial pair to a duplicate set): the set scores are taken to be normal,
and the LLR is the ratio of their likelihoods with the unknown variance fitted under each
hypothesis. With N sets of mean m and population variance v, s0 = L(elo0) and s1 = L(elo1),
LLR = N/2 ln((v + (m - s0)^2) / (v + (m - s1)^2)), between the bounds ln(beta / (1 - alpha)) and
ln((1 - beta) / alpha). The usual normal approximation, N (s1 - s0) (2m - s0 - s1) / (2v), takes
the variance as known; with tens of sets it is not, and in simulation that test accepted the wrong
hypothesis 5.5-7.0% of the time at alpha = beta = 0.05 (2 and 4 seats, with and without seat
luck, 4,000 runs a case), where this one stays at or below 5% (bench/stats.py sprt; the figures
are in docs/tournaments.md). v is at least VARIANCE_FLOOR, so sets that all score alike (two
entrants playing alike under a symmetric design) give a verdict, not a division by zero. No
verdict comes before MIN_SETS sets: the variance of a handful of sets is too rough a guide.

With `model = "normalized"` the hypotheses are in normalized Elo (fastchess's nElo, per set
instead of per pentanomial pair): nElo = (m - 1/2) / sd * 800 / ln 10, sd the set scores'
standard deviation, so that elo0 and elo1 measure the focus's edge against the noise of the
game, whatever its luck; the LLR is the same normal likelihood ratio, with the variance fitted
under each hypothesis's t = (m - 1/2) / sd.

The verdict depends on the results only, never on the order matches finish in, the concurrency
or a kill and `--resume`: the test reads the longest prefix of the entry's sets (in schedule
order: an SPRT entry's schedule runs seed by seed, see `TournamentConfig.matches`) whose matches
are all journaled, and stops at the first prefix length k where it decides. Matches of the entry
beyond set k that were in flight are journaled (valid results) but not counted: `counted` leaves
them out of the standings, so they too depend on the results only. The decision is journaled as
a record `{"type": "sprt", ...}` (`Decision.record`), which `referee standings` reads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from referee.tournament.schedule import GameEntry, key_reader, spans


class Tournament(Protocol):
    """What an SPRT reads of a tournament (a config.TournamentConfig): its game entries."""

    @property
    def games(self) -> Sequence[GameEntry]: ...

VARIANCE_FLOOR = 1e-4  # a set score's standard deviation is taken to be at least 0.01
MIN_SETS = 10  # no verdict before this many duplicate sets
H1, H0 = "H1", "H0"  # the verdicts: the focus is better than the field (elo1), or not (elo0)
VERDICTS = {H1: "H1 accepted: better than the field", H0: "H0 accepted: not better than the field"}
SHORT = {H1: "H1 accepted (better)", H0: "H0 accepted (not better)"}
LOGISTIC, NORMALIZED = "logistic", "normalized"  # the Elo models an SPRT's elo0 and elo1 may be in
MODELS = (LOGISTIC, NORMALIZED)


def expected_score(elo: float) -> float:
    """The expected pairwise score of an Elo difference: 1 / (1 + 10^(-elo / 400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of(score: float) -> float:
    """The Elo difference of an expected pairwise score (inverse of `expected_score`; +-inf at 1, 0)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no "-0.0" at 1/2


def nelo_t(nelo: float) -> float:
    """A normalized Elo as the t it stands for, (m - 1/2) / sd: nelo * ln 10 / 800."""
    return nelo * math.log(10) / 800


def _normalized_loglik(mean: float, variance: float, t: float) -> float:
    """The normal log-likelihood per set of sets of this mean and population variance, maximised
    over the distributions whose (mean - 1/2) / sd is t (constants dropped)."""
    s1, s2 = mean - 0.5, variance + (mean - 0.5) ** 2  # first and second moments about 1/2
    u = (t * s1 + math.sqrt(t * t * s1 * s1 + 4 * s2)) / (2 * s2)  # 1 / sd at the maximum
    return math.log(u) - s2 * u * u / 2 + t * s1 * u - t * t / 2


def moments(n: int, total: int, squares: int, out_of: int) -> tuple[float, float]:
    """The mean score and population variance of n sets from the exact integer sums of their
    half points and of those squared, each set out of `out_of` half points."""
    return total / (n * out_of), (n * squares - total ** 2) / (n * n * out_of * out_of)


def mean_and_variance(set_scores: Sequence[float]) -> tuple[float, float]:
    """The mean and the population variance of the set scores."""
    n = len(set_scores)
    mean = math.fsum(set_scores) / n
    return mean, math.fsum((x - mean) ** 2 for x in set_scores) / n


@dataclass(frozen=True)
class Sprt:
    """An SPRT's hypotheses, as fastchess names them: H0 elo <= elo0, H1 elo >= elo1, with
    error rates alpha (accepting H1 under H0) and beta (accepting H0 under H1)."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str = LOGISTIC  # what elo0 and elo1 are in: LOGISTIC or NORMALIZED Elo

    def bounds(self) -> tuple[float, float]:
        """The lower and upper LLR bounds: ln(beta / (1 - alpha)), ln((1 - beta) / alpha)."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr_of(self, n: int, mean: float, variance: float) -> float:
        """The LLR of n sets of this mean and population variance (floored at VARIANCE_FLOOR):
        the normal likelihood ratio of H1 to H0, the variance fitted under each."""
        v = max(variance, VARIANCE_FLOOR)
        if self.model == NORMALIZED:
            t0, t1 = nelo_t(self.elo0), nelo_t(self.elo1)
            return n * (_normalized_loglik(mean, v, t1) - _normalized_loglik(mean, v, t0))
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return n / 2 * math.log((v + (mean - s0) ** 2) / (v + (mean - s1) ** 2))

    def llr(self, set_scores: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 to H0 given the duplicate sets' scores (0.0 for none)."""
        if not set_scores:
            return 0.0
        return self.llr_of(len(set_scores), *mean_and_variance(set_scores))

    def verdict_of(self, n: int, llr: float) -> str | None:
        """H1 or H0 once n >= MIN_SETS sets put the LLR on or past a bound; None: play on."""
        lower, upper = self.bounds()
        if n < MIN_SETS:
            return None
        return H1 if llr >= upper else H0 if llr <= lower else None

    def verdict(self, set_scores: Sequence[float]) -> str | None:
        """H1, H0 or None (continue) after these sets."""
        return self.verdict_of(len(set_scores), self.llr(set_scores))

    def first_decision(self, set_scores: Sequence[float]) -> tuple[str | None, int]:
        """The verdict at the first prefix of the sets that decides, and that prefix's length
        (None and the number of sets if none does), as a gauntlet reads its sets in order."""
        total = squares = 0.0
        for n, x in enumerate(set_scores, 1):
            total, squares = total + x, squares + x * x
            if n >= MIN_SETS:
                mean = total / n
                verdict = self.verdict_of(n, self.llr_of(n, mean, max(0.0, squares / n - mean * mean)))
                if verdict is not None:
                    return verdict, n
        return None, len(set_scores)

    def as_dict(self) -> dict[str, Any]:
        """The parameters, as the file writes them."""
        params: dict[str, Any] = {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}
        if self.model != LOGISTIC:  # only then: a journal of a logistic SPRT keeps the head it always had
            params["model"] = self.model
        return params


def half_points(record: dict[str, Any], focus: str) -> tuple[int, int]:
    """The focus's pairwise result in one match record, in half points: (2 per seat it finished
    ahead of, 1 per tie, out of 2 per other seat)."""
    ranks, seats = record["ranks"], record["seats"]
    mine = ranks[seats.index(focus)]
    points = sum(2 if mine < rank else 1 if mine == rank else 0 for rank in ranks) - 1  # its own seat: a tie
    return points, 2 * (len(seats) - 1)


def pairwise_score(record: dict[str, Any], focus: str) -> float:
    """The focus's pairwise score in one match: the fraction of the other seats it finished ahead
    of, ties counting half."""
    points, out_of = half_points(record, focus)
    return points / out_of


def set_score(records: Iterable[dict[str, Any]], focus: str) -> float:
    """A duplicate set's score: the focus's mean pairwise score over the set's matches."""
    points = out_of = 0
    for record in records:
        p, o = half_points(record, focus)
        points, out_of = points + p, out_of + o
    return points / out_of


@dataclass(frozen=True)
class Estimate:
    """The focus's Elo against the field from the sets' mean score, its 95% interval over the
    sets (the normal approximation of the mean, mapped through `elo_of`), and the likelihood of
    superiority (the probability that the focus's expected score is above 1/2)."""

    score: float
    elo: float
    low: float
    high: float
    los: float


def estimate(n: int, mean: float, variance: float) -> Estimate:
    """The Estimate of n sets of this mean and population variance."""
    se = math.sqrt(variance / (n - 1)) if n > 1 else math.inf  # the sample variance over n
    low, high = max(0.0, mean - 1.959964 * se), min(1.0, mean + 1.959964 * se)
    if se > 0:
        los = 0.5 * math.erfc(-(mean - 0.5) / se / math.sqrt(2)) if math.isfinite(se) else 0.5
    else:
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return Estimate(mean, elo_of(mean), elo_of(low), elo_of(high), los)


@dataclass(frozen=True)
class Decision:
    """An SPRT game entry's decision: the verdict after its first `sets` duplicate sets, whose
    matches are the schedule indices first..last; the entry's schedule ends before `end`."""

    game_index: int
    sets: int
    llr: float
    verdict: str
    first: int
    last: int
    end: int

    def record(self) -> dict[str, Any]:
        """The decision as its journal record."""
        return {"type": "sprt", "game_index": self.game_index, "sets": self.sets, "llr": self.llr,
                "verdict": self.verdict, "first": self.first, "last": self.last, "end": self.end}


@dataclass
class Gauntlet:
    """The running SPRT of one game entry, fed its journal records in any order."""

    game_index: int
    entry: GameEntry
    first: int  # the entry's schedule indices: first .. end - 1
    end: int
    sets: int = field(init=False)  # the most it may play: the entry's seeds
    size: int = field(init=False)  # matches per duplicate set
    counted: int = 0  # the prefix of complete sets the test has read
    journaled: int = 0  # the entry's matches journaled
    decision: Decision | None = None
    _sum: int = 0  # of the counted sets' half points
    _squares: int = 0  # of their squares
    _partial: dict[int, list[int]] = field(default_factory=dict)  # set -> [matches, half points]
    _complete: dict[int, int] = field(default_factory=dict)  # complete sets past the prefix -> half points

    def __post_init__(self) -> None:
        self.sets = self.entry.seeds
        self.size = (self.end - self.first) // self.sets

    @property
    def sprt(self) -> Sprt:
        """The entry's test."""
        return self.entry.sprt  # type: ignore[return-value]

    @property
    def out_of(self) -> int:
        """The half points a duplicate set is out of."""
        return self.size * 2 * (self.entry.players - 1)

    def add(self, record: dict[str, Any]) -> Decision | None:
        """Count one journaled match of this entry (each once); the decision if this match made it."""
        self.journaled += 1
        if self.decision is not None:
            return None
        k = (record["index"] - self.first) // self.size
        if k < self.counted:
            return None
        tally = self._partial.setdefault(k, [0, 0])
        tally[0] += 1
        tally[1] += half_points(record, self.entry.focus)[0]  # type: ignore[arg-type]
        if tally[0] == self.size:
            self._complete[k] = self._partial.pop(k)[1]
        while self.counted in self._complete and self.decision is None:
            points = self._complete.pop(self.counted)
            self.counted += 1
            self._sum += points
            self._squares += points * points
            verdict = self.sprt.verdict_of(self.counted, self.llr())
            if verdict is not None:
                self.decision = Decision(self.game_index, self.counted, self.llr(), verdict, self.first,
                                         self.first + self.counted * self.size - 1, self.end)
                self._partial.clear()
                self._complete.clear()
                return self.decision
        return None

    def mean_and_variance(self) -> tuple[float, float]:
        """The counted sets' mean score and population variance, from exact integer sums (so
        the same whatever order the matches came in)."""
        return moments(self.counted, self._sum, self._squares, self.out_of)

    def llr(self) -> float:
        """The LLR of the counted sets (0.0 before the first)."""
        return self.sprt.llr_of(self.counted, *self.mean_and_variance()) if self.counted else 0.0

    def unplayed(self) -> int:
        """The entry's matches that will not be played: once decided, every one not journaled."""
        return self.end - self.first - self.journaled if self.decision is not None else 0

    def title(self) -> str:
        """Which entry: "games[0] (maumau, focus NAME)"."""
        return f"games[{self.game_index}] ({self.entry.game}, focus {self.entry.focus})"

    def status(self) -> str:
        """One line: the entry and its focus, the LLR and its bounds, the sets counted, and the
        verdict once reached (before MIN_SETS sets, that none can come yet)."""
        lower, upper = self.sprt.bounds()
        line = (f"sprt games[{self.game_index}] {self.entry.focus}: LLR {self.llr():.2f} ({lower:.2f}, "
                f"{upper:.2f}), {self.counted} of {self.sets} sets")
        if self.decision is not None:
            return line + f": {SHORT[self.decision.verdict]}"
        return line + (f" (no verdict before {MIN_SETS} sets)" if self.counted < MIN_SETS else "")

    def summary(self) -> list[str]:
        """The end-of-run summary block, like fastchess's: the focus's Elo against the field with
        its 95% interval, the LLR and its bounds, the verdict, the sets and matches played."""
        sprt, n = self.sprt, self.counted
        lower, upper = sprt.bounds()
        field_ = ", ".join(e for e in self.entry.entrants if e != self.entry.focus)
        lines = ["-" * 50, f"SPRT of {self.title()} against the field ({field_}), "
                 f"{self.entry.players} players:"]
        if n:
            mean, variance = self.mean_and_variance()
            e = estimate(n, mean, variance)
            sd = f", sd {math.sqrt(variance * n / (n - 1)):.4f}" if n > 1 else ""
            lines.append(f"Elo: {e.elo:+.1f} (95%: {e.low:+.1f} to {e.high:+.1f}), LOS: {100 * e.los:.2f} %")
            lines.append(f"Score: {e.score:.4f} (the mean pairwise score of {n} duplicate sets{sd})")
        beyond = self.journaled - n * self.size
        lines.append(f"Sets: {n} of at most {self.sets} ({n * self.size} matches, {self.size} a set"
                     + (f"; {beyond} more, in play when the test decided, not counted)" if beyond > 0 else ")"))
        model = "" if sprt.model == LOGISTIC else f" ({sprt.model} Elo)"
        lines.append(f"LLR: {self.llr():.2f} ({lower:.2f}, {upper:.2f}) [{sprt.elo0:.2f}, {sprt.elo1:.2f}]{model}")
        lines.append("-" * 50)
        if self.decision is not None:
            outcome = f"completed - {VERDICTS[self.decision.verdict]}"
        elif n == self.sets:
            outcome = f"continue (no verdict after {n} sets, the most the file allows)"
        else:
            outcome = f"continue (no verdict after {n} sets)"
        lines.append(f"SPRT ([{sprt.elo0:.2f}, {sprt.elo1:.2f}]) {outcome}")
        return lines


class Gauntlets:
    """The SPRT of every game entry of a tournament that has one, fed its journal records."""

    def __init__(self, config: Tournament) -> None:
        self.entries: list[Gauntlet] = [Gauntlet(g, entry, span.start, span.stop)
                                        for g, (entry, span) in enumerate(zip(config.games, spans(config.games)))
                                        if entry.sprt is not None]

    def __iter__(self) -> Iterator[Gauntlet]:
        return iter(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def of(self, index: int) -> Gauntlet | None:
        """The SPRT entry schedule index `index` belongs to, or None."""
        for g in self.entries:
            if g.first <= index < g.end:
                return g
        return None

    def add(self, record: dict[str, Any]) -> Decision | None:
        """Count one journaled match record (each once); the decision it made, if any."""
        g = self.of(record["index"])
        return g.add(record) if g is not None else None

    def stopped(self, index: int) -> bool:
        """Whether the match at schedule index `index` is no longer to be played (its entry decided)."""
        g = self.of(index)
        return g is not None and g.decision is not None

    def unplayed(self) -> int:
        """The scheduled matches that decided entries will not play."""
        return sum(g.unplayed() for g in self.entries)


def heads(config: Tournament) -> dict[str, dict[str, float]]:
    """The SPRT parameters per game entry ({"0": {elo0, elo1, alpha, beta}}), as the journal's
    head keeps them: a resumed run must test what the first run tested."""
    return {str(g): entry.sprt.as_dict() for g, entry in enumerate(config.games) if entry.sprt is not None}


def read_decisions(path: str | Path) -> list[dict[str, Any]]:
    """The SPRT decisions a journal holds (the first per game entry); a torn last line is ignored,
    a decision record that is not well formed is a UsageError naming its line."""
    from referee.errors import UsageError

    decisions: dict[int, dict[str, Any]] = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if '"sprt"' not in line:  # most lines are matches: no need to parse them
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a torn line: read_journal says what it thinks of it
            if type(rec) is not dict or rec.get("type") != "sprt":
                continue
            if not all(type(rec.get(k)) is int for k in ("game_index", "sets", "first", "last", "end")):
                raise UsageError(f"{path}, line {number}: an sprt record without its integer game_index, "
                                 "sets, first, last and end")
            decisions.setdefault(rec["game_index"], rec)
    return [decisions[g] for g in sorted(decisions)]


def counted(records: Iterable[dict[str, Any]], decisions: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The match records the standings count: all but those of a decided SPRT entry beyond its
    deciding set (matches that were in flight when it decided: which ones is a matter of timing)."""
    return list(iter_counted(records, decisions))


def iter_counted(records: Iterable[dict[str, Any]], decisions: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """`counted`, one record at a time as `records` yields them (for a journal streamed)."""
    cut = [(d["last"], d["end"]) for d in decisions]
    return (r for r in records if not any(last < r["index"] < end for last, end in cut))


@dataclass(frozen=True)
class Outcome:
    """An SPRT game entry as its journal leaves it, for the standings files and the index: the
    test, the duplicate sets counted and the matches in them, the LLR and its bounds, the verdict
    (None: none yet), and the focus's Elo against the field with its 95% interval and LOS over
    the sets (`estimate`; None where it is infinite or there are fewer than two sets)."""

    game_index: int
    game: str
    focus: str
    players: int
    test: Sprt
    sets: int
    matches: int
    llr: float
    verdict: str | None
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None
    los: float | None = None

    def result(self) -> str:
        """The verdict in words, or why there is none."""
        if self.verdict is not None:
            return VERDICTS[self.verdict]
        if self.sets < MIN_SETS:
            return f"no verdict before {MIN_SETS} sets ({self.sets} counted)"
        return f"no verdict after {self.sets} sets"

    def record(self) -> dict[str, Any]:
        """The outcome as the standings files write it (None: JSON null, left out of TOML)."""
        lower, upper = self.test.bounds()
        return {"game_index": self.game_index, "game": self.game, "focus": self.focus, "players": self.players,
                "model": self.test.model, "elo0": self.test.elo0, "elo1": self.test.elo1,
                "alpha": self.test.alpha, "beta": self.test.beta, "sets": self.sets, "matches": self.matches,
                "llr": round(self.llr, 4), "lower": round(lower, 4), "upper": round(upper, 4),
                "verdict": self.verdict, "result": self.result(), "elo": self.elo, "elo_low": self.elo_low,
                "elo_high": self.elo_high, "los": self.los}


#: the columns of the SPRT table in standings.csv and standings.md
COLUMNS = ("game_index", "game", "focus", "players", "model", "elo0", "elo1", "alpha", "beta", "sets",
           "matches", "llr", "lower", "upper", "verdict", "result", "elo", "elo_low", "elo_high", "los")


def _finite(value: float, digits: int = 1) -> float | None:
    """A rounded value, or None for an infinite one (JSON has no infinity)."""
    return round(value, digits) if math.isfinite(value) else None


@dataclass
class _Entry:
    """One SPRT entry's counted matches, tallied as a journal streams them."""

    game: str
    players: int
    places: set[tuple[int, int]] = field(default_factory=set)  # (table, seating): a set's matches
    points: dict[int, dict[str, int]] = field(default_factory=dict)  # set -> entrant -> half points
    counts: dict[int, int] = field(default_factory=dict)  # set -> matches
    focus: str | None = None


def outcomes(head: dict[str, Any] | None, records: Iterable[dict[str, Any]],
             decisions: Iterable[dict[str, Any]]) -> list[Outcome]:
    """Every SPRT game entry's Outcome, from a journal alone (`referee tournament` and
    `referee standings` alike: `standings.sprt_outcomes`): its head's tests, its counted match
    records (`counted`) in duplicate sets by their keys (`schedule.key_reader`: seed S of entry G
    is its set S, whose focus is the first seat of seating 0), the longest prefix of complete
    sets, and the decision records' verdicts (`read_decisions`). The same for records in any order."""
    from referee.errors import UsageError

    try:
        tests = {int(g): Sprt(**p) for g, p in ((head or {}).get("sprt") or {}).items()}
    except (TypeError, ValueError):
        raise UsageError("the journal head's sprt tests are not well formed") from None
    if not tests:
        return []
    decided = {d["game_index"]: d for d in decisions}
    entries: dict[int, _Entry] = {}
    described = (head or {}).get("schedule")  # none: a journal of before issue 29, and its keys
    games = ([str(e.get("game")) if isinstance(e, dict) else "" for e in described.get("games") or []]
             if isinstance(described, dict) else None)
    read_key = key_reader(games)
    for rec in records:
        place = read_key(rec["key"]) if isinstance(rec.get("key"), str) else None
        if place is None:
            continue  # not a scheduled match's key
        g, t, k, r = place
        if g not in tests:
            continue
        entry = entries.setdefault(g, _Entry(rec["game"], len(rec["seats"])))
        entry.places.add((t, r))
        entry.counts[k] = entry.counts.get(k, 0) + 1
        tally = entry.points.setdefault(k, {})
        for name in rec["seats"]:
            tally[name] = tally.get(name, 0) + half_points(rec, name)[0]
        if r == 0:
            entry.focus = rec["seats"][0]
    found = []
    for g, test in sorted(tests.items()):
        entry = entries.get(g)
        if entry is None or entry.focus is None:
            continue  # no counted match of it yet
        size = len(entry.places)
        n = 0
        while entry.counts.get(n) == size:
            n += 1
        sums = [entry.points[k].get(entry.focus, 0) for k in range(n)]
        decision = decided.get(g)
        llr, verdict = (decision["llr"], decision["verdict"]) if decision is not None else (0.0, None)
        if n:
            mean, variance = moments(n, sum(sums), sum(x * x for x in sums), size * 2 * (entry.players - 1))
            llr = llr if decision is not None else test.llr_of(n, mean, variance)
        extra: dict[str, Any] = {}
        if n > 1:
            e = estimate(n, mean, variance)
            extra = {"elo": _finite(e.elo), "elo_low": _finite(e.low), "elo_high": _finite(e.high),
                     "los": round(e.los, 4)}
        found.append(Outcome(g, entry.game, entry.focus, entry.players, test, n, n * size, llr, verdict, **extra))
    return found
