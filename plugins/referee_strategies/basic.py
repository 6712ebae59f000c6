"""Strategies that play any game: no knowledge beyond the legal list."""

from __future__ import annotations

from referee.players import Strategy


class RandomLegal(Strategy):
    """A uniformly random legal action, from the seat's own seeded PRNG."""

    def choose(self, obs, legal):
        return self.rng.randrange(len(legal))


class FirstLegal(Strategy):
    """The first legal action: deterministic and cheap, a baseline and a fallback."""

    def choose(self, obs, legal):
        return 0
