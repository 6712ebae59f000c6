"""The match runner: deals until the game's own match end, talks to the players, applies the
fault policy of the protocol, and writes the replay as it goes.

Every chance outcome goes through here: when the state asks for one (`GameState.chance()`),
the runner samples it from the match's sealed streams (referee.chance.Sampler), writes it as a
"chance" record and applies it; `verify` feeds the recorded outcomes back the same way."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import referee.sealing as sealing  # not `from referee import`: the package lazily imports its API, which imports this
from referee.version import PROTOCOL_VERSION, __version__
from referee.chance import Sampler, Streams, answer
from referee.errors import PluginError, UsageError
from referee.fault_policy import FaultPolicy
from referee.faults import SHOWN, fault_log_for, hint, legal_summary
from referee.checks import outcome_error, plugin_label, record_error
from referee.game import EVERYONE, PENALTY, Event, Game, GameState, Record, audience
from referee.bots.limits import CPU_S, FSIZE_MB, GRACE_MS, MAX_MS, MEMORY_MB, NOFILE, NPROC
from referee.players import Fault, Player, Reply, StrategyPlayer
from referee.protocol import Hello, act_message, end_message, event_message
from referee.ranking import competition_ranks
from referee.replay.records import ReplayWriter
from referee.resources import PROCESS, Usage, seat_record
from referee.signing import Signer


@dataclass(frozen=True)
class Limits:
    """Per-match limits and the fault policy (PROTOCOL.md)."""

    move_ms: int = 1000
    start_ms: int = 5000
    max_faults: int = 1
    fallback: str = "first"  # "first" legal action, or a seeded "random" one
    max_line_bytes: int = 65536
    # Hostile bots (docs/security.md): waited past each deadline; a seat's total thinking time
    # per match (0: no budget); OS limits per bot process (0: none); "none" or "bwrap".
    grace_ms: int = GRACE_MS
    total_ms: int = 0
    # A time bank per seat and match (Kaggle's overage; 0: none): time a decision takes beyond
    # move_ms is drawn from it, so a decision's deadline is move_ms + the bank left (docs/protocol.md)
    bank_ms: int = 0
    cpu_s: int = CPU_S
    memory_mb: int = MEMORY_MB
    fsize_mb: int = FSIZE_MB
    nofile: int = NOFILE
    nproc: int = NPROC
    sandbox: str = "none"
    # Not a limit: how long to poll for a bot's reply before sleeping (None: referee.bots.limits.spin_us)
    spin_us: int | None = None

    def __post_init__(self) -> None:
        if type(self.bank_ms) is not int or not 0 <= self.bank_ms <= MAX_MS:
            raise UsageError(f"bank_ms must be an integer from 0 (no time bank) to {MAX_MS}, got {self.bank_ms!r}")

    def wire(self) -> dict[str, int]:
        """The limits as told to bots in `hello`."""
        wire = {"move_ms": self.move_ms, "start_ms": self.start_ms, "max_line_bytes": self.max_line_bytes}
        if self.total_ms:
            wire["total_ms"] = self.total_ms
        if self.bank_ms:
            wire["bank_ms"] = self.bank_ms
        return wire


@dataclass(frozen=True)
class Seat:
    """Who sits in a seat: a display name, "strategy" or "command", the spec it came from."""

    name: str
    kind: str
    spec: str
    move_ms: int | None = None  # this seat's own limit per decision, if not the match's
    #: after hello, go by the name its bot announced in `ready` (play's command seats; `name`
    #: stays the fallback); a tournament's entrants keep the organiser's names
    ready_name: bool = False


def by_ready_name(seats: list[Seat]) -> list[Seat]:
    """The seats with each command seat going by its bot's `ready` name once it gave one (as
    `play` and `validate` name them; hello still names it by its command)."""
    return [replace(s, ready_name=True) if s.kind == "command" else s for s in seats]


class Monitor(Protocol):
    """Test hook: sees every message the runner sends and every state after a step.

    `record` (every replay record the game emits) and `applying` (called just before each
    action is applied) are optional.
    """

    def sent(self, seat: int, message: dict[str, Any], state: GameState) -> None: ...

    def record(self, record: dict[str, Any]) -> None: ...

    def applying(self, state: GameState, seat: int, action: dict[str, Any]) -> None: ...

    def stepped(self, state: GameState) -> None: ...


@dataclass
class FaultEntry:
    """One recorded fault of a match, with where it happened."""

    seat: int
    deal: int
    kind: str
    detail: str
    raw: str = ""
    stderr_tail: str = ""
    act: int | None = None  # the id of the act it answered, the seat's own count (None: at hello, or a budget used up)
    legal: str = ""  # that decision's legal actions, in short (referee.faults.legal_summary)
    hint: str = ""  # the usual cause, for the bot's author (referee.faults.hint)
    log: str | None = None  # the file name of the seat's stderr log (beside the replay), if it held something
    #: that decision's first legal actions (referee.faults.SHOWN) and how many there were, for
    #: outputs that give them as JSON (`legal` is their text, for the replay and people)
    legal_actions: tuple = ()
    legal_count: int = 0

    def record(self) -> dict[str, Any]:
        """The entry as the result's `fault_log` holds it (act, legal, hint and log only when known)."""
        out: dict[str, Any] = {"seat": self.seat, "deal": self.deal, "kind": self.kind, "detail": self.detail,
                               "raw": self.raw}
        for name in ("act", "legal", "hint", "log"):
            value = getattr(self, name)
            if value:
                out[name] = value
        return out


@dataclass
class MatchResult:
    """A finished match: the header and result records, every fault, the replay path."""

    header: dict[str, Any]
    result: dict[str, Any]
    faults: list[FaultEntry] = field(default_factory=list)
    replay: Path | None = None
    decisions: int = 0
    deals: list[dict[str, Any]] = field(default_factory=list)  # every deal_end record, in order
    digest: str | None = None  # the SHA-256 of the replay's lines when it is signed (referee.signing)
    #: conduct penalties (referee.game.penalty): seat, why, ruling and how many times
    penalties: list[dict[str, Any]] = field(default_factory=list)
    #: per seat, its decision times, CPU and peak memory (referee.resources.seat_record), as the
    #: result record holds them
    resources: list[dict[str, Any]] = field(default_factory=list)
    #: per seat, every timed decision's ms (for a tournament's pooled percentiles); never written
    times: list[list[float]] = field(default_factory=list)


class _Null:
    digest = None  # nothing written, nothing signed

    def write(self, record: dict[str, Any]) -> None:
        pass

    add = write

    def close(self) -> None:
        pass


def run_match(
    game: Game,
    config: dict[str, Any],
    seed: int,
    seats: list[Seat],
    players: list[Player],
    limits: Limits = Limits(),
    replay: str | Path | None = None,
    monitor: Monitor | None = None,
    hooks: Any = None,
    key: sealing.DealKey | None = None,
    signer: Signer | None = None,
    match: str | None = None,
) -> MatchResult:
    """Play one whole match; every player is closed on return, whatever happened.

    Every chance outcome comes from `seed` through the secret deal `key` (default:
    `referee.sealing.default()`): same seed and key, same replay bytes. With a `signer` the
    replay's result record is signed (referee.signing) and the result names the replay's digest.
    `match` is the match id when the caller has it (referee.match.MatchRequest.match_id).
    """
    try:
        return _run(game, config, seed, seats, players, limits, replay, monitor, hooks, key or sealing.default(),
                    signer, match)
    finally:
        for player in players:
            player.close()


def _run(game, config, seed, seats, players, limits, replay, monitor, hooks, key, signer=None,
         mid=None) -> MatchResult:
    match = _Match(game, config, seed, seats, players, limits, replay, monitor, key, signer, mid)
    try:
        match.greet(hooks)
        match.play()
        return match.finish(hooks)
    finally:
        match.writer.close()  # writes what was played, also before an error or Ctrl-C


class _Match:
    """One match being played, in its phases: `greet` (spawn, hello, header), `play` (the deals,
    decision by decision, until the game ends), `finish` (outcome, result record, `end`).

    The decision loop binds what it calls per decision to locals: it is the referee's hot path
    (bench/engine.py), so only what is rare or slow anyway (a bot's reply, a fault) is a call."""

    def __init__(self, game: Game, config: dict[str, Any], seed: int, seats: list[Seat], players: list[Player],
                 limits: Limits, replay: str | Path | None, monitor: Monitor | None, key: sealing.DealKey,
                 signer: Signer | None, mid: str | None = None) -> None:
        self.game, self.config, self.seed, self.seats, self.players, self.limits = (game, config, seed, seats,
                                                                                  players, limits)
        self.replay, self.monitor, self.key = replay, monitor, key
        self.n = n = len(players)
        self.mid = mid if mid is not None else key.match_id(game.name, config, seed, [s.spec for s in seats])
        # The fallback's random choices are sealed like the deal; the replay names their seed (one
        # match's, revealing nothing of the key) so that `verify` re-derives them.
        fallback_seed = key.derive("fallback", self.mid)
        self.header = _header(game, config, seed, self.mid, seats, limits, fallback_seed)
        self.writer = ReplayWriter(replay, signer) if replay is not None else _Null()
        self.policy = FaultPolicy(n, limits.max_faults, limits.fallback, fallback_seed)  # the one `verify` replays
        self.fault_log: list[FaultEntry] = []
        self.move_ms = [s.move_ms or limits.move_ms for s in seats]
        self.left_ms = [float(limits.total_ms)] * n  # each seat's total time budget left (total_ms > 0)
        self.bank = [float(limits.bank_ms)] * n  # each seat's time bank left (bank_ms > 0)
        self.on_record = getattr(monitor, "record", None)
        self.decisions = 0
        self.spent: list[list[float]] = [[] for _ in range(n)]  # each seat's decision times, in ms
        self.deals: list[dict[str, Any]] = []
        #: conduct penalties (referee.game.penalty) per (seat, why, ruling): how many times
        self.penalties: dict[tuple[int, str, str], int] = {}
        self.label = plugin_label(game)
        # Events only go to seats whose player listens (an in-process strategy that keeps the base
        # no-op `event` does not), so with no listener and no monitor no event message is even built.
        self.listens = [player.listens() for player in players]
        self.fan_out = monitor is not None or any(self.listens)
        self.state: GameState | None = None

    def fault(self, seat: int, deal: int, f: Fault, act: int | None = None, legal: list | None = None) -> None:
        """Log a seat's fault, and close its player once the policy disqualifies it."""
        player = self.players[seat]
        log = player.stderr_log()  # named only once it holds something: a silent bot has none
        self.fault_log.append(FaultEntry(seat, deal, f.kind, f.detail, f.raw[:200], f.stderr_tail, act,
                                         legal_summary(legal) if legal is not None else "",
                                         hint(f.kind, f.detail, f.raw, getattr(player, "stats", {}).get("stale", 0)),
                                         log.name if log is not None else None,
                                         tuple(legal[:SHOWN]) if legal is not None else (),
                                         len(legal) if legal is not None else 0))
        if self.policy.fault(seat, f.kind):
            player.close()

    def greet(self, hooks: Any) -> None:
        """Start every player and write the header."""
        # Every bot's process first, then each greeted in turn: their start-up times overlap, and a
        # bot's start_ms still runs from its own hello.
        players, monitor = self.players, self.monitor
        for player in players:
            player.spawn()
        names = [s.name for s in self.seats]
        for seat, player in enumerate(players):
            hello = Hello(self.game.name, seat, self.n, names, self.config, self.mid, self.limits.wire())
            if monitor is not None:
                monitor.sent(seat, hello.message(), None)
            failed = player.start(hello)
            if failed is not None:
                self.fault(seat, 0, failed)
        _name_seats(self.header["players"], self.seats, players)  # after hello, which names them as before
        names = [p["name"] for p in self.header["players"]]
        for player in players:
            rename = getattr(player, "rename", None)  # a person's seat shows the others by these names
            if rename is not None:
                rename(names)
        self.writer.write(self.header)
        if hooks is not None:
            hooks.match_started(header=self.header)

    def keep(self, data) -> None:
        """A record the game emitted: checked (a deal_end's core fields), written, shown the monitor."""
        kind = data.get("type") if type(data) is dict else None
        if kind != "deal" and kind != "chance":  # a deal_end's core fields, or a bad record
            error = record_error(data, self.n)
            if error is not None:
                raise PluginError(f"{self.label}: {error}")
            self.deals.append(data)
        self.writer.write(data)  # buffered: the file is written at each deal's end (referee.replay.records)
        if self.on_record is not None:
            self.on_record(data)

    def penalised(self, event: Event) -> None:
        """Count a conduct penalty (an event `penalty` with a `ruling`: referee.game.penalty)."""
        data = event.data
        if "ruling" in data:
            key = (data.get("seat"), str(data.get("why")), str(data["ruling"]))
            self.penalties[key] = self.penalties.get(key, 0) + 1

    def dispatch(self, outputs) -> None:
        """What the game drained: records kept, events sent to their audience."""
        for out in outputs:
            if type(out) is Record:
                self.keep(out.data)
                continue
            if not self.fan_out:
                if type(out) is Event and out.kind == PENALTY:
                    self.penalised(out)
                continue
            if type(out) is not Event and not isinstance(out, Event):
                raise PluginError(f"{self.label}: drain() gave {out!r}, not an Event or a Record")
            if out.kind == PENALTY:
                self.penalised(out)
            to = out.to
            try:
                seats = range(self.n) if to is EVERYONE else audience(to, self.n)
            except (TypeError, ValueError) as exc:
                raise PluginError(f"{self.label}: event {out.kind!r}: {exc}") from None
            message = out.message()
            disqualified, monitor, listens, players = (self.policy.disqualified, self.monitor, self.listens,
                                                        self.players)
            for seat in seats:
                if seat not in disqualified:
                    if monitor is not None:
                        monitor.sent(seat, event_message(message), self.state)
                    if listens[seat]:
                        players[seat].event(message)

    def settle(self) -> int | None:
        """Answer the state's chance requests (each recorded before what it makes happen); the seat
        to act next, or None at the match's end. Only called when to_act() is None."""
        state = self.state
        while (request := state.chance()) is not None:
            record = answer(state, request, self.sampler, self.label)
            self.writer.add(record)
            if self.on_record is not None:
                self.on_record(record)
            self.dispatch(state.drain())
            if (seat := state.to_act()) is not None:
                return seat
        return None

    def allowance(self, seat: int) -> tuple[int, int | None]:
        """A seat's time for its next decision, as its `act` tells it: `time_ms`, and the part of
        its time bank it may draw on beyond it (None: the match has no bank). The deadline is their
        sum, which a total budget caps: the bank told is never more than the budget leaves."""
        limits, left_ms = self.limits, self.left_ms
        time_ms = _time_ms(self.move_ms[seat], limits.total_ms, left_ms[seat])
        if not limits.bank_ms:
            return time_ms, None
        return time_ms, _bank_ms(time_ms, limits.total_ms, left_ms[seat], self.bank[seat])

    def ask(self, seat: int, act_id: int, obs: dict[str, Any],
            legal: list) -> tuple[Any, Fault | None, float, Any, float | None]:
        """A player's decision through its `act` (a bot, or a wrapped strategy): the action (None
        on a fault), the fault, its time in ms, the debug it sent beside the action and, when it
        drew on its time bank, what is left of the bank (else None)."""
        left_ms = self.left_ms
        time_ms, bank_ms = self.allowance(seat)
        player = self.players[seat]
        if bank_ms is None:
            reply = player.act(act_id, obs, legal, time_ms)
        else:  # only then: a Player written before the bank need not know the keyword
            reply = player.act(act_id, obs, legal, time_ms, bank_ms=bank_ms)
        left_ms[seat] -= reply.ms
        action, move_fault = _resolve(self.state, legal, reply)
        bank = None if bank_ms is None else self.draw(seat, reply)
        return action, move_fault, reply.ms, reply.debug, bank

    def draw(self, seat: int, reply: Reply) -> float | None:
        """Take from the seat's bank the time its reply took beyond its move_ms (a timeout takes
        all of it); what is left, rounded to 0.1 ms, if that changed it, else None."""
        before = self.bank[seat]
        fault = reply.fault
        if fault is not None and fault.kind == "timeout":
            after = 0.0
        else:
            after = max(0.0, before - max(0.0, reply.ms - self.move_ms[seat]))
        if after == before:
            return None
        self.bank[seat] = after
        return round(after, 1)

    def play(self) -> None:
        """Every decision of the match, each applied, recorded and told, until the game ends."""
        self.sampler = Sampler(Streams(self.key.rng("deal", self.game.name, self.seed)))
        self.state = state = self.game.new_state(self.config, self.n)
        to_act, legal_actions, observe, apply, drain = (state.to_act, state.legal_actions, state.observe,
                                                         state.apply, state.drain)
        monitor, fan_out, dispatch, keep, add = self.monitor, self.fan_out, self.dispatch, self.keep, self.writer.add
        on_applying = getattr(monitor, "applying", None)
        disqualified, fallback, left_ms = self.policy.disqualified, self.policy.fallback, self.left_ms
        spent = [times.append for times in self.spent]  # per seat: its decision times grow
        writing = self.replay is not None
        dispatch(drain())
        seat = to_act()
        if seat is None:
            seat = self.settle()
        # The seats played by a plain StrategyPlayer are asked directly (StrategyPlayer.act inlined:
        # the same choice, time and crash fault, without building a Reply per decision).
        strategies = [player.strategy if type(player) is StrategyPlayer else None for player in self.players]
        total_ms = self.limits.total_ms
        perf_counter = time.perf_counter
        # Act ids count each seat's own acts (1, 2, 3... per match): an id shared by the table
        # would tell a seat, by its gaps, how many decisions the others took, hidden ones included
        acts = [0] * self.n
        decisions = 0
        while seat is not None:
            legal = legal_actions()
            move_fault: Fault | None = None
            ms = 0.0
            debug = None  # what the bot sent beside its action for the replay (docs/protocol.md)
            bank = None  # the seat's time bank left when this decision drew on it
            if seat in disqualified:
                action = fallback(legal)
            elif total_ms and left_ms[seat] < 1:
                move_fault = Fault("timeout", f"total time budget of {total_ms} ms used up")
                self.fault(seat, state.deal, move_fault)
                action = fallback(legal)
            else:
                obs = observe(seat)
                act_id = acts[seat] = acts[seat] + 1
                if monitor is not None:
                    monitor.sent(seat, act_message(act_id, obs, legal, *self.allowance(seat)), state)
                strategy = strategies[seat]
                if strategy is None:
                    action, move_fault, ms, debug, bank = self.ask(seat, act_id, obs, legal)
                else:
                    started = perf_counter()
                    try:
                        choice = strategy.choose(obs, legal)
                    except Exception as exc:  # a strategy plugin's bug must not stop the match
                        move_fault = Fault("crash", f"strategy raised {type(exc).__name__}: {exc}")
                    else:
                        ms = (perf_counter() - started) * 1000.0
                        if total_ms:  # the budget left is read only when there is one
                            left_ms[seat] -= ms
                        if type(choice) is int and 0 <= choice < len(legal):
                            action = legal[choice]
                        else:
                            action, move_fault = _resolve(state, legal, StrategyPlayer.reply(choice, ms))
                spent[seat](ms)  # percentiles once, at the end (referee.resources)
                if move_fault is not None:
                    self.fault(seat, state.deal, move_fault, act_id, legal)
                    action = fallback(legal)
            deal = state.deal
            if on_applying is not None:
                on_applying(state, seat, action)
            apply(action)
            decisions += 1
            if writing:
                # round(ms, 3), the very same float at a third of its cost: k / 1000 is it unless
                # ms * 1000 lies within 0.01 of a half, or is not positive, too large for a float to
                # tell, or not a number
                t = ms * 1000.0
                if 0.0 < t < 1e12 and -0.49 < t - (k := round(t)) < 0.49:
                    t = k / 1000
                else:
                    t = round(ms, 3)
                move = {"type": "move", "deal": deal, "seat": seat, "action": action, "ms": t}
                if bank is not None:
                    move["bank"] = bank
                if move_fault is not None:
                    move["fault"] = move_fault.record()
                if debug is not None:
                    move["debug"] = debug
                add(move)  # ends no deal: no flush test (referee.replay.records)
            if fan_out:
                dispatch(drain())
            else:  # no event goes anywhere: only the records and penalties (dispatch, inlined)
                for out in drain():
                    if type(out) is Record:
                        keep(out.data)
                    elif type(out) is Event and out.kind == PENALTY:
                        self.penalised(out)
            seat = to_act()
            if seat is None:
                seat = self.settle()  # a deal to shuffle, or a reshuffle the move waits for
            if monitor is not None:
                monitor.stepped(state)
        self.decisions = decisions

    def finish(self, hooks: Any) -> MatchResult:
        """The outcome checked, the result written, each seat still in told its `end`."""
        n, monitor, disqualified, fault_log = self.n, self.monitor, self.policy.disqualified, self.fault_log
        outcome = self.state.outcome()
        error = outcome_error(outcome, n)
        if error is not None:
            raise PluginError(f"{self.label}: {error}")
        # Each bot read before its `end`: what it used playing, its processes still running
        resources = [seat_record(ms, _usage(player)) for ms, player in zip(self.spent, self.players)]
        result = {
            "type": "result",
            "scores": outcome.scores,
            "ranks": competition_ranks(outcome.measure, disqualified),
            "faults": self.policy.count,
            "disqualified": sorted(disqualified),
            "fault_log": [f.record() for f in fault_log],
            "resources": resources,
        }
        self.writer.write(result)
        # the bots are told no seat's resources: another's times or memory are not theirs to know
        end = {k: v for k, v in result.items() if k != "type" and k != "resources"}
        for seat, player in enumerate(self.players):
            if seat not in disqualified:
                told = _end_for(seat, end, fault_log)
                if monitor is not None:
                    monitor.sent(seat, end_message(told), self.state)
                player.end(told)
        if hooks is not None:
            hooks.match_finished(header=self.header, result=result)
        penalties = [{"seat": seat, "why": why, "ruling": ruling, "times": times}
                     for (seat, why, ruling), times in sorted(self.penalties.items(), key=str)]
        return MatchResult(self.header, result, fault_log, Path(self.replay) if self.replay is not None else None,
                           self.decisions, self.deals, self.writer.digest, penalties, resources, self.spent)


def _usage(player: Player) -> Usage | None:
    """A player's CPU and peak memory so far (`usage()`: a bot's process), None for one without
    a process of its own (a strategy, a person: "in-process"); never raises."""
    usage = getattr(player, "usage", None)
    if usage is None:
        return None
    try:
        return usage()
    except Exception:  # a figure is not worth a match
        return Usage(measured=PROCESS)


def _header(game: Game, config: dict[str, Any], seed: int, mid: str, seats: list[Seat], limits: Limits,
            fallback_seed: int) -> dict[str, Any]:
    """The replay's header record."""
    header = {
        "type": "header",
        "referee": __version__,
        "protocol": PROTOCOL_VERSION,
        "game": game.name,
        "config": config,
        "seed": seed,
        "match": mid,
        "players": [{"seat": i, "name": s.name, "kind": s.kind, "spec": s.spec} for i, s in enumerate(seats)],
        "limits": {"move_ms": limits.move_ms, "start_ms": limits.start_ms, "max_faults": limits.max_faults,
                   "fallback": limits.fallback},
    }
    if limits.fallback == "random":
        header["limits"]["fallback_seed"] = fallback_seed
    if limits.bank_ms:
        header["limits"]["bank_ms"] = limits.bank_ms
    return header


def _end_for(seat: int, end: dict[str, Any], fault_log: list[FaultEntry]) -> dict[str, Any]:
    """The `end` result as told to `seat` (`fault_log_for`)."""
    return {**end, "fault_log": fault_log_for(seat, end["fault_log"])} if fault_log else end


def _time_ms(move_ms: int, total_ms: int, left_ms: float) -> int:
    """The time a seat has for a decision: its limit per move, or less if its total budget is nearly spent."""
    return move_ms if not total_ms else min(move_ms, int(left_ms))


def _bank_ms(time_ms: int, total_ms: int, left_ms: float, bank: float) -> int:
    """The part of a seat's time bank it may draw on in a decision given `time_ms`: what is left
    of it, but no more than its total budget (if any) leaves beyond `time_ms`."""
    return int(bank) if not total_ms else max(0, min(int(bank), int(left_ms) - time_ms))


def _name_seats(entries: list[dict[str, Any]], seats: list[Seat], players: list[Player]) -> None:
    """The header's players once the bots said `ready`: each with what its bot announced
    (`bot`: name, version, author), and a seat that goes by its bot's name (`Seat.ready_name`)
    named so, with `#<seat>` when another seat has that name too; the others keep theirs."""
    renamed: dict[int, str] = {}
    for i, (entry, seat, player) in enumerate(zip(entries, seats, players)):
        bot = player.announced()
        if bot is not None:
            entry["bot"] = bot
            if seat.ready_name:
                renamed[i] = bot["name"]
    if not renamed:
        return
    taken = {entry["name"] for i, entry in enumerate(entries) if i not in renamed}
    wanted = list(renamed.values())
    for i, name in renamed.items():
        if name in taken or wanted.count(name) > 1:
            name = f"{name}#{i}"
        while name in taken:
            name += f"#{i}"
        entries[i]["name"] = name
        taken.add(name)


def _resolve(state: GameState, legal, reply: Reply):
    """The legal action a reply stands for, or a fault saying why it stands for none."""
    if reply.fault is not None:
        return None, reply.fault
    if reply.index is not None:
        if 0 <= reply.index < len(legal):
            return legal[reply.index], None
        return None, Fault("illegal", f"index {reply.index} is outside the {len(legal)} legal actions",
                           json.dumps(reply.index))
    action = state.resolve(reply.action)
    if action is None:
        try:
            raw = json.dumps(reply.action)
        except (TypeError, ValueError):
            raw = repr(reply.action)
        return None, Fault("illegal", "the action is not among the legal actions", raw)
    return action, None
