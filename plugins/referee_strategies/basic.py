"""Strategies that play any game: no knowledge beyond the legal list."""

from __future__ import annotations

import random

from referee.chance import FAST
from referee.players import Strategy


class RandomLegal(Strategy):
    """A uniformly random legal action, from the seat's own seeded PRNG."""

    def __init__(self, game, seat, config, rng) -> None:
        super().__init__(game, seat, config, rng)
        self._fast = (rng, rng.getrandbits) if FAST and type(rng) is random.Random else (None, None)

    def choose(self, obs, legal):
        fast_rng, getrandbits = self._fast
        n = len(legal)
        if fast_rng is not self.rng or not n:
            return self.rng.randrange(n)
        # rng.randrange(n) inlined (referee.chance.randbelow, without its call): the very same numbers
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r


class FirstLegal(Strategy):
    """The first legal action: deterministic and cheap, a baseline and a fallback."""

    def choose(self, obs, legal):
        return 0
