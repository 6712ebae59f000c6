"""Crazy Eights for 2-5 players: the rules, pure (state, legal actions, apply, observe, outcome).

The rules (README.md):
- 52 cards, codes rank `2-9 T J Q K A` + suit `C D H S`. Seat 0 deals deal 1; the deal passes left.
- Deal 7 cards each to 2 players, 5 each to 3-5, one at a time from the dealer's left; turn up
  the next card (the starter); the rest is the stock. The dealer's left plays first.
- Play one card of the suit to match or of the top card's rank. An 8 is wild: play it on
  anything and name the suit to match next.
- With no card to play, draw one card from the stock, and play as soon as you can; after
  `draw_limit` draws in a turn without a play, or with nothing to draw, pass. An empty stock is
  refilled by shuffling the discard pile under its top card.
- The first player out wins the deal and scores the cards left in the other hands: 8 = 50,
  K Q J T = 10, A = 1, 2-7 and 9 face value. Every player passing in a row, or `max_turns`
  turns, ends the deal with no winner.
- After `deals` deals the highest total wins.

Chance: the state never draws. It asks for each deal's shuffle and each reshuffle
(`chance()` returns a `referee.game.Shuffle`) and goes on when the outcome comes
(`apply_chance`): the runner samples it from the match's sealed streams and records it, and
`referee verify` hands back the recorded one. Nothing here reads a replay.
"""

from __future__ import annotations

from typing import Any

from referee.errors import RulesError
from referee.game import EVERYONE, Action, Event, Game, GameState, Option, Outcome, Output, Record, Shuffle

RANKS = "23456789TJQKA"
SUITS = "CDHS"
DECK = tuple(r + s for s in SUITS for r in RANKS)  # a fixed order: the shuffle alone makes the deal
ORDER = {card: i for i, card in enumerate(DECK)}  # hands are kept by suit, then rank
POINTS = {c: 50 if c[0] == "8" else 10 if c[0] in "TJQK" else 1 if c[0] == "A" else int(c[0]) for c in DECK}


def hand_size(players: int) -> int:
    """Cards dealt to each player: 7 for two players, 5 for three to five."""
    return 7 if players == 2 else 5


class CrazyEights(Game):
    """Crazy Eights, 2-5 players, one 52-card deck; eights are wild."""

    name = "crazy_eights"
    title = "Crazy Eights"
    min_players = 2
    max_players = 5
    options = (
        Option("deals", int, 3, "Deals in a match; the highest total wins.", min=1),
        Option("draw_limit", int, 3, "Cards a player may draw in a turn before passing.", min=1),
        Option("max_turns", int, 300, "A deal ends with no winner after this many turns.", min=1),
    )
    summary = (
        "Shedding game for 2-5 players with one 52-card deck. Deal 7 each (2 players) or 5 each, turn "
        "up a starter; the dealer's left plays first.\n"
        "Play a card of the suit to match or of the top card's rank. An 8 is wild: play it on anything "
        "and name the next suit. With nothing to play draw, up to draw_limit cards (3), playing as "
        "soon as you can; then pass.\n"
        "The first out scores the cards left in the other hands: 8 = 50, K Q J T = 10, A = 1, others "
        "face value. After 3 deals (the deals option) the highest total wins."
    )

    def new_state(self, config: dict[str, Any], players: int) -> CrazyEightsState:
        """A new match, waiting for its first deal's shuffle."""
        return CrazyEightsState(config, players)

    def old_outcome(self, record: dict[str, Any], request: Shuffle) -> list[str] | None:
        """Reading replays written before chance went through the runner: an old deal record's
        cards in dealing order, or an old reshuffle record's new stock."""
        if record.get("type") == "chance":
            return record.get("stock")
        hands, n = record.get("hands"), len(record.get("hands") or ())
        dealer, size = record.get("dealer"), hand_size(n)
        try:
            order = [(dealer + 1 + k) % n for k in range(n)]
            return [hands[order[k % n]][k // n] for k in range(size * n)] + [record["up"]] + list(record["stock"])
        except (TypeError, KeyError, IndexError, ZeroDivisionError):
            return None

    def variants(self) -> list[dict[str, Any]]:
        return [{}, {"draw_limit": 1}, {"deals": 1}]

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the game's messages (`referee schema --game crazy_eights`)."""
        return SCHEMA


def _closed(description: str, required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object schema with exactly these fields (`required` always, `optional` maybe)."""
    return {"description": description, "type": "object", "required": list(required),
            "properties": {**required, **(optional or {})}, "additionalProperties": False}


_CARD = {"$ref": "#/$defs/crazy_eights_card"}
_CARDS = {"type": "array", "items": _CARD}
_COUNT = {"type": "integer", "minimum": 0}
_SEATS = {"type": "array", "items": {"type": "integer"}}
_SUIT = {"enum": list(SUITS)}


def _event(kind: str, required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"if": {"properties": {"kind": {"const": kind}}},
            "then": _closed(kind, {"kind": {"const": kind}, **required}, optional)}


#: the game's own JSON Schema definitions (closed: every field this game sends); the referee adds
#: the messages around them
SCHEMA: dict[str, Any] = {
    "crazy_eights_card": {"description": "A card code: rank 2-9 T J Q K A, suit C D H S.", "type": "string",
                          "pattern": "^[2-9TJQKA][CDHS]$"},
    "crazy_eights_config": _closed("Crazy Eights options (`referee rules crazy_eights`).", {
        "deals": {"type": "integer", "minimum": 1}, "draw_limit": {"type": "integer", "minimum": 1},
        "max_turns": {"type": "integer", "minimum": 1}}),
    "crazy_eights_action": {"description": "Play a card (an 8 names the suit to match), draw, or pass.", "oneOf": [
        _closed("a play", {"play": {"type": "string", "pattern": "^[2-79TJQKA][CDHS]$"}}),
        _closed("an eight, naming a suit", {"play": {"type": "string", "pattern": "^8[CDHS]$"}, "suit": _SUIT}),
        _closed("a draw", {"draw": {"const": True}}),
        _closed("a pass", {"pass": {"const": True}})]},
    "crazy_eights_obs": _closed("What a seat sees.", {
        "seat": {"$ref": "#/$defs/seat"}, "deal": {"type": "integer", "minimum": 1},
        "dealer": {"$ref": "#/$defs/seat"}, "to_act": {"$ref": "#/$defs/seat_or_null"}, "hand": _CARDS,
        "top": _CARD, "suit": _SUIT, "drawn": _COUNT, "counts": {"type": "array", "items": _COUNT},
        "stock": _COUNT, "discard": _COUNT, "totals": _SEATS}),
    "crazy_eights_event": {
        "description": "Something a seat sees happen.", "type": "object", "required": ["kind"],
        "properties": {"kind": {"enum": ["deal", "played", "drew", "passed", "reshuffle", "deal_end"]}},
        "allOf": [
            _event("deal", {"deal": {"type": "integer", "minimum": 1}, "dealer": {"$ref": "#/$defs/seat"},
                            "hand": _CARDS, "up": _CARD, "counts": {"type": "array", "items": _COUNT}}),
            _event("played", {"seat": {"$ref": "#/$defs/seat"}, "card": _CARD}, {"suit": _SUIT}),
            _event("drew", {"seat": {"$ref": "#/$defs/seat"}}, {"card": _CARD}),
            _event("passed", {"seat": {"$ref": "#/$defs/seat"}}),
            _event("reshuffle", {"stock": _COUNT}),
            _event("deal_end", {"deal": {"type": "integer", "minimum": 1}, "scores": _SEATS, "totals": _SEATS,
                                "winner": {"$ref": "#/$defs/seat_or_null"},
                                "reason": {"enum": ["out", "blocked", "max_turns"]}}),
        ]},
}


class CrazyEightsState(GameState):
    """A whole Crazy Eights match: every deal, and the totals."""

    def __init__(self, config: dict[str, Any], players: int) -> None:
        self.n = players
        self.deals: int = config["deals"]
        self.draw_limit: int = config["draw_limit"]
        self.max_turns: int = config["max_turns"]
        self.totals = [0] * players
        self.deal = 0
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.stock: list[str] = list(DECK)  # until the first deal: the whole deck, unshuffled
        self.discard: list[str] = []
        self.suit = ""
        self._pending: Shuffle | None = None  # the chance outcome the state waits for
        self._out: list[Output] = []
        self._start_deal()

    # -- the GameState interface ---------------------------------------------------------------

    def to_act(self) -> int | None:
        return self.turn  # None while a chance outcome is pending, and at the end

    def chance(self) -> Shuffle | None:
        return self._pending

    def apply_chance(self, outcome: list[str]) -> None:
        """Deal from the shuffled deck, or take the reshuffled stock and make the draw that needed it."""
        request, self._pending = self._pending, None
        if request is None:
            raise RulesError("crazy_eights: no chance outcome is pending")
        if request.kind == "deal":
            self._deal_from(outcome)
        else:
            self.discard = self.discard[-1:]
            self.stock = outcome
            self._tell("reshuffle", {"stock": len(outcome)})
            self.turn = self._drawer
            self._draw(self._drawer)

    def legal_actions(self) -> list[Action]:
        if self.turn is None:
            return []
        top = self.discard[-1]
        plays: list[Action] = []
        for card in self.hands[self.turn]:
            if card[0] == "8":  # wild: the player names the suit to match
                plays.extend({"play": card, "suit": suit} for suit in SUITS)
            elif card[1] == self.suit or card[0] == top[0]:
                plays.append({"play": card})
        if plays:
            return plays
        if self.drawn < self.draw_limit and (self.stock or len(self.discard) > 1):
            return [{"draw": True}]
        return [{"pass": True}]

    def apply(self, action: Action) -> None:
        if self.resolve(action) is None:
            raise RulesError(f"crazy_eights: {action!r} is not legal for seat {self.turn}")
        seat = self.turn
        if "play" in action:
            self._play(seat, action["play"], action.get("suit"))
        elif "draw" in action:
            self._draw(seat)
        else:
            self._pass(seat)

    def observe(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat, "deal": self.deal, "dealer": self.dealer, "to_act": self.turn,
            "hand": list(self.hands[seat]), "top": self.discard[-1], "suit": self.suit,
            "drawn": self.drawn if seat == self.turn else 0, "counts": [len(h) for h in self.hands],
            "stock": len(self.stock), "discard": len(self.discard), "totals": list(self.totals),
        }

    def drain(self) -> list[Output]:
        out, self._out = self._out, []
        return out

    def outcome(self) -> Outcome:
        """Scores and the ranking measure: the totals, higher is better."""
        return Outcome(list(self.totals), list(self.totals))

    def zones(self) -> dict[str, list[str]]:
        zones = {f"hand {seat}": list(hand) for seat, hand in enumerate(self.hands)}
        zones["stock"], zones["discard"] = list(self.stock), list(self.discard)
        return zones

    def hidden_from(self, seat: int) -> set[str]:
        hidden = set(self.stock)  # every card of the discard pile was seen when it was played
        for other, hand in enumerate(self.hands):
            if other != seat:
                hidden.update(hand)
        return hidden

    # -- moves ---------------------------------------------------------------------------------

    def _play(self, seat: int, card: str, suit: str | None) -> None:
        self.hands[seat].remove(card)
        self.discard.append(card)
        self.suit = suit or card[1]
        self._tell("played", {"seat": seat, "card": card, **({"suit": suit} if suit else {})})
        if not self.hands[seat]:
            self._end_deal(seat, "out")
        else:
            self.passes = 0
            self._next_turn(seat)

    def _draw(self, seat: int) -> None:
        if not self.stock:  # the discard pile under its top card is shuffled first: wait for it
            self._pending = Shuffle(tuple(self.discard[:-1]), "reshuffle")
            self._drawer, self.turn = seat, None
            return
        card = self.stock.pop(0)
        hand = self.hands[seat]
        hand.append(card)
        hand.sort(key=ORDER.__getitem__)
        self.drawn += 1
        self.passes = 0  # so a deal is blocked only when no one could play or draw
        # the card to the drawer only; the others learn that a card was drawn
        self._out.append(Event("drew", {"seat": seat, "card": card}, (seat,)))
        self._out.append(Event("drew", {"seat": seat}, tuple(s for s in range(self.n) if s != seat)))

    def _pass(self, seat: int) -> None:
        self._tell("passed", {"seat": seat})
        self.passes += 1
        if self.passes == self.n:
            self._end_deal(None, "blocked")
        else:
            self._next_turn(seat)

    def _next_turn(self, seat: int) -> None:
        self.turns += 1
        if self.turns >= self.max_turns:  # checked after a play or a pass, never a draw (see docs)
            self._end_deal(None, "max_turns")
        else:
            self.turn, self.drawn = (seat + 1) % self.n, 0

    # -- deals and chance ----------------------------------------------------------------------

    def _start_deal(self) -> None:
        """Ask for the next deal's shuffle: every card, in a fixed order (DECK)."""
        self.deal += 1
        self.dealer = (self.deal - 1) % self.n
        self.turn = None
        self._pending = Shuffle(DECK, "deal")

    def _deal_from(self, deck: list[str]) -> None:
        """Deal the shuffled deck one card at a time from the dealer's left, turn up the starter."""
        order = [(self.dealer + 1 + k) % self.n for k in range(self.n)]
        size = hand_size(self.n)
        hands: list[list[str]] = [[] for _ in range(self.n)]
        for k in range(size * self.n):
            hands[order[k % self.n]].append(deck[k])
        up, stock = deck[size * self.n], deck[size * self.n + 1:]
        self._out.append(Record({"type": "deal", "deal": self.deal, "dealer": self.dealer,
                                 "hands": [list(h) for h in hands], "up": up, "stock": list(stock)}))
        self.hands = [sorted(h, key=ORDER.__getitem__) for h in hands]
        self.stock, self.discard, self.suit = list(stock), [up], up[1]
        self.turn, self.drawn, self.passes, self.turns = order[0], 0, 0, 0
        for seat in range(self.n):
            self._out.append(Event("deal", {"deal": self.deal, "dealer": self.dealer, "hand": list(self.hands[seat]),
                                            "up": up, "counts": [len(h) for h in self.hands]}, (seat,)))

    def _end_deal(self, winner: int | None, reason: str) -> None:
        scores = [0] * self.n
        if winner is not None:
            scores[winner] = sum(POINTS[c] for hand in self.hands for c in hand)
        self.totals = [t + s for t, s in zip(self.totals, scores)]
        end = {"deal": self.deal, "scores": scores, "totals": list(self.totals), "winner": winner, "reason": reason}
        self._out.append(Record({"type": "deal_end", **end}))
        self._tell("deal_end", {**end, "scores": list(scores), "totals": list(self.totals)})
        if self.deal < self.deals:
            self._start_deal()
        else:
            self.turn = None

    def _tell(self, kind: str, data: dict[str, Any]) -> None:
        """A public event: every seat is told."""
        self._out.append(Event(kind, data, EVERYONE))
