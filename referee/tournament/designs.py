"""Seating designs: the seatings a duplicate tournament plays each deal seed under.

With `duplicate = true` one deal seed is played several times at a table, re-seated each time,
so that the luck of the deal and of the seat cancels out between the table's entrants. Which
seatings are played is a design. A seating of a k-seat table is a tuple `p` of the table's
positions 0..k-1: `p[s]` is the position, in the table's own order, of the entrant at seat s.
Seat s + 1 (mod k) is the seat after seat s, the next to play. Every design starts with the
table's own order, `(0, 1, ..., k - 1)`.

- `all_orders(k)`: every ordering, k! seatings. Any seat-dependent effect cancels exactly, and
  two entrants that play alike get the very same results (swapping them maps the design onto
  itself).
- `balanced(k)`: pair-balanced, every ordering up to 4 seats, far fewer seatings beyond: any two
  entrants occupy any two distinct seats equally often (see `balanced`).
- `rotation(k)`: the k cyclic rotations (the only design before seating designs existed): each
  entrant sits in each seat once, but its neighbours never change.

Pure functions of k, cached; a design is a tuple of seatings, each a tuple of ints.
"""

from __future__ import annotations

import itertools
import math
from functools import cache

Seating = tuple[int, ...]

#: the designs a tournament file may name (`seating = "..."`), the default first
DESIGNS = ("balanced", "all", "rotation")


def seatings(design: str, k: int) -> tuple[Seating, ...]:
    """The seatings of the named design (one of DESIGNS) for a table of k seats."""
    if design == "balanced":
        return balanced(k)
    if design == "all":
        return all_orders(k)
    if design == "rotation":
        return rotation(k)
    raise ValueError(f"unknown seating design {design!r}")


def size(design: str, k: int) -> int:
    """How many seatings `seatings(design, k)` holds, without building them (k! for "all")."""
    if design == "rotation":
        return k
    kind = "all" if design == "all" else _balanced_kind(k)
    if kind == "affine":
        return k * (k - 1)
    if kind == "projective":
        return k * (k - 1) * (k - 2) // math.gcd(2, k - 2)
    if design in ("all", "balanced"):
        return math.factorial(k)
    raise ValueError(f"unknown seating design {design!r}")


@cache
def rotation(k: int) -> tuple[Seating, ...]:
    """The k rotations: seating r seats table position (s + r) % k at seat s.

    Guarantee: each entrant sits in each seat exactly once. Offsets never change: the entrant d
    seats after another is the same in every seating, so an entrant always plays after the same
    neighbour (in Presidente, the seat before yours largely decides your game).
    """
    return tuple(tuple((s + r) % k for s in range(k)) for r in range(k))


@cache
def all_orders(k: int) -> tuple[Seating, ...]:
    """Every ordering of the k positions (k! seatings, in lexicographic order).

    Guarantee: exact balance. Every arrangement of the entrants occurs once, so any effect of
    the seats cancels, whatever it depends on; and the design is closed under swapping any two
    entrants, so two entrants that play alike (deterministically, on the same deals) get
    identical results.
    """
    return tuple(itertools.permutations(range(k)))


@cache
def balanced(k: int) -> tuple[Seating, ...]:
    """A pair-balanced design for k seats: every ordering up to 4 seats, a group of seatings beyond.

    Guarantee, for every k: for any two distinct entrants x, y and any two distinct seats i, j,
    the number of seatings with x at seat i and y at seat j is the same (N / (k (k - 1)) for N
    seatings). It follows that each entrant sits in each seat equally often (N / k), and that
    each entrant sits d seats after every other entrant equally often for each offset
    d = 1..k-1 (N / (k - 1)): neighbours, and who plays before whom, are balanced too.

    The design, by table size (N: the seatings per deal seed):
    - k <= 4: `all_orders(k)` (2, 6, 24), exact balance;
    - k a prime power (5, 7, 8, 9, 11, ...): the affine maps x -> a*x + b of the field GF(k)
      (a != 0), N = k (k - 1) (20, 42, 56, 72): sharply 2-transitive, each pair of entrants in
      each pair of seats exactly once, the fewest seatings any pair-balanced design can have;
    - else, k - 1 a prime power q (6, 10, 12, ...): the Moebius maps of PSL(2, q) on the
      projective line GF(q) + {inf}, N = k (k - 1) (k - 2) / gcd(2, k - 2) (60 for 6 seats,
      360 for 10): 2-transitive, each pair of entrants in each pair of seats 2 times (6 seats)
      or 4 times (10 seats). No design does it once for 6 or 10 seats: that would be a sharply
      2-transitive set of permutations, which exists only where a projective plane of that
      order does, and none has order 6 or 10;
    - else (15, 22, ...: neither k nor k - 1 a prime power): `all_orders(k)`.

    Beyond 4 seats the design is not closed under swapping two entrants: two entrants that play
    alike are treated alike only on average, not match for match as with `all_orders`.
    """
    kind = _balanced_kind(k)
    if kind == "affine":
        return _affine(k, *_field(k))
    if kind == "projective":
        return _projective(k - 1, *_field(k - 1))
    return all_orders(k)


def _balanced_kind(k: int) -> str:
    """Which construction `balanced(k)` uses: "all", "affine" or "projective"."""
    if k <= 4:
        return "all"
    if _prime_power(k):
        return "affine"
    if _prime_power(k - 1):
        return "projective"
    return "all"


def _prime_power(q: int) -> tuple[int, int] | None:
    """(p, m) with q = p^m for a prime p, or None."""
    p = next((n for n in range(2, q + 1) if q % n == 0), None)
    if p is None:
        return None
    m, rest = 0, q
    while rest % p == 0:
        rest //= p
        m += 1
    return (p, m) if rest == 1 else None


def _affine(q: int, add: list[list[int]], mul: list[list[int]]) -> tuple[Seating, ...]:
    """AGL(1, q): entrant x (a field element) to seat a*x + b, for a != 0 and every b."""
    out = []
    for a in range(1, q):  # 1 is the field's one: a = 1, b = 0 (the identity) comes first
        for b in range(q):
            out.append(_seating([add[mul[a][x]][b] for x in range(q)]))
    return tuple(out)


def _projective(q: int, add: list[list[int]], mul: list[list[int]]) -> tuple[Seating, ...]:
    """PSL(2, q) on the q + 1 points of the projective line (point q is infinity): the maps
    z -> (a z + b) / (c z + d) with a d - b c a nonzero square, each once, the identity first."""
    inf = q
    neg = [next(y for y in range(q) if add[x][y] == 0) for x in range(q)]
    inv = [0] + [next(y for y in range(q) if mul[x][y] == 1) for x in range(1, q)]
    squares = {mul[x][x] for x in range(1, q)}
    identity = tuple(range(q + 1))
    seen = {identity}
    out = [identity]
    for a, b, c, d in itertools.product(range(q), repeat=4):
        if add[mul[a][d]][neg[mul[b][c]]] not in squares:
            continue
        image = []
        for z in range(q + 1):
            num, den = (a, c) if z == inf else (add[mul[a][z]][b], add[mul[c][z]][d])
            image.append(inf if den == 0 else mul[num][inv[den]])
        p = _seating(image)
        if p not in seen:
            seen.add(p)
            out.append(p)
    return tuple(out)


def _seating(seat_of: list[int]) -> Seating:
    """The seating that puts table position x at seat `seat_of[x]`."""
    p = [0] * len(seat_of)
    for x, s in enumerate(seat_of):
        p[s] = x
    return tuple(p)


@cache
def _field(q: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """The addition and multiplication tables of GF(q), or None if q is not a prime power.

    GF(p^m) is GF(p)[t] / f for the first monic f of degree m (in the order of its coefficients
    as a base-p number) that leaves no zero divisors; element x stands for the polynomial whose
    coefficient of t^i is the i-th base-p digit of x, so 0 and 1 are the field's zero and one.
    """
    power = _prime_power(q)
    if power is None:
        return None
    p, m = power
    digits = [[(x // p**i) % p for i in range(m)] for x in range(q)]

    def number(coeffs: list[int]) -> int:
        return sum(c * p**i for i, c in enumerate(coeffs))

    add = [[number([(u + v) % p for u, v in zip(digits[x], digits[y])]) for y in range(q)] for x in range(q)]
    for low in range(q):  # f = t^m + (the polynomial of `low`)
        f = digits[low]
        mul = [[_times(digits[x], digits[y], f, p, number) for y in range(q)] for x in range(q)]
        if all(mul[x][y] for x in range(1, q) for y in range(1, q)):
            return add, mul
    raise AssertionError(f"no irreducible polynomial of degree {m} over GF({p})")  # there always is one


def _times(x: list[int], y: list[int], f: list[int], p: int, number) -> int:
    """x * y in GF(p)[t] / (t^m + f), as a field element's number."""
    m = len(f)
    prod = [0] * (2 * m)
    for i, u in enumerate(x):
        for j, v in enumerate(y):
            prod[i + j] = (prod[i + j] + u * v) % p
    for top in range(2 * m - 1, m - 1, -1):  # t^m = -f
        c = prod[top]
        if c:
            prod[top] = 0
            for i, fi in enumerate(f):
                prod[top - m + i] = (prod[top - m + i] - c * fi) % p
    return number(prod[:m])
