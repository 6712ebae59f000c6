"""The Python API: a match played from Python, a replay read back and shown in a notebook.

`referee.play` fills in the same `referee.match.MatchRequest` that `referee play` does and plays
it through the same `play_match`: the same seats, match id, deal sealing, bot logs, sandbox and
replay. Besides strategy names and command lines, a seat may be a Python callable
`(obs, legal) -> index`, run in this process: no time limit, no sandbox (docs/python-api.md).
"""

from __future__ import annotations

import functools
import os
import random
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Union

from referee.errors import UsageError
from referee.game import Action
from referee.players import Player, Strategy, StrategyPlayer
from referee.replay import verify
from referee.runner import Limits, Seat

#: a seat: a strategy name or a command line (a string, or its words), or a Python callable
PlayerSpec = Union[str, Sequence[str], Callable[[dict[str, Any], list[Action]], Any]]


@dataclass(frozen=True)
class MatchResult:
    """A finished match: per seat (in seat order) its name, score, rank and fault count, the
    disqualified seats, every fault as the replay records it, and the replay's path; per seat its
    decision times, CPU and peak memory (`resources`, as the replay's result record holds them)."""

    game: str
    seed: int
    match: str
    names: tuple[str, ...]
    scores: tuple[Any, ...]
    ranks: tuple[int, ...]
    faults: tuple[int, ...]
    disqualified: tuple[int, ...]
    fault_log: tuple[dict[str, Any], ...]
    replay: Path | None
    resources: tuple[dict[str, Any], ...] = ()


class Replay(verify.Replay):
    """A replay file's records (referee.replay.verify.Replay) that a notebook shows as the viewer."""

    def viewer(self, seat: int | None = None) -> str:
        """The self-contained HTML viewer page of this match (as `referee replay --html` writes
        it); with `seat`, only what that seat saw."""
        from referee.replay.html import render_viewer

        return render_viewer(self, _registry().games.get(self.game), seat)

    def _repr_html_(self) -> str:
        """The viewer for a notebook, in an iframe's `srcdoc` (escaped): notebooks strip scripts
        from the output they show, not from a frame's document."""
        import html

        return (f'<iframe srcdoc="{html.escape(self.viewer(), quote=True)}" title="{html.escape(self.path.name)}" '
                'style="width: 100%; height: 720px; border: 0"></iframe>')


def load_replay(path: str | os.PathLike) -> Replay:
    """Read a replay file (plain or .gz); UsageError if it cannot be read or is no replay."""
    read = verify.load_replay(path)
    return Replay(read.path, read.records, read.lines)


class _Callable(Strategy):
    """A Python callable `(obs, legal) -> index (or action)` as a strategy."""

    def __init__(self, game: str, seat: int, config: dict[str, Any], fn: Callable[..., Any]) -> None:
        super().__init__(game, seat, config, random.Random(0))  # the callable draws its own chance
        self.fn = fn

    def choose(self, obs: dict[str, Any], legal: list[Action]) -> int | Action:
        return self.fn(obs, legal)


@functools.cache
def _registry():
    from referee.plugins import load_registry

    return load_registry()


def _seats(players: Sequence[PlayerSpec], registry: Any) -> tuple[list[Seat], dict[int, Callable[..., Any]]]:
    """The seats of `players` as `referee play` names them, and the callables by seat."""
    from referee.match import seat_of, unique_names

    seats: list[Seat] = []
    callables: dict[int, Callable[..., Any]] = {}
    for i, p in enumerate(players):
        if isinstance(p, str):
            seats.append(seat_of(p, registry))
        elif callable(p):
            name = getattr(p, "__name__", type(p).__name__)
            where = f"{getattr(p, '__module__', None) or '?'}.{getattr(p, '__qualname__', name)}"
            seats.append(Seat(name, "strategy", f"python:{where}"))
            callables[i] = p
        elif isinstance(p, Sequence) and p and all(isinstance(w, str) for w in p):
            seats.append(seat_of(shlex.join(p), registry))
        else:
            raise UsageError(f"player {i}: {p!r} is no strategy name, command line or callable")
    from referee.runner import by_ready_name

    return by_ready_name(unique_names(seats)), callables


def play(game: str, players: Sequence[PlayerSpec], *, seed: int | None = None,
         config: dict[str, Any] | None = None, out: str | os.PathLike | None = None,
         sandbox: str | None = None, **limits: Any) -> MatchResult:
    """Play one match as `referee play` does and return its result; `limits` are Limits fields
    (move_ms, start_ms, max_faults...). The replay goes to `out` if it names a .jsonl (.jsonl.gz)
    file, else into the folder `out` (default: matches/) as `<match id>.jsonl`. UsageError (or
    ConfigError) for a request that cannot run."""
    from referee.bots.sandbox import SANDBOXES, require
    from referee.config import resolve_config
    from referee.match import MatchRequest, play_match

    unknown = sorted(set(limits) - {f.name for f in fields(Limits)})
    if unknown:
        raise UsageError(f"unknown limit {unknown[0]!r} (see referee.runner.Limits)")
    registry = _registry()
    g = registry.game(game)
    cfg = resolve_config(g, dict(config or {}), len(players))
    seats, callables = _seats(players, registry)
    if sandbox not in (None, *SANDBOXES):
        raise UsageError(f"sandbox must be one of {', '.join(SANDBOXES)}, got {sandbox!r}")
    lim = Limits(**limits, sandbox=sandbox or "none")
    if any(s.kind == "command" for s in seats):
        require(lim.sandbox)
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    given: dict[int, Player] = {i: StrategyPlayer(_Callable(g.name, i, cfg, fn)) for i, fn in callables.items()}
    target = Path(out) if out is not None else Path("matches")
    folder = out is None or target.is_dir() or target.suffix not in (".jsonl", ".gz")
    request = MatchRequest(g, cfg, seed, tuple(seats), registry, lim, hooks=registry.hooks,
                           replay=None if folder else target, replays=target if folder else None, given=given)
    result = play_match(request)
    res = result.result
    names = tuple(p["name"] for p in result.header["players"])  # a bot's own name, once it gave one
    return MatchResult(g.name, seed, request.match_id, names, tuple(res["scores"]),
                       tuple(res["ranks"]), tuple(res["faults"]), tuple(res["disqualified"]),
                       tuple(res["fault_log"]), result.replay, tuple(result.resources))


__all__ = ["MatchResult", "Replay", "load_replay", "play"]
