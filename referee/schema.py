"""The JSON Schema (draft 2020-12) of bot protocol v1: the common envelope shipped as
`referee/schema.json`, plus each installed game's own definitions.

The envelope validates any message of any game, in either direction. A game may declare its own
definitions (`Game.schema()`, by default its describer's: `<game>_config`, `_action`, `_obs`,
`_event`, the generic one standing for a part left out, and helpers of its own); this module
adds the game's message definitions around them
(`<game>_hello`, `_event_message`, `_act`, `_action_reply`, `_to_bot`, `_to_referee`, `_message`)
and fills in the envelope's words that list the games ({definitions}, {games}, {scores}). Games
come in name order. Validating needs the `jsonschema` package, which the referee itself does
not depend on (tests and bot authors bring it). `rooted` serves any installed game: one that
declares nothing gets the generic messages, with a note saying so (`undeclared_note`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from referee.describe import describer_of
from referee.errors import PluginError, UsageError

#: the message directions a schema can be rooted at (None: both)
DIRECTIONS = ("to_bot", "to_referee")
#: the definitions every game's own part of the schema holds (as `<game>_<part>`)
PARTS = ("config", "action", "obs", "event")


def envelope() -> dict[str, Any]:
    """The common definitions, as shipped (a fresh copy; its game-listing words unfilled)."""
    return json.loads(resources.files("referee").joinpath("schema.json").read_text(encoding="utf-8"))


def _messages(game: str) -> dict[str, Any]:
    """A game's message definitions, around its own config, action, obs and event."""
    def ref(name: str) -> dict[str, str]:
        return {"$ref": f"#/$defs/{name}"}

    return {
        f"{game}_hello": {"allOf": [ref("hello"), {"properties": {"game": {"const": game},
                                                                 "config": ref(f"{game}_config")}}]},
        f"{game}_event_message": {"allOf": [ref("event"), {"properties": {"event": ref(f"{game}_event")}}]},
        f"{game}_act": {"allOf": [ref("act"), {"properties": {"obs": ref(f"{game}_obs"),
                                                             "legal": {"items": ref(f"{game}_action")}}}]},
        f"{game}_action_reply": {"allOf": [ref("action"), {"properties": {"action": ref(f"{game}_action")}}]},
        f"{game}_to_bot": {"description": f"Any message the referee sends in {game}.",
                           "oneOf": [ref(f"{game}_hello"), ref(f"{game}_event_message"), ref(f"{game}_act"),
                                     ref("end")]},
        f"{game}_to_referee": {"description": f"Any message a bot sends in {game}.",
                               "oneOf": [ref("ready"), ref(f"{game}_action_reply")]},
        f"{game}_message": {"description": f"Any {game} message, either direction.",
                            "oneOf": [ref(f"{game}_to_bot"), ref(f"{game}_to_referee")]},
    }


def _fill(value: Any, words: dict[str, str]) -> Any:
    """`value` with each {placeholder} of `words` filled in, in every string."""
    if isinstance(value, str):
        for key, text in words.items():
            value = value.replace("{" + key + "}", text)
        return value
    if isinstance(value, dict):
        return {k: _fill(v, words) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, words) for v in value]
    return value


def declared(game: Any) -> dict[str, Any]:
    """The definitions `game` declares (`Game.schema()`; a game without the method: its
    describer's), {} for none; PluginError if they are not an object of definitions."""
    own = getattr(game, "schema", None)
    if not callable(own):  # a duck-typed game: as Game.schema's default
        own = getattr(describer_of(game), "schema", None)
    found = own() if callable(own) else {}
    if not isinstance(found, dict) or not all(isinstance(v, dict) for v in found.values()):
        raise PluginError(f"game {getattr(game, 'name', '?')!r}'s schema() must give a dict of JSON Schema "
                          f"definitions, not {type(found).__name__}")
    return found


def assemble(registry: Any) -> dict[str, Any]:
    """The whole schema for the games of `registry` (a referee.plugins.Registry); PluginError
    for a game's definitions that clash with other definitions. A part a game leaves out
    (`PARTS`) is the generic one: any value the envelope allows."""
    schema = envelope()
    defs = schema["$defs"]
    described = []
    for name in sorted(registry.games):
        game = registry.games[name]
        describer = describer_of(game)
        own = dict(declared(game))
        if not own:
            continue
        for part in PARTS:
            own.setdefault(f"{name}_{part}", {"description": f"Not declared by {name}: any {part} the generic "
                                                             f"message allows."})
        messages = _messages(name)
        taken = set(defs) | set(messages)  # the envelope's, the other games', the game's messages
        clash = sorted(set(own) & taken | set(messages) & set(defs))
        if clash:
            raise PluginError(f"game {name!r}'s schema definitions {', '.join(clash)} are defined already")
        defs.update(own)
        defs.update(messages)
        described.append((game, describer.result_note()))
    notes = "; ".join(f"{game.title}: {note}" for game, note in described if note)
    words = {"definitions": ", ".join(f"{game.name}_*" for game, _ in described) or "none installed",
             "games": "".join(f"{game.name}, " for game, _ in described),
             "scores": f" ({notes})" if notes else ""}
    return _fill(schema, words)


@cache
def _installed() -> str:
    from referee.plugins import load_registry

    return json.dumps(assemble(load_registry()))


def load(registry: Any = None) -> dict[str, Any]:
    """The whole schema (a fresh copy), for `registry`'s games (default: every installed plugin's)."""
    return json.loads(_installed()) if registry is None else assemble(registry)


def dumps(schema: dict[str, Any], width: int = 120) -> str:
    """A schema as JSON text: an object or array on one line when it fits in `width` columns,
    else one member a line, indented by two."""

    def text(value: Any, indent: int, used: int, tail: int) -> str:
        flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        if not isinstance(value, (dict, list)) or not value or used + len(flat) + tail <= width:
            return flat
        pad = " " * (indent + 2)
        items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
        lines = []
        for i, (key, sub) in enumerate(items):
            head = pad + (json.dumps(key, ensure_ascii=False) + ": " if key is not None else "")
            comma = "," if i < len(items) - 1 else ""
            lines.append(head + text(sub, indent + 2, len(head), len(comma)) + comma)
        open_, close = "{}" if isinstance(value, dict) else "[]"
        return open_ + "\n" + "\n".join(lines) + "\n" + " " * indent + close

    return text(schema, 0, 0, 0) + "\n"


def text(registry: Any = None) -> str:
    """The whole schema as `referee schema` prints it."""
    return dumps(load(registry))


def games(registry: Any = None) -> list[str]:
    """The games that have their own definitions in the schema."""
    return sorted(name[: -len("_to_bot")] for name in load(registry)["$defs"] if name.endswith("_to_bot"))


def _installed_games(registry: Any) -> list[str]:
    if registry is None:
        from referee.plugins import load_registry

        registry = load_registry()
    return sorted(registry.games)


def undeclared_note(game: str | None, registry: Any = None) -> str | None:
    """For an installed game that declares no definitions of its own: a note that its schema is
    the generic one (else None). UsageError for a game not installed."""
    if game is None or game in games(registry):
        return None
    installed = _installed_games(registry)
    if game not in installed:
        raise UsageError(f"no game {game!r} is installed (installed: {', '.join(installed) or 'none'}; "
                         "see `referee games`)")
    return (f"game {game!r} declares no schema of its own (Game.schema(), docs/writing-a-game.md): this is the "
            "generic schema, true of any game's messages; its observations, actions and events are not checked")


def definition_name(game: str | None = None, direction: str | None = None, registry: Any = None) -> str:
    """The name of the definition for these messages, e.g. "<game>_to_referee" or "message" (the
    generic one for an installed game that declares none); UsageError for unknown names."""
    if direction is not None and direction not in DIRECTIONS:
        raise UsageError(f"unknown direction {direction!r}: use one of {', '.join(DIRECTIONS)}")
    if undeclared_note(game, registry) is not None:
        game = None
    base = direction or "message"
    return f"{game}_{base}" if game is not None else base


def rooted(game: str | None = None, direction: str | None = None, registry: Any = None) -> dict[str, Any]:
    """A self-contained schema whose root is one game's and/or one direction's messages (for an
    installed game that declares none: the generic ones, the note in its `$comment`)."""
    schema = load(registry)
    name = definition_name(game, direction, registry)
    schema["$ref"] = f"#/$defs/{name}"
    if name != "message":
        schema["title"] = f"{schema['title']}: {name}"
    note = undeclared_note(game, registry)
    if note is not None:
        schema["$comment"] = note
    return schema


def validator(game: str | None = None, direction: str | None = None, registry: Any = None):
    """A `jsonschema.Draft202012Validator` for these messages (needs the jsonschema package)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(rooted(game, direction, registry))
