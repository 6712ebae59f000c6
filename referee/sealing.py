"""Sealed deals: every chance outcome of a match comes from its seed through a secret deal key.

The rules plugins are public, so a deal drawn from `Random(seed)` can be recomputed by any bot
that learns the seed (it used to be part of the match id sent in `hello`, and tournament seeds
derive from the tournament file's public `seed`). Here the seed is only a label: the PRNG of a
match is seeded with HMAC-SHA256(key, label), so without the key neither the deal nor any later
chance outcome (a reshuffle, a strategy's or the fallback's random choice) can be predicted,
and the match id a bot is told is an HMAC too, which names the match without revealing its seed.

Where the key comes from (docs/security.md):
- `REFEREE_DEAL_KEY` in the environment (play, validate and tournament alike): the organiser
  pins it for exact reruns anywhere; same seed + same key = same replay bytes. The variable is
  never passed on to a bot.
- else a tournament's own key file in its output directory (`deal.key`, written on its first
  run, mode 0600), so `--resume` deals the same;
- else a fresh random key per run (`play`, `validate`): nothing on disk to steal, at the price
  that `play --seed 7` repeats only with the key pinned. The replay holds the deal anyway, so
  `verify` and the viewers need neither seed nor key.

The key must stay private: with it and a seed, anyone computes the deal.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import DiskFull, UsageError, full_disk

KEY_ENV = "REFEREE_DEAL_KEY"
KEY_FILE = "deal.key"  # a tournament's key, in its output directory
MIN_KEY_CHARS = 16  # a shorter key could be guessed from the match ids it signs


@dataclass(frozen=True, repr=False)
class DealKey:
    """A secret deal key (never printed: its repr shows only its public id)."""

    secret: bytes
    source: str = "fresh"  # "env", a key file's path, or "fresh"

    def __repr__(self) -> str:
        return f"DealKey(id={self.id}, source={self.source})"

    @property
    def id(self) -> str:
        """A public fingerprint of the key (tells two keys apart, reveals nothing of either)."""
        return hashlib.sha256(b"referee deal key id\0" + self.secret).hexdigest()[:16]

    def derive(self, *parts: Any) -> int:
        """A 256-bit integer from the key and `parts` (HMAC-SHA256): unpredictable without the key."""
        label = "\0".join(str(p) for p in parts).encode()
        return int.from_bytes(hmac.new(self.secret, label, hashlib.sha256).digest(), "big")

    def rng(self, *parts: Any) -> random.Random:
        """A PRNG seeded from the key and `parts`."""
        return random.Random(self.derive(*parts))

    def match_id(self, game: str, config: dict[str, Any], seed: int, specs: list[str]) -> str:
        """An opaque id for (game, config, seed, players) under this key: `<game>-<16 hex digits>`."""
        blob = json.dumps([config, seed, specs], sort_keys=True)
        return f"{game}-{self.derive('match', game, blob):064x}"[: len(game) + 17]


def fresh() -> DealKey:
    """A new random key (for one run)."""
    return DealKey(secrets.token_hex(32).encode(), "fresh")


def parse(text: str, source: str) -> DealKey:
    """A key from its text (surrounding whitespace ignored); UsageError if it is too short."""
    text = text.strip()
    if len(text) < MIN_KEY_CHARS:
        raise UsageError(f"the deal key from {source} is too short ({len(text)} characters; at least "
                         f"{MIN_KEY_CHARS}, e.g. the output of `python3 -c 'import secrets; "
                         "print(secrets.token_hex(32))'`)")
    return DealKey(text.encode(), source)


def from_env() -> DealKey | None:
    """The key pinned in REFEREE_DEAL_KEY, if set."""
    text = os.environ.get(KEY_ENV)
    return parse(text, KEY_ENV) if text is not None else None


def for_run() -> DealKey:
    """The key of a `play` or `validate` run: REFEREE_DEAL_KEY, else a fresh one."""
    return from_env() or fresh()


def for_directory(out: Path) -> DealKey:
    """A tournament's key: REFEREE_DEAL_KEY, else `out/deal.key` (created, mode 0600, if missing)."""
    pinned = from_env()
    if pinned is not None:
        return pinned
    path = out / KEY_FILE
    try:
        return parse(path.read_text(encoding="ascii"), str(path))
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the deal key {path}: {getattr(exc, 'strerror', None) or exc}") from None
    key = fresh()
    made = False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        made = True
        with os.fdopen(fd, "wb") as f:
            f.write(key.secret + b"\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        if made:
            path.unlink(missing_ok=True)  # a key cut short by a full disk would refuse the next run
        if full_disk(exc) is not None:
            raise DiskFull.of(exc, path, "run again") from None
        raise UsageError(f"cannot write the deal key {path}: {exc.strerror or exc}") from None
    return DealKey(key.secret, str(path))


_process_key: DealKey | None = None


def default() -> DealKey:
    """The key for callers that pass none (the Python API, tests): REFEREE_DEAL_KEY, else one
    fresh key for the whole process (so a process repeats its own matches, and only it)."""
    global _process_key
    pinned = from_env()
    if pinned is not None:
        return pinned
    if _process_key is None:
        _process_key = fresh()
    return _process_key
