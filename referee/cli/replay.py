"""`referee replay` (look at a match: terminal or HTML) and `referee verify` (check a replay
from its own records): see docs/replays.md."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from referee.cli.common import _console, _errors, _registry, app, check_json_target, rich_progress, write_json


@app.command()
def replay(
    file: Annotated[Optional[Path], typer.Argument(help="A replay file (.jsonl, or gzip-compressed .jsonl.gz).")] = None,
    seat: Annotated[Optional[int], typer.Option(help="Show only what this seat saw (its events, its hand).")] = None,
    deal: Annotated[Optional[int], typer.Option(help="Show only this deal (round).")] = None,
    html: Annotated[
        Optional[Path], typer.Option(help="Write a self-contained HTML viewer to this file instead of printing.")
    ] = None,
    index: Annotated[
        Optional[Path], typer.Option(help="Write index.html (standings and a viewer per match) into this "
                                     "tournament output directory.")
    ] = None,
    no_debug: Annotated[
        bool, typer.Option("--no-debug", help="Leave out the debug text bots sent beside their moves.")
    ] = False,
) -> None:
    """Show a match deal by deal: hands, every play, penalties, specials, scores, faults."""
    from referee.errors import UsageError

    with _errors():
        if index is not None:
            if file is not None or seat is not None or deal is not None or html is not None:
                raise UsageError("--index DIR takes no replay file and no other option")
            from referee.tournament.index import write_index

            with rich_progress(_console()) as progress:  # a bar on a terminal: the viewer pages take a while
                path = write_index(index, _registry(), progress=progress, jobs=os.cpu_count() or 1)
            typer.echo(f"written: {path}")
            return
        if file is None:
            raise UsageError("missing replay file (or --index DIR)")
        from referee.replay.verify import load_replay

        rep = load_replay(file)
        registry = _registry()
        game = registry.games.get(rep.game)
        if seat is not None and not 0 <= seat < rep.players:
            raise UsageError(f"--seat {seat}: this {rep.game} match has seats 0 to {rep.players - 1}")
        if seat is not None and game is None:
            raise UsageError(f"--seat needs the {rep.game!r} game installed (it re-runs the match)")
        if html is not None:
            from referee.replay.html import write_viewer

            if deal is not None:
                raise UsageError("--deal is for the terminal; the HTML viewer holds every deal")
            write_viewer(rep, game, html, seat=seat)
            typer.echo(f"written: {html}")
            return
        from referee.replay.terminal import build_story, render

        story = build_story(rep, game, seat, debug=not no_debug)
        render(_console(), story, deal)


@app.command()
def verify(
    files: Annotated[list[Path], typer.Argument(help="Replay files (.jsonl or .jsonl.gz), or a tournament's "
                                                "journal.jsonl.")],
    key: Annotated[
        Optional[Path], typer.Option(metavar="PUBLIC_KEY", help="Also check the signatures with this public key "
                                     "(`referee keygen`'s PATH.pub, a tournament's sign.pub): fail on any "
                                     "record edited, removed, added or moved since it was signed.")
    ] = None,
    json_out: Annotated[
        Optional[str], typer.Option("--json", metavar="FILE", help="Also write each file's verdict as JSON to this "
                                    "file ('-': stdout, instead of the lines).")
    ] = None,
) -> None:
    """Re-simulate replays from their own records and check every move and every result.

    Prints OK per file, or the first discrepancy (deal, move, what differs). A journal is
    checked line by line: its signatures (with --key) and, for each match, that its replay is the
    one it names. Exit 1 if any file has a discrepancy, 2 if a file cannot be verified at all (not
    a replay, unknown game).
    """
    from referee.errors import PluginError, UsageError
    from referee.replay.verify import is_journal, read_bytes, verify_file, verify_journal
    from referee.signing import load_verifier

    with _errors():
        check_json_target(json_out)
        registry = _registry()
        verifier = load_verifier(key) if key is not None else None
    signed = f", signed by key {verifier.id}" if verifier is not None else ""
    say = (lambda line: None) if json_out == "-" else typer.echo
    failed = unusable = 0
    results: list[dict] = []
    for path in files:
        entry: dict = {"path": str(path), "ok": None, "signed_by": verifier.id if verifier is not None else None}
        results.append(entry)
        try:
            data = read_bytes(path)
            if is_journal(data):
                journal = verify_journal(path, data, verifier)
                entry.update(kind="journal", ok=journal.ok, records=journal.records, replays=journal.replays,
                             discrepancy=None if journal.ok else str(journal))
                if journal.ok:
                    unchecked = "" if verifier is not None else "; no --key: signatures not checked"
                    say(f"{path}: OK (journal, {journal.records} records, {journal.replays} replays "
                        f"match{signed}{unchecked})")
                else:
                    failed += 1
                    say(f"{path}: DISCREPANCY at {journal}")
                continue
            verdict = verify_file(path, registry, verifier, data)
        except UsageError as exc:
            unusable += 1
            entry["error"] = str(exc)
            typer.echo(f"{path}: error: {exc}", err=True)
            continue
        except PluginError as exc:  # the rules plugin broke its contract: no verdict on any file
            typer.echo(f"{path}: plugin error: {exc}", err=True)
            raise typer.Exit(1) from None
        entry.update(kind="replay", ok=verdict.ok, game=verdict.game, deals=verdict.deals, moves=verdict.moves,
                     discrepancy=None if verdict.ok else str(verdict.discrepancy))
        if verdict.ok:
            say(f"{path}: OK ({verdict.game}, {verdict.deals} deals, {verdict.moves} moves{signed})")
        else:
            failed += 1
            say(f"{path}: DISCREPANCY at {verdict.discrepancy}")
    if json_out is not None:
        with _errors():
            write_json(_console(), json_out, {"files": results, "ok": not failed and not unusable}, "verdicts")
    if failed:
        raise typer.Exit(1)
    if unusable:
        raise typer.Exit(2)
