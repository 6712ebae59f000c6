"""Seeded chance for rules plugins (C-2): one stream per deal and per chance event, and the
stdlib's own draws without its per-call overhead.

`Streams` splits a match's PRNG into independent streams: deal n is shuffled from its own
stream, and so is the k-th chance event of deal n (a reshuffle, a draw). What one deal or event
draws then never shifts another, so a deal seed played under several seatings (a duplicate
tournament) deals every deal identically, however differently the seats play.

`shuffle(rng, x)` is `rng.shuffle(x)` and `randbelow(rng, n)` is `rng.randrange(n)`: the very
same results from the very same PRNG draws (CPython's Random.shuffle and
_randbelow_with_getrandbits, inlined). Checked against this Python's stdlib once at import;
where they differ, or for any other PRNG type, the stdlib methods are called instead.
"""

from __future__ import annotations

import random


def _shuffle(rng: random.Random, x: list) -> None:
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        x[i], x[r] = x[r], x[i]


def _below(getrandbits, n: int) -> int:
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _same_as_stdlib() -> bool:
    for size in (0, 1, 2, 3, 52, 78, 104):
        a, b = list(range(size)), list(range(size))
        r1, r2 = random.Random(size), random.Random(size)
        random.Random.shuffle(r1, a)
        _shuffle(r2, b)
        if a != b or r1.getstate() != r2.getstate():
            return False
    for seed in range(3):
        r1, r2 = random.Random(seed), random.Random(seed)
        if [r1.randrange(n) for n in range(1, 80)] != [_below(r2.getrandbits, n) for n in range(1, 80)]:
            return False
    return True


#: whether the inlined draws are this Python's own (else the stdlib methods are used)
FAST = _same_as_stdlib()


def shuffle(rng: random.Random, x: list) -> None:
    """Shuffle `x` in place exactly as `rng.shuffle(x)` does (C-2), faster for a plain Random."""
    if FAST and type(rng) is random.Random:
        _shuffle(rng, x)
    else:
        rng.shuffle(x)


def randbelow(rng: random.Random, n: int) -> int:
    """Exactly `rng.randrange(n)` for n > 0, faster for a plain Random."""
    if FAST and type(rng) is random.Random:
        return _below(rng.getrandbits, n)
    return rng.randrange(n)


class Streams:
    """The chance streams of one match (C-2): one `random.Random` per deal and per chance event.

    Built from the PRNG handed to `Game.new_state`, of which it draws 128 bits once (the base);
    every stream is then `random.Random(f"{base}/deal/{n}")` or `random.Random(f"{base}/chance/{n}/{k}")`,
    seeded from a string (hashed with SHA-512 by CPython, not by `hash()`), so the same on every
    machine and independent of what any other stream drew. Pure: no global state.
    """

    __slots__ = ("base",)

    def __init__(self, rng: random.Random) -> None:
        self.base: int = rng.getrandbits(128)

    def deal(self, n: int) -> random.Random:
        """A fresh PRNG for dealing deal `n` (1-based): the same whatever happened in earlier deals."""
        return random.Random(f"{self.base}/deal/{n}")

    def chance(self, n: int, k: int) -> random.Random:
        """A fresh PRNG for the `k`-th chance event (1-based) after the deal of deal `n`: the same
        whatever the deal or the other events drew."""
        return random.Random(f"{self.base}/chance/{n}/{k}")
