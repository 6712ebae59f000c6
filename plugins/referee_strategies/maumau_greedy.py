"""A greedy Mau Mau player, playing from the observation and the legal list alone.

Heuristics, after the seed's own tips: always announce (the legal list carries the due "say");
keep a Jack for emergencies (play one only when nothing else is playable); pass a 7 penalty on
whenever possible; play an 8 (or a 7) against a next player close to going out; otherwise shed
the card worth the most points, preferring a card whose suit the hand can follow next turn.
A Jack names the suit the rest of the hand holds most of.
"""

from __future__ import annotations

from typing import Any

from referee.game import Action
from referee.players import Strategy

_SUITS = ("C", "D", "H", "S")
_POINTS = {r: (10 if r in "TJQKA" else int(r)) for r in "23456789TJQKA"}


class MauMauGreedy(Strategy):
    """Mau Mau heuristic: announces, keeps a Jack, passes 7s on, 8s against a near winner."""

    def choose(self, obs: dict[str, Any], legal: list[Action]) -> int:
        first = legal[0]
        if "suit" in first and "play" not in first:  # MM-6: name the suit of a Jack up-card
            best = self._best_suit(obs["hand"])
            return next(i for i, a in enumerate(legal) if a["suit"] == best)
        plays = [i for i, a in enumerate(legal) if "play" in a]
        if not plays:
            return 0  # draw, take the penalty, or pass: whichever is the one legal action
        hand: list[str] = obs["hand"]
        if obs["phase"] == "drawn" or obs["penalty"]:
            # A playable drawn card is played at once; a pending 7 is passed on (MM-4, MM-5).
            return self._with_suit(legal, plays, hand)
        others = [i for i in plays if legal[i]["play"][0] != "J"]
        if not others:  # the emergency a Jack was kept for
            return self._with_suit(legal, plays, hand)
        threat = self._threat(obs)
        sevens = self.config.get("sevens", True)
        best, best_score = others[0], None
        for i in others:
            card = legal[i]["play"]
            rank, suit = card[0], card[1]
            score = 10 * _POINTS[rank]
            score += 3 * sum(1 for c in hand if c[1] == suit and c != card and c[0] != "J")
            if rank == "8":
                score += 1000 if threat else 5
            elif rank == "7" and sevens:
                score += 500 if threat else 5
            if best_score is None or score > best_score:
                best, best_score = i, score
        return best

    def _threat(self, obs: dict[str, Any]) -> bool:
        """Whether the next player to act after this seat holds one or two cards."""
        active = obs["active"]
        seat = obs["seat"]
        nxt = next((s for s in active if s > seat), active[0])
        return nxt != seat and obs["counts"][nxt] <= 2

    def _with_suit(self, legal: list[Action], plays: list[int], hand: list[str]) -> int:
        """Among plays, a non-Jack (prefer the most points), else a Jack naming the best suit."""
        plain = [i for i in plays if "suit" not in legal[i]]
        if plain:
            return max(plain, key=lambda i: _POINTS[legal[i]["play"][0]])
        jack = legal[plays[0]]["play"]
        rest = list(hand)
        rest.remove(jack)
        best = self._best_suit(rest)
        return next(i for i in plays if legal[i]["play"] == jack and legal[i]["suit"] == best)

    @staticmethod
    def _best_suit(hand: list[str]) -> str:
        """The suit the hand (Jacks aside) holds most of; ties: most points, then C < D < H < S."""
        counts = {s: [0, 0] for s in _SUITS}
        for c in hand:
            if c[0] != "J":
                counts[c[1]][0] += 1
                counts[c[1]][1] += _POINTS[c[0]]
        return max(_SUITS, key=lambda s: (counts[s][0], counts[s][1]))
