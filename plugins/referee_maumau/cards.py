"""Mau Mau's cards: the two decks, card points (MM-9) and the one strength order (C-4).

Card codes are RULINGS.md C-3: rank `2 3 4 5 6 7 8 9 T J Q K A` + suit `C D H S`.
"""

from __future__ import annotations

from referee.chance import shuffle  # noqa: F401 - re-exported for the rules: the stdlib draws, inlined (C-2)

SUITS: tuple[str, ...] = ("C", "D", "H", "S")
STANDARD_RANKS = "23456789TJQKA"
SKAT32_RANKS = "789TJQKA"  # MM-10: the 32-card Skat deck, 7 to A

#: cards per deck, by the `deck` option
DECK_SIZES: dict[str, int] = {"standard": 52, "skat32": 32}

#: MM-9: A, K, Q, J = 10; 2-10 face value (T = 10)
POINTS: dict[str, int] = {
    r + s: (10 if r in "TJQKA" else int(r)) for r in STANDARD_RANKS for s in SUITS
}

#: C-4: weakest first, by rank then suit (C < D < H < S); hands are kept in this order
ORDER: dict[str, int] = {r + s: 4 * i + j for i, r in enumerate(STANDARD_RANKS) for j, s in enumerate(SUITS)}


def decks_for(players: int) -> int:
    """MM-1: one deck for up to 6 players, two for 7-10."""
    return 1 if players <= 6 else 2


def make_deck(kind: str, copies: int) -> list[str]:
    """Every card of `copies` decks of the given kind, in a fixed canonical order (C-2)."""
    ranks = SKAT32_RANKS if kind == "skat32" else STANDARD_RANKS
    return [r + s for _ in range(copies) for s in SUITS for r in ranks]


def points(hand: list[str]) -> int:
    """The MM-9 value of the cards in a hand."""
    return sum(POINTS[c] for c in hand)
