"""The match's chance (C-2): one stream per deal and per chance event, the sampler that draws a
state's chance requests from them, and the stdlib's own draws without its per-call overhead.

A game never draws: its state asks (`GameState.chance()`, referee/game.py) and the runner
answers with `Sampler.sample`, then records the outcome (verify answers from the record).

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
from typing import Any

from referee.errors import PluginError, RulesError
from referee.checks import request_error
from referee.game import DEAL, ChanceRequest, GameState, Shuffle


#: the steps of shuffling a list of each length met so far: (i, i + 1, its bit length), i from the last
_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _shuffle(rng: random.Random, x: list) -> None:
    getrandbits = rng.getrandbits
    steps = _STEPS.get(len(x))
    if steps is None:
        steps = _STEPS[len(x)] = tuple((i, i + 1, (i + 1).bit_length()) for i in range(len(x) - 1, 0, -1))
    for i, n, k in steps:
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

    Built from the match's sealed PRNG (referee.sealing), of which it draws 128 bits once (the base);
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


#: how often a `Shuffle` with an `until` condition is shuffled again before the game is blamed
MAX_SHUFFLES = 10_000


class Sampler:
    """Draws the outcomes of one match's chance requests from its `Streams` (C-2).

    A request of kind `DEAL` is drawn from the deal's stream (`Streams.deal(deal)`); the k-th
    other request after it from `Streams.chance(deal, k)`. The keying is by the deal number and
    the count of events only, never by what the seats did, so a deal seed played under several
    seatings (a duplicate set) deals every deal identically.
    """

    __slots__ = ("streams", "_deal", "_k")

    def __init__(self, streams: Streams) -> None:
        self.streams = streams
        self._deal: int | None = None
        self._k = 0

    def sample(self, request: ChanceRequest, deal: int) -> Any:
        """An outcome of `request` made in deal `deal`: an order of a Shuffle's cards (shuffled as
        `random.shuffle` does, again while its `until` fails), or one of a Choice's options."""
        if request.kind == DEAL:
            rng = self.streams.deal(deal)
            self._deal, self._k = deal, 0
        else:
            if deal != self._deal:
                self._deal, self._k = deal, 0
            self._k += 1
            rng = self.streams.chance(deal, self._k)
        if type(request) is Shuffle:
            order = list(request.cards)
            until = request.until
            for _ in range(MAX_SHUFFLES):
                shuffle(rng, order)
                if until is None or until(order):
                    return order
            raise RulesError(f"no order of the {request.kind} met its condition in {MAX_SHUFFLES} shuffles")
        return request.options[randbelow(rng, len(request.options))]


def settle(state: GameState, sampler: Sampler, label: str = "the game") -> list[dict[str, Any]]:
    """Answer every chance request `state` makes until a seat is to act or the match is over, as
    the runner does (for tests and the conformance kit: it drains nothing); the chance records,
    in order. PluginError naming `label` for a malformed request."""
    records = []
    while state.to_act() is None and (request := state.chance()) is not None:
        records.append(answer(state, request, sampler, label))
    return records


def answer(state: GameState, request: Any, sampler: Sampler, label: str) -> dict[str, Any]:
    """Sample `request`'s outcome, apply it to `state`, and return its replay record
    {"type": "chance", "deal", "kind", "outcome"}; PluginError naming `label` when the plugin
    breaks the contract (a malformed request, an outcome its own state refuses)."""
    error = request_error(request)
    if error is not None:
        raise PluginError(f"{label}: {error}")
    deal = state.deal
    try:
        outcome = sampler.sample(request, deal)
        record = {"type": "chance", "deal": deal, "kind": request.kind, "outcome": outcome}
        state.apply_chance(list(outcome) if type(outcome) is list else outcome)
    except RulesError as exc:
        raise PluginError(f"{label}: the {request.kind} of deal {deal}: {exc}") from None
    return record
