"""The referee's answer to a fault (PROTOCOL.md "Faults", ruling C-5), in one place for the
runner that applies it and for `verify` that replays it.

- Every fault counts for its seat. A crash disqualifies at once; otherwise the seat is
  disqualified at its `max_faults`-th fault.
- The referee plays for a seat whose reply was a fault, and for a disqualified seat: the first
  legal action ("first"), or one drawn from the fallback's own PRNG ("random"), seeded by the
  replay header's `limits.fallback_seed` (sealed like the deal; replays older than sealed deals
  seeded it from the match seed).

`verify` reads a replay written by any version, so the policy accepts what a replay's header
may hold: an unknown fallback name gives no expected move (`fallback` returns None), and a
header without `max_faults` disqualifies at a crash only.
"""

from __future__ import annotations

import random
from typing import Any

FALLBACKS = ("first", "random")


class FaultPolicy:
    """Fault counts, disqualifications and the fallback move of one match of `players` seats."""

    __slots__ = ("count", "disqualified", "max_faults", "fallback_name", "_rng")

    def __init__(self, players: int, max_faults: int | None, fallback: str | None, seed: Any = None) -> None:
        self.count = [0] * players
        self.disqualified: set[int] = set()
        self.max_faults = max_faults if isinstance(max_faults, int) and not isinstance(max_faults, bool) else None
        self.fallback_name = fallback
        self._rng = random.Random(f"fallback/{seed}") if fallback == "random" else None

    @classmethod
    def of_header(cls, players: int, header: dict[str, Any]) -> FaultPolicy:
        """The policy a replay's header names (its `limits`)."""
        limits = header.get("limits") if isinstance(header.get("limits"), dict) else {}
        return cls(players, limits.get("max_faults"), limits.get("fallback"),
                   limits.get("fallback_seed", header.get("seed")))

    def fault(self, seat: int, kind: str) -> bool:
        """Count a fault of `seat`; True if it disqualifies the seat now."""
        self.count[seat] += 1
        if seat in self.disqualified:
            return False
        if kind == "crash" or (self.max_faults is not None and self.count[seat] >= self.max_faults):
            self.disqualified.add(seat)
            return True
        return False

    def fallback(self, legal: list[Any]) -> Any:
        """The move the referee plays for a faulting or disqualified seat (None: unknown policy)."""
        if self.fallback_name == "first":
            return legal[0]
        if self._rng is not None:
            return legal[self._rng.randrange(len(legal))]
        return None
