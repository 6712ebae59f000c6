"""The JSON Schema (draft 2020-12) of bot protocol v1, shipped as `referee/schema.json`.

The root validates any message of any game, in either direction. Per-game definitions
(`maumau_*`, `presidente_*`, `mayor_*`) also check each built-in game's action shapes,
observations and events. This module only loads the file and picks a root: validating needs
the `jsonschema` package, which the referee itself does not depend on (tests and bot authors
bring it).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

from referee.errors import UsageError

#: the message directions a schema can be rooted at (None: both)
DIRECTIONS = ("to_bot", "to_referee")


@cache
def text() -> str:
    """The shipped schema file's text, exactly."""
    return resources.files("referee").joinpath("schema.json").read_text(encoding="utf-8")


def load() -> dict[str, Any]:
    """The whole schema, as shipped (a fresh copy)."""
    return json.loads(text())


def games() -> list[str]:
    """The games that have their own definitions in the schema."""
    return sorted(name[: -len("_to_bot")] for name in load()["$defs"] if name.endswith("_to_bot"))


def definition_name(game: str | None = None, direction: str | None = None) -> str:
    """The name of the definition for these messages, e.g. "mayor_to_referee" or "message"."""
    if direction is not None and direction not in DIRECTIONS:
        raise UsageError(f"unknown direction {direction!r}: use one of {', '.join(DIRECTIONS)}")
    if game is not None and game not in games():
        raise UsageError(f"the schema has no definitions for game {game!r} (it has {', '.join(games())}); "
                         "the generic messages (no game) apply to any game")
    base = direction or "message"
    return f"{game}_{base}" if game is not None else base


def rooted(game: str | None = None, direction: str | None = None) -> dict[str, Any]:
    """A self-contained schema whose root is one game's and/or one direction's messages."""
    schema = copy.deepcopy(load())
    name = definition_name(game, direction)
    schema["$ref"] = f"#/$defs/{name}"
    if name != "message":
        schema["title"] = f"{schema['title']}: {name}"
    return schema


def validator(game: str | None = None, direction: str | None = None):
    """A `jsonschema.Draft202012Validator` for these messages (needs the jsonschema package)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(rooted(game, direction))
