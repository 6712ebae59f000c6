"""Presidente's match state: the deal, the exchange, the tricks and the rounds (seed 004 plus
rulings P-1..P-10, docs/rules/presidente.md); the game's plugin class is in game.py.

A match is `rounds` rounds (default 5) of 4 players. Each round: a deal (P-1, P-10), in rounds
2+ the exchange (P-9: the referee hands over the forced gifts of the Slave and the President;
each Citizen chooses 3 cards as 3 single-card decisions, both choose before anyone receives),
then tricks (P-3..P-7) until at most one active player is left (P-8).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from referee.errors import RulesError
from referee.game import EVERYONE, Action, Event, GameState, Outcome, Output, Record, Shuffle
from referee_presidente.cards import (
    DECK,
    DECK_WITH_JOKERS,
    HAND_KEY,
    NORMAL,
    REVERSED,
    highest,
    lowest,
    sort_hand,
)

PLAYERS = 4
POINTS = {1: 3, 2: 2, 3: 1, 4: 0}  # P-8
ROLES = {1: "president", 2: "citizen", 3: "citizen", 4: "slave"}
GIFTS = 3  # P-9
PASS: Action = {"pass": True}

# why a table was cleared (event "cleared"); deliberately not card codes
BY_EIGHT, BY_THREE_OF_CLUBS, ALL_PASSED = "eight", "three_of_clubs", "all_passed"

_hand_key = HAND_KEY.__getitem__


def plays(hand: list[str], top_rank: str | None, top_count: int, revolution: bool) -> list[Action]:
    """Every legal play from `hand` (in hand order) on a table whose top play has `top_count`
    cards of `top_rank` (None: an empty table, a lead), passing included when following.

    Order: ranked plays by current strength, then count, then codes (C < D < H < S); then a
    lone 3C clearing a 2 or a joker (P-6) unless already listed; then each 8 (P-5); then pass.
    """
    groups: list[tuple[str, list[str]]] = []
    eights: list[str] = []
    last_rank = ""
    for card in hand:
        rank = card[0]
        if rank == "8":
            eights.append(card)
        elif rank == last_rank:
            groups[-1][1].append(card)
        else:
            groups.append((rank, [card]))
            last_rank = rank
    if revolution and groups:
        # P-7: reversed order, jokers staying on top
        if groups[-1][0] == "X":
            groups = groups[-2::-1] + groups[-1:]
        else:
            groups.reverse()
    out: list[Action] = []
    if top_rank is None:  # P-3: a lead, one or more cards of one rank; no pass
        for _, cards in groups:
            if len(cards) == 1:
                out.append({"play": cards})
                continue
            for k in range(1, len(cards) + 1):
                for combo in combinations(cards, k):
                    out.append({"play": list(combo)})
        for card in eights:
            out.append({"play": [card]})
        return out
    strength = REVERSED if revolution else NORMAL
    floor = strength[top_rank]
    for rank, cards in groups:
        if strength[rank] < floor or len(cards) < top_count:
            continue
        if top_count == 1:
            for card in cards:
                out.append({"play": [card]})
        elif len(cards) == top_count:
            out.append({"play": cards})
        else:
            for combo in combinations(cards, top_count):
                out.append({"play": list(combo)})
    if (
        (top_rank == "2" or top_rank == "X")
        and hand
        and hand[0] == "3C"  # 3C sorts first in hand order
        and not (top_count == 1 and strength["3"] >= floor)
    ):
        out.append({"play": ["3C"]})  # P-6
    for card in eights:
        out.append({"play": [card]})  # P-5
    out.append(PASS)
    return out


def deal_hands(deck: list[str], dealer: int, extra: int) -> list[list[str]]:
    """P-1, P-10: one card at a time from the dealer's left, 13 each; the cards past 52 to `extra`."""
    hands: list[list[str]] = [[] for _ in range(PLAYERS)]
    for i in range(52):
        hands[(dealer + 1 + i) % PLAYERS].append(deck[i])
    hands[extra].extend(deck[52:])
    return hands


class PresidenteState(GameState):
    """The whole state of one Presidente match."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self._pending: Shuffle | None = None  # the round's shuffle, asked for and not yet dealt (C-2)
        self.jokers: bool = bool(config.get("jokers", False))
        self.rounds: int = int(config.get("rounds", 5))
        self.deal = 0
        self.dealer = -1
        self.hands: list[list[str]] = [[] for _ in range(PLAYERS)]
        self.phase = "play"  # "exchange", "play" or "over"
        self.turn: int | None = None
        self.reigning = 1  # the reigning President (P-8); round 1: seat left of the dealer
        self.prev_places: list[int] | None = None  # last round's places (None in round 1)
        self.prev_roles: list[str] | None = None
        self.history: list[list[int]] = []  # each finished round's points per seat
        self._out: list[Output] = []
        self._legal: list[Action] | None = None
        self._reset_round()

    # -- round setup ---------------------------------------------------------------------------

    def _reset_round(self) -> None:
        self.places: list[int | None] = [None] * PLAYERS
        self.next_place = 1
        self.active = [True] * PLAYERS  # not finished and not blocked
        self.n_active = PLAYERS
        self.blocked: int | None = None  # the fallen President (P-8)
        self.revolution = False
        self.table: list[tuple[int, list[str]]] = []  # the current trick: (seat, cards) per play
        self.top_rank: str | None = None
        self.top_count = 0
        self.last_player: int | None = None
        self.run_rank: str | None = None  # P-7: the rank of the run in progress in this trick
        self.run_count = 0
        self.passed = [False] * PLAYERS
        self.discards: list[str] = []  # cards of this round's cleared tricks
        self.citizens: tuple[int, ...] = ()
        self.gifts: list[list[str]] = [[] for _ in range(PLAYERS)]  # citizens' choices so far
        self.partner: list[int | None] = [None] * PLAYERS
        self.gave: list[list[str]] = [[] for _ in range(PLAYERS)]
        self.got: list[list[str]] = [[] for _ in range(PLAYERS)]
        self.exchanged = False

    def _deal_round(self) -> None:
        """Ask for the next round's shuffle (C-2): every card, in a fixed order; dealt by `apply_chance`."""
        self.deal += 1
        self.dealer = (self.deal - 1) % PLAYERS  # round 1: seat 0 deals; then the deal passes left
        self.turn = None
        self._pending = Shuffle(DECK_WITH_JOKERS if self.jokers else DECK, "deal")

    def chance(self) -> Shuffle | None:
        return self._pending

    def apply_chance(self, deck: list[str]) -> None:
        """Deal the shuffled deck (P-1, P-10) and start the round."""
        if self._pending is None:
            raise RulesError("presidente: no deal is pending")
        self._pending = None
        self._begin_round(deal_hands(deck, self.dealer, self._extra_seat()))

    def _extra_seat(self) -> int:
        """P-10: who gets the two cards past 52 (the jokers' deal): the Slave; round 1 the dealer."""
        return self.dealer if self.prev_places is None else self.prev_places.index(4)

    def _begin_round(self, hands: list[list[str]]) -> None:
        """Start a round with these hands as dealt: deal record, deal events, exchange or play."""
        self._reset_round()
        self.hands = [sort_hand(h) for h in hands]
        if self.prev_places is None:
            self.reigning = (self.dealer + 1) % PLAYERS  # P-1: the initial President
        else:
            self.reigning = self.prev_places.index(1)
        self._out.append(
            Record({"type": "deal", "deal": self.deal, "dealer": self.dealer, "hands": [list(h) for h in self.hands]})
        )
        for seat in range(PLAYERS):
            self._out.append(
                Event(
                    "deal",
                    {
                        "round": self.deal,
                        "dealer": self.dealer,
                        "hand": list(self.hands[seat]),
                        "president": self.reigning,
                        "roles": None if self.prev_roles is None else list(self.prev_roles),
                    },
                    (seat,),
                )
            )
        if self.prev_places is None:
            self.phase = "play"
            self.turn = self.reigning  # P-1: the initial President leads
        else:
            # P-9: the Citizens choose, the 2nd place first, then the 3rd
            self.phase = "exchange"
            self.citizens = (self.prev_places.index(2), self.prev_places.index(3))
            c1, c2 = self.citizens
            self.partner = [None] * PLAYERS
            self.partner[c1], self.partner[c2] = c2, c1
            president, slave = self.prev_places.index(1), self.prev_places.index(4)
            self.partner[president], self.partner[slave] = slave, president
            self.turn = c1

    # -- the GameState interface ---------------------------------------------------------------

    def to_act(self) -> int | None:
        return self.turn

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            seat = self.turn
            if seat is None:
                return []
            if self.phase == "exchange":
                chosen = self.gifts[seat]
                legal = [{"give": c} for c in self.hands[seat] if c not in chosen]
            else:
                legal = plays(self.hands[seat], self.top_rank, self.top_count, self.revolution)
            self._legal = legal
        return legal

    def resolve(self, action: Any) -> Action | None:
        """A legal action, accepting a play's cards in any order; a pass must be JSON true."""
        if isinstance(action, dict) and "pass" in action and action["pass"] is not True:
            return None  # {"pass": 1} equals {"pass": True} in Python, but 1 is not true
        if isinstance(action, dict) and isinstance(action.get("play"), list) and len(action) == 1:
            cards = action["play"]
            if all(isinstance(c, str) and c in HAND_KEY for c in cards):
                action = {"play": sorted(cards, key=_hand_key)}
        for legal in self.legal_actions():
            if legal == action:
                return legal
        return None

    def apply(self, action: Action) -> None:
        legal = self.legal_actions()
        for member in legal:  # an action picked from the legal list: legal as it is
            if member is action:
                break
        else:
            if "pass" in action and action["pass"] is not True or action not in legal:
                raise RulesError(f"presidente: {action!r} is not legal for seat {self.turn}")
        seat = self.turn
        assert seat is not None
        self._legal = None
        if "give" in action:
            self._give(seat, action["give"])
        elif "pass" in action:
            self._pass(seat)
        else:
            self._play(seat, list(action["play"]))

    def drain(self) -> list[Output]:
        out, self._out = self._out, []
        return out

    def outcome(self) -> Outcome:
        points = list(self.history[-1]) if self.history else [0] * PLAYERS
        return Outcome(points, [float(p) for p in points])  # P-8: the round-5 points

    def zones(self) -> dict[str, list[str]]:
        zones = {f"hand{seat}": list(hand) for seat, hand in enumerate(self.hands)}
        zones["table"] = [card for _, cards in self.table for card in cards]
        zones["discards"] = list(self.discards)
        return zones

    def hidden_from(self, seat: int) -> set[str]:
        hidden: set[str] = set()
        for other, hand in enumerate(self.hands):
            if other != seat:
                hidden.update(hand)
        # P-9: a giver knows where its gifts are (while they stay in the receiver's hand)
        hidden.difference_update(self.gave[seat])
        return hidden

    def observe(self, seat: int) -> dict[str, Any]:
        partner = self.partner[seat]
        return {
            "seat": seat,
            "to_act": self.turn,
            "round": self.deal,
            "rounds": self.rounds,
            "dealer": self.dealer,
            "phase": self.phase,
            "hand": list(self.hands[seat]),
            "table": [{"seat": s, "cards": list(cards)} for s, cards in self.table],
            "count": self.top_count,
            "last_player": self.last_player,
            "run": self.run_count,
            "revolution": self.revolution,
            "passed": list(self.passed),
            "cards_left": [len(h) for h in self.hands],
            "places": list(self.places),
            "president": self.reigning,
            "blocked": self.blocked,
            "roles": None if self.prev_roles is None else list(self.prev_roles),
            "exchange": None
            if partner is None
            else {
                "with": partner,
                "gave": list(self.gave[seat] if self.exchanged else self.gifts[seat]),
                "got": list(self.got[seat]),
                "done": self.exchanged,
            },
            "discards": list(self.discards),
            "points": [list(p) for p in self.history],
        }

    # -- exchange (P-9) ------------------------------------------------------------------------

    def _give(self, seat: int, card: str) -> None:
        chosen = self.gifts[seat]
        chosen.append(card)
        if len(chosen) < GIFTS:
            return
        c1, c2 = self.citizens
        if seat == c1:
            self.turn = c2
            return
        self._hand_over()

    def _hand_over(self) -> None:
        """Every gift is chosen from the hands as dealt, then all four are handed over together."""
        places = self.prev_places
        assert places is not None
        president, slave = places.index(1), places.index(4)
        c1, c2 = self.citizens
        gifts = {
            slave: highest(self.hands[slave], GIFTS),
            president: lowest(self.hands[president], GIFTS),
            c1: list(self.gifts[c1]),
            c2: list(self.gifts[c2]),
        }
        for giver, cards in gifts.items():
            hand = self.hands[giver]
            for card in cards:
                hand.remove(card)
        for giver, cards in gifts.items():
            receiver = self.partner[giver]
            assert receiver is not None
            self.hands[receiver].extend(cards)
            self.gave[giver] = sort_hand(cards)
            self.got[receiver] = sort_hand(cards)
        for seat in range(PLAYERS):
            self.hands[seat].sort(key=_hand_key)
            self._out.append(
                Event(
                    "exchange",
                    {"with": self.partner[seat], "gave": list(self.gave[seat]), "got": list(self.got[seat])},
                    (seat,),
                )
            )
        self.exchanged = True
        self.phase = "play"
        self.turn = president  # P-9: the President leads rounds 2+

    # -- play (P-3..P-8) -----------------------------------------------------------------------

    def _play(self, seat: int, cards: list[str]) -> None:
        hand = self.hands[seat]
        for card in cards:
            hand.remove(card)
        count = len(cards)
        rank = cards[0][0]
        finished = not hand
        self._out.append(Event("played", {"seat": seat, "count": count, "cards": list(cards)}, EVERYONE))

        cleared_by = None
        if rank == "8":
            cleared_by = BY_EIGHT  # P-5
        elif count == 1 and cards[0] == "3C" and (self.top_rank == "2" or self.top_rank == "X"):
            cleared_by = BY_THREE_OF_CLUBS  # P-6
        else:
            self.table.append((seat, cards))
            self.top_rank = rank
            self.top_count = count
            self.last_player = seat
            # P-7: consecutive cards of one rank in this trick; passes do not break the run
            if rank == self.run_rank:
                self.run_count += count
            else:
                self.run_rank = rank
                self.run_count = count
            if self.run_count == 4:
                self.revolution = not self.revolution
                self.run_rank, self.run_count = None, 0
                self._out.append(Event("revolution", {"seat": seat, "on": self.revolution}, EVERYONE))

        if cleared_by is not None:
            self.discards.extend(cards)  # before the round can end: a last card that clears is discarded too
        if finished and self._finish(seat):
            return
        if cleared_by is not None:
            self._clear(cleared_by, seat)
        else:
            self._advance(seat)

    def _pass(self, seat: int) -> None:
        self.passed[seat] = True  # P-3: out of the trick until it ends
        self._out.append(Event("passed", {"seat": seat}, EVERYONE))
        self._advance(seat)

    def _advance(self, seat: int) -> None:
        """After `seat` acted: clear the trick if no one but the last player is in it (P-3),
        else the turn goes left, skipping finished, blocked and passed players (P-4)."""
        last = self.last_player
        active, passed = self.active, self.passed
        if not any(active[s] and not passed[s] for s in range(PLAYERS) if s != last):
            assert last is not None
            self._clear(ALL_PASSED, last)
            return
        nxt = (seat + 1) % PLAYERS
        while not active[nxt] or passed[nxt]:
            nxt = (nxt + 1) % PLAYERS
        self.turn = nxt

    def _clear(self, why: str, who: int) -> None:
        """A new trick (P-3, P-5, P-6): `who` leads, or the next active seat to their left."""
        for _, cards in self.table:
            self.discards.extend(cards)
        self.table = []
        self.top_rank, self.top_count, self.last_player = None, 0, None
        self.run_rank, self.run_count = None, 0
        self.passed = [False] * PLAYERS
        leader = who
        while not self.active[leader]:
            leader = (leader + 1) % PLAYERS
        self.turn = leader
        self._out.append(Event("cleared", {"why": why, "leader": leader}, EVERYONE))

    def _finish(self, seat: int) -> bool:
        """`seat` went out: its place, the President's fall (P-8); True if the round ended."""
        place = self.next_place
        self.next_place += 1
        self.places[seat] = place
        self.active[seat] = False
        self.n_active -= 1
        self._out.append(Event("finished", {"seat": seat, "place": place}, EVERYONE))
        if place == 1 and seat != self.reigning:
            fallen = self.reigning
            self.places[fallen] = PLAYERS
            self.active[fallen] = False
            self.n_active -= 1
            self.blocked = fallen
            self._out.append(Event("fell", {"seat": fallen, "place": PLAYERS}, EVERYONE))
        if self.n_active > 1:
            return False
        for s in range(PLAYERS):
            if self.active[s]:
                self.places[s] = self.next_place
                self.active[s] = False
                self.n_active = 0
        self._end_round()
        return True

    def _end_round(self) -> None:
        places = [p for p in self.places if p is not None]
        assert len(places) == PLAYERS
        scores = [POINTS[p] for p in places]
        roles = [ROLES[p] for p in places]
        self.history.append(scores)
        self._out.append(
            Record(
                {
                    "type": "deal_end",
                    "deal": self.deal,
                    "scores": list(scores),
                    "places": list(places),
                    "roles": list(roles),
                    "fallen": self.blocked,
                }
            )
        )
        self._out.append(
            Event(
                "round_end",
                {"round": self.deal, "scores": list(scores), "places": list(places), "roles": list(roles),
                 "fallen": self.blocked},
                EVERYONE,
            )
        )
        self.prev_places, self.prev_roles = places, roles
        for _, cards in self.table:
            self.discards.extend(cards)
        self.table, self.top_rank, self.top_count, self.last_player = [], None, 0, None
        if self.deal < self.rounds:
            self._deal_round()
        else:
            self.phase = "over"
            self.turn = None

    # -- positions for tests -------------------------------------------------------------------

    @classmethod
    def from_position(
        cls,
        hands: list[list[str]],
        to_act: int,
        table: list[tuple[int, list[str]]] = (),  # type: ignore[assignment]
        *,
        revolution: bool = False,
        passed: tuple[int, ...] = (),
        reigning: int = 1,
        places: dict[int, int] | None = None,
        blocked: int | None = None,
        round: int = 1,
        rounds: int = 5,
        jokers: bool | None = None,
        seed: int = 0,
    ) -> PresidenteState:
        """A play-phase position built directly (for tests): hands, the current trick, who has
        passed, places already taken; every other card is put in the discards."""
        if jokers is None:
            jokers = any(c[0] == "X" for h in hands for c in h) or any(c[0] == "X" for _, p in table for c in p)
        state = cls({"jokers": jokers, "rounds": rounds})
        state.deal = round
        state.dealer = (round - 1) % PLAYERS
        state.reigning = reigning
        state.hands = [sort_hand(h) for h in hands]
        state.revolution = revolution
        state.table = [(s, sort_hand(cards)) for s, cards in table]
        if state.table:
            state.last_player = state.table[-1][0]
            state.top_rank = state.table[-1][1][0][0]
            state.top_count = len(state.table[-1][1])
            run = 0
            for _, cards in reversed(state.table):
                if cards[0][0] != state.top_rank:
                    break
                run += len(cards)
            state.run_rank, state.run_count = (state.top_rank, run) if run < 4 else (None, 0)
        for s in passed:
            state.passed[s] = True
        for s, place in (places or {}).items():
            state.places[s] = place
            state.active[s] = False
        if blocked is not None:
            state.places[blocked] = PLAYERS
            state.active[blocked] = False
            state.blocked = blocked
        state.n_active = sum(state.active)
        state.next_place = 1 + sum(1 for s, p in enumerate(state.places) if p is not None and s != blocked)
        used = {c for h in state.hands for c in h} | {c for _, cards in state.table for c in cards}
        deck = DECK_WITH_JOKERS if jokers else DECK
        state.discards = [c for c in deck if c not in used]
        if round > 1:
            state.prev_places = [1, 2, 3, 4]
            state.prev_roles = [ROLES[p] for p in state.prev_places]
        state.turn = to_act
        state.phase = "play"
        return state

    @classmethod
    def at_exchange(
        cls,
        hands: list[list[str]],
        previous_places: list[int],
        *,
        round: int = 2,
        jokers: bool = False,
        seed: int = 0,
    ) -> PresidenteState:
        """A round `round` (>= 2) as dealt with `hands`, after a round with `previous_places`
        (for tests): the exchange is about to start."""
        state = cls({"jokers": jokers, "rounds": max(round, 5)})
        state.deal = round
        state.dealer = (round - 1) % PLAYERS
        state.prev_places = list(previous_places)
        state.prev_roles = [ROLES[p] for p in previous_places]
        state._begin_round([list(h) for h in hands])
        return state
