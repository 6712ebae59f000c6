"""Seeded chance for rules plugins (C-2): the stdlib's own draws, without its per-call overhead.

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
