"""The ladder file (LADDER.toml): what a ladder plays, where it looks and writes, its limits.

    game = "maumau"
    players = 2                   # seats per table
    submissions = "submissions"   # the folder watched (relative to the ladder file)
    out = "ladder"                # its state, replays, intake and site (relative to the ladder file)
    seed = 1                      # the deal seeds derive from it
    seating = "all"               # the duplicate design (referee.tournament.designs)
    house = ["random"]            # optional: registered strategies always on the ladder
    site_every = 5                # write the site after this many sets
    [config]                      # optional: the game's options
    [limits]                      # optional: move_ms, start_ms, total_ms, sandbox ("bwrap"|"none"),
                                  # reuse_matches (the most matches a kept bot process plays; 1: none kept)
    [intake]                      # optional: seeds, max_failed (the validation battery's)

Errors are one line naming the field (UsageError)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import UsageError

_TOP = {"game", "players", "submissions", "out", "seed", "seating", "house", "site_every", "config", "limits",
        "intake", "min_sets"}
_LIMITS = {"move_ms", "start_ms", "total_ms", "sandbox", "reuse_matches"}
_INTAKE = {"seeds", "max_failed"}


@dataclass(frozen=True)
class LadderConfig:
    """A ladder, as its file says."""

    game: str
    players: int
    submissions: Path
    out: Path
    seed: int = 1
    seating: str = "all"
    house: tuple[str, ...] = ()
    site_every: int = 5
    #: the sets an entrant sits in before its rating gets an interval (as a tournament's min_sets)
    min_sets: int = 10
    config: dict[str, Any] = field(default_factory=dict)
    move_ms: int = 1000
    start_ms: int = 5000
    total_ms: int = 0
    sandbox: str = "bwrap"
    reuse_matches: int = 100
    intake_seeds: int = 1
    intake_max_failed: int = 3


def load(path: Path) -> LadderConfig:
    """The ladder file at `path`, checked; UsageError naming the field at fault."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read the ladder file {str(path)!r}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"the ladder file {str(path)!r} is not valid TOML: {exc}") from None
    return parse(data, path.parent)


def parse(data: dict[str, Any], base: Path) -> LadderConfig:
    """A ladder from its file's table; relative folders are taken from `base`."""
    from referee.tournament.designs import DESIGNS

    _only(data, _TOP, "the ladder file")
    limits, intake = data.get("limits", {}), data.get("intake", {})
    _only(limits, _LIMITS, "[limits]")
    _only(intake, _INTAKE, "[intake]")
    for key in ("game", "players", "submissions", "out"):
        if key not in data:
            raise UsageError(f"the ladder file needs `{key}`")
    game = _typed(data, "game", str)
    players = _typed(data, "players", int)
    if not 2 <= players <= 10:
        raise UsageError(f"`players` must be 2 to 10, got {players}")
    seating = _typed(data, "seating", str, "all")
    if seating not in DESIGNS:
        raise UsageError(f"`seating` must be one of {', '.join(DESIGNS)}, got {seating!r}")
    house = data.get("house", [])
    if not isinstance(house, list) or not all(isinstance(h, str) and h for h in house):
        raise UsageError("`house` must be a list of strategy names")
    sandbox = _typed(limits, "sandbox", str, "bwrap")
    if sandbox not in ("bwrap", "none"):
        raise UsageError(f"`limits.sandbox` must be 'bwrap' or 'none', got {sandbox!r}")
    config = data.get("config", {})
    if not isinstance(config, dict):
        raise UsageError("`config` must be a table of the game's options")
    return LadderConfig(
        game=game, players=players, submissions=base / _typed(data, "submissions", str),
        out=base / _typed(data, "out", str), seed=_typed(data, "seed", int, 1), seating=seating,
        house=tuple(house), site_every=max(1, _typed(data, "site_every", int, 5)),
        min_sets=_positive(data, "min_sets", 10), config=dict(config),
        move_ms=_positive(limits, "move_ms", 1000), start_ms=_positive(limits, "start_ms", 5000),
        total_ms=_typed(limits, "total_ms", int, 0), sandbox=sandbox,
        reuse_matches=_positive(limits, "reuse_matches", 100),
        intake_seeds=_positive(intake, "seeds", 1), intake_max_failed=_typed(intake, "max_failed", int, 3))


def _only(table: Any, known: set[str], where: str) -> None:
    if not isinstance(table, dict):
        raise UsageError(f"{where} must be a table")
    unknown = sorted(set(table) - known)
    if unknown:
        raise UsageError(f"{where}: unknown field `{unknown[0]}` (known: {', '.join(sorted(known))})")


def _typed(table: dict[str, Any], key: str, kind: type, default: Any = None) -> Any:
    value = table.get(key, default)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise UsageError(f"`{key}` must be {'an integer' if kind is int else 'a string'}, got {value!r}")
    return value


def _positive(table: dict[str, Any], key: str, default: int) -> int:
    value = _typed(table, key, int, default)
    if value < 1:
        raise UsageError(f"`{key}` must be at least 1, got {value}")
    return value
