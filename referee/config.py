"""Game configuration: parse `--set KEY=VALUE` strings and resolve every option to a value."""

from __future__ import annotations

import datetime
import json
import math
import re
from typing import Any

from referee.errors import ConfigError
from referee.game import Game, Option

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def parse_assignments(items: list[str]) -> dict[str, str]:
    """Split `KEY=VALUE` strings into a dict; raises ConfigError on a malformed item."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def shown(value: Any, width: int = 120) -> str:
    """A value as the user wrote it in TOML (one line, cut at `width`), for error messages."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)  # a TOML basic string
    elif isinstance(value, float) and not math.isfinite(value):
        text = "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    elif isinstance(value, (datetime.date, datetime.time)):  # a datetime is a date too
        text = value.isoformat()
    elif isinstance(value, list):
        text = "[" + ", ".join(shown(v, width) for v in value) + "]"
    elif isinstance(value, dict):
        items = ", ".join(f"{k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False)} = {shown(v, width)}"
                          for k, v in value.items())
        text = "{ " + items + " }" if items else "{}"
    else:
        text = str(value)
    return text if len(text) <= width else text[:width - 3] + "..."


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _coerce(game: Game, option: Option, value: Any) -> Any:
    where = f"{game.name} option {option.name!r}"
    if isinstance(value, str) and option.type is not str:
        text = value.strip().lower()
        if option.type is bool:
            if text in _TRUE:
                value = True
            elif text in _FALSE:
                value = False
            else:
                raise ConfigError(f"{where} expects true or false, got {shown(value)}")
        elif option.type is int:
            try:
                value = int(text)
            except ValueError:
                raise ConfigError(f"{where} expects a whole number, got {shown(value)}") from None
    if option.type is int and isinstance(value, bool) or not isinstance(value, option.type):
        raise ConfigError(f"{where} expects {option.type.__name__}, got {shown(value)}")
    if option.choices is not None and value not in option.choices:
        allowed = ", ".join(repr(c) for c in option.choices)
        raise ConfigError(f"{where} must be one of {allowed}, got {shown(value)}")
    if option.min is not None and value < option.min:
        raise ConfigError(f"{where} must be at least {option.min}, got {shown(value)}")
    if option.max is not None and value > option.max:
        raise ConfigError(f"{where} must be at most {option.max}, got {shown(value)}")
    return value


def resolve_config(game: Game, overrides: dict[str, Any], players: int | None = None) -> dict[str, Any]:
    """Every option of `game` with defaults filled in and `overrides` checked and coerced."""
    known = {o.name: o for o in game.options}
    unknown = sorted(set(overrides) - set(known))
    if unknown:
        valid = ", ".join(known) or "none"
        raise ConfigError(f"{game.name} has no option {unknown[0]!r} (options: {valid})")
    config = {name: opt.default for name, opt in known.items()}
    for name, value in overrides.items():
        config[name] = _coerce(game, known[name], value)
    if players is not None:
        if not game.min_players <= players <= game.max_players:
            span = (
                str(game.min_players)
                if game.min_players == game.max_players
                else f"{game.min_players} to {game.max_players}"
            )
            raise ConfigError(f"{game.name} is played by {span} players, got {players}")
        game.check_config(config, players)
    return config
