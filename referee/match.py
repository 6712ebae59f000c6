"""One match, set up and played the same way whoever asks: `referee play`, `referee validate`,
a tournament's worker and the Python API (`referee.play`) each fill in a `MatchRequest` and call
`play_match`, which alone goes from seats to a result: the match id, the bots' logs and what a
sandboxed bot may not see, the players (strategies, command bots, a person, Python callables),
the parent-death guard and the kept-process pool, the replay, the run.

Also the seats from player specs: a registered strategy name, `human`, else a command line."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import IO, Any

import referee.sealing as sealing  # not `from referee import` (see referee.runner)
from referee.errors import UsageError
from referee.game import Game
from referee.players import Player, StrategyPlayer
from referee.plugins import Registry
from referee.runner import Limits, MatchResult, Seat
from referee.signing import Signer


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
    return unique_names([seat_of(spec, registry) for spec in specs])


def seat_of(spec: str, registry: Registry) -> Seat:
    """The Seat of one spec: a strategy name, "human", else a command line (UsageError if it
    cannot run), named by its strategy or its bot's file."""
    if spec in registry.strategies:
        return Seat(spec, "strategy", spec)
    if spec == HUMAN:
        return Seat(HUMAN, "human", HUMAN)
    argv = parse_command(spec)
    # the bot's own file ("python3 bot.py --level 2" is bot.py), else the last word that is
    # no option ("python3 -m mybot" is mybot)
    script = next((a for a in argv[1:] if not a.startswith("-") and Path(a).is_file()), None) or next(
        (a for a in reversed(argv) if not a.startswith("-")), argv[0])
    return Seat(Path(script).name, "command", spec)


def unique_names(seats: list[Seat]) -> list[Seat]:
    """The seats, a name that several share suffixed with its seat number ("random#0")."""
    counts: dict[str, int] = {}
    for s in seats:
        counts[s.name] = counts.get(s.name, 0) + 1
    return [Seat(f"{s.name}#{i}" if counts[s.name] > 1 else s.name, s.kind, s.spec) for i, s in enumerate(seats)]


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
    given: Mapping[int, Player] | None = None,
) -> list[Player]:
    """A Player per seat; strategies get their own PRNG, sealed by the deal `key` like the deal
    (seeded from the key, the seed, the seat and the strategy).

    `hide` lists the paths a sandboxed bot may not see (the referee's outputs: the replay's
    directory, the protocol log...); default: the directory of the logs.

    `commands[i]` holds extra SubprocessPlayer keyword arguments for seat i (cwd, env, start_ms).
    `protocol_log` receives every line exchanged with a subprocess bot, as
    `<seat> > <line>` (referee to bot) or `<seat> < <line>` (bot to referee).
    `given[i]` is seat i's player, made by the caller (the Python API's callables).
    """
    players: list[Player] = []
    logs = [log_dir / f"{log_stem}.seat{i}.log" if log_dir is not None and seat.kind == "command" else None
            for i, seat in enumerate(seats)]
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        if limits.sandbox == "bwrap":
            from referee.bots.sandbox import make_hidden_logs

            make_hidden_logs([p for p in logs if p is not None])
    hidden = [*(hide if hide is not None else [log_dir] if log_dir is not None else []),
              *(p for p in logs if p is not None)]
    try:
        for i, seat in enumerate(seats):
            if given is not None and i in given:
                players.append(given[i])
            elif seat.kind == "human":
                from referee.bots.human import HumanPlayer
                from referee.describe import GENERIC, describer_of

                describer = describer_of(game)  # none of its own: the person reads the JSON
                players.append(HumanPlayer(describer=None if describer is GENERIC else describer))
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


@dataclass(frozen=True)
class Reuse:
    """Where a match's command bots may come from a kept process: a worker's BotPool
    (referee.bots.pool), the output directory its bots may not see, the other hidden paths."""

    pool: Any
    outputs: Path
    hide: tuple[str | os.PathLike, ...] = ()


@dataclass(frozen=True)
class MatchRequest:
    """One match to play, and where its outputs go.

    The replay goes to `replay`, else to `replays/<match id>.jsonl`, else nowhere; the command
    bots' stderr logs to `log_dir` (default: the replay's directory) as `<log_stem>.seat<N>.log`
    (default stem: the replay's name without `.jsonl`/`.jsonl.gz`). A sandboxed bot sees none of
    `hide` (None: every output of the match, see `_hidden`). `commands[i]`: seat i's extra SubprocessPlayer options;
    `given[i]`: seat i's player, made by the caller; `wrap[i]`: applied to seat i's player
    before the match (validate watches its bot). With `guard`, each bot dies with its worker;
    `started` is called once the players are ready, just before the match begins.
    """

    game: Game
    config: dict[str, Any]
    seed: int
    seats: tuple[Seat, ...]
    registry: Registry
    limits: Limits = Limits()
    key: sealing.DealKey | None = None  # None: sealing.default()
    signer: Signer | None = None
    hooks: Any = None  # the plugins' match lifecycle hooks
    replay: Path | None = None
    replays: Path | None = None
    log_dir: Path | None = None
    log_stem: str | None = None
    protocol_log: Path | None = None
    hide: tuple[str | os.PathLike, ...] | None = None
    commands: tuple[dict[str, Any] | None, ...] | None = None
    given: Mapping[int, Player] = field(default_factory=dict)
    wrap: Mapping[int, Callable[[Player], Player]] = field(default_factory=dict)
    guard: bool = False
    reuse: Reuse | None = None
    started: Callable[[], None] | None = None

    @cached_property
    def match_id(self) -> str:
        """The opaque id of the match under its deal key (referee.sealing): the one place it is computed."""
        return (self.key or sealing.default()).match_id(self.game.name, self.config, self.seed,
                                                        [s.spec for s in self.seats])

    @cached_property
    def replay_path(self) -> Path | None:
        """Where the replay is written (None: nowhere)."""
        if self.replay is not None:
            return self.replay
        return self.replays / f"{self.match_id}.jsonl" if self.replays is not None else None

    @property
    def logs_stem(self) -> str:
        """The bots' logs are `<logs_stem>.seat<N>.log`: `log_stem`, else the replay's name
        without its suffixes ("m.2024-01-01.jsonl.gz" -> "m.2024-01-01")."""
        if self.log_stem is not None:
            return self.log_stem
        replay = self.replay_path
        return (Path(replay.name.removesuffix(".gz")).stem or replay.name) if replay is not None else "match"


def play_match(request: MatchRequest) -> MatchResult:
    """Play `request`'s match and return its result; every player is closed on return.

    UsageError where an output cannot be written (the replay's folder, the protocol log) or a
    seat cannot be played (a strategy of another game); a bot's misbehaviour is a result."""
    from referee.runner import run_match

    r = request
    replay = r.replay_path
    if replay is not None:
        replay_folder(replay)
    log_dir = r.log_dir if r.log_dir is not None else replay.parent if replay is not None else None
    stem = r.logs_stem
    with ExitStack() as stack:
        transcript = None
        if r.protocol_log is not None:
            try:
                transcript = stack.enter_context(open(r.protocol_log, "w", encoding="utf-8"))
            except OSError as exc:
                raise UsageError(f"cannot write --log-protocol file: {exc}") from None
        seats = list(r.seats)
        players = make_players(r.game, r.config, r.seed, seats, r.registry, r.limits, log_dir, stem,
                               list(r.commands) if r.commands is not None else None, transcript, r.key,
                               _hidden(r, replay, log_dir), r.given)
        try:
            if r.guard:
                guard(players)
            if r.reuse is not None:
                players = r.reuse.pool.seat(players, reuse_keys(players, [s.name for s in seats], r.reuse.outputs,
                                                                list(r.reuse.hide)), (r.game.name, r.seed))
            for seat, wrap in r.wrap.items():
                players[seat] = wrap(players[seat])
            if r.started is not None:
                r.started()
        except BaseException:
            for p in players:
                p.close()
            raise
        return run_match(r.game, r.config, r.seed, seats, players, r.limits, replay=replay, hooks=r.hooks,
                         key=r.key, signer=r.signer, match=r.match_id)


def _hidden(r: MatchRequest, replay: Path | None, log_dir: Path | None) -> list[str | os.PathLike] | None:
    """What a sandboxed bot may not see: `r.hide`, by default every output of the match (the
    replay and its folder, the protocol log, the signing key; the log directory without a replay)."""
    if r.hide is not None:
        return list(r.hide)
    if replay is None:
        return None  # make_players' default: the log directory
    return [replay.parent, replay, *([r.protocol_log] if r.protocol_log is not None else []),
            *([r.signer.source] if r.signer is not None and r.signer.source else [])]


def guard(players: list[Player]) -> None:
    """Prefix every subprocess bot's command with the parent-death guard
    (referee.bots.sandbox.guard_prefix), before it starts."""
    from referee.bots.player import SubprocessPlayer
    from referee.bots.sandbox import guard_prefix

    prefix = guard_prefix()
    if not prefix:
        return
    # The guard is armed in the child after the fork: a worker killed in between leaves the child
    # orphaned, its guard armed too late to fire. So, once armed, the child checks that its parent
    # is still this process (every wrapper until the bot execs in place, keeping its parent), and
    # gives up otherwise. In the sandbox bwrap forks the bot, whose parent is bwrap's (its own
    # --die-with-parent guards bwrap): there the check would not hold, and is left out.
    checked = prefix + ["/bin/sh", "-c", 'test "$PPID" = "$0" || exit 111; exec "$@"', str(os.getpid())]
    for p in players:
        # a program that cannot start is left unguarded, to fail as usual
        if isinstance(p, SubprocessPlayer) and p.argv and program_exists(p.argv[0], p.cwd, p.env):
            p.argv = (prefix if p.sandbox != "none" or not os.path.exists("/bin/sh") else checked) + p.argv


def replay_folder(replay: Path) -> None:
    """Make the replay's folder; UsageError if the replay cannot be written there."""
    if replay.exists() and replay.is_dir():
        raise UsageError(f"--out {str(replay)!r} is a directory")
    try:
        replay.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"cannot write the replay {str(replay)!r}: {str(replay.parent)!r} is not a "
                         "directory") from None
    except OSError as exc:
        raise UsageError(f"cannot write the replay {str(replay)!r}: {exc.strerror or exc}") from None


def reuse_keys(players: list[Player], names: list[str], outputs: Path,
               hide: list[str | os.PathLike] | None = None) -> list[tuple | None]:
    """Per seat, the key of the bot process a BotPool may seat there (None: a fresh process
    only): the seat's name and everything that makes its process, the outputs it may not see.

    A sandboxed bot whose own files (its `dir`, scripts, interpreter) lie inside the
    output directory is never reused: its sandbox hides this match's replay and logs one by one,
    and another match's would be in sight."""
    from referee.bots import sandbox
    from referee.bots.limits import wrapper
    from referee.bots.player import SubprocessPlayer

    root = Path(os.path.abspath(outputs))
    keys: list[tuple | None] = []
    for player, name in zip(players, names):
        if not isinstance(player, SubprocessPlayer):
            keys.append(None)
            continue
        if player.sandbox == "bwrap":
            workdir = Path(os.path.abspath(player.cwd if player.cwd is not None else os.getcwd()))
            home = Path(os.path.abspath(player.home)) if player.home is not None else None
            own = sandbox.own_paths(wrapper(player.resources) + player.argv, workdir, home)
            if any(path == root or root in path.parents for path in own):
                keys.append(None)
                continue
        keys.append((name, player.process_key(), str(root), tuple(map(str, hide or ()))))
    return keys
