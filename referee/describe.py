"""A game's words and pictures: how the replay viewers, `play`'s table of deals, the standings
and the protocol schema tell one game's actions, events, cards and deals (issue 17).

The core knows no game. A game plugin gives its `Game` a `describer()`, an instance of a
`Describer` subclass holding the game's own wording and card faces; a game without one is told
by `Describer` itself, the generic wording, which shows any action or event readably from its
fields (`play 7S`, `drew seat=[0] alice count=2`), never as "None". Every method has that
generic default, so a describer overrides only what it words better.

Wording is rich `Text` (the terminal colours it, the HTML viewer takes its plain text). Nothing
a describer returns changes a match: it is presentation only, and never sees more than the
viewer it serves shows (events, records, a seat's observation).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional, Protocol, Union

from rich.text import Text


class Event(Protocol):
    """What a describer reads of a game's event (a `referee.game.Event`): its kind and data. (A
    protocol, not an import: the game contract names `Describer`, so this side names no game type.)"""

    kind: str
    data: dict[str, Any]


class _Described(Protocol):
    """A game, as `describer_of` sees it: `describer()` (`referee.game.Game.describer`)."""

    def describer(self) -> Describer | None: ...


class Names:
    """How seats are named in a story: `[2] random#2`, plus " (you)" for the viewer's seat."""

    def __init__(self, names: list[str], viewer: int | None = None) -> None:
        self.names = names
        self.viewer = viewer

    def __call__(self, seat: Any) -> Text:
        """The seat's name; anything that is no seat of the match, as it is."""
        if not isinstance(seat, int) or not 0 <= seat < len(self.names):
            return Text(str(seat))
        text = Text(f"[{seat}] {self.names[seat]}", style="cyan")
        if seat == self.viewer:
            text.append(" (you)", style="cyan")
        return text

    def width(self) -> int:
        """The widest seat name, for aligning move lines."""
        return max((len(self(s).plain) for s in range(len(self.names))), default=0)


def join(*parts: Text | str) -> Text:
    """Texts and strings one after the other, each keeping its own style."""
    text = Text()
    for part in parts:
        text.append(part)
    return text


#: a zone of a seat's view: its cards (None: a card the seat does not see), or a count of unseen cards
ObservedZone = Union[list[Optional[str]], int]
#: the names card games give their piles, for the generic reading of an observation's numbers
_PILE_WORDS = re.compile(r"deck|stock|pile|talon|kitty|discard", re.I)
#: the names of per-seat counts of cards in hand, tried first by the generic reading
_COUNT_WORDS = re.compile(r"count|size|left|held|cards", re.I)


def hand_zone(seat: int) -> str:
    """The name of a seat's hand among zones: `hand 2` (as `GameState.zones()` names hands)."""
    return f"hand {seat}"


def _paths(obs: dict[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    """The observation's values by key path ("exchange.gave"), objects opened, lists kept whole."""
    for key, value in obs.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _paths(value, path + ".")
        else:
            yield path, value


def _hand_counts(obs: dict[str, Any], seat: int, held: int) -> tuple[str, list[int]] | None:
    """The key and value of the observation's list of hand sizes, one per seat: a list of counts
    whose entry for `seat` is the seat's own hand size (a key naming counts or sizes first)."""
    found = [(k, v) for k, v in obs.items() if isinstance(v, list) and len(v) > seat
             and all(type(n) is int and n >= 0 for n in v) and v[seat] == held]
    found.sort(key=lambda kv: not _COUNT_WORDS.search(kv[0]))
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class Zone:
    """How the HTML viewer shows one zone (hands aside) of `GameState.zones()`, in the whole-match
    view, or of `Describer.observation_zones`, in a seat's view: its `label`; `center`: in the
    middle of the table (the cards in play), else beside it as a pile; `top`: show only the last
    `top` cards, fanned (a discard pile, whose cards stay when the cards in play are taken)."""

    label: str
    center: bool = False
    top: int | None = None


class Describer:
    """How one game is told. This class is the generic wording; a game's describer subclasses
    it and overrides what it words better (see the built-in plugins' describe.py)."""

    #: event and record fields whose value is a seat number (shown by the seat's name)
    seat_keys: frozenset[str] = frozenset({"seat"})
    #: the fields holding a deal's number in the game's events and records (the first present)
    deal_keys: tuple[str, ...] = ("deal",)
    #: the event kinds that tell a seat its deal ended (the scores after the deal, in its view)
    end_kinds: tuple[str, ...] = ("deal_end",)

    # -- cards --------------------------------------------------------------------------------

    def is_card(self, value: Any) -> bool:
        """Whether a value is one of the game's card codes (generic: no value is known to be)."""
        return False

    def card_style(self, code: str) -> str:
        """The rich style a card code is shown in (its suit's colour)."""
        return "bold"

    def cards(self, cards: Iterable[Any] | str) -> Text:
        """Card codes in their styles, separated by spaces."""
        if isinstance(cards, str):
            cards = [cards]
        text = Text()
        for i, code in enumerate(cards):
            if i:
                text.append(" ")
            text.append(str(code), style=self.card_style(code) if isinstance(code, str) else "")
        return text

    def holds_cards(self, value: Any) -> bool:
        """Whether a value is a card code or a non-empty list of them."""
        return self.is_card(value) or (isinstance(value, list) and bool(value)
                                       and all(self.is_card(v) for v in value))

    def value(self, key: str, value: Any, names: Names) -> Text:
        """One field's value: a seat by its name, cards in their styles, anything else readably
        (true/false, none, numbers as they read, lists and objects as JSON)."""
        if key in self.seat_keys and isinstance(value, int) and not isinstance(value, bool):
            return names(value)
        if self.holds_cards(value):
            return self.cards(value)
        if isinstance(value, bool):
            return Text(str(value).lower())
        if value is None:
            return Text("none")
        if isinstance(value, float):
            return Text(f"{value:g}")
        if isinstance(value, (list, dict)):
            return Text(json.dumps(value, ensure_ascii=False, default=str))
        return Text(str(value))

    # -- moves and events ---------------------------------------------------------------------

    def action(self, action: Any) -> Text:
        """A move's action in words (generic: each field, `play 7S`, a true flag by its name)."""
        if not isinstance(action, dict) or not action:
            return Text(repr(action) if not isinstance(action, dict) else "{}")
        parts = []
        for key, value in action.items():
            if value is True:
                parts.append(Text(str(key)))
            elif self.holds_cards(value):
                parts.append(join(f"{key} ", self.cards(value)))
            elif isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
                parts.append(Text(f"{key} " + " ".join(str(v) for v in value)))
            else:
                parts.append(join(f"{key} ", self.value(str(key), value, Names([]))))
        return Text(", ").join(parts)

    def event(self, event: Event, names: Names) -> Text | None:
        """One event in words, or None to leave it out of the story (generic: its kind in bold
        and each field as key=value, seats by name)."""
        text = Text(f"{event.kind}", style="bold")
        for key, value in event.data.items():
            text.append(f" {key}=")
            text.append(self.value(key, value, names))
        return text

    def echoes(self, event: Event, move: dict[str, Any]) -> bool:
        """Whether an event of the seat that just moved only repeats its move line (its own
        play, call...), so the story does not tell it twice (generic: none does)."""
        return False

    def redundant(self, event: Event, events: list[Event]) -> bool:
        """Whether the whole-match story leaves out an event of a step because another of the
        step's `events` tells the same more completely (generic: none is; the story already
        drops a private copy that another event of the same kind covers)."""
        return False

    def chance(self, record: dict[str, Any]) -> Text:
        """A chance record (a reshuffle...) as a line of the story."""
        text = Text(f"chance: {record.get('kind')}", style="magenta")
        for key, value in record.items():
            if key not in ("type", "deal", "kind"):
                text.append(f" {key}=")
                text.append(self.cards(value) if self.holds_cards(value) else Text(str(value)))
        return text

    def played(self, event: Event) -> list[str]:
        """The cards an event puts in the middle of the table, for the HTML viewer to show who
        played them (generic: none)."""
        return []

    # -- deals --------------------------------------------------------------------------------

    def deal_of(self, data: dict[str, Any]) -> Any:
        """The deal number an event or record names (the first of `deal_keys` present), or None."""
        for key in self.deal_keys:
            if key in data:
                return data[key]
        return None

    def deal_summary(self, record: dict[str, Any], players: int) -> tuple[str, list[str]]:
        """A deal_end record as a row of `play`'s table of deals: the row's label (the deal's
        number, and what the game says of the deal as a whole) and one cell per seat (its points,
        and its part in the deal)."""
        scores = record.get("scores")
        cells = []
        for seat in range(players):
            value = scores[seat] if isinstance(scores, list) and seat < len(scores) else None
            cells.append("-" if value is None else f"{value:g}" if isinstance(value, (int, float))
                         and not isinstance(value, bool) else str(value))
        number = self.deal_of(record)
        return ("?" if number is None else str(number)), cells

    def score_prefix(self, key: str) -> str:
        """What the HTML viewer's scores panel writes before a seat's value of a per-seat
        deal_end field other than the first ("total " before a running total; generic: "")."""
        return ""

    def deal_note(self, key: str, value: Any, names: Names) -> str | None:
        """What the HTML viewer's scores panel says of a deal_end field that is not one value per
        seat, in words, or None to leave it out (generic: `key: value`, a seat by its name)."""
        if key in self.seat_keys and type(value) is int:
            value = names(value).plain
        return f"{key}: {'none' if value is None else str(value).lower() if isinstance(value, bool) else value}"

    # -- the HTML viewer ----------------------------------------------------------------------

    def zone(self, name: str) -> Zone:
        """How the HTML viewer shows a zone of the game (generic: a pile named as the zone)."""
        return Zone(name)

    def face(self, code: str) -> dict[str, Any]:
        """How the HTML viewer draws a card: {"c": CSS classes, "r": the corner text, "t": the
        tooltip, "p": a small symbol's id, "b": a big symbol's id, "m": a big plain mark,
        "f": a figure's name, "h": the card inside a line of text, {"c", "r", "p"}}; every key
        optional (generic: the code, plain)."""
        return {"c": ["plain"], "r": code}

    def viewer_css(self) -> str:
        """CSS rules the HTML viewer adds for the classes `face` names."""
        return ""

    def viewer_symbols(self) -> dict[str, dict[str, Any]]:
        """SVG symbols `face` refers to, by id: {"v": viewBox, "s": shapes}, each shape
        [tag, attributes] or [tag, attributes, shapes] (drawn as elements, never parsed as markup)."""
        return {}

    def observation_zones(self, obs: Any, seat: int) -> dict[str, ObservedZone]:
        """What `seat`'s observation `obs` (its `observe(seat)`, as sent in `act`) shows of the
        table, as the zones the HTML viewer draws in that seat's view: {zone name: the zone's
        cards in order, None for a card the seat knows is there but not which; or a number, the
        count of cards it does not see}. A seat's hand is the zone `hand_zone(seat)`; any other
        zone is drawn as `zone(name)` says. Read from `obs` alone: what is not in it is not shown.

        Generic: the "hand" key as the seat's hand; the first list of one count per seat whose
        entry for the seat is that hand's size (a key naming counts or sizes first) as every
        seat's hand size; every other list holding cards (of dicts and lists too, flattened) as
        a zone named by its key path ("table", "exchange.gave"), and an empty list as an empty
        zone when `zone` describes a zone of that name; a card alone ("top") as a zone of one
        card; a number whose key names a pile in card games' words ("stock") as a count.
        Without `is_card` of its own, a describer takes every string of a list for a card, and
        a string alone for one when it is shaped like a card of the hand."""
        if not isinstance(obs, dict):
            return {}
        zones: dict[str, ObservedZone] = {}
        raw = obs.get("hand")
        hand = raw if isinstance(raw, list) else []
        read = {"hand"}  # the keys read as hands
        if isinstance(raw, list):
            zones[hand_zone(seat)] = list(hand)
            counts = _hand_counts(obs, seat, len(hand))
            if counts is not None:
                read.add(counts[0])
                zones.update({hand_zone(s): n for s, n in enumerate(counts[1]) if s != seat})
        shapes = {len(c) for c in hand if isinstance(c, str) and c.isalnum()}
        for path, value in _paths(obs):
            if path in read:
                continue
            if isinstance(value, (list, dict)):
                cards = self._cards_in(value)
                if cards or (value == [] and self.zone(path) != Zone(path)):
                    zones[path] = cards
            elif isinstance(value, str):
                known = self.is_card(value) if self._knows_cards() else len(value) in shapes and value.isalnum()
                if known:
                    zones[path] = [value]
            elif type(value) is int and value >= 0 and _PILE_WORDS.search(path.rsplit(".", 1)[-1]):
                zones[path] = value
        return zones

    def observation_roles(self, obs: Any, seat: int) -> dict[int, list[str]]:
        """What `seat`'s observation tells of the seats' parts in the deal, for the HTML viewer to
        tag them: {seat: short words}, e.g. {0: ["dealer"], 2: ["candidate"]}. Read from `obs`
        alone (generic: the dealer, from the "dealer" key)."""
        dealer = obs.get("dealer") if isinstance(obs, dict) else None
        return {dealer: ["dealer"]} if type(dealer) is int else {}

    def _knows_cards(self) -> bool:
        return type(self).is_card is not Describer.is_card

    def _cards_in(self, value: Any) -> list[str]:
        """The cards a list or object holds, flattened in order (when the describer knows no card
        code: its strings without a space)."""
        knows = self._knows_cards()
        found: list[str] = []
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                stack.extend(reversed(list(v.values())))
            elif isinstance(v, list):
                stack.extend(reversed(v))
            elif isinstance(v, str) and (self.is_card(v) if knows else v.isprintable() and " " not in v):
                found.append(v)
            # anything else is no card: a seat number or a flag beside them ({"seat": 0, "cards": [...]})
        return found

    # -- notes and the protocol schema --------------------------------------------------------

    def score_note(self) -> str | None:
        """What the game's points are, when a standings reader could misread them (e.g. "penalty
        points, lower is better"), or None."""
        return None

    def penalty_advice(self, why: str, ruling: str) -> str | None:
        """What a bot's author should do about a conduct penalty (`referee.game.penalty`), in a few
        words for `validate`'s warning, or None."""
        return None

    def result_note(self) -> str | None:
        """What a match result's `scores` hold for this game, for the protocol schema's words on
        them (e.g. "total points"), or None."""
        return None

    def schema(self) -> dict[str, Any]:
        """The game's own JSON Schema definitions for the protocol schema's $defs, or {} (the
        generic messages apply). Given, they hold `<game>_config`, `<game>_action`, `<game>_obs`
        and `<game>_event`, may add helpers of their own and $ref the common definitions (seat,
        seat_or_null...); the core adds the game's message definitions around them
        (referee/schema.py)."""
        return {}


#: the generic wording, for games without a describer of their own
GENERIC = Describer()


def describer_of(game: _Described | None) -> Describer:
    """The describer of a game (None: a game not installed): its own, else the generic one."""
    own = getattr(game, "describer", None)
    described = own() if own is not None else None
    return described if described is not None else GENERIC
