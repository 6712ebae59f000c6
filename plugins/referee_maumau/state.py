"""The state of one Mau Mau match: every round, the tie-break rounds, the totals.

Rules: the seed text (seeds/003_...) plus RULINGS.md MM-1..MM-10; comments cite the ruling ids.
The state is one object with plain lists and ints (no per-move allocation beyond the events it
must emit) because the runner asks it for a decision, a legal list and an observation per move.

Phases of a turn:
- "suit":  the dealer names the suit for a Jack up-card (MM-6);
- "play":  a normal turn, or answering a pending 7 penalty (MM-4);
- "drawn": the seat just drew a playable card and plays it or keeps it (MM-5);
- "over":  the match is over.

Chance: the state never draws. It asks for each round's shuffle, and for a reshuffle before the
move that needs one (MM-8: `_needs_reshuffle` counts the cards the move will draw), with
`chance()`; the move is then made when the outcome comes (`apply_chance`), all at once, as if
the outcome had always been known.
"""

from __future__ import annotations

from bisect import insort
from typing import Any

from referee.errors import RulesError
from referee.game import EVERYONE, Action, Event, GameState, Outcome, Output, Record, Shuffle, penalty

from referee_maumau.cards import ORDER, POINTS, STANDARD_RANKS, SUITS, decks_for, make_deck

SUIT, PLAY, DRAWN, OVER = "suit", "play", "drawn", "over"
MAU, MAU_MAU = "mau", "mau mau"

_ORDER_KEY = ORDER.__getitem__
_DUE = {2: MAU, 1: MAU_MAU}  # MM-7: the announcement a play from a hand of this many cards must carry
_SUIT_ACTIONS = tuple({"suit": s} for s in SUITS)
_CARD_KEYS = ("card", "cards")  # the only event fields that ever carry card codes
#: MM-3: the cards playable on a top card of rank r with suit s to match (key s + r): that suit,
#: that rank, and every Jack
_MATCH: dict[str, frozenset[str]] = {
    s + r: frozenset(c for c in ORDER if c[1] == s or c[0] == r or c[0] == "J") for s in SUITS for r in STANDARD_RANKS
}


class MauMauState(GameState):
    """A whole Mau Mau match (MM-1..MM-10)."""

    # Slots: past 30 attributes CPython 3.11 gives each instance a plain dict, and every attribute
    # access on the hot path would pay a dict lookup.
    __slots__ = ("n", "_request", "_waiting", "_pile", "hand_size", "ace", "seven_chain", "sevens", "voluntary_draw",
                 "announcements", "target", "max_decisions", "max_tiebreaks", "cards", "deal", "dealer", "hands",
                 "counts", "stock", "discard", "suit", "penalty", "chain", "turn", "phase", "drawn", "decisions",
                 "stalled", "totals", "tiebreaks", "winner", "others", "active", "next_seat", "_out", "_legal",
                 "_resolved", "_move_start", "_observation")

    def __init__(self, config: dict[str, Any], players: int, *, deal: bool = True) -> None:
        self.n = players
        self._request: Shuffle | None = None  # the chance outcome the state waits for (C-2)
        self._waiting: tuple[int, Action] | None = None  # the seat and move that wait for a reshuffle
        self._pile: list[str] | None = None  # the reshuffled draw pile, for the move that waited for it
        self.hand_size: int = config["hand_size"]
        self.ace: str = config["ace"]
        self.seven_chain: int = config["seven_chain"]
        self.sevens: bool = config["sevens"]
        self.voluntary_draw: bool = config["voluntary_draw"]
        self.announcements: bool = config["announcements"]
        self.target: int = config["target"]
        self.max_decisions: int = config["max_decisions"]
        self.max_tiebreaks: int = config["max_tiebreaks"]
        self.cards = make_deck(config["deck"], decks_for(players))  # MM-1

        self.deal = 0
        self.dealer = 0  # MM-1: round 1's dealer is seat 0
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.counts = [0] * players  # len() of each hand, kept as the hands change (observe reports it)
        self.stock: list[str] = []  # the draw pile, next card LAST (pop from the end)
        self.discard: list[str] = []  # the discard pile, top card last
        self.suit = ""  # the suit to match: the top card's, or the one named on a Jack (MM-3)
        self.penalty = 0  # pending 7 penalty, in cards (MM-4)
        self.chain = 0  # how many players after the first passed the pending penalty on
        self.turn: int | None = None
        self.phase = PLAY
        self.drawn: str | None = None  # the playable card just drawn (phase "drawn")
        self.decisions = 0  # decisions in this round (MM-8 max_decisions)
        self.stalled = 0  # turns in a row with no play and nothing to draw (MM-8)
        self.totals = [0] * players
        self.tiebreaks = 0  # tie-break rounds played so far (MM-9)
        self.winner: int | None = None  # the last round's winner
        self.others = [tuple(t for t in range(players) if t != s) for s in range(players)]
        self._set_active(list(range(players)))
        self._out: list[Output] = []
        self._legal: list[Action] | None = None
        self._resolved: Action | None = None  # the last action `resolve` returned for this position
        self._move_start = 0
        self._observation = self._observation_template()
        if deal:
            self._start_deal()

    # -- positions for tests -------------------------------------------------------------------

    @classmethod
    def position(
        cls,
        config: dict[str, Any],
        hands: list[list[str]],
        discard: list[str],
        stock: list[str] = (),
        turn: int = 0,
        *,
        suit: str | None = None,
        penalty: int = 0,
        chain: int = 0,
        dealer: int | None = None,
        phase: str = PLAY,
        drawn: str | None = None,
        totals: list[int] | None = None,
        active: list[int] | None = None,
        tiebreaks: int = 0,
        deal: int = 1,
        seed: int = 0,
    ) -> MauMauState:
        """A constructed position (for scenario tests): hands, the discard pile (top last), the
        draw pile (next card first), whose turn, and optionally every other piece of state."""
        n = len(hands)
        state = cls(config, n, deal=False)
        state.deal = deal
        state.dealer = (turn - 1) % n if dealer is None else dealer
        state.hands = [sorted(h, key=_ORDER_KEY) for h in hands]
        state.counts = [len(h) for h in hands]
        state.discard = list(discard)
        state.stock = list(stock)[::-1]
        state.suit = suit if suit is not None else discard[-1][1]
        state.penalty, state.chain = penalty, chain
        state.turn, state.phase, state.drawn = turn, phase, drawn
        if totals is not None:
            state.totals = list(totals)
        if active is not None:
            state._set_active(sorted(active))
        state.tiebreaks = tiebreaks
        state._observation = state._observation_template()
        return state

    # -- the GameState interface -----------------------------------------------------------------

    def to_act(self) -> int | None:
        return self.turn

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act (cached until the next `apply`; do not mutate)."""
        out = self._legal
        if out is not None:
            return out
        out = self._legal = []  # filled below
        turn = self.turn
        phase = self.phase
        if turn is None:
            return out
        if phase == SUIT:  # MM-6
            out.extend(dict(a) for a in _SUIT_ACTIONS)
            return out
        due = _DUE.get(self.counts[turn]) if self.announcements else None  # MM-7, as _due()
        if phase == DRAWN:  # MM-5: play the drawn card at once, or keep it
            self._plays(self.drawn, out, due)
            out.append({"pass": True})
            return out
        last = None
        hand = self.hands[turn]
        if self.penalty:  # MM-4: only a 7 answers a pending penalty, within the chain limit
            if self.seven_chain == 0 or self.chain < self.seven_chain:
                for card in hand:  # sorted, so duplicates (two decks) are adjacent
                    if card[0] == "7" and card != last:
                        self._plays(card, out, due)
                    last = card
        else:  # MM-3
            match = _MATCH[self.suit + self.discard[-1][0]]
            for card in hand:
                if card in match:
                    if card != last:  # sorted, so duplicates (two decks) are adjacent
                        if due or card[0] == "J":
                            self._plays(card, out, due)
                        else:
                            out.append({"play": card})
                    last = card
        if self.penalty:  # MM-4: taking the penalty is always allowed
            out.append({"draw": True})
        elif self.stock or len(self.discard) > 1:  # a card can be drawn (MM-8, as can_draw())
            if not out or self.voluntary_draw:  # MM-5
                out.append({"draw": True})
        elif not out:
            out.append({"pass": True})  # MM-5: no legal play and nothing to draw
        return out

    def resolve(self, action: Any) -> Action | None:
        """The legal action `action` stands for: a play with a missing or wrong announcement
        stands for the same play without one (penalised, MM-7); an announcement that is not
        due is ignored; anything else must be a member of the legal list."""
        if type(action) is not dict:
            return None
        legal = self._legal or self.legal_actions()
        if action in legal:  # the common case: exactly a legal action
            if action.get("draw", True) is not True or action.get("pass", True) is not True:
                return None  # {"draw": 1} equals {"draw": True}, but is not JSON true
            self._resolved = action
            return action
        if "say" in action:
            said = action["say"]
            action = {k: v for k, v in action.items() if k != "say"}
        else:
            said = None
        for key in ("draw", "pass"):
            if key in action and action[key] is not True:
                return None
        if "play" in action:
            due = self._due()
            if due is not None:
                full = dict(action)
                full["say"] = due
                if full in legal:
                    action = full if said == due else action  # MM-7: wrong counts as missing
                    self._resolved = action
                    return action
                return None
        if action in legal:
            self._resolved = action
            return action
        return None

    def apply(self, action: Action) -> None:
        # the runner resolves each action first (or picks it from the legal list): skip
        # resolving the very same object again
        act = action
        if action is not self._resolved:
            for legal in self._legal or ():
                if legal is action:
                    break
            else:
                act = self.resolve(action)
        if act is None or self.turn is None:
            raise RulesError(f"illegal Mau Mau action {action!r} in phase {self.phase!r}")
        if len(self.stock) <= self.penalty + self.n + 1 and self._pile is None and self._needs_reshuffle(act):
            return  # MM-8: the move waits for its reshuffle (chance())
        seat = self.turn
        self._legal = self._resolved = None
        self._move_start = len(self._out)
        if self.phase != DRAWN or "pass" not in act:
            # a drawn card kept is not counted: the others are not told of that decision, and the
            # round's end by max_decisions would tell them (MM-8, docs/rules/maumau.md)
            self.decisions += 1
        if "play" in act:
            ended = self._play(seat, act)
        elif "draw" in act:
            ended = self._draw(seat)
        elif "pass" in act:
            ended = self._pass(seat)
        else:  # MM-6: the dealer names the suit of a Jack up-card
            self.suit = act["suit"]
            self._emit("suit", {"seat": seat, "suit": self.suit})
            self.phase = PLAY
            self.turn = self.next_seat[seat]
            ended = False
        if not ended and self.decisions >= self.max_decisions:
            self._end_round(None, "max_decisions")  # MM-8 safety valve

    def chance(self) -> Shuffle | None:
        return self._request

    def apply_chance(self, outcome: list[str]) -> None:
        """Deal the round from the shuffled deck, or make the move that waited for its reshuffle."""
        request, self._request = self._request, None
        if request is None:
            raise RulesError("maumau: no chance outcome is pending")
        if request.kind == "deal":
            self._deal_from(outcome)
            return
        (seat, act), self._waiting = self._waiting, None
        self.turn, self._pile = seat, outcome
        self._legal, self._resolved = None, act
        self.apply(act)
        if self._pile is not None:
            raise RulesError(f"maumau: a reshuffle asked for and not made (deal {self.deal}, a bug)")

    def _needs_reshuffle(self, act: Action) -> bool:
        """Whether `act` draws more cards than the draw pile holds, with discards to reshuffle (MM-8);
        if so the state asks for the reshuffle of the discards that will be under the top card then."""
        if "draw" in act:
            need = self.penalty or 1  # MM-4, MM-5
            pile = self.discard[:-1]
        elif "play" in act:
            left = self.counts[self.turn] - 1
            said = act.get("say")
            if left == 0 and (said == MAU_MAU or not self.announcements):
                return False  # the round ends (MM-8)
            need = 2 if self.announcements and left <= 1 and said is None else 0  # MM-7
            if act["play"][0] == "A" and self.ace == "draw1":  # MM-10
                need += len(self.active) - 1
            pile = list(self.discard)  # the played card will be the top card
        else:
            return False
        if need <= len(self.stock) or not pile:
            return False
        self._request = Shuffle(tuple(pile), "reshuffle")
        self._waiting = (self.turn, act)
        self.turn = None
        self._legal = self._resolved = None
        return True

    def observe(self, seat: int) -> dict[str, Any]:
        # A copy of the deal's template with the other fields set: about 40% cheaper in CPython
        # 3.11 than building the 18-key dict (copies: list.copy(), the cheapest form).
        turn = self.turn
        discard = self.discard
        obs = self._observation.copy()
        obs["seat"] = seat
        obs["to_act"] = turn
        obs["phase"] = self.phase
        obs["hand"] = self.hands[seat].copy()
        obs["top"] = discard[-1]
        obs["suit"] = self.suit
        obs["penalty"] = self.penalty
        obs["chain"] = self.chain
        obs["drawn"] = self.drawn if seat == turn else None
        obs["counts"] = self.counts.copy()
        obs["stock"] = len(self.stock)
        obs["discard"] = len(discard)
        obs["active"] = self.active.copy()
        obs["totals"] = self.totals.copy()
        return obs

    def _observation_template(self) -> dict[str, Any]:
        """Every key of an observation, in order, with the fields fixed for the deal filled in
        (deal, dealer, tiebreak, target); `observe` sets the others. Rebuilt with each deal."""
        return {
            "seat": None, "to_act": None, "phase": None, "deal": self.deal, "dealer": self.dealer, "hand": None,
            "top": None, "suit": None, "penalty": None, "chain": None, "drawn": None, "counts": None,
            "stock": None, "discard": None, "active": None, "totals": None, "tiebreak": self.tiebreaks,
            "target": self.target,
        }

    def drain(self) -> list[Output]:
        out = self._out
        self._out = []
        self._move_start = 0
        return out

    def outcome(self) -> Outcome:
        """Scores: the match totals; measure: lower total is better (MM-9)."""
        return Outcome(list(self.totals), [-float(t) for t in self.totals])

    def zones(self) -> dict[str, list[str]]:
        zones = {f"hand {s}": list(h) for s, h in enumerate(self.hands)}
        zones["stock"] = self.stock[::-1]
        zones["discard"] = list(self.discard)
        return zones

    def hidden_from(self, seat: int) -> set[str]:
        # Every card of the discard pile was seen by every seat when it was played or turned up.
        hidden = set(self.stock)
        for s in self.others[seat]:
            hidden.update(self.hands[s])
        hidden.difference_update(self.hands[seat])
        hidden.difference_update(self.discard)
        return hidden

    # -- legal actions ---------------------------------------------------------------------------

    def _due(self) -> str | None:
        """The announcement a play by the seat to act must carry now (MM-7), or None."""
        if not self.announcements or self.turn is None:
            return None
        left = len(self.hands[self.turn]) - 1
        return MAU if left == 1 else MAU_MAU if left == 0 else None

    def _plays(self, card: str, out: list[Action], due: str | None) -> None:
        if card[0] == "J":  # MM-3: a Jack always names a suit, its own included
            for s in SUITS:
                out.append({"play": card, "suit": s, "say": due} if due else {"play": card, "suit": s})
        else:
            out.append({"play": card, "say": due} if due else {"play": card})

    def playable(self, card: str) -> bool:
        """Whether `card` may be played now, on the top card and any pending 7 (MM-3, MM-4)."""
        if self.penalty:
            return card[0] == "7" and (self.seven_chain == 0 or self.chain < self.seven_chain)
        return card[0] == "J" or card[1] == self.suit or card[0] == self.discard[-1][0]

    def can_draw(self) -> bool:
        """Whether a card can be drawn: the draw pile, or the discard pile below its top (MM-8)."""
        return bool(self.stock) or len(self.discard) > 1

    # -- moves -----------------------------------------------------------------------------------

    def _play(self, seat: int, act: Action) -> bool:
        card = act["play"]
        hand = self.hands[seat]
        hand.remove(card)
        self.counts[seat] -= 1
        self.discard.append(card)
        self.drawn = None
        self.phase = PLAY
        self.stalled = 0
        rank = card[0]
        said = act.get("say")
        data: dict[str, Any] = {"seat": seat, "card": card}
        if rank == "J":
            self.suit = act["suit"]
            data["suit"] = self.suit
        else:
            self.suit = card[1]
        if said is not None:
            data["say"] = said
        self._out.append(Event("played", data, EVERYONE))
        left = len(hand)
        if left == 0 and (said == MAU_MAU or not self.announcements):
            self._end_round(seat, "mau mau")  # MM-8: any pending power is void
            return True
        if self.announcements and left <= 1 and said is None:
            # MM-7: the missing announcement costs 2 cards before the card's own power applies
            self._out.append(penalty(seat, "announcement", "MM-7", count=2))
            self._give(seat, 2, "announcement")
        nxt = self.next_seat
        if rank == "7" and self.sevens:  # MM-4
            if self.penalty:
                self.chain += 1
            self.penalty += 2
            self.turn = nxt[seat]
        elif rank == "8":  # MM-4: the next player is skipped (2 players: play again)
            skipped = nxt[seat]
            self._emit("skipped", {"seat": skipped, "why": "eight"})
            self.turn = nxt[skipped]
        elif rank == "A" and self.ace == "draw1":  # MM-10: the others draw one each, from the left
            other = nxt[seat]
            while other != seat:
                self._give(other, 1, "ace")
                other = nxt[other]
            self.turn = nxt[seat]
        elif rank == "A" and self.ace == "skip_all":  # MM-10: the player of the Ace plays again
            other = nxt[seat]
            while other != seat:
                self._emit("skipped", {"seat": other, "why": "ace"})
                other = nxt[other]
            self.turn = seat
        else:
            self.turn = nxt[seat]
        return False

    def _draw(self, seat: int) -> bool:
        if self.penalty:  # MM-4: take the pending penalty and lose the turn
            count = self.penalty
            self._emit("penalty", {"seat": seat, "why": "seven", "count": count})
            self._give(seat, count, "seven")
            self.penalty = self.chain = 0
            self.stalled = 0
            self.turn = self.next_seat[seat]
            return False
        card = self._give(seat, 1, "draw")[0]  # MM-5
        self.stalled = 0
        if card in _MATCH[self.suit + self.discard[-1][0]]:  # MM-3, as playable() (no 7 is pending)
            self.phase = DRAWN
            self.drawn = card
        else:
            self.turn = self.next_seat[seat]
        return False

    def _pass(self, seat: int) -> bool:
        if self.phase == DRAWN:  # MM-5: keep the drawn card
            # told to the drawer only: to the others a kept card must look like an unplayable
            # draw (whether the drawn card was playable is hidden information)
            self._out.append(Event("passed", {"seat": seat, "kept": True}, (seat,)))
            self.phase = PLAY
            self.drawn = None
        else:  # MM-5/MM-8: no legal play and nothing to draw
            self._emit("passed", {"seat": seat, "kept": False})
            self.stalled += 1
            if self.stalled >= len(self.active):
                self._end_round(None, "blocked")
                return True
        self.turn = self.next_seat[seat]
        return False

    def _give(self, seat: int, count: int, why: str) -> list[str]:
        """Draw up to `count` cards into `seat`'s hand, reshuffling when needed (MM-8)."""
        got: list[str] = []
        hand = self.hands[seat]
        stock = self.stock
        for _ in range(count):
            if not stock:
                if len(self.discard) <= 1:
                    break  # MM-8: draws what there is
                self._reshuffle()
                stock = self.stock
            card = stock.pop()
            got.append(card)
            insort(hand, card, key=_ORDER_KEY)
        self.counts[seat] = len(hand)
        drawn = len(got)
        out = self._out
        out.append(Event("drew", {"seat": seat, "count": drawn, "cards": got, "why": why}, (seat,)))
        others = self.others[seat]
        if others:
            out.append(Event("drew", {"seat": seat, "count": drawn, "why": why}, others))
        return got

    def _reshuffle(self) -> None:
        """MM-8: the discard pile less its top card becomes the new draw pile, in the order the
        move asked for before it began (`_needs_reshuffle`)."""
        pile, self._pile = self._pile, None
        if pile is None or sorted(pile) != sorted(self.discard[:-1]):
            raise RulesError(f"maumau: a reshuffle the move did not ask for (deal {self.deal}, a bug)")
        self.discard = self.discard[-1:]
        self.stock = pile[::-1]
        self._emit("reshuffle", {"stock": len(pile)})

    # -- rounds ----------------------------------------------------------------------------------

    def _set_active(self, active: list[int]) -> None:
        """The seats playing the coming rounds (all, or the tied seats of a tie-break, MM-9)."""
        self.active = active
        n = self.n
        on = [False] * n
        for s in active:
            on[s] = True
        self.next_seat = [next((s + k) % n for k in range(1, n + 1) if on[(s + k) % n]) for s in range(n)]

    def _start_deal(self) -> None:
        """MM-1: ask for the next round's shuffle (C-2): every card, in a fixed order; dealt by
        `apply_chance`."""
        self.deal += 1
        self.turn = None
        self._request = Shuffle(tuple(self.cards), "deal")

    def dealing_order(self) -> list[int]:
        """The active seats from the dealer's left, in dealing order (MM-1)."""
        order = []
        s = self.next_seat[self.dealer]
        for _ in self.active:
            order.append(s)
            s = self.next_seat[s]
        return order

    def _deal_from(self, deck: list[str]) -> None:
        """MM-1: deal the shuffled deck one at a time from dealer+1, turn the up-card."""
        n = self.n
        order = self.dealing_order()
        self._legal = self._resolved = None
        dealt: list[list[str]] = [[] for _ in range(n)]
        i = 0
        for _ in range(self.hand_size):
            for s in order:
                dealt[s].append(deck[i])
                i += 1
        up = deck[i]
        stock = deck[i + 1 :]
        self.hands = [sorted(h, key=_ORDER_KEY) for h in dealt]
        self.counts = [len(h) for h in dealt]
        self.stock = stock[::-1]
        self.discard = [up]
        self.suit = up[1]
        self.penalty = self.chain = 0
        self.drawn = None
        self.decisions = self.stalled = 0
        self._observation = self._observation_template()
        self._out.append(Record({
            "type": "deal", "deal": self.deal, "dealer": self.dealer, "hands": dealt,
            "stock": stock, "up": up, "active": list(self.active),
        }))
        counts = self.counts
        for seat in range(n):
            self._out.append(Event("deal", {
                "deal": self.deal, "dealer": self.dealer, "hand": list(self.hands[seat]), "up": up,
                "counts": list(counts), "active": list(self.active), "tiebreak": self.tiebreaks,
            }, (seat,)))
        if up[0] == "J":  # MM-6: the dealer names the suit; 7, 8, A up-cards have no effect
            self.phase = SUIT
            self.turn = self.dealer
        else:
            self.phase = PLAY
            self.turn = self.next_seat[self.dealer]

    def _end_round(self, winner: int | None, reason: str) -> None:
        """Score the round (MM-9), then deal the next one, a tie-break, or end the match."""
        # Cards drawn in the move that ends a round (max_decisions) are not told: the next
        # round is dealt in the same step and may already hold them. The winning play is told.
        out = self._out
        for i in range(self._move_start, len(out)):
            ev = out[i]
            if type(ev) is Event and ev.kind != "played" and ("card" in ev.data or "cards" in ev.data):
                out[i] = Event(ev.kind, {k: v for k, v in ev.data.items() if k not in _CARD_KEYS}, ev.to)
        scores = [sum(POINTS[c] for c in h) for h in self.hands]
        totals = self.totals
        for s in range(self.n):
            totals[s] += scores[s]
        self.winner = winner
        out.append(Record({
            "type": "deal_end", "deal": self.deal, "scores": scores, "winner": winner,
            "totals": list(totals), "reason": reason,
        }))
        self._emit("round_end", {
            "deal": self.deal, "winner": winner, "scores": list(scores), "totals": list(totals), "reason": reason,
        })
        if max(totals) >= self.target:  # MM-9: the match ends, unless the lowest total is tied
            low = min(totals)
            tied = [s for s in range(self.n) if totals[s] == low]
            if len(tied) > 1 and self.tiebreaks < self.max_tiebreaks:
                self.tiebreaks += 1
                self._emit("tiebreak", {"seats": list(tied), "tiebreak": self.tiebreaks})
                self.dealer = next((self.dealer + k) % self.n for k in range(1, self.n + 1)
                                   if (self.dealer + k) % self.n in tied)
                self._set_active(tied)
                self._start_deal()
                return
            self.phase = OVER
            self.turn = None
            self.drawn = None
            self._emit("match_end", {"totals": list(totals), "tiebreaks": self.tiebreaks})
            return
        self.dealer = (self.dealer + 1) % self.n  # MM-1: the deal passes left
        self._start_deal()

    def _emit(self, kind: str, data: dict[str, Any]) -> None:
        """Queue a public event (every seat is told)."""
        self._out.append(Event(kind, data, EVERYONE))
