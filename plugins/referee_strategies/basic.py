"""Strategies that play any game: no knowledge beyond the legal list."""

from __future__ import annotations

import random

from referee.players import Strategy


def _below(getrandbits, n: int) -> int:
    """`Random.randrange(n)` for n > 0, inlined: CPython's _randbelow_with_getrandbits."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _same_as_stdlib() -> bool:
    """Whether `_below` draws this Python's Random.randrange numbers (checked once at import)."""
    for seed in range(3):
        a, b = random.Random(seed), random.Random(seed)
        if [a.randrange(n) for n in range(1, 80)] != [_below(b.getrandbits, n) for n in range(1, 80)]:
            return False
    return True


_FAST = _same_as_stdlib()


class RandomLegal(Strategy):
    """A uniformly random legal action, from the seat's own seeded PRNG."""

    def __init__(self, game, seat, config, rng) -> None:
        super().__init__(game, seat, config, rng)
        self._fast = (rng, rng.getrandbits) if _FAST and type(rng) is random.Random else (None, None)

    def choose(self, obs, legal):
        fast_rng, getrandbits = self._fast
        n = len(legal)
        if fast_rng is not self.rng or not n:
            return self.rng.randrange(n)
        # rng.randrange(n) inlined (as `_below`): the very same numbers, without two Python calls
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r


class FirstLegal(Strategy):
    """The first legal action: deterministic and cheap, a baseline and a fallback."""

    def choose(self, obs, legal):
        return 0
