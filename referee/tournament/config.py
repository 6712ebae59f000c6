"""`tournament.toml`: read with tomllib, checked key by key, turned into a list of matches.

Every error names the file, the key and what was expected (documented in docs/tournaments.md).
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.tournament import designs, schedule
from referee.config import resolve_config, shown
from referee.errors import ConfigError, UsageError
from referee.tournament.executors import EXECUTORS
from referee.bots.limits import LIMIT_MAX, MAX_CONCURRENCY  # the caps of [limits], shared with the CLI
from referee.plugins import Registry
from referee.tournament.sprt import MIN_SETS, MODELS, Sprt
from referee.tournament.head_to_head import MIN_SETS as DEFAULT_MIN_SETS  # the standings' (issue 26)
# the schedule's types and functions, by the names the run and the tests know them here
from referee.tournament.schedule import GameEntry, MatchSpec, derive_seed, seating_orders, tables  # noqa: F401

SCHEDULES = ("round-robin", "gauntlet")
_SEATING = " or ".join(repr(d) for d in designs.DESIGNS)  # what a `seating` key may be (referee/tournament/designs.py)

# The most matches a tournament may schedule: `matches()` holds the whole schedule in memory.
MAX_MATCHES = 1_000_000
REUSE_MATCHES = 100  # [limits] reuse_matches by default
MAX_REUSE_MATCHES = MAX_MATCHES  # and its cap


@dataclass(frozen=True)
class Entrant:
    """A tournament entrant: a registered strategy or a command (with optional cwd, env, limits)."""

    name: str
    strategy: str | None = None
    command: str | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    move_ms: int | None = None
    start_ms: int | None = None
    games: tuple[str, ...] | None = None
    #: its own directory (`dir`): what the sandbox shows of its files, and its working directory
    dir: str | None = None
    #: directories its sandbox never shows whole (the tournament's folder, the other entrants'
    #: own directories): set by the run, not by the file (referee.bots.sandbox.wrap)
    shared: tuple[str, ...] = ()

    @property
    def spec(self) -> str:
        return self.strategy if self.strategy is not None else self.command  # type: ignore[return-value]


REPLAYS_KEPT = ("all", "faults")
SHARD_AT = 1000  # a schedule longer than this spreads its replays over replays/NNNN/, 1,000 a folder


@dataclass(frozen=True)
class Output:
    """What a tournament keeps of each match (`[output]` in its file): every replay, or only
    those of matches with a fault (the journal always holds every match); plain or gzip."""

    replays: str = "all"  # "all" or "faults"
    compress: bool = False  # replays as .jsonl.gz (the viewers and verify read them)
    # a viewer page per kept replay, written with the index at the end (a tenth to a third of a
    # second of CPU each); false: the index links the replays only (`referee replay --index DIR`
    # writes the pages later)
    viewers: bool = True
    shard: bool = False  # replays under replays/NNNN/ (set for schedules over SHARD_AT)

    def replay(self, index: int, key: str) -> str:
        """A match's replay file, relative to the output directory."""
        name = f"{key}.jsonl{'.gz' if self.compress else ''}"
        return f"replays/{index // SHARD_AT:04d}/{name}" if self.shard else f"replays/{name}"


@dataclass(frozen=True)
class TournamentConfig:
    """A checked tournament file."""

    path: Path
    name: str
    seed: int
    games: tuple[GameEntry, ...]
    entrants: dict[str, Entrant]
    move_ms: int
    start_ms: int
    max_faults: int
    concurrency: int
    out: Path
    executor: str = "local"  # where matches run: "local" or "dask" (referee/tournament/executors.py)
    scheduler: str | None = None  # the dask scheduler's address; None: a LocalCluster
    shared_out: bool = False  # dask workers see `out` (shared storage) and write replays there
    bot_limits: dict[str, Any] = field(default_factory=dict)  # [limits] for hostile bots (docs/security.md)
    output: Output = Output()  # [output]: which replays are kept, compressed or not
    # [limits] reuse_matches: the most matches one process of a bot that declared reuse plays
    # (docs/protocol.md "Reusing a bot process"); 0 or 1: a fresh process for every match
    reuse_matches: int = REUSE_MATCHES
    # the ratings' model of ties (referee/tournament/ratings.py TIES): "davidson" (Davidson-Luce) or "breslow"
    ties: str = "davidson"

    def min_sets(self) -> dict[str, int]:
        """Each game's `min_sets` (the largest of its entries'), as the journal's head keeps it: only
        when some game's differs from the default (else {}, and the head stays as it was)."""
        out: dict[str, int] = {}
        for entry in self.games:
            out[entry.game] = max(out.get(entry.game, 0), entry.min_sets)
        return out if any(n != DEFAULT_MIN_SETS for n in out.values()) else {}

    def matches(self, dotted: bool = False) -> list[MatchSpec]:
        """Every match of the tournament, in schedule order (`schedule.matches`; `dotted`: with
        the keys of before issue 29, for a journal written with those)."""
        return schedule.matches(self.seed, self.games, dotted)

    def play_order(self, matches: list[MatchSpec]) -> list[MatchSpec]:
        """`matches` (this tournament's `matches()`) in the order a run starts them (`schedule.play_order`)."""
        return schedule.play_order(self.games, matches)

    def spans(self) -> list[range]:
        """Each game entry's schedule indices in `matches()` (`schedule.spans`: counted, not built)."""
        return schedule.spans(self.games)

class _Reader:
    """Typed access to a TOML table with errors naming the file and the key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, expected: str, got: Any = None) -> ConfigError:
        suffix = "" if got is None else f", got {shown(got)}"
        return ConfigError(f"{self.path}: {key}: expected {expected}{suffix}")

    def get(self, table: dict, key: str, where: str, kind, default: Any = ..., expected: str = "") -> Any:
        full = f"{where}.{key}" if where else key
        if key not in table:
            if default is ...:
                raise self.fail(full, f"{expected or kind.__name__} (missing)")
            return default
        value = table[key]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            raise self.fail(full, expected or _type_name(kind), value)
        return value

    def get_list(self, table: dict, key: str, where: str, kind, expected: str, default: Any = ...) -> Any:
        """An array of `kind` values (`expected` describes one of them)."""
        value = self.get(table, key, where, list, default=default, expected=f"an array of {_type_name(kind)}s")
        if value is not default:
            for j, item in enumerate(value):
                if kind is int and isinstance(item, bool) or not isinstance(item, kind):
                    raise self.fail(f"{where}.{key}[{j}]" if where else f"{key}[{j}]", expected, item)
        return value


def _type_name(kind) -> str:
    return {int: "an integer", str: "a string", bool: "true or false", dict: "a table", list: "an array"}.get(
        kind, getattr(kind, "__name__", str(kind))
    )


def load_tournament(path: str | os.PathLike, registry: Registry, out: str | os.PathLike | None = None,
                    concurrency: int | None = None, executor: str | None = None, scheduler: str | None = None,
                    shared_out: bool | None = None) -> TournamentConfig:
    """Read and check a tournament file; raises ConfigError naming the key at fault.

    `out`, `concurrency`, `executor`, `scheduler` and `shared_out` override the file's keys
    (command-line options). The executor is `executor`, else the file's, else "dask" when a
    scheduler is given (here or in the file), else "local". The dask scheduler's address is
    `scheduler`, else $DASK_SCHEDULER_ADDRESS, else the file's; none starts a LocalCluster.
    """
    path = Path(path)
    data = _read_toml(path)
    r = _Reader(path)
    known_top = {"name", "seed", "limits", "output", "concurrency", "out", "entrants", "games",
                 "schedule", "seeds", "duplicate", "seating", "focus", "executor", "scheduler", "shared_out",
                 "min_sets", "ties"}
    for key in data:
        if key not in known_top:
            raise r.fail(key, f"one of the keys {', '.join(sorted(known_top))} (unknown key)")
    name = r.get(data, "name", "", str, default=path.stem)
    seed = r.get(data, "seed", "", int, default=0)
    limits = r.get(data, "limits", "", dict, default={})
    for key in limits:
        if key not in ("move_ms", "start_ms", "max_faults") + BOT_LIMITS + ("reuse_matches",):
            raise r.fail(f"limits.{key}", f"move_ms, start_ms, max_faults, {', '.join(BOT_LIMITS)}, "
                         "reuse_matches (unknown key)")
    move_ms = _positive(r, limits, "move_ms", "limits", 1000)
    start_ms = _positive(r, limits, "start_ms", "limits", 5000)
    max_faults = _positive(r, limits, "max_faults", "limits", 1)
    if concurrency is None:
        concurrency = r.get(data, "concurrency", "", int, default=0)
        if not 0 <= concurrency <= MAX_CONCURRENCY:
            raise r.fail("concurrency", f"0 (one per core) or more, at most {MAX_CONCURRENCY}", concurrency)
    if concurrency == 0:
        concurrency = os.cpu_count() or 1
    out_dir = Path(out) if out is not None else Path(r.get(data, "out", "", str, default=f"matches/{path.stem}"))
    executor, scheduler, shared_out = _executor(r, data, executor, scheduler, shared_out)
    entrants = _entrants(r, data, registry)
    defaults = _game_defaults(r, data)
    ties = r.get(data, "ties", "", str, default="davidson", expected='"davidson" or "breslow"')
    if ties not in ("davidson", "breslow"):  # referee/tournament/ratings.py TIES
        raise r.fail("ties", '"davidson" or "breslow"', ties)
    raw_games = r.get(data, "games", "", list, expected="an array of tables [[games]]")
    if not raw_games:
        raise r.fail("games", "at least one [[games]] table")
    games = []
    counts = []  # (matches, how they come about) per game entry
    for i, g in enumerate(raw_games):
        games.append(_game_entry(r, g, f"games[{i}]", registry, entrants, defaults))
        counts.append(_count(games[-1], f"games[{i}]", g))
    total = sum(n for n, _ in counts)
    if total > MAX_MATCHES:
        i = max(range(len(counts)), key=lambda k: counts[k][0])
        raise ConfigError(f"{path}: games[{i}]: expected at most {MAX_MATCHES:,} matches in all, got {total:,}: "
                          f"{counts[i][1]}")
    return TournamentConfig(path, name, seed, tuple(games), entrants, move_ms, start_ms, max_faults,
                            concurrency, out_dir, executor, scheduler, shared_out, _bot_limits(r, limits),
                            _output(r, data), _reuse_matches(r, limits), ties)


def _read_toml(path: Path) -> dict[str, Any]:
    """A tournament file's TOML; UsageError for a file that cannot be read, ConfigError for one
    that is no TOML."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"tournament file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise UsageError(f"tournament file {str(path)!r} is a directory") from None
    except OSError as exc:
        raise UsageError(f"tournament file {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} "
                          f"at offset {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _game_defaults(r: _Reader, data: dict[str, Any]) -> dict[str, Any]:
    """The top-level keys that are the [[games]] entries' defaults: schedule, seeds, min_sets,
    duplicate, seating, focus."""
    schedule = r.get(data, "schedule", "", str, default="round-robin")
    if schedule not in SCHEDULES:
        raise r.fail("schedule", " or ".join(repr(s) for s in SCHEDULES), schedule)
    seeds = r.get(data, "seeds", "", int, default=1)
    if seeds < 1:
        raise r.fail("seeds", "at least 1", seeds)
    min_sets = r.get(data, "min_sets", "", int, default=DEFAULT_MIN_SETS)
    if min_sets < 1:
        raise r.fail("min_sets", "at least 1", min_sets)
    duplicate = r.get(data, "duplicate", "", bool, default=False)
    seating = r.get(data, "seating", "", str, default=designs.DESIGNS[0], expected=_SEATING)
    if seating not in designs.DESIGNS:
        raise r.fail("seating", _SEATING, seating)
    return {"schedule": schedule, "seeds": seeds, "min_sets": min_sets, "duplicate": duplicate,
            "seating": seating, "focus": r.get(data, "focus", "", str, default=None)}


def _game_entry(r: _Reader, g: Any, where: str, registry: Registry, entrants: dict[str, Entrant],
                defaults: dict[str, Any]) -> GameEntry:
    """One [[games]] table, checked: its game, table size, config, schedule, seeds, seating,
    entrants, focus, SPRT and min_sets (the top-level `defaults` where it gives none)."""
    if not isinstance(g, dict):
        raise r.fail(where, "a table", g)
    for key in g:
        if key not in ("game", "config", "players", "schedule", "focus", "seeds", "duplicate", "seating",
                       "entrants", "sprt", "min_sets"):
            raise r.fail(f"{where}.{key}", "game, config, players, schedule, focus, seeds, duplicate, "
                         "seating, entrants, sprt or min_sets (unknown key)")
    game_name = r.get(g, "game", where, str, expected="a game name")
    if game_name not in registry.games:
        known = ", ".join(sorted(registry.games))
        raise r.fail(f"{where}.game", f"one of {known}", game_name)
    game = registry.games[game_name]
    default_players = game.min_players if game.min_players == game.max_players else None
    players = r.get(g, "players", where, int,
                    default=default_players if default_players is not None else ...,
                    expected=f"a table size from {game.min_players} to {game.max_players}")
    if not game.min_players <= players <= game.max_players:
        raise r.fail(f"{where}.players", f"a table size from {game.min_players} to {game.max_players}", players)
    raw_config = r.get(g, "config", where, dict, default={})
    try:
        config = resolve_config(game, raw_config, players)
    except ConfigError as exc:
        raise ConfigError(f"{r.path}: {where}.config: {exc}") from None
    schedule = r.get(g, "schedule", where, str, default=defaults["schedule"])
    if schedule not in SCHEDULES:
        raise r.fail(f"{where}.schedule", " or ".join(repr(s) for s in SCHEDULES), schedule)
    seeds = r.get(g, "seeds", where, int, default=defaults["seeds"])
    if seeds < 1:
        raise r.fail(f"{where}.seeds", "at least 1", seeds)
    duplicate = r.get(g, "duplicate", where, bool, default=defaults["duplicate"])
    seating = r.get(g, "seating", where, str, default=defaults["seating"], expected=_SEATING)
    if seating not in designs.DESIGNS:
        raise r.fail(f"{where}.seating", _SEATING, seating)
    if "seating" in g and not duplicate:
        raise r.fail(f"{where}.seating", "duplicate = true with it (without duplicate each seed is played "
                     "once, in the table's order)", seating)
    names = _game_entrants(r, g, where, game_name, entrants)
    focus = r.get(g, "focus", where, str, default=defaults["focus"])
    if schedule == "gauntlet":
        if focus is None:
            raise r.fail(f"{where}.focus", "the entrant a gauntlet is run for (missing)")
        if focus not in names:
            raise r.fail(f"{where}.focus" if "focus" in g else "focus",
                         f"one of the entrants playing {game_name} ({where})", focus)
    if len(names) < players:
        raise r.fail(f"{where}.players", f"no more than the {len(names)} entrants that play {game_name}",
                     players)
    sprt = _sprt(r, g, where, schedule, seeds)
    min_sets = r.get(g, "min_sets", where, int, default=defaults["min_sets"])
    if min_sets < 1:
        raise r.fail(f"{where}.min_sets", "at least 1", min_sets)
    return GameEntry(game_name, config, players, schedule, focus, seeds, duplicate, names, seating, sprt, min_sets)


def _game_entrants(r: _Reader, g: dict[str, Any], where: str, game_name: str,
                   entrants: dict[str, Entrant]) -> tuple[str, ...]:
    """A [[games]] table's entrants: its `entrants` list, checked, else every entrant that plays it."""
    listed = r.get_list(g, "entrants", where, str, "the name of an [[entrants]] table", default=None)
    if listed is None:
        return tuple(e.name for e in entrants.values() if e.games is None or game_name in e.games)
    seen: set[str] = set()
    for j, n in enumerate(listed):
        if n not in entrants:
            raise r.fail(f"{where}.entrants[{j}]", "the name of an [[entrants]] table", n)
        if entrants[n].games is not None and game_name not in entrants[n].games:
            raise r.fail(f"{where}.entrants[{j}]", f"an entrant that plays {game_name}", n)
        if n in seen:
            raise r.fail(f"{where}.entrants[{j}]", "an entrant not listed before (one seat each)", n)
        seen.add(n)
    return tuple(listed)


def _reuse_matches(r: _Reader, limits: dict) -> int:
    """[limits] reuse_matches: an integer from 0 to MAX_REUSE_MATCHES (0 and 1: no reuse)."""
    value = r.get(limits, "reuse_matches", "limits", int, default=REUSE_MATCHES)
    if not 0 <= value <= MAX_REUSE_MATCHES:
        raise r.fail("limits.reuse_matches", f"0 or more, at most {MAX_REUSE_MATCHES} (0 or 1: a fresh bot "
                     "process for every match)", value)
    return value


def _output(r: _Reader, data: dict) -> Output:
    """The [output] table: replays ("all" or "faults"), compress and viewers (booleans)."""
    table = r.get(data, "output", "", dict, default={})
    for key in table:
        if key not in ("replays", "compress", "viewers"):
            raise r.fail(f"output.{key}", "one of the keys compress, replays, viewers (unknown key)")
    replays = r.get(table, "replays", "output", str, default="all")
    if replays not in REPLAYS_KEPT:
        raise r.fail("output.replays", '"all" or "faults"', replays)
    return Output(replays, r.get(table, "compress", "output", bool, default=False),
                  viewers=r.get(table, "viewers", "output", bool, default=True))


def _sprt(r: _Reader, g: dict, where: str, schedule: str, seeds: int) -> Sprt | None:
    """A game entry's `sprt = { elo0, elo1, alpha, beta[, model] }` (referee/tournament/sprt.py), or None
    without one: a gauntlet's only, elo1 above elo0, alpha and beta between 0 and 0.5, MIN_SETS seeds or
    more, the Elo model "logistic" (the default) or "normalized"."""
    raw = r.get(g, "sprt", where, dict, default=None, expected="a table { elo0, elo1, alpha, beta }")
    if raw is None:
        return None
    key = f"{where}.sprt"
    if schedule != "gauntlet":
        raise r.fail(key, f'schedule = "gauntlet" with it (an SPRT tests a focus against the field; this '
                     f'entry\'s schedule is {shown(schedule)})')
    for name in raw:
        if name not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise r.fail(f"{key}.{name}", "elo0, elo1, alpha, beta or model (unknown key)")
    values: dict[str, Any] = {}
    if "model" in raw:
        if raw["model"] not in MODELS:
            raise r.fail(f"{key}.model", " or ".join(f'"{m}"' for m in MODELS), raw["model"])
        values["model"] = raw["model"]
    for name, expected in (("elo0", "an Elo difference from -1000 to 1000"),
                           ("elo1", "an Elo difference from -1000 to 1000"),
                           ("alpha", "a probability between 0 and 0.5"), ("beta", "a probability between 0 and 0.5")):
        value = r.get(raw, name, key, (int, float), expected=expected)
        if isinstance(value, bool) or not math.isfinite(value):
            raise r.fail(f"{key}.{name}", expected, value)
        if (name.startswith("elo") and not -1000 <= value <= 1000) or (
                not name.startswith("elo") and not 0 < value < 0.5):
            raise r.fail(f"{key}.{name}", expected, value)
        values[name] = float(value)
    if values["elo1"] <= values["elo0"]:
        raise r.fail(f"{key}.elo1", f"more than elo0 ({shown(raw['elo0'])})", raw["elo1"])
    if seeds < MIN_SETS:
        raise r.fail(f"{where}.seeds" if "seeds" in g else "seeds", f"at least {MIN_SETS} with {key} (the most "
                     f"duplicate sets it plays; it gives no verdict before {MIN_SETS})", seeds)
    return Sprt(**values)


BOT_LIMITS = ("sandbox", "grace_ms", "total_ms", "bank_ms", "cpu_s", "memory_mb", "fsize_mb", "nofile", "spin_us")


def _bot_limits(r: _Reader, limits: dict) -> dict[str, Any]:
    """The [limits] keys for hostile bots (docs/security.md), the time bank (bank_ms) and
    spin_us: sandbox "none" or "bwrap", the rest from 0 to their LIMIT_MAX."""
    out: dict[str, Any] = {}
    for key in BOT_LIMITS:
        if key == "sandbox" and key in limits:
            out[key] = r.get(limits, key, "limits", str)
            if out[key] not in ("none", "bwrap"):
                raise r.fail("limits.sandbox", '"none" or "bwrap"', out[key])
        elif key in limits:
            out[key] = r.get(limits, key, "limits", int)
            if out[key] < 0:
                raise r.fail(f"limits.{key}", "0 or more", out[key])
            if out[key] > LIMIT_MAX[key]:
                raise r.fail(f"limits.{key}", f"0 or more, at most {LIMIT_MAX[key]}", out[key])
    return out



def _executor(r: _Reader, data: dict, executor: str | None, scheduler: str | None,
              shared_out: bool | None) -> tuple[str, str | None, bool]:
    """The executor, the dask scheduler address (or None) and shared_out, overrides first."""
    file_executor = r.get(data, "executor", "", str, default=None, expected=" or ".join(map(repr, EXECUTORS)))
    if file_executor is not None and file_executor not in EXECUTORS:
        raise r.fail("executor", " or ".join(map(repr, EXECUTORS)), file_executor)
    file_scheduler = r.get(data, "scheduler", "", str, default=None, expected="a dask scheduler address")
    if file_scheduler is not None and not file_scheduler.strip():
        raise r.fail("scheduler", "a dask scheduler address like 'tcp://HOST:8786'", file_scheduler)
    file_shared = r.get(data, "shared_out", "", bool, default=False)
    if executor is not None and executor not in EXECUTORS:
        raise UsageError(f"--executor: expected {' or '.join(EXECUTORS)}, got {executor!r}")
    if scheduler is not None and not scheduler.strip():
        raise UsageError("--scheduler: expected a dask scheduler address like 'tcp://HOST:8786'")
    if executor is None:
        executor = file_executor or ("dask" if scheduler is not None or file_scheduler is not None else "local")
    if executor != "dask":
        if scheduler is not None:
            raise UsageError("--scheduler is the address of a dask scheduler: it needs --executor dask")
        return executor, None, False
    address = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or file_scheduler
    return executor, address or None, file_shared if shared_out is None else shared_out


def _count(entry: GameEntry, where: str, g: dict) -> tuple[int, str]:
    """How many matches a game entry makes (tables x seeds x seatings, as `matches()` builds them,
    without building them), and how, naming the keys the user wrote."""
    n, k = len(entry.entrants), entry.players
    if entry.schedule == "round-robin":
        tables_n, how = math.comb(n, k), f"every {k} of {n} entrants"
    else:
        tables_n, how = math.comb(n - 1, k - 1), f"{entry.focus} with every {k - 1} of {n - 1} entrants"
    orders = designs.size(entry.seating, k) if entry.duplicate else 1
    matches = tables_n * entry.seeds * orders
    seeds_key = f"{where}.seeds" if "seeds" in g else "seeds"
    duplicate_key = f"{where}.duplicate" if "duplicate" in g else "duplicate"
    seating_key = f"{where}.seating" if "seating" in g else "seating"
    design = f" ({entry.seating!r} design)" if entry.duplicate else ""
    hint = ""
    if entry.duplicate:
        hint = f", set {duplicate_key} = false"
        if entry.seating != "rotation":
            hint += f", set {seating_key} = 'rotation' ({k} seatings)"
    how = (f"{where} ({entry.game}) makes {matches:,} ({tables_n:,} tables, {how}, x {entry.seeds} "
           f"seed{'s' if entry.seeds != 1 else ''} x {orders:,} seating{'s' if orders != 1 else ''}{design}); "
           f"lower {seeds_key} or {where}.players{hint} or list fewer entrants in {where}.entrants")
    return matches, how


def _positive(r: _Reader, table: dict, key: str, where: str, default: int | None) -> int:
    value = r.get(table, key, where, int, default=default)
    if value < 1:
        raise r.fail(f"{where}.{key}", "a positive integer", value)
    if value > LIMIT_MAX[key]:
        raise r.fail(f"{where}.{key}", f"a positive integer, at most {LIMIT_MAX[key]}", value)
    return value


def _entrants(r: _Reader, data: dict, registry: Registry) -> dict[str, Entrant]:
    raw = r.get(data, "entrants", "", list, expected="an array of tables [[entrants]]")
    entrants: dict[str, Entrant] = {}
    for i, e in enumerate(raw):
        where = f"entrants[{i}]"
        if not isinstance(e, dict):
            raise r.fail(where, "a table", e)
        if "intake" in e:  # every submission an intake accepted (docs/contests.md)
            for entrant in _from_intake(r, e, where, registry):
                if entrant.name in entrants:
                    raise r.fail(f"{where}.intake", "submissions named as no other entrant is", entrant.name)
                entrants[entrant.name] = entrant
            continue
        allowed = ("name", "strategy", "command", "cwd", "dir", "env", "limits", "games")
        for key in e:
            if key not in allowed:
                raise r.fail(f"{where}.{key}", f"one of {', '.join(allowed)} (unknown key)")
        strategy = r.get(e, "strategy", where, str, default=None)
        command = r.get(e, "command", where, str, default=None)
        if (strategy is None) == (command is None):
            raise r.fail(where, "exactly one of 'strategy' or 'command'")
        name = r.get(e, "name", where, str, default=strategy if strategy is not None else ...)
        if name in entrants:
            raise r.fail(f"{where}.name", "a name no other entrant has", name)
        games = r.get_list(e, "games", where, str, "a game name", default=None)
        if strategy is not None:
            if strategy not in registry.strategies:
                known = ", ".join(sorted(registry.strategies))
                raise r.fail(f"{where}.strategy", f"a registered strategy ({known})", strategy)
            only = registry.strategies[strategy].games
            if games is None and only is not None:
                games = list(only)
        if games is not None:
            for j, gname in enumerate(games):
                if gname not in registry.games:
                    raise r.fail(f"{where}.games[{j}]", "an installed game", gname)
        cwd = r.get(e, "cwd", where, str, default=None)
        own = r.get(e, "dir", where, str, default=None)
        if own is not None:
            if command is None:
                raise r.fail(f"{where}.dir", "no 'dir' for a strategy (only a command has files)")
            home = Path(os.path.abspath(r.path.parent / own))
            if not home.is_dir():
                raise r.fail(f"{where}.dir", "an existing directory", own)
            if home in Path(os.path.abspath(r.path)).parents:
                raise r.fail(f"{where}.dir", "a directory that does not hold the tournament file", own)
        if command is not None:
            default = r.path.parent / own if own is not None else r.path.parent  # its own directory, if it has one
            base = r.path.parent / cwd if cwd is not None else default
            if cwd is not None and not base.is_dir():
                raise r.fail(f"{where}.cwd", "an existing directory", cwd)
            try:
                _check_command(command, base)
            except UsageError as exc:
                raise r.fail(f"{where}.command", f"a command that exists ({exc})", command) from None
        env = r.get(e, "env", where, dict, default={})
        for k, v in env.items():
            if not isinstance(v, str):
                raise r.fail(f"{where}.env.{k}", "a string", v)
        limits = r.get(e, "limits", where, dict, default={})
        for k in limits:
            if k not in ("move_ms", "start_ms"):
                raise r.fail(f"{where}.limits.{k}", "move_ms or start_ms (unknown key)")
        entrants[name] = Entrant(
            name, strategy, command, str(base) if command is not None else None, dict(env),
            _positive(r, limits, "move_ms", f"{where}.limits", None) if "move_ms" in limits else None,
            _positive(r, limits, "start_ms", f"{where}.limits", None) if "start_ms" in limits else None,
            tuple(games) if games is not None else None,
            str(home) if own is not None else None,
        )
    if not entrants:
        raise r.fail("entrants", "at least one [[entrants]] table")
    return entrants


def _from_intake(r: _Reader, e: dict[str, Any], where: str, registry: Registry) -> list[Entrant]:
    """An [[entrants]] table `intake = "DIR"`: an entrant per name that intake (`referee intake
    ... --out DIR`) accepted, its latest accepted version (DIR/accepted.json), each with its own
    folder as `dir` (what the sandbox shows of it) and the game it was validated for; `limits`
    (move_ms, start_ms) apply to them all."""
    import json
    import shlex

    for key in e:
        if key not in ("intake", "limits"):
            raise r.fail(f"{where}.{key}", "intake or limits (unknown key beside intake)")
    folder = r.get(e, "intake", where, str, expected="an intake's folder (referee intake --out)")
    accepted_file = r.path.parent / folder / "accepted.json"
    try:
        accepted = json.loads(accepted_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise r.fail(f"{where}.intake", "an intake's folder holding accepted.json", folder) from None
    if not isinstance(accepted, dict) or not accepted:
        raise r.fail(f"{where}.intake", "an intake that accepted a submission", folder)
    limits = r.get(e, "limits", where, dict, default={})
    for k in limits:
        if k not in ("move_ms", "start_ms"):
            raise r.fail(f"{where}.limits.{k}", "move_ms or start_ms (unknown key)")
    out = []
    for name, sub in sorted(accepted.items()):
        if not isinstance(sub, dict) or not isinstance(sub.get("command"), list) or not sub.get("dir"):
            raise r.fail(f"{where}.intake", f"accepted.json's {name!r} with its command and folder", folder)
        if not Path(sub["dir"]).is_dir():
            raise r.fail(f"{where}.intake", f"the folder of {name!r} ({sub['dir']}), which is gone", folder)
        game = sub.get("game")
        out.append(Entrant(
            name, None, shlex.join(sub["command"]), sub["dir"], {},
            _positive(r, limits, "move_ms", f"{where}.limits", None) if "move_ms" in limits else None,
            _positive(r, limits, "start_ms", f"{where}.limits", None) if "start_ms" in limits else None,
            (game,) if game in registry.games else None, sub["dir"]))
    return out


def _check_command(command: str, cwd: Path) -> None:
    """Raise UsageError unless the command's program can be found, relative to `cwd`."""
    import shlex

    from referee.match import missing_script, program_exists

    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not argv:
        raise UsageError("empty command")
    program = argv[0]
    if not program_exists(program, cwd):
        if os.sep in program:
            raise UsageError(f"{program} does not exist or is not executable")
        raise UsageError(f"{program} is not on PATH")
    script = missing_script(argv, cwd)
    if script is not None:
        raise UsageError(f"{script} does not exist")
