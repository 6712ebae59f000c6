"""presidente-greedy: a simple Presidente heuristic that plays from the observation alone.

It goes out whenever a play empties its hand, chains an 8 into its last set, leads its lowest
whole set, follows with the lowest set that beats the table (one that breaks no larger set if
it can, and never passes while an ordinary set beats the table), keeps its 8s, 2s, jokers and
the 3 of clubs for when they matter (a short hand, an opponent about to go out, a 2 to clear,
an 8 when nothing else beats the table), starts a revolution when its hand is low (and reverses one when
its hand is high), and as a Citizen gives away its weakest cards.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from referee.players import Strategy
from referee_presidente.cards import NORMAL, REVERSED

LOW_HAND = 4.5  # mean normal strength below which a revolution helps (4.5 is between 7 and 9)
HIGH_HAND = 6.5


def _is_power(card: str, strength: dict[str, int]) -> bool:
    """A card worth saving: an 8, the 3 of clubs, a joker, or the top ordinary rank (2, or 3 in a revolution)."""
    rank = card[0]
    return rank == "8" or card == "3C" or strength[rank] >= 11


class PresidenteGreedy(Strategy):
    """Lowest cards that beat the table; saves 8s, 2s and 3C; revolts when its hand is low."""

    def choose(self, obs: dict[str, Any], legal: list[dict[str, Any]]) -> int:
        if len(legal) == 1:
            return 0
        if obs["phase"] == "exchange":
            return self._gift(obs, legal)
        return self._play(obs, legal)

    # -- P-9: a Citizen's gift ------------------------------------------------------------------

    def _gift(self, obs: dict[str, Any], legal: list[dict[str, Any]]) -> int:
        """The worst card: the lowest non-power card, preferring one that breaks no set."""
        counts = Counter(action["give"][0] for action in legal)

        def badness(i: int) -> tuple[int, float]:
            card = legal[i]["give"]
            if _is_power(card, NORMAL):
                return (1, -NORMAL.get(card[0], 13))
            return (0, NORMAL[card[0]] + (1.5 if counts[card[0]] > 1 else 0.0))

        return min(range(len(legal)), key=badness)

    # -- play ------------------------------------------------------------------------------------

    def _play(self, obs: dict[str, Any], legal: list[dict[str, Any]]) -> int:
        hand: list[str] = obs["hand"]
        revolution: bool = obs["revolution"]
        strength = REVERSED if revolution else NORMAL
        counts = Counter(card[0] for card in hand)
        table = obs["table"]
        top = table[-1]["cards"] if table else None
        options = [(i, a["play"]) for i, a in enumerate(legal) if "play" in a]
        pass_index = next((i for i, a in enumerate(legal) if "pass" in a), None)

        # go out now if a play empties the hand
        for i, cards in options:
            if len(cards) == len(hand):
                return i
        eights = [i for i, cards in options if cards[0][0] == "8"]
        clear_3c = None
        if top is not None and top[0][0] in "2X":
            clear_3c = next((i for i, cards in options if cards == ["3C"]), None)

        # an 8 (or 3C on a 2) with one set behind it: clear, lead the set, out
        rest = [c for c in hand if c[0] != "8"]
        if eights and len({c[0] for c in rest}) <= 1:
            return eights[0]
        if clear_3c is not None and len({c[0] for c in hand if c != "3C" and c[0] != "8"}) <= 1:
            return clear_3c

        # a revolution when it helps: a low hand (or a high one during a revolution)
        ordinary = [NORMAL[c[0]] for c in hand if not _is_power(c, NORMAL)]
        mean = sum(ordinary) / len(ordinary) if ordinary else 6.0
        wants_revolution = mean < LOW_HAND if not revolution else mean > HIGH_HAND
        if wants_revolution:
            for i, cards in options:
                rank = cards[0][0]
                if rank == "8" or rank == "X":
                    continue
                run = obs["run"] if top is not None and top[0][0] == rank else 0
                if run + len(cards) == 4:
                    return i

        others = [n for s, n in enumerate(obs["cards_left"]) if s != self.seat and n > 0 and obs["places"][s] is None]
        matters = len(hand) <= 4 or (bool(others) and min(others) <= 2)

        ranked = [(i, cards) for i, cards in options if cards[0][0] != "8"]

        def cost(item: tuple[int, list[str]]) -> tuple[int, int, int, int]:
            _, cards = item
            rank = cards[0][0]
            saved = any(_is_power(c, strength) for c in cards)
            breaks = counts[rank] - len(cards) - (1 if rank == "3" and "3C" in hand and "3C" not in cards else 0)
            return (int(saved), int(breaks > 0), strength[rank], -len(cards))

        if top is None:
            # lead: the lowest whole set (3C kept back from a set of 3s)
            whole = [
                (i, cards) for i, cards in ranked
                if len(cards) == counts[cards[0][0]] - (1 if cards[0][0] == "3" and "3C" in hand and "3C" not in cards else 0)
            ]
            best = min(whole or ranked, key=cost, default=None)
            if best is not None and cost(best)[0] == 0:
                return best[0]
            if eights:  # only power cards left: an 8 is a free lead
                return eights[0]
            return best[0] if best is not None else options[0][0]

        if clear_3c is not None:  # a 2 or a joker on top: the 3 of clubs was kept for this
            return clear_3c
        best = min(ranked, key=cost, default=None)
        if best is not None:
            saved, breaks, level, _ = cost(best)
            if not saved:
                return best[0]
            if saved and matters:
                return best[0]
        if eights and (matters or best is None):
            return eights[0]
        return pass_index if pass_index is not None else 0
