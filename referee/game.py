"""The game interface every rules plugin implements.

Rules are pure: a `GameState` holds the whole state of a match (every deal of it), lists the
legal actions of the seat to act, applies an action, builds each seat's observation, and
reports the outcome. No I/O, no clock, no global RNG: chance comes only from the
`random.Random` handed to `Game.new_state` (C-2). A match is fully determined by
(game, config, seed, actions).

What a seat may see is one explicit function, `GameState.observe(seat)`; everything else a
seat learns comes from `Event`s whose `to` names it. Replay records (deal, chance, deal_end)
are emitted by the game through the same queue as events, so the runner writes them in order.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

from referee.errors import RulesError

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


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs 3x (object.__setattr__ per field)
class Event:
    """Something that just happened, visible to the seats in `to` (None: every seat).

    Sent to a bot as {"type": "event", "event": {"kind": kind, **data}}.
    """

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    to: tuple[int, ...] | None = None

    def message(self) -> dict[str, Any]:
        """The event object as sent on the wire."""
        return {"kind": self.kind, **self.data}


@dataclass(slots=True)  # not frozen, like Event
class Record:
    """A replay record the game emits (type "deal", "chance" or "deal_end"), written verbatim."""

    data: dict[str, Any]


Output = Union[Event, Record]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished match: `scores` per seat as the replay reports them, and `measure` per seat,
    the game's own ranking measure (higher is better) used for ranks (C-5)."""

    scores: list[Any]
    measure: list[float]


class GameState(ABC):
    """The whole state of one match of one game."""

    #: the current deal (round) number, 1-based; move records carry it
    deal: int = 1

    @abstractmethod
    def to_act(self) -> int | None:
        """The seat that must decide now, or None when the match is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, fully enumerated, never empty."""

    def resolve(self, action: Any) -> Action | None:
        """The legal action a submitted action stands for, or None if it is illegal.

        The default accepts exactly the members of `legal_actions()`; games with lenient
        fields (Mau Mau's announcements, MM-7) override this.
        """
        for legal in self.legal_actions():
            if legal == action:
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
    def new_state(self, config: dict[str, Any], players: int, rng: random.Random) -> GameState:
        """A new match, its first deal already dealt (records and events queued for `drain`)."""

    def variants(self) -> list[dict[str, Any]]:
        """Config overrides worth covering in tests and benchmarks (each mode and main variant)."""
        return [{}]

    def replay_state(self, config: dict[str, Any], players: int, script: Iterator[dict[str, Any]]) -> GameState:
        """A new match that takes its deals and chance outcomes from `script` instead of a PRNG.

        `script` iterates over a replay's "deal" and "chance" records, in order (what
        `referee verify` re-simulates from). The state takes each deal and each chance outcome
        from the next record (see `next_script_record`), raises RulesError when a record is
        impossible (wrong cards, wrong hand sizes, a pile the rules forbid), and emits the very
        same deal/chance records. Optional: games that cannot do it raise NotImplementedError.
        """
        raise NotImplementedError(f"the {self.name} plugin cannot re-simulate a replay from its records")


def next_script_record(script: Iterator[dict[str, Any]], kind: str, deal: int) -> dict[str, Any]:
    """The next record of a replay script, which must be a `kind` ("deal"/"chance") record of
    deal `deal`; RulesError otherwise (for `Game.replay_state`)."""
    record = next(script, None)
    if record is None:
        raise RulesError(f"the replay has no {kind} record for deal {deal}")
    if not isinstance(record, dict) or record.get("type") != kind or record.get("deal") != deal:
        found = f"a {record.get('type')} record of deal {record.get('deal')}" if isinstance(record, dict) else repr(record)
        raise RulesError(f"expected a {kind} record of deal {deal}, found {found}")
    return record


def check_cards(cards: Any, expected: Iterable[str], what: str) -> list[str]:
    """`cards` as a list, if it is a list of card codes forming exactly the multiset `expected`;
    RulesError naming `what` and the missing and extra cards otherwise (for `Game.replay_state`)."""
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise RulesError(f"{what}: not a list of card codes")
    got, want = Counter(cards), Counter(expected)
    if got != want:
        missing, extra = sorted((want - got).elements()), sorted((got - want).elements())
        raise RulesError(f"{what}: not the cards it must be (missing {missing}, extra {extra})")
    return list(cards)
