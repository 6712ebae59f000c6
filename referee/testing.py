"""Helpers for tests and benchmarks, and the conformance kit every rules plugin can run.

`random_playout` plays one seeded match with in-process random strategies. `check_game` is the
conformance kit (docs/writing-a-game.md): seeded random playouts of each config and table size
with every invariant the referee relies on checked at every step, then per seed a replay
written, played again (same seed, same records, same messages to every seat), played once more in
another process under another PYTHONHASHSEED, and verified; and every seed's deal is dealt under
two deal keys, which must deal differently. It raises AssertionError naming the game, config,
table size and seed, so it reads well in pytest:

    from referee.testing import check_game

    def test_conformance():
        check_game(MyGame(), seeds=range(50))

`told` plays a scripted match (every decision and, through `swap_cards`, any hidden card chosen
by the test) and gives the lines each seat's bot was sent: a leak check plays two matches that
differ only in what one seat may not know and compares what that seat was told
(`told_alike`); tests/test_leak.py does so for each game. The kit and `told` share their leak
checks: `told`'s matches run under the kit's `ConformanceMonitor` (no message names a card its
seat may not see), and the kit compares a seed's two runs with `told_alike`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pickle
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.config import resolve_config
from referee.errors import RefereeError
from referee.checks import plugin_label
from referee.game import Game, GameState
from referee.players import StrategyPlayer
from referee.chance import Sampler, Streams, settle
from referee.runner import Limits, MatchResult, Monitor, Seat, run_match
from referee.sealing import DealKey
from referee_strategies.basic import RandomLegal


#: each state `seeded_state` or `play` answered chance for, by id, with its sampler (for tests)
_SAMPLERS: dict[int, tuple[GameState, Sampler]] = {}


def seeded_state(game: Game, config: dict[str, Any], players: int, rng: random.Random) -> GameState:
    """`game.new_state(config, players)` with its chance requests answered from `rng` as the
    runner answers them from the match's PRNG (`Streams(rng)`): now, and after each `play`."""
    return deal_from(game.new_state(config, players), rng)


def deal_from(state: GameState, rng: random.Random) -> GameState:
    """Answer `state`'s chance requests from `rng` (`Streams(rng)`), now and after each `play`; the state."""
    sampler = Sampler(Streams(rng))
    _SAMPLERS[id(state)] = (state, sampler)
    settle(state, sampler)
    return state


def play(state: GameState, action: Any) -> None:
    """`state.apply(action)`, then every chance request it makes answered, as the runner does (from
    the `seeded_state`/`deal_from` sampler of the state, else from `random.Random(0)`)."""
    state.apply(action)
    if state.to_act() is None and state.chance() is not None:
        entry = _SAMPLERS.get(id(state))
        if entry is None or entry[0] is not state:
            entry = _SAMPLERS[id(state)] = (state, Sampler(Streams(random.Random(0))))
        settle(state, entry[1])


def random_playout(
    game: Game,
    config: dict[str, Any] | None = None,
    seed: int = 0,
    players: int | None = None,
    replay: str | Path | None = None,
    monitor: Monitor | None = None,
    key: DealKey | None = None,
) -> MatchResult:
    """One match of `game` with every seat played by the seeded `random` strategy, its chance
    sealed by `key` (default: `referee.sealing.default()`)."""
    n = players if players is not None else game.min_players
    resolved = resolve_config(game, config or {}, n)
    seats = [Seat(f"random#{i}", "strategy", "random") for i in range(n)]
    strategies = [StrategyPlayer(RandomLegal(game.name, i, resolved, random.Random(f"{seed}/{i}/random")))
                  for i in range(n)]
    return run_match(game, resolved, seed, seats, strategies, Limits(), replay=replay, monitor=monitor, key=key)


# -- what a message names ------------------------------------------------------------------------

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _without(value: Any, fields: Collection[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, fields) for k, v in value.items() if k not in fields}
    if isinstance(value, list):
        return [_without(v, fields) for v in value]
    return value


def strings_in(message: Any, ignore: Collection[str] = ()) -> set[str]:
    """Every string (keys and values) inside a JSON-ready message, the `ignore` fields left out;
    AssertionError if the message is not JSON-ready."""
    if ignore:
        message = _without(message, ignore)
    try:
        text = json.dumps(message, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise AssertionError(f"not JSON-ready ({exc}): {message!r}") from None
    return set(_STRING.findall(text))


class ConformanceMonitor:
    """A runner Monitor asserting the per-step invariants of a match.

    At every decision the seat asked has a non-empty legal list and is `to_act()`; the action
    chosen resolves to itself (`resolve`, as a bot's submitted action would); after every step
    `zones()` holds the very cards it held as dealt (each card once, if the deck has it once);
    nothing sent to a seat
    (observation, legal list, event, end) names a card in `hidden_from(seat)`.

    Events are checked when the step is over: those emitted before a new deal's `deal` record
    describe the deal that just ended, and are checked against what the seat could not see
    before the move (less the cards the move itself showed); the rest against the state after
    it. `guess_fields` are fields whose card codes say nothing of where the card is (Mayor's
    Casino guess, M-11: a public name). With `transcript`, every message sent is kept, in order.
    """

    def __init__(self, players: int, guess_fields: Collection[str] = (), transcript: bool = False):
        self.players = players
        self.ignore = tuple(guess_fields)
        self.deck: Counter | None = None
        self.steps = 0
        self.acts = 0
        self.before: list[set[str]] | None = None
        self.step_events: list[tuple[int, dict, bool]] = []  # sent during the step being applied
        self.new_deal = False
        self.transcript: list[tuple[int, dict]] | None = [] if transcript else None
        self.actions: dict[tuple[str, ...], dict] = {}  # one action of each shape (its sorted keys)
        self.events: dict[tuple[str, ...], tuple[int, dict]] = {}  # (seat, event) of each kind and fields
        self.records: dict[tuple[str, ...], dict] = {}  # one chance record of each kind, one deal_end

    def sent(self, seat: int, message: dict, state: GameState | None) -> None:
        if self.transcript is not None:
            self.transcript.append((seat, copy.deepcopy(message)))
        if state is None:  # hello, before the deal
            return
        if self.deck is None:  # the cards of the match, as dealt
            self.deck = self._cards(state)
        kind = message["type"]
        if kind == "act":
            self.acts += 1
            legal = message["legal"]
            if not legal:
                raise AssertionError(f"seat {seat} asked to act with an empty legal list")
            if state.to_act() != seat:
                raise AssertionError(f"seat {seat} asked to act, but to_act() is {state.to_act()}")
            for action in legal:
                if not isinstance(action, dict):
                    raise AssertionError(f"a legal action is not a dict: {action!r}")
                self.actions.setdefault(tuple(sorted(action)), action)
            strings = strings_in(message["obs"], self.ignore) | strings_in(legal, self.ignore)
            self._check(seat, strings, state.hidden_from(seat), message)
            return
        if kind == "event":
            event = message["event"]
            self.events.setdefault((event["kind"], *sorted(event)), (seat, event))
            if self.before is not None:
                self.step_events.append((seat, message, self.new_deal))
                return
        self._check(seat, strings_in(message, self.ignore), state.hidden_from(seat), message)  # first deal, end

    def record(self, record: dict) -> None:
        kind = record["type"]
        if kind == "deal":
            self.new_deal = True
        elif kind == "chance" or kind == "deal_end":
            self.records.setdefault((kind, str(record.get("kind"))), record)

    def applying(self, state: GameState, seat: int, action: dict) -> None:
        resolved = state.resolve(copy.deepcopy(action))
        if resolved != action:
            raise AssertionError(f"resolve() of the legal action {action!r} gave {resolved!r}, not the action")
        shown = strings_in(action, self.ignore)
        self.before = [state.hidden_from(s) - shown for s in range(self.players)]
        self.step_events = []
        self.new_deal = False

    def stepped(self, state: GameState) -> None:
        self.steps += 1
        for seat, message, after_new_deal in self.step_events:
            hidden = self.before[seat] if self.new_deal and not after_new_deal else state.hidden_from(seat)
            self._check(seat, strings_in(message, self.ignore), hidden, message)
        self.before = None
        cards = self._cards(state)
        if self.deck is None:
            self.deck = cards
        if cards != self.deck:
            raise AssertionError(f"cards not conserved by zones(): {sorted((cards - self.deck).elements())} "
                                 f"extra, {sorted((self.deck - cards).elements())} missing")

    @staticmethod
    def _cards(state: GameState) -> Counter:
        return Counter(card for zone in state.zones().values() for card in zone)

    @staticmethod
    def _check(seat: int, strings: set[str], hidden: set[str], message: dict) -> None:
        leaked = strings & hidden
        if leaked:
            raise AssertionError(f"seat {seat} was sent hidden cards {sorted(leaked)} in {message}")


# -- what each seat is told ----------------------------------------------------------------------

#: a scripted decision: (seat, obs, legal) -> the index of the chosen action in `legal`
Choose = Callable[[int, dict[str, Any], list[Any]], int]
#: a chance script: (deal, kind, outcome) -> the outcome to apply instead (hidden cards, scripted)
ChanceScript = Callable[[int, str, Any], Any]


#: the deal key of `told`'s matches: fixed, so that the same arguments tell the same lines
TOLD_KEY = DealKey(b"referee.testing.told: a fixed key for tests, never for a contest", "testing")


def told(game: Game, config: dict[str, Any] | None, choose: Choose, players: int | None = None, seed: int = 0,
         chance: ChanceScript | None = None, limits: Limits | None = None,
         guess_fields: Collection[str] = ()) -> list[list[bytes]]:
    """The lines each seat's bot is sent (hello, events, acts, end; the very bytes on the wire)
    in a match where every seat is a bot answering each act with `choose(seat, obs, legal)`,
    and every chance outcome the sealed streams give (under TOLD_KEY) goes through `chance` first
    (if given). `limits` default to deadlines no scripted bot misses. The match runs under the
    kit's `ConformanceMonitor` (`guess_fields` as in `check_game`): AssertionError for a
    message that names a card its seat may not see, as the kit's leak check raises.

    The bots are `referee.bots.mock.MockPlayer`s: the subprocess adapter's own encoding and
    buffering, with no process. For a leak check, play two matches that differ only in what a
    seat may not know (another seat's hidden choice or cards) and compare what it was told
    (`first_difference`)."""
    from referee.protocol import parse
    from referee.bots.mock import MockPlayer

    n = players if players is not None else game.min_players
    resolved = resolve_config(game, config or {}, n)

    def bot(seat: int):
        def answer(written: bytes) -> bytes:
            message = parse(written.splitlines()[-1])
            kind = message.get("type") if message is not None else None
            if kind == "hello":
                return json.dumps({"type": "ready", "name": f"scripted{seat}"}).encode() + b"\n"
            if kind == "act":
                index = choose(seat, message["obs"], message["legal"])
                return json.dumps({"type": "action", "id": message["id"], "index": index}).encode() + b"\n"
            return b""
        return answer

    bots = [MockPlayer(bot(seat)) for seat in range(n)]
    seats = [Seat(f"scripted{i}", "command", "scripted") for i in range(n)]
    played = game if chance is None else _ScriptedChance(game, chance)
    limits = limits or Limits(move_ms=60_000, start_ms=60_000)
    monitor = ConformanceMonitor(n, guess_fields)
    run_match(played, resolved, seed, seats, list(bots), limits, monitor=monitor,  # type: ignore[arg-type]
              key=TOLD_KEY)
    return [[line for write in player.channel.writes for line in write.splitlines(keepends=True)]
            if player.channel is not None else [] for player in bots]


def first_difference(a: list[bytes], b: list[bytes]) -> int | None:
    """The index of the first line where two seats' lines (`told`) differ (where the shorter one
    ends, if it is the other's start); None if they are the same."""
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return k
    return None if len(a) == len(b) else min(len(a), len(b))


def told_alike(a: list[bytes], b: list[bytes], seat: int, shown: Collection[str] = (), when: str = "") -> int | None:
    """Check that `seat` was told the same lines in two matches (`told`), or that the first line
    told differently names a card of `shown` (a difference shown to it, not leaked): that line's
    index, or None if no line differs. AssertionError quoting the line otherwise."""
    k = first_difference(a, b)
    if k is None:
        return None
    lines = [x[k] if k < len(x) else b"(no more lines)" for x in (a, b)]
    if shown and any(strings_in(json.loads(line)) & set(shown) for line in lines if line.startswith(b"{")):
        return k
    raise AssertionError(f"seat {seat} was told line {k + 1} differently{when}: {lines[0][:200]!r} vs "
                         f"{lines[1][:200]!r}")


def swap_cards(a: str, b: str, deal: int = 1) -> ChanceScript:
    """A chance script: deal `deal`'s shuffled deck with the cards `a` and `b` trading places."""

    def script(at: int, kind: str, outcome: Any) -> Any:
        if at != deal or kind != "deal" or not isinstance(outcome, list):
            return outcome
        order = list(outcome)
        i, j = order.index(a), order.index(b)
        order[i], order[j] = order[j], order[i]
        return order

    return script


class _ScriptedChance:
    """A game whose states pass every chance outcome through a script before applying it."""

    def __init__(self, game: Game, script: ChanceScript) -> None:
        self._game, self._script = game, script

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def new_state(self, config: dict[str, Any], players: int) -> GameState:
        """The game's new state, its chance outcomes scripted."""
        return _ScriptedState(self._game.new_state(config, players), self._script)  # type: ignore[return-value]


class _ScriptedState:
    """A game state whose chance outcomes go through a script (everything else: the state's own)."""

    def __init__(self, state: GameState, script: ChanceScript) -> None:
        self._state, self._script = state, script

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)

    def apply_chance(self, outcome: Any) -> None:
        state = self._state
        state.apply_chance(self._script(state.deal, state.chance().kind, outcome))


# -- the kit -------------------------------------------------------------------------------------


@dataclass
class Report:
    """What `check_game` played and checked."""

    game: str
    matches: int = 0
    decisions: int = 0
    deals: int = 0
    verified: int = 0  # replays written, replayed alike and verified
    elsewhere: int = 0  # of those, replayed alike in another process under another PYTHONHASHSEED
    sealed: int = 0  # matches whose deal differed under two deal keys
    action_shapes: set[tuple[str, ...]] = field(default_factory=set)  # the sorted keys of each action met
    event_kinds: set[str] = field(default_factory=set)
    described: int = 0  # actions, events and records the game's describer told (0: no describer)

    def __str__(self) -> str:
        return (f"{self.game}: {self.matches} matches, {self.decisions} decisions, {self.deals} deals, "
                f"{self.verified} replays verified ({self.elsewhere} in another process), {self.sealed} deals "
                f"sealed by the key, {len(self.action_shapes)} action shapes, "
                f"{len(self.event_kinds)} event kinds, {self.described} descriptions")


def check_game(
    game: Game,
    seeds: Iterable[int] = range(20),
    configs: Iterable[dict[str, Any]] | None = None,
    players: Iterable[int] | None = None,
    replayed: int = 3,
    guess_fields: Collection[str] = (),
) -> Report:
    """Run the conformance kit on `game`; AssertionError naming the case at the first failure.

    For each config (default: `game.variants()`) and table size (default: the fewest and the
    most players), every seed plays a random match under `ConformanceMonitor` (legal actions
    never empty until the end, cards conserved, no hidden card sent to a seat), the core's
    checks of every output on (an audience for every event, deal_end and outcome fields:
    referee.game), and a well-formed result (a rank per seat, the best 1). The first `replayed`
    seeds are also written as replays and played again under another global RNG state: same
    records (but `ms`), same messages to every seat; the replay must start with a deal, hold a
    deal_end per deal, and pass `referee.replay.verify.verify_replay`, which feeds the recorded
    chance outcomes back through `apply_chance` and must reproduce the match. Those seeds are
    played once more in one other process under another PYTHONHASHSEED, which must write the same
    records (an order taken from a set differs there); the game must pickle (a class defined at
    module level). Every seed is also dealt under two deal keys: the deals must differ (a game
    drawing its own chance deals alike). Each replayed seed is also played by hand: while a
    chance request is pending no seat is to act and no action is legal, and the request is well
    formed (`referee.game.request_error`). If the game has a describer (`Game.describer()`), it
    must tell one action of each shape, one event of each kind, one chance record of each kind
    and a deal_end met, without an error.
    """
    seeds = list(seeds)
    configs = list(configs) if configs is not None else game.variants()
    sizes = sorted(set(players)) if players is not None else sorted({game.min_players, game.max_players})
    report = Report(game.name)
    actions: dict[tuple[str, ...], dict] = {}
    events: dict[tuple[str, ...], tuple[int, dict]] = {}
    records: dict[tuple[str, ...], tuple[int, dict]] = {}
    elsewhere: list[tuple[str, dict[str, Any], int, int, list[str], list[dict[str, Any]]]] = []
    for variant in configs:
        for n in sizes:
            for k, seed in enumerate(seeds):
                where = f"{game.name}, {n} players, config {variant or 'default'}, seed {seed}"
                with _context(where):
                    report.sealed += _check_keys(game, variant, seed, n)
                    monitor = ConformanceMonitor(n, guess_fields)
                    result = random_playout(game, variant, seed=seed, players=n, monitor=monitor, key=KIT_KEYS[0])
                    _check_result(result, monitor, n)
                    if k < replayed:
                        written = _check_replay(game, variant, seed, n, guess_fields, result)
                        report.verified += 1
                        elsewhere.append((where, variant, n, seed, [_digest(r) for r in written], written))
                        _check_pending_chance(game, variant, seed, n)
                report.matches += 1
                report.decisions += result.decisions
                report.deals += len(result.deals)
                for shape, action in monitor.actions.items():
                    actions.setdefault(shape, action)
                for key, sent in monitor.events.items():
                    events.setdefault(key, sent)
                for key, record in monitor.records.items():
                    records.setdefault(key, (n, record))
    if elsewhere:
        report.elsewhere = _check_elsewhere(game, elsewhere)
    report.action_shapes = set(actions)
    report.event_kinds = {key[0] for key in events}
    own = getattr(game, "describer", None)  # Game.describer(): the game's Describer, or None
    describer = own() if callable(own) else own
    if describer is not None:
        with _context(f"{game.name}'s describer {type(describer).__name__}"):
            report.described = _check_describer(describer, list(actions.values()), list(events.values()),
                                                 list(records.values()), sizes[-1])
    return report


class _context:
    """Re-raise a failure inside the block as one AssertionError saying where it happened."""

    def __init__(self, where: str) -> None:
        self.where = where

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is None:
            return False
        if isinstance(exc, AssertionError):
            raise AssertionError(f"{self.where}: {exc}") from None
        if isinstance(exc, RefereeError):  # the core's checks of the plugin (PluginError...)
            raise AssertionError(f"{self.where}: {type(exc).__name__}: {exc}") from exc
        if isinstance(exc, Exception):  # a bug in the rules: keep its traceback, say where
            raise AssertionError(f"{self.where}: the game raised {type(exc).__name__}: {exc}") from exc
        return False


def _check_result(result: MatchResult, monitor: ConformanceMonitor, n: int) -> None:
    res = result.result
    if monitor.acts == 0 or monitor.steps != monitor.acts:
        raise AssertionError(f"{monitor.acts} decisions asked, {monitor.steps} steps: the match must be "
                             f"decided by its seats, one action per step")
    for key in ("scores", "ranks", "faults"):
        if len(res[key]) != n:
            raise AssertionError(f"the result's {key} hold {len(res[key])} entries, not one per seat ({n})")
    if res["faults"] != [0] * n or res["disqualified"]:
        raise AssertionError(f"faults in a match of in-process random players: {res['fault_log']}")
    if min(res["ranks"]) != 1 or not all(1 <= r <= n for r in res["ranks"]):
        raise AssertionError(f"ranks {res['ranks']} are not C-5 ranks of {n} seats")


def _records(path: Path) -> list[dict[str, Any]]:
    from referee.replay.records import read_replay

    out = []
    for record in read_replay(path):
        record.pop("ms", None)  # timings: a move's, and the result's resources (referee.resources)
        record.pop("resources", None)
        out.append(record)
    return out


def _check_replay(game: Game, variant: dict[str, Any], seed: int, n: int, guess_fields: Collection[str],
                  first: MatchResult) -> list[dict[str, Any]]:
    """Play `seed` twice more, writing replays under different global RNG states: the same records
    and the same lines to every seat (`told_alike`); the replay's shape; verify passes. The
    replay's records (but `ms`)."""
    from referee.replay.verify import load_replay, verify_replay

    saved = random.getstate()
    runs = []
    try:
        with tempfile.TemporaryDirectory(prefix="referee-check-") as tmp:
            for k in range(2):
                random.seed(f"referee.testing/{k}")  # a game drawing from the global RNG plays differently
                monitor = ConformanceMonitor(n, guess_fields, transcript=True)
                path = Path(tmp) / f"replay{k}.jsonl"
                random_playout(game, variant, seed=seed, players=n, replay=path, monitor=monitor, key=KIT_KEYS[0])
                runs.append((_records(path), monitor.transcript))
            replay = load_replay(Path(tmp) / "replay0.jsonl")
            verdict = verify_replay(replay, game)
    finally:
        random.setstate(saved)
    (records, transcript), (again, transcript_again) = runs
    if records != again:
        at = next(i for i, (a, b) in enumerate(zip(records + [None], again + [None])) if a != b)
        raise AssertionError(f"the same seed wrote different replays (record {at + 1}: {records[at:at + 1]} vs "
                             f"{again[at:at + 1]}): {DRAWS_ITSELF}")
    for seat in range(n):
        told_alike(_lines(transcript, seat), _lines(transcript_again, seat), seat,
                   when=" when the same seed was played again")
    kinds = [r["type"] for r in records]
    opening = kinds[1:kinds.index("move")] if "move" in kinds else kinds[1:-1]
    if kinds[0] != "header" or "deal" not in opening or kinds[-1] != "result":
        raise AssertionError(f"a replay must be a header, the first deal's records (a deal record among them), "
                             f"..., the result: got {kinds[:3]}...{kinds[-1:]}")
    if kinds.count("deal") != kinds.count("deal_end"):
        raise AssertionError(f"{kinds.count('deal')} deal records but {kinds.count('deal_end')} deal_end records")
    if records[-1]["scores"] != first.result["scores"]:
        raise AssertionError(f"the seed's scores differ between runs: {first.result['scores']} vs "
                             f"{records[-1]['scores']}")
    if not verdict.ok:
        raise AssertionError(f"referee verify fails on the match's own replay: {verdict.discrepancy}")
    return records


def _lines(transcript: list[tuple[int, dict]], seat: int) -> list[bytes]:
    """The messages a ConformanceMonitor saw sent to `seat`, one JSON line each."""
    return [json.dumps(message, sort_keys=True).encode() for to, message in transcript if to == seat]


#: what a game that draws its own chance is told to do instead
DRAWS_ITSELF = ("a game draws no chance itself (no random.Random of its own, no global `random`, no SystemRandom, "
                "no seed of its own): it asks with GameState.chance() and deals from the outcome apply_chance() "
                "is given, which the deal key seals (docs/writing-a-game.md, section 3)")

#: the two deal keys the kit plays under (fixed, so that a failing seed fails again; for tests only)
KIT_KEYS = (DealKey(b"referee.testing.check_game: the first deal key, for tests only", "testing"),
            DealKey(b"referee.testing.check_game: the second deal key, for tests only", "testing"))


def _dealt(game: Game, config: dict[str, Any], seed: int, n: int, key: DealKey) -> str:
    """The first deal of `seed` under `key` (its chance drawn as the runner draws it), as JSON
    text: where every card lies and what each seat observes. The global RNG is seeded alike for
    every call, so a game drawing from it deals alike under any key."""
    state = game.new_state(config, n)
    saved = random.getstate()
    random.seed("referee.testing/keys")
    try:
        settle(state, Sampler(Streams(key.rng("deal", game.name, seed))), plugin_label(game))
        seen = [state.zones(), [state.observe(seat) for seat in range(n)]]
    finally:
        random.setstate(saved)
    return json.dumps(seen, sort_keys=True, default=repr)


def _check_keys(game: Game, variant: dict[str, Any], seed: int, n: int) -> int:
    """Deal `seed` under the two kit keys: the deals must differ (the key seals them). 1 when done."""
    config = resolve_config(game, variant, n)
    if _dealt(game, config, seed, n, KIT_KEYS[0]) == _dealt(game, config, seed, n, KIT_KEYS[1]):
        raise AssertionError(f"the seed dealt the same cards under two deal keys, so the key does not seal the "
                             f"deal and bots can predict it: {DRAWS_ITSELF}")
    return 1


def _digest(record: dict[str, Any]) -> str:
    """A short digest of one replay record (its JSON, keys sorted)."""
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]


def _other_hash_seed() -> str:
    """A PYTHONHASHSEED other than this process's (0 when this one's is random)."""
    mine = os.environ.get("PYTHONHASHSEED", "")
    return str((int(mine) + 1) % 4294967296) if mine.isdigit() else "0"


#: the other process: it reads this process's sys.path (one JSON line), then the pickled job
_CHILD = ("import json, sys; sys.path[:0] = json.loads(sys.stdin.buffer.readline()); "
          "from referee.testing import _replay_elsewhere; _replay_elsewhere()")


def _check_elsewhere(game: Game, cases: list[tuple[str, dict[str, Any], int, int, list[str], list[dict]]]) -> int:
    """Play the replayed seeds again in one other process under another PYTHONHASHSEED: each must
    write the same records (a set's order, `hash()`, differ there). The number of seeds done."""
    try:
        job = pickle.dumps({"game": game, "cases": [(variant, n, seed) for _, variant, n, seed, _, _ in cases]})
    except Exception as exc:  # pickle raises several kinds (PicklingError, AttributeError, TypeError)
        raise AssertionError(f"{game.name}: the kit plays the game again in another process and cannot pickle it "
                             f"({type(exc).__name__}: {exc}): define its Game class, and what it holds, at module "
                             f"level") from None
    hash_seed = _other_hash_seed()
    path = json.dumps([str(entry) for entry in sys.path]).encode()
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD], input=path + b"\n" + job, capture_output=True,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed}, timeout=3600)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{game.name}: the other process (PYTHONHASHSEED={hash_seed}) did not replay "
                             f"{len(cases)} matches in an hour") from None
    try:
        answer = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise AssertionError(f"{game.name}: the other process (PYTHONHASHSEED={hash_seed}) failed: "
                             f"{proc.stderr.decode(errors='replace')[-2000:]}") from None
    there = f"in another process (PYTHONHASHSEED={hash_seed})"
    if "error" in answer:
        where = cases[answer["case"]][0] if answer.get("case") is not None else game.name
        raise AssertionError(f"{where}: {there} {answer['error']}")
    for (where, _, _, _, digests, records), theirs in zip(cases, answer["digests"]):
        if digests != theirs:
            at = next(i for i, (a, b) in enumerate(zip(digests + [None], theirs + [None])) if a != b)
            raise AssertionError(f"{where}: {there} the same seed wrote a different replay from record {at + 1} on "
                                 f"(here: {records[at:at + 1]}): the game depends on the hash seed, e.g. an order "
                                 f"taken from a set (list(set(...)), iterating a set or a frozenset) or from hash(); "
                                 f"keep cards in lists, or sort them (sorted(..., key=...))")
    return len(cases)


def _replay_elsewhere() -> None:
    """The other process of `_check_elsewhere`: play each case of the pickled job (on stdin) as
    `check_game` did, print the records' digests (one JSON line), or the first error."""
    try:
        job = pickle.loads(sys.stdin.buffer.read())
    except Exception as exc:  # unpickling runs the game's module: anything
        print(json.dumps({"error": f"could not load the game ({type(exc).__name__}: {exc}): define its Game "
                                   f"class, and what it holds, at module level of an importable module"}))
        return
    case = None
    try:
        game, out = job["game"], []
        random.seed("referee.testing/elsewhere")
        with tempfile.TemporaryDirectory(prefix="referee-check-") as tmp:
            for case, (variant, n, seed) in enumerate(job["cases"]):
                path = Path(tmp) / f"replay{case}.jsonl"
                random_playout(game, variant, seed=seed, players=n, replay=path, key=KIT_KEYS[0])
                out.append([_digest(r) for r in _records(path)])
    except Exception as exc:
        print(json.dumps({"case": case, "error": f"the game raised {type(exc).__name__}: {exc}"}))
        return
    print(json.dumps({"digests": out}))


def _check_pending_chance(game: Game, variant: dict[str, Any], seed: int, n: int) -> None:
    """Play `seed` by hand (first legal actions, chance from `Streams(Random(seed))`): whenever the
    state asks for a chance outcome no seat is to act, no action is legal, and the request is well
    formed; the match ends with no request pending."""
    from referee.chance import answer
    from referee.checks import request_error

    state = game.new_state(resolve_config(game, variant, n), n)
    sampler = Sampler(Streams(random.Random(seed)))
    for _ in range(1_000_000):
        if state.to_act() is not None:
            state.apply(state.legal_actions()[0])
            continue
        request = state.chance()
        if request is None:
            return
        error = request_error(request)
        if error is not None:
            raise AssertionError(error)
        if state.legal_actions():
            raise AssertionError(f"a state waiting for a {request.kind} offers actions: {state.legal_actions()[:3]}")
        answer(state, request, sampler, game.name)
        if state.chance() is request:
            raise AssertionError(f"apply_chance left the {request.kind} request pending")
    raise AssertionError("the match did not end in a million steps")


def _check_describer(describer: Any, actions: list[dict], events: list[tuple[int, dict]],
                     records: list[tuple[int, dict]], players: int) -> int:
    """Ask the describer (referee.describe.Describer's methods, those it has) for one action of
    each shape, one event of each kind and fields (as sent to the seat that got it), one chance
    record of each kind and a deal_end's row: each must be words, not an error. The number of
    descriptions made."""
    from referee.game import Event

    try:
        from referee.describe import Names

        names: Any = Names([f"seat {i}" for i in range(players)])
    except ImportError:  # a core without the viewers' wording
        names = str
    made = 0

    def words(what: str, text: Any, none: bool = False) -> None:
        nonlocal made
        if text is None and none:
            return
        plain = getattr(text, "plain", text)
        if not isinstance(plain, str) or not plain.strip():
            raise AssertionError(f"{what} gave {text!r}, not words")
        made += 1

    method = getattr(describer, "action", None)
    for action in actions if method is not None else ():
        words(f"action({action!r})", method(copy.deepcopy(action)))
    method = getattr(describer, "event", None)
    for seat, message in events if method is not None else ():
        data = {k: v for k, v in copy.deepcopy(message).items() if k != "kind"}
        event = Event(message["kind"], data, (seat,))
        words(f"event({event!r})", method(event, names), none=True)  # None: left out of the story
    for n, record in records:
        if record["type"] == "chance" and getattr(describer, "chance", None) is not None:
            words(f"chance({record!r})", describer.chance(copy.deepcopy(record)))
        elif record["type"] == "deal_end" and getattr(describer, "deal_summary", None) is not None:
            label, cells = describer.deal_summary(copy.deepcopy(record), n)
            if not isinstance(label, str) or not isinstance(cells, list) or len(cells) != n \
                    or not all(isinstance(c, str) for c in cells):
                raise AssertionError(f"deal_summary({record!r}, {n}) gave {(label, cells)!r}, not a label and "
                                     f"{n} cells")
            made += 1
    return made


__all__ = ["ConformanceMonitor", "Report", "check_game", "first_difference", "random_playout", "strings_in",
           "swap_cards", "told", "told_alike"]
