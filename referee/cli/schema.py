"""`referee schema`: print the JSON Schema of bot protocol v1 (the whole of it, or one game's), for the
installed games (referee/schema.py)."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from referee.cli.common import _errors, _registry, app


@app.command()
def schema(
    game: Annotated[
        Optional[str],
        typer.Option(help="Root the schema at this game's messages (any game of `referee games`): what the game "
                     "declares of its actions, observations and events is checked; a game that declares "
                     "nothing gets the generic messages, with a note."),
    ] = None,
    direction: Annotated[
        Optional[str],
        typer.Option(help="Root the schema at one direction: to_bot (hello, event, act, end) or to_referee "
                     "(ready, action)."),
    ] = None,
) -> None:
    """Print the JSON Schema (draft 2020-12) of every protocol message (docs/protocol.md)."""
    from referee import schema as protocol_schema

    with _errors():
        registry = _registry()
        if game is None and direction is None:
            text = protocol_schema.text(registry)  # the envelope and every installed game's part
        else:
            text = json.dumps(protocol_schema.rooted(game, direction, registry), indent=2, ensure_ascii=False) + "\n"
            note = protocol_schema.undeclared_note(game, registry)
            if note is not None:
                typer.echo(f"note: {note}", err=True)
        typer.echo(text, nl=False)
