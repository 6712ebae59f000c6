"""Dealing a Mayor deal (M-1): 18 cards each in packets of three, 6 to the reserve.

Settled here (docs/rules/mayor.md): the shuffled deck is dealt in packets of three,
clockwise from the dealer's left (seat dealer+1 first), six rounds; the last two packets
form the reserve. While the reserve would hold a Mayor, a Special or the Town Hall, the same
PRNG (the deal's own stream, referee.chance.Streams) shuffles the deck again (M-1), so the deal
is a pure function of that PRNG's state.
"""

from __future__ import annotations

import random

from referee.chance import shuffle
from referee_mayor.cards import DECK, NOT_IN_RESERVE

PLAYERS = 4
HAND = 18
PACKET = 3
RESERVE = 6


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
