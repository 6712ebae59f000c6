"""referee.chance: a stream per deal and per chance event, and the stdlib's own shuffles and draws
(C-2), inlined."""

import random

from referee.chance import FAST, Streams, randbelow, shuffle


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


def test_streams_draw_128_bits_once_then_derive_each_stream_from_them():
    rng, probe = random.Random(9), random.Random(9)
    streams = Streams(rng)
    base = probe.getrandbits(128)
    assert streams.base == base and rng.getstate() == probe.getstate()
    assert streams.deal(3).getstate() == random.Random(f"{base}/deal/3").getstate()
    assert streams.chance(3, 2).getstate() == random.Random(f"{base}/chance/3/2").getstate()


def test_each_stream_is_its_own_whatever_the_others_drew():
    streams = Streams(random.Random(1))
    first = [streams.deal(2).random() for _ in range(2)]
    assert first[0] == first[1]  # a fresh PRNG each call: drawing from one never moves another
    draws = {streams.deal(1).random(), streams.deal(2).random(), streams.chance(1, 1).random(),
             streams.chance(1, 2).random(), streams.chance(2, 1).random()}
    assert len(draws) == 5
    assert Streams(random.Random(2)).deal(1).random() != streams.deal(1).random()
