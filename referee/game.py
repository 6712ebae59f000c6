"""The game interface every rules plugin implements.

Rules are pure: a `GameState` holds the whole state of a match (every deal of it), lists the
legal actions of the seat to act, applies an action, builds each seat's observation, and
reports the outcome. No I/O, no clock, no RNG at all: a state that needs a chance outcome (a
deal's shuffle, a reshuffle, a draw) asks for it (`GameState.chance()` returns a `Shuffle` or a
`Choice`) and waits; the runner samples it from the match's sealed streams (referee/chance.py,
C-2), records it in the replay and hands it back (`apply_chance`); `referee verify` hands back
the recorded outcome instead. One dealing path per game, and a match is fully determined by
(game, config, seed, actions).

What a seat may see is one explicit function, `GameState.observe(seat)`; everything else a
seat learns comes from `Event`s whose `to` names it. Every event names its audience: a tuple of
seats, or `EVERYONE` (there is no default, so a forgotten audience is an error, not a public
event). Replay records (deal, deal_end) are emitted by the game through the same queue as events,
so the runner writes them in order (the chance records are the runner's own); the core checks the fields it reads itself (a
deal_end's `deal` and `scores`, an outcome's `scores` and `measure`) with `deal_end_error` and
`outcome_error`, and names the plugin when they are wrong.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Union

from referee.errors import RulesError

if TYPE_CHECKING:
    from referee.describe import Describer

Action = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Option:
    """One configuration key of a game: its name, type, default and allowed values."""

    name: str
    type: type  # bool, int or str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    min: int | None = None
    max: int | None = None


class Everyone:
    """The audience of a public event: every seat of the match. Use the one instance, `EVERYONE`.

    `seat in EVERYONE` is true for every seat. It is falsy, as an empty audience would be, so
    `event.to and len(event.to) == 1` still asks "is this event for one seat only"; it cannot be
    iterated (the number of seats is the match's: `audience(event.to, players)`).
    """

    __slots__ = ()
    _instance: ClassVar[Everyone | None] = None

    def __new__(cls) -> Everyone:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __contains__(self, seat: object) -> bool:
        return True

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "EVERYONE"

    def __reduce__(self) -> str:
        return "EVERYONE"  # pickled and copied as the module's one instance


#: the audience of a public event (`Event(kind, data, EVERYONE)`)
EVERYONE = Everyone()

Audience = Union[tuple[int, ...], Everyone]


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs 3x (object.__setattr__ per field)
class Event:
    """Something that just happened, visible to the seats in `to`: a tuple of seats, or EVERYONE.

    The audience is required: an event meant for one seat must never reach the others because
    its author forgot to say so. Sent to a bot as {"type": "event", "event": {"kind": kind, **data}}.
    """

    kind: str
    data: dict[str, Any]
    to: Audience

    def message(self) -> dict[str, Any]:
        """The event object as sent on the wire."""
        return {"kind": self.kind, **self.data}


#: the kind of event by which a game charges a seat for its conduct (`penalty`)
PENALTY = "penalty"


def penalty(seat: int, why: str, ruling: str, **cost: Any) -> Event:
    """A penalty for a seat's conduct under the rules: a rule it broke that the game let it break
    and charged for (Mau Mau's missing announcement, MM-7), as an event to everyone of kind
    "penalty" with `seat`, `why` (a reason word), `ruling` (the rule's id) and what it cost
    (`cost`, e.g. count=2). The core counts these per seat and reason, and `play`, `validate` and
    the standings show them, so that a bot's author learns what their bot keeps paying for. An
    event of that kind without a `ruling` is the game's own business (a 7's draw), not counted."""
    return Event(PENALTY, {"seat": seat, "why": why, "ruling": ruling, **cost}, EVERYONE)


@dataclass(slots=True)  # not frozen, like Event
class Record:
    """A replay record the game emits (type "deal" or "deal_end"), written verbatim."""

    data: dict[str, Any]


Output = Union[Event, Record]


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (2 == 2.0) but booleans are not numbers (true != 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def audience(to: Any, players: int) -> range | tuple[int, ...]:
    """The seats an event's `to` stands for; TypeError/ValueError saying why when it is neither
    EVERYONE nor a tuple of seats of the match."""
    if to is EVERYONE:
        return range(players)
    if type(to) is not tuple:
        hint = " (there is no default audience: use referee.game.EVERYONE)" if to is None else ""
        raise TypeError(f"the audience {to!r} is not a tuple of seats or EVERYONE{hint}")
    for seat in to:
        if type(seat) is not int or not 0 <= seat < players:
            raise ValueError(f"the audience {to!r} names {seat!r}, not a seat of {players}")
    return to


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished match: `scores` per seat as the replay reports them, and `measure` per seat,
    the game's own ranking measure (higher is better) used for ranks (C-5). Both are lists of
    numbers (int or float), one per seat (checked by the core: `outcome_error`)."""

    scores: list[int | float]
    measure: list[int | float]


#: the `kind` of a deal's own shuffle: drawn from the deal's stream (referee.chance.Streams.deal)
DEAL = "deal"


@dataclass(frozen=True, slots=True)
class Shuffle:
    """A chance request: the `cards`, in an order drawn uniformly at random. Its outcome is a
    list holding exactly the requested cards (a permutation, checked by the core).

    `kind` names the event in the game's words ("deal", "reshuffle") and goes into the replay's
    chance record. A request of kind `DEAL` is the deal's own shuffle, drawn from the deal's own
    stream; any other request is the next chance event of the deal, drawn from its own (C-2).
    `until`, if given, is a condition on the order (M-1: no Mayor in the reserve): the runner
    shuffles the same order again until it holds, and verify refuses a recorded order that
    fails it.
    """

    cards: tuple[Any, ...]
    kind: str = DEAL
    until: Callable[[list[Any]], bool] | None = None
    why: str = ""  # `until` in words, for the error when a recorded order fails it (cite the ruling)


@dataclass(frozen=True, slots=True)
class Choice:
    """A chance request: one of `options` drawn uniformly at random (a die, a card from a pile).
    Its outcome is one of the options (checked by the core); `kind` as for `Shuffle`."""

    options: tuple[Any, ...]
    kind: str = "choice"


ChanceRequest = Union[Shuffle, Choice]


class GameState(ABC):
    """The whole state of one match of one game."""

    #: the current deal (round) number, 1-based; move records carry it
    deal: int = 1

    @abstractmethod
    def to_act(self) -> int | None:
        """The seat that must decide now, or None: while a chance request is pending, and when
        the match is over (no request pending)."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, fully enumerated, never empty while a seat is
        to act (and empty while a chance request is pending: no seat may act then)."""

    def chance(self) -> ChanceRequest | None:
        """The chance outcome the state waits for (a `Shuffle`, a `Choice`), or None, the default:
        no chance is pending. While one is pending `to_act()` is None; the runner samples the
        outcome, records it, and hands it to `apply_chance`. Asked only when `to_act()` is None,
        so it costs nothing per decision. The request must not change the state: every card
        stays in its zone until the outcome is applied."""
        return None

    def is_over(self) -> bool:
        """Whether the match has ended: no seat to act and no chance outcome pending (`to_act()`
        alone is None in both cases). The runner's loop needs no call of it (it asks `chance()`
        whenever `to_act()` is None); `verify` and the kit ask it at the end."""
        return self.to_act() is None and self.chance() is None

    def apply_chance(self, outcome: Any) -> None:
        """Apply the outcome of the pending `chance()` request, already checked by the core (an
        order of the requested cards, or one of the options), and go on with the match: deal,
        finish the move that needed it, or ask for the next outcome."""
        raise RulesError("this state asked for no chance outcome")

    def resolve(self, action: Any) -> Action | None:
        """The legal action a submitted action stands for, or None if it is illegal.

        The default accepts exactly the members of `legal_actions()`, by JSON equality
        (`json_equal`: {"draw": 1} is not {"draw": true}); games with lenient fields (Mau Mau's
        announcements, MM-7) override this.
        """
        for legal in self.legal_actions():
            if legal == action and json_equal(legal, action):
                return legal
        return None

    @abstractmethod
    def apply(self, action: Action) -> None:
        """Apply an action returned by `resolve` for the seat to act; raises RulesError if illegal."""

    @abstractmethod
    def observe(self, seat: int) -> dict[str, Any]:
        """Everything `seat` may know right now, as a JSON-ready dict."""

    @abstractmethod
    def drain(self) -> list[Output]:
        """The events and replay records produced since the last call, in order."""

    @abstractmethod
    def outcome(self) -> Outcome:
        """The result of a finished match."""

    # -- checks used by the conformance suite -------------------------------------------------

    @abstractmethod
    def zones(self) -> dict[str, list[str]]:
        """Every card of the match, each in exactly one zone (hands, piles, table...)."""

    @abstractmethod
    def hidden_from(self, seat: int) -> set[str]:
        """Card codes `seat` may not see right now (codes that also sit where it may see excluded)."""


class Game(ABC):
    """A rules plugin's entry point: metadata plus a factory of match states."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[tuple[Option, ...]] = ()
    summary: ClassVar[str] = ""

    def check_config(self, config: dict[str, Any], players: int) -> None:
        """Raise ConfigError for a configuration that cannot be played with `players` seats."""

    @abstractmethod
    def new_state(self, config: dict[str, Any], players: int) -> GameState:
        """A new match, usually waiting for its first deal's shuffle (`GameState.chance()`)."""

    def variants(self) -> list[dict[str, Any]]:
        """Config overrides worth covering in tests and benchmarks (each mode and main variant)."""
        return [{}]

    def old_outcome(self, record: dict[str, Any], request: ChanceRequest) -> Any:
        """Reading replays written before chance went through the runner (tests/golden/): the
        outcome of `request` that an old, game-specific "deal" or "chance" record stands for, or
        None (the default: a game with no such replays). `verify` checks it like any outcome."""
        return None

    def describer(self) -> Describer | None:
        """The game's words and pictures: a `referee.describe.Describer` holding its wording of
        actions, events, cards and deals (for the replay viewers, `play`'s table of deals, the
        standings' notes and the protocol schema), or None, the default: the core's generic
        wording, which shows any action or event readably from its fields. Optional."""
        return None

    def schema(self) -> dict[str, Any]:
        """The JSON Schema definitions of the game's messages, for `referee schema --game` and the
        protocol schema (referee/schema.py), or {}: the generic messages apply. Any of
        `<game>_config`, `<game>_action`, `<game>_obs` and `<game>_event` (the generic one stands
        for a part left out), plus helpers of its own; they may $ref the common
        definitions (seat, seat_or_null...). Optional; the default is the describer's `schema()`,
        if it has one."""
        own = getattr(self.describer(), "schema", None)
        return own() if callable(own) else {}
