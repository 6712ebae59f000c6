"""The state of a Mayor match: deal, call, reserve, discards, 18 tricks, Specials, counter, scoring.

One `MayorState` holds a whole match (every deal). The phases of a deal:
  "call"    the candidate (holder of T19) calls a suit (M-2);
  "discard" the candidate, holding the reserve too, puts back 6 allowed cards (M-3);
  "play"    the seat to act plays a card to the trick (M-5..M-7);
  "counter" an opponent of the Thief's player may counter out of turn (M-12).
The match is "over" after the last deal.

Hidden information (M-9) is kept in three places only: `observe` (what a seat knows), the
events' `to` (who sees them) and `hidden_from` (checked by the conformance suite). Until the
called Mayor is played nothing a seat is told depends on who the ally is: piles, team totals,
which pile a trick went to and the effects of a Thief, a Crane or a basic Casino stay unsaid
(the counter offer does not exist yet, M-12). See docs/rules/mayor.md.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from referee.errors import RulesError
from referee.game import EVERYONE, Action, Audience, Event, GameState, Outcome, Output, Record, Shuffle

from referee_mayor.cards import (
    BUILDING,
    CASINO,
    CRANE,
    DECK,
    NOT_IN_RESERVE,
    RANK,
    SPECIAL_SET,
    STOPPERS,
    SUIT,
    SUITS,
    THIEF,
    TOWN_HALL,
    sort_cards,
    strongest,
    votes,
    weakest,
)
from referee_mayor.deal import DEAL_SHUFFLE, PLAYERS, RESERVE, deal_cards
from referee_mayor.scoring import ADVANCED, BASIC, deal_points, number, score_deal

CANDIDATE_TEAM, OPPOSITION = 0, 1
PILE_NAMES = ("candidate", "opposition")
NON_SPECIAL = tuple(c for c in DECK if c not in SPECIAL_SET)
PASS: Action = {"pass": True}
#: M-7, by the suit led: how strongly each card bids for the trick (a Building beats any card of
#: the suit led; higher numbers and ranks first; -1: it cannot win)
_TRICK_STRENGTH = {
    led: {c: 100 + RANK[c] if SUIT[c] == BUILDING else RANK[c] if SUIT[c] == led else -1 for c in DECK}
    for led in SUITS + BUILDING
}
#: the seats after each seat, clockwise (the last one is the seat itself)
_AFTER = tuple(tuple((s + i) % PLAYERS for i in range(1, PLAYERS + 1)) for s in range(PLAYERS))


def _split(hand: list[str]) -> dict[str, list[str]]:
    """The cards of a hand by suit ("R".."G", "T" for Buildings, "" for Specials), in hand order."""
    by_suit: dict[str, list[str]] = {s: [] for s in SUITS + BUILDING}
    by_suit[""] = []
    for card in hand:
        by_suit[SUIT[card]].append(card)
    return by_suit


class MayorState(GameState):
    """A whole Mayor match: `deals` deals of 4 seats, each dealt from the shuffle it asks for (C-2)."""

    # Slots: past 30 attributes CPython 3.11 gives each instance a plain dict, and every attribute
    # access on the hot path would pay a dict lookup.
    __slots__ = ("mode", "advanced", "deals", "deal", "dealer", "totals", "scores", "_out",
                 "_playable_now", "_legal", "phase", "hands", "by_suit", "reserve", "reserve_zone", "discards",
                 "candidate", "called", "mayor", "ally", "team", "revealed", "piles", "pile_votes", "trick_no",
                 "leader", "current", "cursor", "trick_cards", "trick_seats", "played", "led", "top_building",
                 "stopped", "thief", "offers", "played_cards", "played_seats", "winners", "casino", "swap",
                 "_hidden_effects", "_basic_casino_hit", "known", "_observation")

    def __init__(self, mode: str, deals: int, *, start: bool = True) -> None:
        self.mode = mode
        self.advanced = mode == ADVANCED
        self.deals = deals
        self.deal = 1
        self.dealer = 0
        self.totals = [0.0] * PLAYERS
        self.scores: list[int | float] = [0] * PLAYERS  # the totals as reported (2, not 2.0)
        self._out: list[Output] = []
        self._playable_now: list[str] | None = None  # cache for the current decision
        self._legal: list[Action] | None = None  # the last list legal_actions returned for this position
        self._clear_deal()
        if start:
            self._start_deal()

    # -- construction --------------------------------------------------------------------------

    def _clear_deal(self) -> None:
        self.phase = "call"
        self.hands: list[list[str]] = [[] for _ in range(PLAYERS)]  # in canonical order (see _hold)
        self.by_suit: list[dict[str, list[str]]] = [_split([]) for _ in range(PLAYERS)]  # each hand by suit
        self.reserve: list[str] = []  # as dealt; seen by the candidate only (M-3)
        self.reserve_zone: list[str] = []  # cards still lying in the reserve (call phase)
        self.discards: list[str] = []
        self.candidate = 0
        self.called: str | None = None
        self.mayor: str | None = None  # the called Mayor's code
        self.ally: int | None = None  # None: the candidate plays alone
        self.team = [OPPOSITION] * PLAYERS
        self.revealed = False
        self.piles: tuple[list[str], list[str]] = ([], [])
        self.pile_votes = [0, 0]  # advanced mode: the M-14 votes in each pile, kept as the piles change
        self.trick_no = 1
        self.leader = 0
        self.current: int | None = None
        self._new_trick(0)
        self.offers: list[int] = []
        self.played_cards: list[str] = []  # every card of the completed tricks, in play order
        self.played_seats: list[int] = []
        self.winners: list[int] = []
        self.casino: dict[str, Any] | None = None  # the public side of this deal's Casino
        self.swap: tuple[int, int, str, str] | None = None  # advanced Casino: (player, holder, got, gave)
        self._hidden_effects: list[Event] = []  # Crane/basic Casino effects told at the reveal
        self._basic_casino_hit = False
        self.known: list[set[str]] = [{TOWN_HALL} for _ in range(PLAYERS)]  # codes whose place a seat knows
        self._observation = self._observation_template()

    def _hold(self, seat: int, cards: list[str]) -> None:
        """Give `seat` exactly `cards` as its hand: sorted into canonical deck order, and split by suit."""
        hand = sort_cards(cards)
        self.hands[seat] = hand
        self.by_suit[seat] = _split(hand)

    def _take(self, seat: int, card: str) -> None:
        """Remove `card` from the seat's hand."""
        self.hands[seat].remove(card)
        self.by_suit[seat][SUIT[card]].remove(card)

    def _new_trick(self, leader: int) -> None:
        self.leader = leader
        self.cursor = (leader - 1) % PLAYERS  # the last seat to play in turn; the next is after it
        self.trick_cards: list[str] = []  # the trick so far, in play order
        self.trick_seats: list[int] = []
        self.played = [False] * PLAYERS
        self.led: str | None = None  # the suit led: "R".."G", "T" for Buildings, None yet (M-5)
        self.top_building = 0
        self.stopped = False  # a Policeman or T1 is in the trick (M-12)
        self.thief: int | None = None  # the seat that played the Thief in this trick

    def _start_deal(self) -> None:
        """Ask for this deal's shuffle (M-1); `apply_chance` deals it. Nothing else changes meanwhile."""
        self.phase = "deal"  # no seat acts, no action is legal
        self.current = None

    def chance(self) -> Shuffle | None:
        return DEAL_SHUFFLE if self.phase == "deal" else None

    def apply_chance(self, deck: list[str]) -> None:
        """Deal the shuffled deck (M-1) and start the call."""
        if self.phase != "deal":
            raise RulesError("mayor: no deal is pending")
        self._clear_deal()
        dealt, reserve = deal_cards(deck, self.dealer)
        for seat in range(PLAYERS):
            self._hold(seat, dealt[seat])
        self.reserve = list(reserve)
        self.reserve_zone = list(reserve)
        self.candidate = next(s for s in range(PLAYERS) if TOWN_HALL in self.hands[s])  # M-2
        self.current = self.candidate
        self._observation = self._observation_template()
        self._out.append(Record({"type": "deal", "deal": self.deal, "dealer": self.dealer,
                                 "hands": [list(h) for h in dealt], "reserve": list(reserve),
                                 "candidate": self.candidate}))
        for seat in range(PLAYERS):
            self._emit("deal", {"deal": self.deal, "dealer": self.dealer, "hand": list(self.hands[seat]),
                                "candidate": self.candidate}, (seat,))

    @classmethod
    def position(
        cls,
        hands: list[list[str]],
        candidate: int,
        called: str,
        mode: str = BASIC,
        *,
        leader: int | None = None,
        ally: int | None | str = "holder",
        revealed: bool | None = None,
        piles: tuple[list[str], list[str]] = ([], []),
        discards: list[str] = (),
        rest: str = "opposition",
        trick_no: int = 1,
    ) -> "MayorState":
        """A one-deal state at the start of a trick, for tests: hands, piles (bottom first) and
        discards as given; every other card lies at the bottom of the `rest` team's pile."""
        state = cls(mode, 1, start=False)
        state.phase = "play"
        for seat, hand in enumerate(hands):
            state._hold(seat, list(hand))
        state.candidate = candidate
        state.called = called
        state.mayor = called + "M"
        if ally == "holder":
            holder = next((s for s in range(PLAYERS) if state.mayor in state.hands[s]), None)
            if holder is None:
                raise ValueError("the called Mayor is in no hand: say who the ally was")
            ally = None if holder == candidate else holder
        state.ally = ally
        state.team = [CANDIDATE_TEAM if s in (candidate, ally) else OPPOSITION for s in range(PLAYERS)]
        if revealed is None:
            revealed = not any(state.mayor in h for h in state.hands)
        state.revealed = revealed
        state.discards = list(discards)
        used = {c for h in hands for c in h} | set(piles[0]) | set(piles[1]) | set(discards)
        leftover = [c for c in DECK if c not in used]
        own = (list(piles[0]), list(piles[1]))
        team = PILE_NAMES.index(rest)
        own[team][:0] = leftover
        state.piles = own
        state.pile_votes = [votes(own[0]), votes(own[1])]
        state.trick_no = trick_no
        state._new_trick(candidate if leader is None else leader)
        state.current = state.leader
        state._observation = state._observation_template()
        return state

    # -- queries -------------------------------------------------------------------------------

    def to_act(self) -> int | None:
        return self.current

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act (a new list each call; `apply` knows the last one's)."""
        out: list[Action] = []
        self._legal = out
        phase = self.phase
        if phase == "play":
            seat = self.current
            cards = self._playable_now = self._playable(seat)
            for card in cards:
                if card == CASINO:
                    out += [{"play": CASINO, "name": n} for n in self._casino_names(seat)]
                else:
                    out.append({"play": card})
        elif phase == "counter":
            out += [{"play": c} for c in self.hands[self.current] if c in STOPPERS]
            out.append(dict(PASS))
        elif phase == "discard":
            out += [{"discard": c} for c in self.hands[self.candidate] if c not in NOT_IN_RESERVE]
        elif phase == "call":
            out += [{"call": s} for s in SUITS]
        return out

    def _playable_cards(self) -> list[str]:
        """The playable cards of the seat to act, computed once per decision."""
        cards = self._playable_now
        if cards is None:
            cards = self._playable_now = self._playable(self.current)
        return cards

    def _playable(self, seat: int) -> list[str]:
        """M-5, M-6: the cards of the seat's hand that may go to the trick now (Specials always
        may), as a new list in hand order."""
        led = self.led
        if led is None:
            return self.hands[seat].copy()
        by_suit = self.by_suit[seat]
        if led != BUILDING:
            follow = by_suit[led]
            if follow:
                return follow + by_suit[""]
        buildings = by_suit[BUILDING]
        if not buildings:  # no Building: anything goes
            return self.hands[seat].copy()
        top = self.top_building
        if RANK[buildings[-1]] > top:  # beat the highest Building when one can
            buildings = buildings[bisect_left(buildings, top + 1, key=RANK.__getitem__):]
        return buildings + by_suit[""]

    def _casino_names(self, seat: int) -> list[str]:
        """M-11a: basic, every code but the player's hand and CASINO; advanced, every
        non-Special code but the player's hand and the called Mayor."""
        hand = set(self.hands[seat])
        if self.advanced:
            hand.add(self.mayor)
            return [c for c in NON_SPECIAL if c not in hand]
        return [c for c in DECK if c not in hand]  # CASINO is in the hand

    def _is_legal(self, action: Any) -> bool:
        if type(action) is not dict:
            return False
        phase, seat = self.phase, self.current
        if phase == "play":
            card = action.get("play")
            if card == CASINO:
                if len(action) != 2 or CASINO not in self.hands[seat]:
                    return False
                name = action.get("name")
                if type(name) is not str:
                    return False
                if self.advanced:
                    return name in SUIT and name not in SPECIAL_SET and name != self.mayor \
                        and name not in self.hands[seat]
                return name in SUIT and name not in self.hands[seat]
            return len(action) == 1 and type(card) is str and card in self._playable_cards()
        if phase == "counter":
            if "pass" in action:
                return len(action) == 1 and action["pass"] is True
            card = action.get("play")
            return len(action) == 1 and type(card) is str and card in STOPPERS and card in self.hands[seat]
        if phase == "discard":
            card = action.get("discard")
            return len(action) == 1 and type(card) is str and card in self.hands[self.candidate] \
                and card not in NOT_IN_RESERVE
        if phase == "call":
            return len(action) == 1 and action.get("call") in ("R", "Y", "B", "G")
        return False

    def resolve(self, action: Any) -> Action | None:
        if self.current is None or not self._is_legal(action):
            return None
        return dict(action)

    # -- applying ------------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        # an action picked from the last legal list as it is (the runner's common case) needs no check
        for legal in self._legal or ():
            if legal is action:
                break
        else:
            if self.current is None or not self._is_legal(action):
                raise RulesError(f"mayor: {action!r} is not legal for seat {self.current} in phase {self.phase}")
        self._playable_now = self._legal = None
        phase = self.phase
        if phase == "play":
            seat = self.current
            self.cursor = seat
            self._play(seat, action["play"], action.get("name"), counter=False)
        elif phase == "counter":
            seat = self.offers.pop(0)
            if "pass" in action:
                # no event: a pass would tell the table this seat holds a Policeman or T1
                if self.offers:
                    self.current = self.offers[0]
                    return
                self.phase = "play"
                self.current = self._next_seat()
            else:
                self.offers = []
                self.phase = "play"
                self._play(seat, action["play"], None, counter=True)
        elif phase == "discard":
            self._discard(action["discard"])
        else:
            self._call(action["call"])

    def _call(self, suit: str) -> None:
        """M-2 then M-3: the call, and the candidate takes the reserve."""
        c = self.candidate
        self.called = suit
        self.mayor = suit + "M"
        self._observation = self._observation_template()
        holder = next(s for s in range(PLAYERS) if self.mayor in self.hands[s])
        self.ally = None if holder == c else holder
        self.team = [CANDIDATE_TEAM if s in (c, self.ally) else OPPOSITION for s in range(PLAYERS)]
        self._emit("called", {"seat": c, "suit": suit}, EVERYONE)
        if self.ally is not None:
            self._emit("role", {"role": "ally", "candidate": c, "suit": suit}, (self.ally,))
        self._hold(c, self.hands[c] + self.reserve_zone)
        self.reserve_zone = []
        self._emit("reserve", {"seat": c, "cards": list(self.reserve)}, (c,))
        self._emit("reserve_taken", {"seat": c}, tuple(s for s in range(PLAYERS) if s != c))
        self.phase = "discard"

    def _discard(self, card: str) -> None:
        c = self.candidate
        self._take(c, card)
        self.discards.append(card)
        self._emit("discarded", {"seat": c, "card": card}, (c,))
        self._emit("discarded", {"seat": c}, tuple(s for s in range(PLAYERS) if s != c))
        if len(self.discards) == RESERVE:
            self.phase = "play"
            self._new_trick(c)  # M-4: the candidate leads the first trick
            self.current = c

    def _play(self, seat: int, card: str, name: str | None, counter: bool) -> None:
        """One card to the trick: its effects (M-5, M-10, M-11), the reveal (M-9), then who acts."""
        suit = SUIT[card]
        self.hands[seat].remove(card)  # as _take
        self.by_suit[seat][suit].remove(card)
        self.trick_cards.append(card)
        self.trick_seats.append(seat)
        self.played[seat] = True
        if suit:
            if self.led is None:
                self.led = suit  # M-5: the first non-Special card sets the suit led
            if suit == BUILDING and RANK[card] > self.top_building:
                self.top_building = RANK[card]
        if card in STOPPERS:
            self.stopped = True
        elif card == THIEF:
            self.thief = seat
        full = len(self.trick_cards) == PLAYERS
        data: dict[str, Any] = {"seat": seat, "card": card}
        if name is not None:
            data["name"] = name
        if counter:
            data["counter"] = True
        self._out.append(Event("played", data, EVERYONE))
        if card == self.mayor:
            self._reveal()
        elif card == CASINO:
            self._casino(seat, name)
        elif card == CRANE:
            self._crane(seat)
        if full:
            self._finish_trick()
            return
        if card == THIEF and not counter:
            self.offers = self._counter_offers(seat)
            if self.offers:
                self.phase = "counter"
                self.current = self.offers[0]
                return
        self.current = self._next_seat()

    def _next_seat(self) -> int:
        played = self.played
        for s in _AFTER[self.cursor]:
            if not played[s]:
                return s
        raise RulesError("mayor: no seat left to play in the trick")

    def _counter_offers(self, thief: int) -> list[int]:
        """M-12: opponents of the Thief's player, from its left, still to play, holding ?P or T1."""
        if not self.revealed or self.stopped:
            return []
        offers = []
        for i in range(1, PLAYERS):
            s = (thief + i) % PLAYERS
            if not self.played[s] and self.team[s] != self.team[thief] \
                    and any(c in STOPPERS for c in self.hands[s]):
                offers.append(s)
        return offers

    def _reveal(self) -> None:
        """M-9: the called Mayor is played; teams, piles and held-back effects become public."""
        self.revealed = True
        self._observation = self._observation_template()
        self._emit("ally_revealed", {"seat": self.ally if self.ally is not None else self.candidate,
                                     "candidate": self.candidate, "alone": self.ally is None}, EVERYONE)
        if self.casino is not None and self.casino["hit"] is None and not self.advanced:
            self.casino["hit"] = self._basic_casino_hit
        self._out.extend(self._hidden_effects)
        self._hidden_effects = []

    def _move_top(self, seat: int, k: int) -> list[str]:
        """M-8: the top k cards (fewer if smaller) of the opposing pile, as a block, onto the
        mover's team pile."""
        team = self.team[seat]
        mine, theirs = self.piles[team], self.piles[1 - team]
        block = theirs[len(theirs) - min(k, len(theirs)):]
        del theirs[len(theirs) - len(block):]
        mine.extend(block)
        if self.advanced:
            moved = votes(block)
            self.pile_votes[team] += moved
            self.pile_votes[1 - team] -= moved
        return block

    def _crane(self, seat: int) -> None:
        """M-10 (two cards) / M-11 (one card) from the top of the opposing pile."""
        block = self._move_top(seat, 1 if self.advanced else 2)
        self._effect(Event("crane", {"seat": seat, "moved": len(block), "cards": block}, EVERYONE))

    def _casino(self, seat: int, name: str) -> None:
        if self.advanced:
            self._advanced_casino(seat, name)
            return
        # M-10: the exact top card of the opposing pile moves the top three
        theirs = self.piles[1 - self.team[seat]]
        hit = bool(theirs) and theirs[-1] == name
        block = self._move_top(seat, 3) if hit else []
        self.casino = {"seat": seat, "name": name, "hit": hit if self.revealed else None}
        self._basic_casino_hit = hit
        self._effect(Event("casino", {"seat": seat, "name": name, "hit": hit, "moved": len(block),
                                      "cards": block}, EVERYONE))

    def _effect(self, event: Event) -> None:
        """A pile effect is public once the teams are; before the reveal it is held back (M-9)."""
        if self.revealed:
            self._out.append(event)
        else:
            self._hidden_effects.append(event)

    def _advanced_casino(self, seat: int, name: str) -> None:
        """M-11: the named card, if an opponent holds it, is swapped for the player's weakest."""
        own = [c for c in self.hands[seat] if c not in SPECIAL_SET and c != self.mayor]
        if not own:  # nothing to give: no effect, and nothing is checked
            self.casino = {"seat": seat, "name": name, "hit": None}
            self._emit("casino", {"seat": seat, "name": name, "hit": None}, EVERYONE)
            return
        holder = next((s for s in range(PLAYERS) if self.team[s] != self.team[seat] and name in self.hands[s]),
                      None)
        self.casino = {"seat": seat, "name": name, "hit": holder is not None}
        self._emit("casino", {"seat": seat, "name": name, "hit": holder is not None}, EVERYONE)
        if holder is None:
            return
        gave = weakest(own)  # picked before the swap
        self._take(seat, gave)
        self._take(holder, name)
        self._hold(seat, self.hands[seat] + [name])
        self._hold(holder, self.hands[holder] + [gave])
        self.swap = (seat, holder, name, gave)
        for s in range(PLAYERS):
            self.known[s].add(name)  # public: the name hit, so the player holds it now
            if gave in self.known[s] and s not in (seat, holder):
                self.known[s].discard(gave)  # e.g. T19 left the candidate for an unknown hand
        self.known[seat].add(gave)
        self._emit("casino_swap", {"seat": seat, "name": name, "gave": gave}, (seat, holder))

    def _winner(self) -> int:
        """M-7: the highest Building, else the highest card of the suit led."""
        cards = self.trick_cards
        return self.trick_seats[cards.index(max(cards, key=_TRICK_STRENGTH[self.led].__getitem__))]

    def _finish_trick(self) -> None:
        """M-8, M-10, M-11: the trick's cards go to the piles; the winner leads next."""
        cards, team, piles = self.trick_cards, self.team, self.piles
        winner = self._winner()
        thief = self.thief
        success = thief is not None and not self.stopped
        stolen = None
        if SPECIAL_SET.isdisjoint(cards):  # M-8: no Special (so no Thief), the winner's team takes all
            piles[team[winner]].extend(cards)
            if self.advanced:  # M-14: the votes its pile just got
                self.pile_votes[team[winner]] += votes(cards)
        else:
            trick = list(zip(self.trick_seats, cards))
            sizes = (len(piles[0]), len(piles[1]))
            if success and not self.advanced:
                piles[team[thief]].extend(cards)  # M-10: the whole trick
            else:
                normal = [c for c in cards if c not in SPECIAL_SET]
                if success and team[thief] != team[winner]:
                    stolen = strongest(normal)  # M-11: the most votes, ties by C-4
                    normal.remove(stolen)
                piles[team[winner]].extend(normal)
                if stolen is not None:
                    piles[team[thief]].append(stolen)
                for seat, card in trick:
                    if card in SPECIAL_SET:
                        own = card == THIEF and success  # M-8: a successful Thief stays home
                        piles[team[seat] if own else 1 - team[seat]].append(card)
            if self.advanced:  # M-14: add the votes of the cards each pile just got
                pile_votes = self.pile_votes
                pile_votes[0] += votes(piles[0][sizes[0]:])
                pile_votes[1] += votes(piles[1][sizes[1]:])
        data: dict[str, Any] = {"trick": self.trick_no, "leader": self.leader, "winner": winner,
                                "cards": cards.copy(), "seats": self.trick_seats.copy()}
        if self.revealed:
            # the pile that got the trick: the Thief's, when a basic Thief takes it all (M-10)
            data["pile"] = PILE_NAMES[team[thief] if success and not self.advanced else team[winner]]
            if thief is not None:
                data["thief"] = {"seat": thief, "success": success}
                if stolen is not None:
                    data["thief"]["stolen"] = stolen
        self._out.append(Event("trick", data, EVERYONE))
        self.played_cards.extend(cards)
        self.played_seats.extend(self.trick_seats)
        self.winners.append(winner)
        self.trick_no += 1
        self._new_trick(winner)
        if any(self.hands):
            self.current = winner
        else:
            self._end_deal()

    def _end_deal(self) -> None:
        """M-13..M-15: the candidate team's pile plus the discards against the threshold."""
        alone = self.ally is None
        result = score_deal(self.mode, self.piles[CANDIDATE_TEAM], self.discards, alone)
        points = deal_points(result.won, self.candidate, self.ally)
        for s in range(PLAYERS):
            self.totals[s] += points[s]
        self.scores = [number(t) for t in self.totals]
        scores = [number(p) for p in points]
        fields = {"deal": self.deal, "scores": scores, "candidate": self.candidate, "ally": self.ally,
                  "called": self.called, "mode": self.mode,
                  "count" if self.mode == BASIC else "votes": result.made,
                  "specials": result.specials, "threshold": result.threshold, "won": result.won}
        self._out.append(Record({"type": "deal_end", **fields, "totals": [number(t) for t in self.totals]}))
        self._emit("deal_end", {**fields, "scores": list(scores), "totals": [number(t) for t in self.totals]},
                   EVERYONE)
        if self.deal >= self.deals:
            self.phase = "over"
            self.current = None
            return
        self.deal += 1
        self.dealer = (self.dealer + 1) % PLAYERS  # M-4: the deal passes left
        self._start_deal()

    def _emit(self, kind: str, data: dict[str, Any], to: Audience) -> None:
        self._out.append(Event(kind, data, to))

    # -- what seats see ------------------------------------------------------------------------

    def observe(self, seat: int) -> dict[str, Any]:
        c = self.candidate
        called = self.called
        revealed = self.revealed
        if seat == c:
            role = "candidate"
        elif called is None:
            role = None
        else:
            role = "ally" if seat == self.ally else "opposition"
        knows_teams = revealed or role == "ally" or (seat == c and called is not None and self.ally is None)
        hand0, hand1, hand2, hand3 = hands = self.hands  # PLAYERS == 4
        # A copy of the template (every key in order, the fields fixed for a while filled in) with
        # the other fields set: cheaper in CPython 3.11 than building the 25-key dict (and
        # list.copy()/dict.copy() are the cheapest fresh copies).
        obs = self._observation.copy()
        obs["seat"] = seat
        obs["to_act"] = self.current
        obs["phase"] = self.phase
        obs["scores"] = self.scores.copy()
        obs["hand"] = hands[seat].copy()
        obs["hand_sizes"] = [len(hand0), len(hand1), len(hand2), len(hand3)]
        obs["role"] = role
        # the ally's seat, as far as this seat knows (None: unknown, or the candidate is alone)
        obs["ally"] = self.ally if knows_teams else None
        obs["alone"] = (self.ally is None) if knows_teams else None
        obs["trick_no"] = self.trick_no
        obs["leader"] = self.leader
        obs["led"] = self.led
        obs["trick_cards"] = self.trick_cards.copy()
        obs["trick_seats"] = self.trick_seats.copy()
        obs["played_cards"] = self.played_cards.copy()
        obs["played_seats"] = self.played_seats.copy()
        obs["winners"] = self.winners.copy()
        obs["casino"] = self.casino.copy() if self.casino is not None else None
        if seat == c and called is not None:
            obs["reserve"] = self.reserve.copy()
            obs["discards"] = self.discards.copy()
        if self.swap is not None and seat in self.swap[:2]:
            player, holder, got, gave = self.swap
            obs["swap"] = {"seat": player, "name": got, "gave": gave}
        if revealed:
            cand, opp = self.piles
            obs["piles"] = {"candidate": cand.copy(), "opposition": opp.copy()}
            obs["teams"] = self.team.copy()
            if self.advanced:
                obs["team_votes"] = self.pile_votes.copy()
            else:
                obs["team_cards"] = [len(cand), len(opp)]
        if self.phase == "counter":
            obs["counter"] = {"thief": self.thief}
        return obs

    def _observation_template(self) -> dict[str, Any]:
        """Every key an observation always has, in order, with the fields that stay fixed from the
        deal, the call or the reveal on filled in (mode, deal, deals, dealer, candidate, called,
        revealed); `observe` sets the others. Rebuilt whenever one of these changes."""
        return {
            "seat": None, "to_act": None, "phase": None, "mode": self.mode, "deal": self.deal,
            "deals": self.deals, "dealer": self.dealer, "scores": None, "hand": None, "hand_sizes": None,
            "candidate": self.candidate, "called": self.called, "role": None, "revealed": self.revealed,
            "ally": None, "alone": None, "trick_no": None, "leader": None, "led": None, "trick_cards": None,
            "trick_seats": None, "played_cards": None, "played_seats": None, "winners": None, "casino": None,
        }

    def drain(self) -> list[Output]:
        out, self._out = self._out, []
        return out

    def outcome(self) -> Outcome:
        scores = [number(t) for t in self.totals]
        return Outcome(scores, list(self.totals))

    # -- conformance checks --------------------------------------------------------------------

    def zones(self) -> dict[str, list[str]]:
        zones = {f"hand{s}": list(h) for s, h in enumerate(self.hands)}
        zones["reserve"] = list(self.reserve_zone)
        zones["discards"] = list(self.discards)
        zones["trick"] = list(self.trick_cards)
        zones["pile_candidate"] = list(self.piles[CANDIDATE_TEAM])
        zones["pile_opposition"] = list(self.piles[OPPOSITION])
        return zones

    def hidden_from(self, seat: int) -> set[str]:
        hidden: set[str] = set()
        for s in range(PLAYERS):
            if s != seat:
                hidden.update(self.hands[s])
        hidden.update(self.reserve_zone)  # before the call nobody has seen it
        if seat != self.candidate:
            hidden.update(self.discards)
        hidden -= self.known[seat]
        return hidden
