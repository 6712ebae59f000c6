"""Dealing a Mayor deal (M-1): 18 cards each in packets of three, 6 to the reserve.

Settled here (docs/rules/mayor.md): the shuffled deck is dealt in packets of three,
clockwise from the dealer's left (seat dealer+1 first), six rounds; the last two packets
form the reserve. While the reserve would hold a Mayor, a Special or the Town Hall, the deck is
shuffled again (M-1): the state asks for a `Shuffle` of the deck `until` the reserve fits, and
the runner shuffles the same order again from the deal's own stream (referee.chance.Sampler).
"""

from __future__ import annotations

from referee.game import Shuffle
from referee_mayor.cards import DECK, NOT_IN_RESERVE

PLAYERS = 4
HAND = 18
PACKET = 3
RESERVE = 6


def reserve_fits(deck: list[str]) -> bool:
    """M-1: whether the last RESERVE cards of a shuffled deck may form the reserve."""
    return NOT_IN_RESERVE.isdisjoint(deck[-RESERVE:])


#: the chance request of every deal (M-1)
DEAL_SHUFFLE = Shuffle(DECK, "deal", reserve_fits, "M-1: never a Mayor, a Special or T19 in the reserve")


def deal_cards(deck: list[str], dealer: int) -> tuple[list[list[str]], list[str]]:
    """The hands (seat order, in the order dealt) and the reserve of one deal, from the shuffled deck."""
    hands: list[list[str]] = [[] for _ in range(PLAYERS)]
    for packet in range(PLAYERS * HAND // PACKET):
        seat = (dealer + 1 + packet) % PLAYERS
        hands[seat].extend(deck[packet * PACKET:(packet + 1) * PACKET])
    return hands, deck[PLAYERS * HAND:]


def dealt_deck(hands: list[list[str]], reserve: list[str], dealer: int) -> list[str]:
    """The deck that `deal_cards` deals into `hands` and `reserve` (to read old replays' deal records)."""
    deck: list[str] = []
    for packet in range(PLAYERS * HAND // PACKET):
        seat, k = (dealer + 1 + packet) % PLAYERS, packet // PLAYERS
        deck.extend(hands[seat][k * PACKET:(k + 1) * PACKET])
    return deck + list(reserve)
