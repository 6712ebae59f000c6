"""Dealing a Mayor deal (M-1): 18 cards each in packets of three, 6 to the reserve.

Settled here (docs/rules/mayor.md): the shuffled deck is dealt in packets of three,
clockwise from the dealer's left (seat dealer+1 first), six rounds; the last two packets
form the reserve. While the reserve would hold a Mayor, a Special or the Town Hall, the same
PRNG shuffles the deck again (M-1), so the deal is a pure function of the PRNG's state.
"""

from __future__ import annotations

import random

from referee_mayor.cards import DECK, NOT_IN_RESERVE

PLAYERS = 4
HAND = 18
PACKET = 3
RESERVE = 6


def _shuffle(rng: random.Random, x: list) -> None:
    """`rng.shuffle(x)`: the very same permutation from the very same draws of the PRNG, without
    two Python calls per card (CPython's Random.shuffle and _randbelow_with_getrandbits, inlined)."""
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        x[i], x[r] = x[r], x[i]


def _same_as_stdlib() -> bool:
    """Whether `_shuffle` gives this Python's Random.shuffle permutations (checked once at import)."""
    for size in (0, 1, 2, 3, 52, 78, 104):
        a, b = list(range(size)), list(range(size))
        r1, r2 = random.Random(size), random.Random(size)
        random.Random.shuffle(r1, a)
        _shuffle(r2, b)
        if a != b or r1.getstate() != r2.getstate():
            return False
    return True


_FAST = _same_as_stdlib()


def shuffle(rng: random.Random, x: list) -> None:
    """Shuffle `x` in place exactly as `rng.shuffle(x)` does (C-2), faster for a plain Random."""
    if _FAST and type(rng) is random.Random:
        _shuffle(rng, x)
    else:
        rng.shuffle(x)


def shuffle_until_fit(rng: random.Random) -> list[str]:
    """A shuffled deck whose last RESERVE cards may form the reserve (M-1)."""
    deck = list(DECK)
    forbidden = NOT_IN_RESERVE.isdisjoint
    while True:
        shuffle(rng, deck)
        if forbidden(deck[-RESERVE:]):
            return deck


def deal_cards(rng: random.Random, dealer: int) -> tuple[list[list[str]], list[str]]:
    """The hands (seat order, in the order dealt) and the reserve of one deal."""
    deck = shuffle_until_fit(rng)
    hands: list[list[str]] = [[] for _ in range(PLAYERS)]
    for packet in range(PLAYERS * HAND // PACKET):
        seat = (dealer + 1 + packet) % PLAYERS
        hands[seat].extend(deck[packet * PACKET:(packet + 1) * PACKET])
    return hands, deck[PLAYERS * HAND:]
