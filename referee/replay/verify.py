"""Verifying a replay: re-simulate the match from the file's own records, and compare.

A replay holds every chance outcome the match asked for (PROTOCOL.md), so the match can be
played again without the referee's PRNG: the game's state asks for its chance outcomes as it
does under the runner (`GameState.chance()`), and each is taken from the file's next "chance"
record, checked against the request (an order of the cards asked for, or one of the options:
the same check for every game, `referee.game.chance_error`) and applied (`apply_chance`).
Replays written before chance went through the runner hold the outcomes in game-specific
records instead; the game reads them (`Game.old_outcome`). Each recorded move must be a legal
action of the seat to act, and every record the game emits again (deal, deal_end) must equal
the file's. At the end the result record must hold the game's own outcome: the scores, and the
ranks computed by C-5 with the recorded disqualified seats; the fault counts and
disqualifications must agree with the faults recorded on the moves, and the moves the referee
chose itself (the fallback policy for a fault or a disqualified seat) must be the policy's.

It also holds against the result what the referee never does: it never asks a disqualified
seat (whose moves then record no time and no debug text), only a command bot can fail at its
start, a seat faults only in ways its kind can; and a crash or an illegal choice recorded for a
strategy whose choices the replay determines (it draws nothing from its sealed PRNG) is re-run
(`strategy_fault_error`). All this shows a replay consistent, not who wrote it: with a public key
`verify_file` first checks the result record's signature (referee/signing.py), and
`verify_journal` a tournament journal's signed chain and that each match's replay is the one its
record names (issue 25).

`simulate` is the one re-simulation loop: `verify` checks a file with it, and the replay
viewers (referee/replay/terminal.py, referee/replay/html.py) use its steps to show what happened
and what one seat saw (the game's own events and `observe`).
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import random
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.errors import ConfigError, PluginError, RefereeError, RulesError, UsageError
from referee.fault_policy import FaultPolicy
from referee.game import (DEAL, Event, Game, GameState, Record, audience, chance_error, json_equal, outcome_error,
                          plugin_label, record_error, request_error)
from referee.ranking import competition_ranks
from referee.signing import Verifier

#: record types a replay may hold (PROTOCOL.md)
RECORD_TYPES = ("header", "deal", "move", "chance", "deal_end", "result")


class CannotVerify(UsageError):
    """The replay cannot be re-simulated at all (its game is not installed)."""


@dataclass(frozen=True)
class Discrepancy:
    """Where a replay and its re-simulation first differ, and how."""

    message: str
    deal: int | None = None
    move: int | None = None  # the move's number within its deal, 1-based
    line: int | None = None  # the line of the replay file, 1-based
    after: bool = False  # True: found in the records that follow move `move`

    def where(self) -> str:
        """"deal 2, move 14 (line 87)", or as much of it as is known."""
        parts = []
        if self.deal is not None:
            parts.append(f"deal {self.deal}")
        if self.move is not None:
            parts.append(f"{'after ' if self.after else ''}move {self.move}")
        text = ", ".join(parts)
        if self.line is not None:
            text += f" (line {self.line})" if text else f"line {self.line}"
        return text

    def __str__(self) -> str:
        where = self.where()
        return f"{where}: {self.message}" if where else self.message


class Mismatch(RefereeError):
    """Raised by `simulate` at the first discrepancy."""

    def __init__(self, discrepancy: Discrepancy) -> None:
        super().__init__(str(discrepancy))
        self.discrepancy = discrepancy


@dataclass
class Replay:
    """A replay file's records, with the line each came from."""

    path: Path
    records: list[dict[str, Any]]
    lines: list[int]

    @property
    def header(self) -> dict[str, Any]:
        return self.records[0]

    @property
    def game(self) -> str:
        return self.header.get("game", "")

    @property
    def players(self) -> int:
        return len(self.header.get("players") or [])

    def names(self) -> list[str]:
        """Each seat's display name."""
        return [str(p.get("name", f"seat {i}")) if isinstance(p, dict) else f"seat {i}"
                for i, p in enumerate(self.header.get("players") or [])]

    @property
    def result(self) -> dict[str, Any] | None:
        last = self.records[-1]
        return last if last.get("type") == "result" else None


def load_replay(path: str | Path) -> Replay:
    """Read a replay file (plain or gzip-compressed JSON Lines); UsageError if it cannot be
    read or is not a replay (no header first, a line that is not a JSON object)."""
    return parse_replay(path, read_bytes(path))


def read_bytes(path: str | Path) -> bytes:
    """A replay file's (uncompressed) bytes; UsageError if it cannot be read."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, not a replay file")
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":  # by content, whatever the file is called
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise UsageError(f"{path}: cannot read it as a replay ({exc})") from None
    return data


def parse_replay(path: str | Path, data: bytes) -> Replay:
    """The replay in a file's bytes (`read_bytes`); UsageError if they are not one."""
    path = Path(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: cannot read it as a replay ({exc})") from None
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    # lines end at "\n" only, as written: str.splitlines would also cut at U+2028 and the like,
    # which JSON strings (a bot's debug text) may hold unescaped
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if not records:
                raise UsageError(f"{path}: not a replay (line {number} is not JSON)") from None
            record = None
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            if not records:
                raise UsageError(f"{path}: not a replay (line {number} is not a replay record)")
            record = {"type": "garbage", "text": line[:200]}  # reported by verify, skipped by views
        records.append(record)
        lines.append(number)
    if not records or records[0].get("type") != "header":
        raise UsageError(f"{path}: not a replay (the first record is not a header)")
    if not isinstance(records[0].get("game"), str) or not isinstance(records[0].get("players"), list):
        raise UsageError(f"{path}: not a replay (the header names no game or players)")
    return Replay(path, records, lines)


# -- the re-simulation ---------------------------------------------------------------------------


@dataclass
class Step:
    """One step of a re-simulated match: the opening deal (move None), or one move.

    `state` is the live state right after the step: read it (observe, zones) before asking
    for the next step.
    """

    index: int  # 0: the opening deal; k: after the k-th move of the match
    move: dict[str, Any] | None
    line: int | None
    deal: int  # the deal the move belongs to (the opening step: 1)
    number: int  # the move's number within its deal (0 for the opening step)
    outputs: list[Event | dict[str, Any]]  # the game's events and records (dicts), the chance records fed, in order
    state: GameState
    fallback: bool = False  # the referee chose this move (a fault, or a disqualified seat)
    disqualified: frozenset[int] = frozenset()  # seats disqualified once this move is played

    @property
    def events(self) -> list[Event]:
        return [o for o in self.outputs if type(o) is Event]

    @property
    def records(self) -> list[dict[str, Any]]:
        return [o for o in self.outputs if type(o) is dict]


#: JSON equality: numbers by value (2 == 2.0) but booleans are not numbers
same = json_equal


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_difference(recorded: Any, replayed: Any, path: str = "") -> str | None:
    """Where two JSON values first differ: "scores: recorded [..], re-simulated [..]"."""
    if same(recorded, replayed):
        return None
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in list(replayed) + [k for k in recorded if k not in replayed]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in recorded:
                return f"{sub}: missing, re-simulated {_short(replayed[key])}"
            if key not in replayed:
                return f"{sub}: recorded {_short(recorded[key])}, not produced by the re-simulation"
            found = first_difference(recorded[key], replayed[key], sub)
            if found is not None:
                return found
    if isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed) \
            and not all(isinstance(x, (str, int, float)) for x in recorded + replayed):
        for i, (x, y) in enumerate(zip(recorded, replayed)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
    return f"{path or 'value'}: recorded {_short(recorded)}, re-simulated {_short(replayed)}"


def _json(value: Any) -> Any:
    """A game's output as it would be written to a file (tuples become lists)."""
    return json.loads(json.dumps(value))


def simulate(replay: Replay, game: Game) -> Iterator[Step]:
    """Re-simulate `replay` with `game`'s rules, step by step, feeding back the recorded chance
    outcomes; raises Mismatch at the first discrepancy."""
    header, records, lines = replay.header, replay.records, replay.lines
    n = replay.players

    def mismatch(message: str, deal=None, move=None, line=None, after=False):
        return Mismatch(Discrepancy(message, deal, move, line, after))

    if header.get("game") != game.name:
        raise mismatch(f"the header's game is {header.get('game')!r}, not {game.name!r}", line=lines[0])
    config = header.get("config")
    if not isinstance(config, dict):
        raise mismatch("the header has no config", line=lines[0])
    try:
        from referee.config import resolve_config

        resolve_config(game, config, n)
    except ConfigError as exc:
        raise mismatch(f"the header's config cannot be played: {exc}", line=lines[0]) from None
    state = game.new_state(dict(config), n)

    faults = FaultPolicy.of_header(n, header)  # the runner's own policy, replayed
    kinds = seat_kinds(replay)
    for seat, kind in _start_faults(replay.result, records, n):
        faults.fault(seat, kind)

    i = 1  # the next record to compare or apply
    deal, number, index = 1, 0, 0

    def compare_records(produced: list[dict[str, Any]], after_move: bool, waiting: bool = False) -> int:
        """Match the records the game emitted with the file's records from i on; `waiting`: the
        state waits for a chance outcome, whose record comes next."""
        j = i
        for out in produced:
            out = _json(out)
            if j < len(records) and records[j].get("type") == "garbage":
                raise mismatch(f"the line is not a replay record: {records[j]['text']!r}", deal, number or None,
                               lines[j], after_move)
            if j >= len(records) or records[j].get("type") in ("move", "result"):
                raise mismatch(f"the re-simulation produces a {out.get('type')} record the replay does not have: "
                               f"{_short(out, 200)}", deal, number or None,
                               lines[j] if j < len(records) else lines[-1], after_move)
            rec = records[j]
            if rec.get("type") != out.get("type"):
                raise mismatch(f"the replay has a {rec.get('type')} record where the re-simulation produces a "
                               f"{out.get('type')} record", deal, number or None, lines[j], after_move)
            diff = first_difference(rec, out)
            if diff is not None:
                raise mismatch(f"{rec['type']} record differs: {diff}", rec.get("deal", deal) if isinstance(
                    rec.get("deal"), int) else deal, number or None, lines[j], after_move)
            j += 1
        if waiting:
            return j
        if j < len(records) and records[j].get("type") not in ("move", "result"):
            rec = records[j]
            what = rec.get("text") if rec.get("type") == "garbage" else _short(rec, 200)
            raise mismatch(f"the replay has a {rec.get('type')} record the re-simulation does not produce: {what}",
                           deal, number or None, lines[j], after_move)
        return j

    def drained() -> tuple[list[Event | dict[str, Any]], list[dict[str, Any]]]:
        outputs = [_checked(out, game, n) for out in state.drain()]
        return outputs, [o for o in outputs if type(o) is dict]

    def played_out(after_move: bool) -> list[Event | dict[str, Any]]:
        """The step's outputs, every chance request answered from the file's records (from i on)."""
        nonlocal i
        outputs, produced = drained()
        while state.to_act() is None and (request := state.chance()) is not None:
            i = compare_records(produced, after_move, waiting=True)
            outputs.append(feed(request, after_move))
            more, produced = drained()
            outputs.extend(more)
        i = compare_records(produced, after_move)
        return outputs

    def feed(request: Any, after_move: bool) -> dict[str, Any]:
        """Answer `request` from the file's record at i (consumed, unless it is an old replay's
        deal record, which the game's own deal record is then compared with); that record."""
        nonlocal i
        error = request_error(request)
        if error is not None:  # the plugin's mistake, not the file's
            raise PluginError(f"{plugin_label(game)}: {error}")
        where = (state.deal, number or None)
        rec = records[i] if i < len(records) else None
        line = lines[i] if i < len(records) else lines[-1]
        kind = rec.get("type") if rec is not None else None
        if kind == "chance" and "outcome" in rec:
            if rec.get("kind") != request.kind or not same(rec.get("deal"), state.deal):
                raise mismatch(f"the replay has a {rec.get('kind')} chance record of deal {rec.get('deal')} where "
                               f"the match asks for a {request.kind} of deal {state.deal}", *where, line, after_move)
            outcome = rec["outcome"]
        elif (kind == "deal") == (request.kind == DEAL) and kind in ("chance", "deal"):
            outcome = game.old_outcome(rec, request)  # a replay of before: its deal or chance record
        else:
            outcome = None
        if outcome is None:
            found = f"a {kind} record" if kind is not None else "no record"
            raise mismatch(f"the match asks for a {request.kind} (deal {state.deal}), but the replay has {found} "
                           "in the place of its chance record", *where, line, after_move)
        error = chance_error(request, outcome)
        if error is not None:
            raise mismatch(f"impossible chance record: {error}", *where, line, after_move)
        try:
            state.apply_chance(copy.deepcopy(outcome))
        except RulesError as exc:
            raise mismatch(f"the rules refuse the chance record: {exc}", *where, line, after_move) from None
        if kind == "chance":
            i += 1
        return rec

    outputs = played_out(False)
    yield Step(0, None, None, 1, 0, outputs, state, False, frozenset(faults.disqualified))

    while i < len(records) and records[i].get("type") == "move":
        move, line = records[i], lines[i]
        seat, action = move.get("seat"), move.get("action")
        to_act = state.to_act()
        if move.get("deal") != deal:
            deal, number = move.get("deal"), 0
        number += 1
        if to_act is None:
            raise mismatch("a move after the end of the match", deal, number, line)
        if move.get("deal") != state.deal:
            raise mismatch(f"the move says deal {move.get('deal')}, but the match is in deal {state.deal}",
                           state.deal, number, line)
        if seat != to_act:
            raise mismatch(f"seat {seat} moved, but it is seat {to_act}'s turn", deal, number, line)
        legal = state.legal_actions()
        chosen = next((a for a in legal if same(a, action)), None)
        if chosen is None:
            # A game may accept an action outside its legal list, as the runner asks it to
            # (`resolve`): e.g. a Mau Mau play without its due announcement, penalised (MM-7).
            # The move then records what resolve made of the bot's action; it must stand for itself.
            resolved = state.resolve(copy.deepcopy(action)) if isinstance(action, dict) else None
            if resolved is not None and same(resolved, action):
                chosen = resolved
        if chosen is None:
            shown = ", ".join(_short(a, 60) for a in legal[:12]) + (", ..." if len(legal) > 12 else "")
            raise mismatch(f"seat {seat} played {_short(action)}, which is not legal (legal: {shown})",
                           deal, number, line)
        fault = move.get("fault")
        fallback = seat in faults.disqualified or fault is not None
        if seat in faults.disqualified and (_thought(move) or "debug" in move):
            # the runner plays for a disqualified seat without asking it: no time, no debug text
            took = f"{move.get('ms')} ms of thinking" if _thought(move) else "debug text"
            raise mismatch(f"seat {seat} is disqualified, yet the move records {took}: the referee plays for a "
                           "disqualified seat without asking it", deal, number, line)
        if fault is not None:
            error = _fault_kind_error(fault, kinds[seat] if type(seat) is int and 0 <= seat < n else None)
            if error is not None:
                raise mismatch(error, deal, number, line)
        if fallback:
            expected = faults.fallback(legal)
            if expected is not None and not same(expected, action):
                why = "a fault" if fault is not None else f"seat {seat} is disqualified"
                raise mismatch(f"after {why} the fallback policy ({faults.fallback_name}) plays {_short(expected)}, "
                               f"not {_short(action)}", deal, number, line)
            if fault is not None and seat in faults.disqualified:
                raise mismatch(f"a fault recorded for seat {seat}, which was already disqualified",
                               deal, number, line)
        if fault is not None:
            faults.fault(seat, str(fault.get("kind")) if isinstance(fault, dict) else "")
        try:
            state.apply(chosen)
        except RulesError as exc:  # a rules plugin bug
            raise mismatch(f"the rules refuse the move: {exc}", deal, number, line) from None
        index += 1
        i += 1
        outputs = played_out(True)
        yield Step(index, move, line, deal, number, outputs, state, fallback, frozenset(faults.disqualified))

    end_line = lines[i] if i < len(records) else lines[-1]
    if state.to_act() is not None:
        raise mismatch(f"the replay stops before the end of the match (seat {state.to_act()} to act)",
                       state.deal, None, end_line)
    if i >= len(records) or records[i].get("type") != "result":
        raise mismatch("the replay has no result record", state.deal, None, end_line)
    if i != len(records) - 1:
        raise mismatch(f"a {records[i + 1].get('type')} record after the result", state.deal, None, lines[i + 1])
    error = outcome_error(state.outcome(), n)
    if error is not None:  # the plugin's mistake, not the file's
        raise PluginError(f"{plugin_label(game)}: {error}")
    _check_result(records[i], lines[i], state, faults, n, records, kinds)


def _checked(out: Any, game: Game, n: int) -> Event | dict[str, Any]:
    """A game's output as `simulate` hands it on (a Record as its dict); PluginError naming the
    plugin when the game broke the contract: a record without the core's fields, an event
    without an audience (the plugin's mistake, not the file's)."""
    if type(out) is Record:
        error = record_error(out.data, n)
        if error is None:
            return out.data
    elif isinstance(out, Event):
        try:
            audience(out.to, n)
            return out
        except (TypeError, ValueError) as exc:
            error = f"event {out.kind!r}: {exc}"
    else:
        error = f"drain() gave {out!r}, not an Event or a Record"
    raise PluginError(f"{plugin_label(game)}: {error}")


def seat_kinds(replay: Replay) -> list[str | None]:
    """Each seat's kind as the header says ("strategy", "command", "human"; None: not said)."""
    return [p.get("kind") if isinstance(p, dict) and isinstance(p.get("kind"), str) else None
            for p in replay.header.get("players") or []]


def _thought(move: dict[str, Any]) -> bool:
    """Whether a move records time the seat took (the runner times only the seats it asks)."""
    ms = move.get("ms")
    return isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms != 0


#: what can go wrong with a seat's player of each kind, on a move (a strategy raises, returns
#: no legal action, or uses up its time budget; it sends no message to be invalid)
_MOVE_FAULTS = {"strategy": ("crash", "illegal", "timeout")}
#: the faults of a bot's start (hello): no reply in time, a reply that is no `ready`, an exit
_START_FAULTS = ("crash", "timeout", "invalid")


def _fault_kind_error(fault: Any, seat_kind: str | None) -> str | None:
    """Why a move's fault cannot have happened to a seat of this kind, if it cannot."""
    from referee.players import FAULT_KINDS

    kind = fault.get("kind") if isinstance(fault, dict) else None
    if kind not in FAULT_KINDS:
        return f"the move's fault has no known kind: {_short(fault)}"
    allowed = _MOVE_FAULTS.get(seat_kind or "")
    if allowed is not None and kind not in allowed:
        return f"a {kind} fault recorded for a {seat_kind} seat, which cannot make one"
    return None


def _move_faults(records) -> list[tuple[Any, Any, Any, Any]]:
    """(seat, deal, kind, detail) of every fault recorded on a move, in order."""
    out = []
    for r in records:
        if r.get("type") == "move" and r.get("fault") is not None:
            fault = r["fault"] if isinstance(r["fault"], dict) else {}
            out.append((r.get("seat"), r.get("deal"), fault.get("kind"), fault.get("detail")))
    return out


def _faults_on_moves(records, n: int) -> list[int]:
    """Each seat's number of faults recorded on its moves."""
    count = [0] * n
    for seat, *_ in _move_faults(records):
        if type(seat) is int and 0 <= seat < n:
            count[seat] += 1
    return count


def _start_faults(result: dict[str, Any] | None, records, n: int) -> list[tuple[int, str]]:
    """(seat, kind) of the faults at the start of the match (a bot's hello), which no move
    records: the fault log's deal-0 entries. Without a log (the result record need not hold one),
    a seat's faults beyond those on its moves were at the start, one at most (one hello each);
    such a fault disqualified the seat at once (a crash, or max_faults 1) exactly when the seat is
    disqualified with no fault on its moves: a later fault would not have been recorded."""
    if result is None:
        return []
    log = result.get("fault_log")
    if log is not None:
        start: dict[int, str] = {}  # the log's leading deal-0 entries, a seat once (the rest: _fault_log_error)
        for e in log if isinstance(log, list) else []:
            if not isinstance(e, dict) or e.get("deal") != 0:
                break
            if type(e.get("seat")) is int and 0 <= e["seat"] < n:
                start.setdefault(e["seat"], str(e.get("kind")))
        return list(start.items())
    counts, disqualified = result.get("faults"), result.get("disqualified")
    if not isinstance(counts, list) or len(counts) != n or not isinstance(disqualified, list):
        return []  # reported by the result check
    on_moves = _faults_on_moves(records, n)
    return [(seat, "crash" if seat in disqualified and on_moves[seat] == 0 else "start")
            for seat in range(n) if type(counts[seat]) is int and counts[seat] == on_moves[seat] + 1]


def _fault_log_error(log: list[Any], records, n: int, kinds: list[str | None]) -> str | None:
    """What is wrong with a fault log, if anything: it holds the faults at the start (deal 0, a
    seat once at most, a bot's: a strategy or a person cannot fail to start) first, then the
    faults recorded on the moves, in order, each with the move's seat, deal, kind and detail."""
    k, started = 0, set()
    while k < len(log) and isinstance(log[k], dict) and log[k].get("deal") == 0:
        seat = log[k].get("seat")
        if type(seat) is not int or not 0 <= seat < n or seat in started:
            return f"fault_log[{k}]: {_short(log[k])} is not a seat's one fault at the start"
        if kinds[seat] not in (None, "command"):
            return (f"fault_log[{k}]: a {log[k].get('kind')} at the start recorded for seat {seat}, a "
                    f"{kinds[seat]}, which cannot fail to start (only a command bot's hello can)")
        if log[k].get("kind") not in _START_FAULTS:
            return f"fault_log[{k}]: a {log[k].get('kind')} fault cannot happen at the start (hello)"
        started.add(seat)
        k += 1
    on_moves = _move_faults(records)
    for j, (seat, deal, kind, detail) in enumerate(on_moves):
        if k + j >= len(log):
            return (f"fault_log: {len(log) - k} entries after the start, but the moves record "
                    f"{len(on_moves)} faults")
        entry = log[k + j]
        got = [entry.get(key) for key in ("seat", "deal", "kind", "detail")] if isinstance(entry, dict) else None
        if not same(got, [seat, deal, kind, detail]):
            return (f"fault_log[{k + j}]: recorded {_short(entry)}, but fault {j + 1} on the moves is "
                    f"seat {seat}'s {kind} in deal {deal} ({_short(detail, 60)})")
    if k + len(on_moves) < len(log):
        extra = k + len(on_moves)
        return f"fault_log[{extra}]: {_short(log[extra])} follows every fault recorded on the moves"
    return None


def _check_result(result, line, state: GameState, faults: FaultPolicy, n: int, records,
                  kinds: list[str | None]) -> None:
    """The result record against the game's outcome, C-5 ranks and the recorded faults."""

    def mismatch(message: str):
        return Mismatch(Discrepancy(f"result record: {message}", line=line))

    outcome = state.outcome()
    scores = _json(outcome.scores)
    if not same(result.get("scores"), scores):
        raise mismatch(f"scores: recorded {_short(result.get('scores'))}, re-simulated {_short(scores)}")
    disqualified = result.get("disqualified")
    if not isinstance(disqualified, list) or not all(isinstance(s, int) and 0 <= s < n for s in disqualified):
        raise mismatch(f"disqualified: {_short(disqualified)} is not a list of seats")
    ranks = competition_ranks(outcome.measure, disqualified)
    if not same(result.get("ranks"), ranks):
        raise mismatch(f"ranks: recorded {_short(result.get('ranks'))}, C-5 gives {_short(ranks)} "
                       f"(disqualified: {sorted(disqualified)})")
    counts = result.get("faults")
    if not isinstance(counts, list) or len(counts) != n or not all(isinstance(c, int) for c in counts):
        raise mismatch(f"faults: {_short(counts)} is not a count per seat")
    log = result.get("fault_log")
    if log is not None:
        error = _fault_log_error(log, records, n, kinds) if isinstance(log, list) else \
            f"fault_log: {_short(log)} is not a list"
        if error is not None:
            raise mismatch(error)
    if not same(counts, faults.count):
        start = "the fault log's start entries" if log is not None else \
            "at most one fault per seat at the start (its hello)"
        raise mismatch(f"faults: recorded {counts}, but the moves record {_faults_on_moves(records, n)} "
                       f"and {start} make {faults.count}")
    known = set(faults.disqualified)
    exact = isinstance(faults.max_faults, int)  # without max_faults only a crash is known to disqualify
    if (set(disqualified) != known) if exact else not known <= set(disqualified):
        raise mismatch(f"disqualified: recorded {sorted(disqualified)}, but the faults disqualify "
                       f"{sorted(known)} (max_faults {faults.max_faults}; a crash disqualifies)")


# -- verifying files -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The outcome of verifying one replay file."""

    path: Path
    game: str
    moves: int = 0
    deals: int = 0
    discrepancy: Discrepancy | None = None
    signed_by: str | None = None  # the id of the key whose signature was checked

    @property
    def ok(self) -> bool:
        return self.discrepancy is None


def verify_replay(replay: Replay, game: Game) -> Verdict:
    """Verify a loaded replay with `game`'s rules."""
    moves, deals = 0, set()
    try:
        for step in simulate(replay, game):
            moves = step.index
            deals.add(step.state.deal)
    except Mismatch as exc:
        return Verdict(replay.path, game.name, moves, len(deals), exc.discrepancy)
    return Verdict(replay.path, game.name, moves, len(deals))


def verify_file(path: str | Path, registry, key: Verifier | None = None, data: bytes | None = None) -> Verdict:
    """Verify one replay file (its bytes `data`, if read already) with the registered rules
    plugins, and with `key` its signature (first: an edited replay is reported as such, whatever
    else it breaks); UsageError if it is not a replay or names an unknown game."""
    data = read_bytes(path) if data is None else data
    replay = parse_replay(path, data)
    game = registry.game(replay.game)
    if key is not None:
        wrong = signature_error(data, key)
        if wrong is not None:
            return Verdict(replay.path, game.name, discrepancy=wrong)
    verdict = verify_replay(replay, game)
    if verdict.ok:
        wrong = strategy_fault_error(replay, game, registry)
        if wrong is not None:
            verdict = replace(verdict, discrepancy=wrong)
    return replace(verdict, signed_by=key.id) if key is not None else verdict


# -- a strategy's faults, re-run ---------------------------------------------------------------------


class _NeedsRng(BaseException):
    """Raised when a re-run strategy draws from its PRNG (sealed by a deal key verify has not):
    a BaseException, which a strategy's own `except Exception` does not catch."""


class _NoRng(random.Random):
    """The PRNG of a re-run strategy: any draw raises _NeedsRng (then its choices are unknown)."""

    def seed(self, *args: Any, **kwargs: Any) -> None:
        pass

    def random(self) -> float:
        raise _NeedsRng

    def getrandbits(self, k: int) -> int:
        raise _NeedsRng

    def randbytes(self, n: int) -> bytes:
        raise _NeedsRng


def strategy_fault_error(replay: Replay, game: Game, registry) -> Discrepancy | None:
    """A crash or an illegal choice recorded for a strategy's seat that the strategy, re-run, does
    not make, or None. Only a strategy that draws nothing from its PRNG (whose choices the replay
    therefore determines) can be re-run: it is given every event and decision its seat had, as
    the runner gave them, and must repeat each of its recorded moves before a recorded fault is
    held against it; one that draws, differs or uses up its time budget is not judged (None)."""
    kinds, n = seat_kinds(replay), replay.players
    faulted = {r.get("seat") for r in replay.records if r.get("type") == "move" and r.get("fault") is not None}
    players = replay.header.get("players") or []
    strategies: dict[int, Any] = {}
    for seat in sorted(s for s in faulted if type(s) is int and 0 <= s < n and kinds[s] == "strategy"):
        entry = registry.strategies.get(players[seat].get("spec"))
        if entry is None or (entry.games is not None and game.name not in entry.games):
            continue
        try:
            strategies[seat] = entry.factory(game.name, seat, copy.deepcopy(replay.header.get("config")), _NoRng())
        except (_NeedsRng, Exception):
            continue
    if not strategies:
        return None
    expected: dict[int, tuple[str, Any]] = {}  # a seat's next move as re-run: ("chose", legal?) / ("raised", text)
    for step in simulate(replay, game):
        move = step.move
        if move is not None and move.get("seat") in expected:
            seat = move["seat"]
            outcome, detail = expected.pop(seat)
            fault = move.get("fault") if isinstance(move.get("fault"), dict) else None
            kind = fault.get("kind") if fault is not None else None
            if kind is None:
                if outcome != "chose" or not same(detail, move.get("action")):
                    del strategies[seat]  # it does not repeat its own moves: not judged
            elif kind == "crash" and outcome == "chose":
                return Discrepancy(f"seat {seat} ({players[seat].get('spec')}) is recorded crashing here, but the "
                                   f"strategy, re-run, plays {_short(detail)}", step.deal, step.number, step.line)
            elif kind == "illegal" and outcome == "chose" and detail is not None:
                return Discrepancy(f"seat {seat} ({players[seat].get('spec')}) is recorded choosing no legal action "
                                   f"here, but the strategy, re-run, plays {_short(detail)}", step.deal, step.number,
                                   step.line)
            else:  # as recorded (or a time budget: not re-run); disqualified or not, judged no further
                del strategies[seat]
        for event in step.events:
            for seat in [s for s in strategies if s not in step.disqualified and s in audience(event.to, n)]:
                try:
                    strategies[seat].event(event.message())
                except (_NeedsRng, Exception):
                    del strategies[seat]
                    expected.pop(seat, None)
        seat = step.state.to_act()
        if seat in strategies and seat not in step.disqualified:
            try:
                choice = strategies[seat].choose(step.state.observe(seat), step.state.legal_actions())
            except _NeedsRng:
                del strategies[seat]
            except Exception as exc:
                expected[seat] = ("raised", f"{type(exc).__name__}: {exc}")
            else:
                expected[seat] = ("chose", _legal_choice(step.state, choice))
        if not strategies:
            return None
    return None


def _legal_choice(state: GameState, choice: Any) -> Any:
    """The legal action a strategy's choice stands for, as the runner takes it, or None."""
    legal = state.legal_actions()
    if isinstance(choice, int) and not isinstance(choice, bool):  # an index (StrategyPlayer.reply)
        return legal[choice] if 0 <= choice < len(legal) else None
    try:
        return state.resolve(copy.deepcopy(choice))
    except Exception:
        return None


def signature_error(data: bytes, key: Verifier) -> Discrepancy | None:
    """Why a replay's bytes are not what `key` signed, or None: its last line must be its result
    record, signed over the hash of every line before it (referee.signing)."""
    from referee.signing import REPLAY

    end = len(data.rstrip(b"\n"))
    start = data.rfind(b"\n", 0, end) + 1
    line = data.count(b"\n", 0, start) + 1
    try:
        last = json.loads(data[start:end])
    except ValueError:
        last = None
    if not isinstance(last, dict) or last.get("type") != "result":
        return Discrepancy("signature: the last record is not the signed result record (the replay was cut "
                           "short, or records follow its result)", line=line)
    if "signature" not in last:
        return Discrepancy("signature: the result record is not signed (a replay written without --sign-key)",
                           line=line)
    reason = key.check(REPLAY, hashlib.sha256(data[:start]).digest(), data[start:end])
    return Discrepancy(f"signature: {reason}", line=line) if reason is not None else None


# -- verifying a journal -------------------------------------------------------------------------


def is_journal(data: bytes) -> bool:
    """Whether a file's bytes are a tournament's journal (its first record names the tournament)."""
    first = data.split(b"\n", 1)[0]
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("type") == "tournament"


@dataclass(frozen=True)
class JournalVerdict:
    """The outcome of verifying a journal: its records, the replays checked, the first problem."""

    path: Path
    records: int = 0
    replays: int = 0
    problem: str | None = None
    line: int | None = None
    signed_by: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def __str__(self) -> str:
        return f"line {self.line}: {self.problem}" if self.line is not None else str(self.problem)


#: the fields a match's journal record copies from its replay's result record
RESULT_FIELDS = ("scores", "ranks", "faults", "disqualified", "fault_log")


def verify_journal(path: str | Path, data: bytes, key: Verifier | None = None) -> JournalVerdict:
    """Check a journal: with `key`, every line's signature, chained over the hash of every line
    before it (an edited, removed, added or moved line fails, and so does every later one);
    without, none. Either way each match record's replay must be the one it names (its SHA-256,
    when the record has one) and hold the same result; with `key` the replay's signature too."""
    from referee.signing import JOURNAL

    path = Path(path)
    chain = hashlib.sha256()
    records = replays = 0
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the last line's newline
    for number, raw in enumerate(lines, start=1):

        def fail(problem: str) -> JournalVerdict:
            return JournalVerdict(path, records, replays, problem, number)

        if key is not None:
            reason = key.check(JOURNAL, chain.digest(), raw)
            if reason is not None:
                return fail(f"signature: {reason}")
        chain.update(raw + b"\n")
        try:
            record = json.loads(raw)
        except ValueError:
            return fail("not a JSON record")
        if not isinstance(record, dict):
            return fail("not a journal record")
        records += 1
        if record.get("type") == "match" and record.get("replay"):
            problem = _replay_problem(path.parent, record, key)
            if problem is not None:
                return fail(problem)
            replays += 1
    return JournalVerdict(path, records, replays, signed_by=key.id if key is not None else None)


def _replay_problem(folder: Path, record: dict[str, Any], key: Verifier | None) -> str | None:
    """What is wrong with the replay a match's journal record names, if anything."""
    name = str(record["replay"])
    target = folder / name
    if Path(name).is_absolute() or ".." in Path(name).parts:
        return f"its replay {name!r} lies outside the tournament's folder"
    try:
        data = read_bytes(target)
    except UsageError:
        return f"its replay {name} is missing or unreadable"
    digest = record.get("replay_sha256")
    if digest is not None and hashlib.sha256(data).hexdigest() != digest:
        return f"its replay {name} is not the one it names (the replay's SHA-256 differs)"
    if digest is None and key is not None:
        return "it names no replay digest (replay_sha256): not a signed tournament's record"
    if key is not None:
        wrong = signature_error(data, key)
        if wrong is not None:
            return f"its replay {name}: {wrong}"
    try:
        result = parse_replay(target, data).result or {}
    except UsageError as exc:
        return str(exc)
    for field in RESULT_FIELDS:
        if field in record and not same(record[field], result.get(field)):
            return f"{field}: the journal says {_short(record[field])}, its replay {name} {_short(result.get(field))}"
    return None
