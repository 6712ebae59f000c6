"""From player specs to seated players: a registered strategy name, else a command line."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path
from typing import IO, Any

import referee.sealing as sealing
from referee.errors import UsageError
from referee.game import Game
from referee.players import Player, StrategyPlayer
from referee.plugins import Registry
from referee.runner import Limits, Seat


def program_exists(program: str, cwd: str | os.PathLike | None = None,
                   env: dict[str, str] | None = None) -> bool:
    """Whether `program` can be started from `cwd`: a path (relative to `cwd`) to an executable
    file, or a name found on the PATH of `env` (default: ours; relative entries against `cwd`)."""
    if not program:
        return False
    if os.sep in program:
        path = Path(program) if cwd is None or os.path.isabs(program) else Path(cwd) / program
        return path.is_file() and os.access(path, os.X_OK)
    entries = (env if env is not None else os.environ).get("PATH", os.defpath).split(os.pathsep)
    if cwd is not None:
        entries = [d if os.path.isabs(d) else os.path.join(cwd, d) for d in entries]
    return shutil.which(program, path=os.pathsep.join(entries)) is not None


#: arguments with these suffixes are taken for the bot's script, which must exist
SCRIPT_SUFFIXES = {".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".jar", ".lua", ".php"}


def missing_script(argv: list[str], cwd: str | os.PathLike | None = None) -> str | None:
    """The first argument that names a script (by its suffix) which does not exist, relative to
    `cwd`: "python3 bot.py" with no bot.py would only crash at the first act."""
    for arg in argv[1:]:
        if Path(arg).suffix in SCRIPT_SUFFIXES and not arg.startswith("-"):
            path = Path(arg) if cwd is None or Path(arg).is_absolute() else Path(cwd) / arg
            if not path.is_file():
                return arg
    return None


def parse_command(spec: str) -> list[str]:
    """Split a command spec like a shell would; raises UsageError if it cannot run."""
    try:
        argv = shlex.split(spec)
    except ValueError as exc:
        raise UsageError(f"cannot parse player command {spec!r}: {exc}") from None
    if not argv:
        raise UsageError("empty player spec")
    program = argv[0]
    if not program_exists(program):
        if os.sep in program:
            raise UsageError(f"player command {program!r} does not exist or is not executable")
        raise UsageError(f"player {spec!r} is neither a registered strategy nor a command on PATH")
    script = missing_script(argv)
    if script is not None:
        raise UsageError(f"player command {spec!r}: {script} does not exist")
    return argv


def _transcript(log: IO[str], seat: int):
    def write(direction: str, line: bytes) -> None:
        arrow = ">" if direction == "send" else "<"
        log.write(f"{seat} {arrow} {line.decode('utf-8', 'replace')}")

    return write


#: the player spec of a seat played by a person at the terminal (referee/bots/human.py)
HUMAN = "human"


def seat_names(specs: list[str], registry: Registry) -> list[Seat]:
    """A Seat per spec (a strategy name, "human", else a command line), with short display names
    made unique by their seat number."""
    seats = []
    for spec in specs:
        if spec in registry.strategies:
            seats.append(Seat(spec, "strategy", spec))
        elif spec == HUMAN:
            seats.append(Seat(HUMAN, "human", HUMAN))
        else:
            argv = parse_command(spec)
            # the bot's own file ("python3 bot.py --level 2" is bot.py), else the last word that is
            # no option ("python3 -m mybot" is mybot)
            script = next((a for a in argv[1:] if not a.startswith("-") and Path(a).is_file()), None) or next(
                (a for a in reversed(argv) if not a.startswith("-")), argv[0])
            seats.append(Seat(Path(script).name, "command", spec))
    counts: dict[str, int] = {}
    for s in seats:
        counts[s.name] = counts.get(s.name, 0) + 1
    return [Seat(f"{s.name}#{i}" if counts[s.name] > 1 else s.name, s.kind, s.spec) for i, s in enumerate(seats)]


def _describer(game: Game) -> Any:
    """The game's describer, if it has one (an object, or a method returning it)."""
    describer = getattr(game, "describer", None)
    if callable(describer) and not hasattr(describer, "action"):
        try:
            describer = describer()
        except TypeError:
            return None
    return describer


def make_players(
    game: Game,
    config: dict[str, Any],
    seed: int,
    seats: list[Seat],
    registry: Registry,
    limits: Limits,
    log_dir: Path | None = None,
    log_stem: str = "match",
    commands: list[dict[str, Any]] | None = None,
    protocol_log: IO[str] | None = None,
    key: sealing.DealKey | None = None,
    hide: list[str | os.PathLike] | None = None,
) -> list[Player]:
    """A Player per seat; strategies get their own PRNG, sealed by the deal `key` like the deal
    (seeded from the key, the seed, the seat and the strategy).

    `hide` lists the paths a sandboxed bot may not see (the referee's outputs: the replay's
    directory, the protocol log...); default: the directory of the logs.

    `commands[i]` holds extra SubprocessPlayer keyword arguments for seat i (cwd, env, start_ms).
    `protocol_log` receives every line exchanged with a subprocess bot, as
    `<seat> > <line>` (referee to bot) or `<seat> < <line>` (bot to referee).
    """
    players: list[Player] = []
    logs = [log_dir / f"{log_stem}.seat{i}.log" if log_dir is not None and seat.kind == "command" else None
            for i, seat in enumerate(seats)]
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        if limits.sandbox == "bwrap":
            # Every seat's log exists before any bot starts, so that a sandboxed bot sharing a
            # directory with them sees none of them (referee.bots.sandbox hides files one by one
            # there); one left empty is removed when its bot is closed. Unsandboxed, a log is
            # created at its bot's first byte.
            for path in logs:
                if path is not None:
                    path.touch()
    hidden = [*(hide if hide is not None else [log_dir] if log_dir is not None else []),
              *(p for p in logs if p is not None)]
    try:
        for i, seat in enumerate(seats):
            if seat.kind == "human":
                from referee.bots.human import HumanPlayer

                players.append(HumanPlayer(describer=_describer(game)))
            elif seat.kind == "strategy":
                entry = registry.strategies[seat.spec]
                if entry.games is not None and game.name not in entry.games:
                    raise UsageError(
                        f"strategy {seat.spec!r} plays only {', '.join(entry.games)}, not {game.name}"
                    )
                rng = (key or sealing.default()).rng("strategy", seed, i, seat.spec)
                players.append(StrategyPlayer(entry.factory(game.name, i, config, rng)))
            else:
                from referee.bots.limits import subprocess_options
                from referee.bots.player import SubprocessPlayer

                log_path = logs[i]
                kwargs: dict[str, Any] = subprocess_options(limits)  # limits, grace, sandbox
                if commands is not None and commands[i]:
                    kwargs.update(commands[i])
                if protocol_log is not None:
                    kwargs["transcript"] = _transcript(protocol_log, i)
                kwargs.setdefault("hide", hidden)
                argv = shlex.split(seat.spec) if "cwd" in kwargs else parse_command(seat.spec)
                players.append(SubprocessPlayer(argv, log_path=log_path, **kwargs))
    except BaseException:
        for p in players:
            p.close()
        raise
    return players
