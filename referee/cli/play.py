"""`referee play`: one match, its replay and its bots' logs, and a report in the game's words."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from referee.bots.limits import CPU_S, MAX_CPU_S, MAX_FAULT_COUNT, MAX_MEMORY_MB, MAX_MS, MEMORY_MB
from referee.cli.common import _console, _errors, _plugin_manager, app, check_json_target, write_json
from referee.protocol import printable

TAIL_LINES = 10  # lines of a crashed bot's stderr that play shows


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="The game to play (see `referee games`).")],
    player: Annotated[
        list[str],
        typer.Option(
            "--player", "-p",
            metavar="SPEC",
            help="A seat, in seat order: a strategy name (see `referee strategies`), `human` (you, at this terminal) or a command line "
            "run as a subprocess bot. Repeat once per seat.",
        ),
    ],
    seed: Annotated[Optional[int], typer.Option(help="The match seed (default: a random one, printed).")] = None,
    set_: Annotated[
        list[str], typer.Option("--set", metavar="KEY=VALUE", help="A game option, KEY=VALUE (see `referee rules GAME`). Repeatable.")
    ] = [],
    move_ms: Annotated[int, typer.Option(min=1, max=MAX_MS, help="Time limit per decision, in ms.")] = 1000,
    start_ms: Annotated[int, typer.Option(min=1, max=MAX_MS,
                                          help="Time limit for a bot to answer hello, in ms.")] = 5000,
    max_faults: Annotated[int, typer.Option(min=1, max=MAX_FAULT_COUNT,
                                            help="Faults before a bot is disqualified.")] = 1,
    bank_ms: Annotated[int, typer.Option(min=0, max=MAX_MS, help="A time bank per bot and match, in ms: time a "
                                         "decision takes beyond --move-ms is drawn from it (0: none).")] = 0,
    out: Annotated[
        Optional[Path], typer.Option(help="Replay file to write (default: matches/<match id>.jsonl).")
    ] = None,
    log_protocol: Annotated[
        Optional[Path], typer.Option(help="Write every line exchanged with the external bots to this file "
                                     "('<seat> > line' sent, '<seat> < line' received).")
    ] = None,
    sandbox: Annotated[
        str, typer.Option(metavar="none|bwrap", help="Run external bots in the bubblewrap sandbox (no network, "
                          "nothing of this machine but its system files and the bot's own, no capability, "
                          "own PID namespace; see docs/security.md). Without it a warning is printed.")
    ] = "none",
    memory_mb: Annotated[int, typer.Option(min=0, max=MAX_MEMORY_MB, help="Address space limit of each bot "
                                           "process, in MB (0: none).")] = MEMORY_MB,
    cpu_s: Annotated[int, typer.Option(min=0, max=MAX_CPU_S, help="CPU seconds limit of each bot process "
                                       "(0: none).")] = CPU_S,
    json_out: Annotated[
        Optional[str], typer.Option("--json", metavar="FILE|-", help="Also write the result as JSON to this file "
                                    "(game, config, seed, seats, scores, ranks, faults, the replay and log paths); "
                                    "'-': to stdout, the report going to stderr.")
    ] = None,
    sign_key: Annotated[
        Optional[Path], typer.Option(metavar="PATH", help="Sign the replay's result with this private key "
                                     "(`referee keygen PATH`); `referee verify --key PATH.pub` then checks it.")
    ] = None,
) -> None:
    """Play one match and print the result; writes the replay and the bots' stderr logs.

    The deal is sealed by a secret key (REFEREE_DEAL_KEY, else a fresh one): pin the key to
    repeat a seed exactly (see docs/security.md)."""
    from referee.config import parse_assignments, resolve_config
    from referee.errors import UsageError
    from referee.match import MatchRequest, replay_folder, seat_names
    from referee import sealing
    from referee.plugins import build_registry
    from referee.runner import Limits, by_ready_name
    from referee.bots.sandbox import UNSANDBOXED, require

    with _errors():
        pm = _plugin_manager()
        registry = build_registry(pm)
        g = registry.game(game)
        config = resolve_config(g, parse_assignments(set_), len(player))
        seats = by_ready_name(seat_names(player, registry))
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if sandbox not in ("none", "bwrap"):
            raise UsageError(f"--sandbox must be none or bwrap, got {sandbox!r}")
        commands = any(s.kind == "command" for s in seats)
        if commands:
            require(sandbox)
        if json_out == "-" and any(s.kind == "human" for s in seats):
            raise UsageError("--json - writes the result to stdout, which a human seat plays on: give --json FILE")
        check_json_target(json_out)  # refused now, not after the match
        limits = Limits(move_ms=move_ms, start_ms=start_ms, max_faults=max_faults, sandbox=sandbox,
                        memory_mb=memory_mb, cpu_s=cpu_s, bank_ms=bank_ms)
        key = sealing.for_run()
        signer = None
        if sign_key is not None:
            from referee.signing import load_signer

            signer = load_signer(sign_key)
        # with --json -, stdout holds the JSON alone: the report goes to stderr
        console = _stderr_console() if json_out == "-" else _console()
        request = MatchRequest(
            g, config, seed, tuple(seats), registry, limits, key, signer, pm.hook, replay=out,
            replays=Path("matches"), protocol_log=log_protocol,
            started=lambda: console.print(f"{g.title}: {len(seats)} players, seed {seed}", highlight=False))
        # a sandboxed bot sees none of the outputs (the replay, the logs, the protocol log) nor the
        # signing key, wherever they are (the request's default `hide`)
        replay_folder(request.replay_path)
        if commands and sandbox == "none":
            typer.echo(f"warning: {UNSANDBOXED}", err=True)
        _played(console, request, json_out)


def _played(console, request, json_out: str | None) -> None:
    """Play the request's match and report it: the result, the replay's path, the JSON asked for;
    Ctrl-C exits 130, a failure on the referee's side is one line (exit 3)."""
    from referee.match import play_match

    replay, signer, log_protocol = request.replay_path, request.signer, request.protocol_log
    try:
        result = play_match(request)
    except KeyboardInterrupt:  # the bots are gone (run_match closes them); the replay is cut short
        typer.echo(f"interrupted: {replay} holds the moves played so far, without a result", err=True)
        raise typer.Exit(130) from None
    except Exception as exc:  # the referee's side failed: one line (exit 3), never a traceback
        raise _failure(exc, replay) from None
    _print_result(console, result, request.game)
    signed = f" (signed, key id {signer.id})" if signer is not None else ""
    console.print(f"replay: {replay}{signed}", highlight=False, markup=False, soft_wrap=True)
    if log_protocol is not None:
        console.print(f"protocol log: {log_protocol}", highlight=False, markup=False, soft_wrap=True)
    if json_out is not None:
        write_json(console, json_out, result_json(result, request.logs_stem, request.key, log_protocol), "result")


def _failure(exc: Exception, replay: Path) -> Exception:
    """The error to show for `exc`, raised while the match was played: DiskFull for a full disk,
    the referee's own errors as they are (a plugin's broken output...), UsageError for a file
    that cannot be written, else RefereeFailure; the bots are gone and the replay holds what was
    played (run_match closes them and writes it, whatever happened)."""
    from referee.errors import DiskFull, RefereeError, RefereeFailure, UsageError, first_line, full_disk

    full = full_disk(exc)
    if full is not None:
        return DiskFull.of(full, replay, "play the match again")
    if isinstance(exc, RefereeError):
        return exc
    if isinstance(exc, OSError):  # the replay or the protocol log cannot be written
        return UsageError(f"cannot write {exc.filename or str(replay)!r}: {exc.strerror or exc}")
    return RefereeFailure(f"the match failed on the referee's side, no seat is blamed: {first_line(exc)}; "
                          f"what was played is in {replay}")


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def result_json(result, stem: str, key, log_protocol: Path | None = None) -> dict[str, Any]:
    """`play --json`: the match as a script wants it. The header's and the result record's own
    fields (game, config, seed, match, scores, ranks, faults, disqualified, fault_log, resources), each seat
    as the header has it (its name, the bot's own from `ready`, and `bot`: what it announced) with
    its stderr log's path (None: it has none), each fault with its log's path and the
    bot's stderr tail, the replay's path, the protocol log's, and whether the deal key was pinned
    (only then does `--seed` repeat the deal)."""
    header, res = result.header, result.result
    folder = result.replay.parent if result.replay is not None else None

    def log_path(name: str | None) -> str | None:
        path = folder / name if folder is not None and name else None
        return str(path) if path is not None and path.is_file() else None

    seats = [{**p, "log": log_path(f"{stem}.seat{p['seat']}.log") if p.get("kind") == "command" else None}
             for p in header["players"]]
    fault_log = [{**f.record(), **({"legal": list(f.legal_actions), "legal_count": f.legal_count} if f.legal else {}),
                  "log_path": log_path(f.log), "stderr_tail": f.stderr_tail} for f in result.faults]
    return {
        "referee": header.get("referee"), "protocol": header.get("protocol"),
        "game": header["game"], "config": header["config"], "seed": header["seed"], "match": header["match"],
        "seats": seats, "limits": header["limits"],
        "scores": res["scores"], "ranks": res["ranks"], "faults": res["faults"],
        "disqualified": res["disqualified"], "fault_log": fault_log, "penalties": result.penalties,
        "resources": result.resources,
        "replay": str(result.replay) if result.replay is not None else None,
        "protocol_log": str(log_protocol) if log_protocol is not None else None,
        "deal_key": {"id": key.id, "pinned": key.source != "fresh"},
    }


def resources_table(resources: list[dict[str, Any]], names: list[str]):
    """Each seat's moves, move times (p50/p90/max ms), CPU seconds and peak MB as a rich table
    (referee.resources; "-": unknown, or no process of its own)."""
    from rich.table import Table
    from rich.text import Text

    from referee.resources import shown

    table = Table(title="Resources")
    for col in ("seat", "player", "moves", "p50 ms", "p90 ms", "max ms", "CPU s", "peak MB", "measured"):
        table.add_column(col, justify="left" if col in ("player", "measured") else "right", overflow="fold")
    for i, (r, name) in enumerate(zip(resources, names)):
        table.add_row(str(i), Text(name), str(r["decisions"]), *(shown(r[k], ms=True) for k in ("ms_p50", "ms_p90",
                      "ms_max")), shown(r["cpu_s"]), shown(r["peak_mb"]), r["measured"])
    return table


def _print_result(console, result, game=None) -> None:
    """`play`'s report: a row per deal in the game's words (its describer's), then the result."""
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from referee.describe import describer_of

    if result.deals:
        describer = describer_of(game)
        players = len(result.header["players"])
        deals = Table(title="Deals")
        deals.add_column("deal", justify="right")
        for p in result.header["players"]:
            deals.add_column(Text(p["name"]), justify="right")
        for d in result.deals:
            label, cells = describer.deal_summary(d, players)  # text, never markup (but highlighted)
            deals.add_row(escape(label), *[escape(cell) for cell in cells])
        console.print(deals)
    res = result.result
    table = Table(title="Result")
    for col in ("seat", "player", "kind", "score", "rank", "faults"):
        table.add_column(col, overflow="fold")
    for i, p in enumerate(result.header["players"]):
        faults = str(res["faults"][i]) + (" (disqualified)" if i in res["disqualified"] else "")
        table.add_row(str(i), Text(p["name"]), p["kind"], str(res["scores"][i]), str(res["ranks"][i]), faults)
    console.print(table)
    if result.resources:
        console.print(resources_table(result.resources, [p["name"] for p in result.header["players"]]))
    folder = result.replay.parent if result.replay is not None else None
    for p in result.penalties:  # what a seat paid for its conduct under the rules (referee.game.penalty)
        name = result.header["players"][p["seat"]]["name"] if isinstance(p["seat"], int) else "?"
        console.print(f"[yellow]penalised[/yellow] seat {p['seat']} ({escape(name)}): {escape(p['why'])} "
                      f"({escape(p['ruling'])}) x{p['times']}", highlight=False)
    for f in result.faults:  # a bot's text is never read as markup ("[/]" would stop the CLI)
        console.print(
            f"[red]fault[/red] seat {f.seat} {f'deal {f.deal}' if f.deal else 'at start'}"
            f"{f', act {f.act}' if f.act else ''}: {escape(f.kind)}: "
            f"{escape(f.detail)}" + (f" (raw: {escape(repr(f.raw[:80]))})" if f.raw else ""),
            highlight=False,
        )
        if f.legal:
            console.print(f"  legal: {f.legal}", highlight=False, markup=False)
        if f.hint:
            console.print(f"  fix: {f.hint}", highlight=False, markup=False)
        log = folder / f.log if folder is not None and f.log else None
        if log is not None and log.is_file() and log.stat().st_size:
            console.print(f"  its stderr: {log}", highlight=False, markup=False)
        tail = f.stderr_tail.strip().splitlines()[-TAIL_LINES:] if f.kind == "crash" and f.stderr_tail else []
        if tail:  # a crash's last words on screen, as validate shows them (the whole log is named above)
            console.print("  its last lines on stderr:", highlight=False, markup=False)
            for line in tail:
                console.print(f"    {printable(line)[0]}", highlight=False, markup=False)

