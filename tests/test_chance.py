"""referee.chance: the stdlib's own shuffles and draws (C-2), inlined."""

import random

from referee.chance import FAST, randbelow, shuffle


def test_the_inlined_draws_are_this_pythons_own():
    assert FAST  # CPython's Random: the fast path is the one in use


def test_shuffle_is_random_shuffle_draw_for_draw():
    for seed in range(50):
        for size in (0, 1, 2, 5, 32, 52, 54, 78, 104):
            a, b = list(range(size)), list(range(size))
            r1, r2 = random.Random(seed), random.Random(seed)
            r1.shuffle(a)
            shuffle(r2, b)
            assert a == b and r1.getstate() == r2.getstate()


def test_randbelow_is_randrange():
    r1, r2 = random.Random(7), random.Random(7)
    assert [r1.randrange(n) for n in range(1, 500)] == [randbelow(r2, n) for n in range(1, 500)]


def test_other_prngs_use_their_own_methods():
    class Counting(random.Random):
        calls = 0

        def shuffle(self, x):
            Counting.calls += 1
            super().shuffle(x)

    shuffle(Counting(1), [1, 2, 3])
    assert Counting.calls == 1
