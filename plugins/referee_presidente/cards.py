"""Presidente's cards: the deck, the two strength orders (P-2, P-7) and the value order (P-9).

Card codes are RULINGS.md C-3: rank `2 3 4 5 6 7 8 9 T J Q K A` + suit `C D H S`, jokers `X1`,
`X2`. A card's rank is its first character (`X` for both jokers). The 8 has no strength: it
only clears (P-5). Everything here is precomputed tables, so the rules stay allocation-light.
"""

from __future__ import annotations

SUITS = "CDHS"
#: every rank that has a strength, weakest first in the normal order (P-2)
RANKED = "34567" "9TJQKA2"

#: the 52-card deck in a fixed order (shuffled by the match's PRNG, C-2)
DECK: tuple[str, ...] = tuple(r + s for r in "23456789TJQKA" for s in SUITS)
JOKERS: tuple[str, ...] = ("X1", "X2")
DECK_WITH_JOKERS: tuple[str, ...] = DECK + JOKERS

#: strength per rank, higher beats lower: normal order (P-2), jokers above the 2s (P-10)
NORMAL: dict[str, int] = {r: i for i, r in enumerate(RANKED)} | {"X": 12}
#: strength per rank during a revolution (P-7): 2 A K ... 4 3, jokers staying on top
REVERSED: dict[str, int] = {r: 11 - i for i, r in enumerate(RANKED)} | {"X": 12}


def _suit(card: str) -> int:
    return int(card[1]) - 1 if card[0] == "X" else SUITS.index(card[1])


def _hand_rank(card: str) -> int:
    return 13 if card[0] == "8" else NORMAL[card[0]]


def _value_rank(card: str) -> int:
    if card == "3C":
        return 13
    return 14 if card[0] == "8" else NORMAL[card[0]]


#: how a hand is shown and grouped: normal strength (3C among the 3s), jokers, then the 8s; suits C<D<H<S
HAND_KEY: dict[str, int] = {c: _hand_rank(c) * 4 + _suit(c) for c in DECK_WITH_JOKERS}
#: P-9's value for the forced gifts: P-2 order with jokers, then 3C, then the 8s on top (ties: C-4)
VALUE_KEY: dict[str, int] = {c: _value_rank(c) * 4 + _suit(c) for c in DECK_WITH_JOKERS}


def sort_hand(cards: list[str]) -> list[str]:
    """The cards in hand order (a new list)."""
    return sorted(cards, key=HAND_KEY.__getitem__)


def highest(cards: list[str], k: int) -> list[str]:
    """The `k` cards of highest P-9 value, strongest first (the Slave's forced gift)."""
    return sorted(cards, key=VALUE_KEY.__getitem__, reverse=True)[:k]


def lowest(cards: list[str], k: int) -> list[str]:
    """The `k` cards of lowest P-9 value, weakest first (the President's forced gift)."""
    return sorted(cards, key=VALUE_KEY.__getitem__)[:k]
