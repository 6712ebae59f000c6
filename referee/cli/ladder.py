"""`referee ladder LADDER.toml` runs a ladder; `referee ladder serve OUT` serves its site
(referee/ladder/)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from referee.cli.common import _console, _errors, _registry, app


@app.command()
def ladder(
    target: Annotated[list[str], typer.Argument(
        metavar="LADDER.toml | serve OUT | verify OUT",
        help="The ladder file to run; or `serve` and the ladder's output folder, to serve its site; or "
             "`verify` and that folder, to check every replay against the database and the rules.")],
    max_matches: Annotated[Optional[int], typer.Option(
        min=1, metavar="N", help="Stop after N matches, or when there is nothing to play (default: run on).")] = None,
    executor: Annotated[str, typer.Option(metavar="local|dask", help="Where matches run: here, one at a time "
                                          "(local), or a set's seatings at once on a Dask cluster (dask).")] = "local",
    scheduler: Annotated[Optional[str], typer.Option(metavar="ADDRESS", help="dask: the scheduler "
                                                     "(tcp://HOST:8786); none: a local cluster.")] = None,
    workers: Annotated[int, typer.Option(min=1, max=256, help="dask without --scheduler: the local "
                                         "cluster's worker processes.")] = 2,
    port: Annotated[int, typer.Option(min=0, max=65535, help="serve: the port on localhost.")] = 8000,
) -> None:
    """Run a ladder: watch its submissions folder, take each new version in, play duplicate sets,
    refit the ratings, write its site (docs/contests.md, "Ladder"). Rerun to go on."""
    from referee.errors import UsageError

    console = _console()
    with _errors():
        if target[0] == "verify":
            if len(target) != 2:
                raise UsageError("usage: referee ladder verify OUT")
            _verify(Path(target[1]), console)
            return
        if target[0] == "serve":
            if len(target) != 2:
                raise UsageError("usage: referee ladder serve OUT")
            _serve(Path(target[1]), port, console)
            return
        if len(target) != 1:
            raise UsageError("usage: referee ladder LADDER.toml [--max-matches N]")
        from referee.ladder.config import load
        from referee.ladder.run import Ladder

        if executor not in ("local", "dask"):
            raise UsageError(f"--executor must be local or dask, got {executor!r}")
        config = load(Path(target[0]))
        registry = _registry()
        registry.game(config.game)  # an unknown game said first
        if config.sandbox == "bwrap":
            _check_open(config.out)
        running = Ladder(config, registry, executor, scheduler, workers)
        try:
            for event in running.run(max_matches):
                _show(console, event)
        except KeyboardInterrupt:
            console.print("stopped: the match in flight is dropped; run the same command to go on", highlight=False)
            raise typer.Exit(130) from None
        finally:
            running.close()


def _show(console, event) -> None:
    d = event.detail
    say = lambda text: console.print(text, highlight=False, markup=False, soft_wrap=True)  # noqa: E731
    if event.kind == "intake":
        say(f"intake {d['entry']}: {d['status']}" + (f" as {d['entrant']}" if d["entrant"] else f" ({d['reason']})"))
    elif event.kind == "match":
        say(f"set {d['set']} seating {d['seating']}: " + ", ".join(f"{s} {r}" for s, r in zip(d["seats"], d["ranks"])))
    elif event.kind == "fit" and d["ratings"]:
        rows = sorted(d["ratings"].items(), key=lambda kv: -kv[1]["rating"])
        say("ratings: " + ", ".join(f"{k} {v['rating']:.0f}" for k, v in rows))
    elif event.kind == "idle":
        say(f"waiting for submissions ({d['entrants']} active)")
    elif event.kind == "stop":
        say(f"played {d['played']} matches" + (f"; bot processes: {d['started']} started, {d['reused']} seats "
                                                 "given a kept one" if d["started"] is not None else ""))


def _serve(out: Path, port: int, console) -> None:
    from referee.errors import UsageError
    from referee.ladder.site import serve

    if not (out / "site").exists():
        raise UsageError(f"{str(out)!r} holds no ladder site (run `referee ladder LADDER.toml` first)")
    server = serve(out, port)
    console.print(f"serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)", highlight=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _verify(out: Path, console) -> None:
    from referee.errors import UsageError
    from referee.ladder.run import DB, verify
    from referee.ladder.state import State

    if not (out / DB).is_file():
        raise UsageError(f"{str(out)!r} holds no ladder ({DB})")
    state = State(out / DB)
    try:
        checked, problems = verify(state, out, _registry())
    finally:
        state.close()
    for line in problems:
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    console.print(f"{checked} replays verified: " + ("all agree" if not problems else f"{len(problems)} problems"),
                  highlight=False)
    if problems:
        raise typer.Exit(1)


def _check_open(out: Path) -> None:
    """As root the sandboxed bots run under uids of their own: the ladder's folder (their files
    lie in its intake/) must be reachable by other users (UsageError naming the closed folder)."""
    from referee.bots.sandbox import closed_to_bots
    from referee.errors import UsageError

    folder = closed_to_bots(out)
    if folder is not None:
        raise UsageError(f"the ladder's folder {str(out)!r} lies in {str(folder)!r}, which other users cannot "
                         "enter: as root, sandboxed bots run as users of their own; set `out` elsewhere")
