"""The core's checks of what a game plugin hands it (records, outcomes, chance requests and their
outcomes): each says in words what is wrong, or None. The runner, `verify`, the chance sampler and
the kit raise PluginError (or report a Mismatch) with these words, naming the plugin
(`plugin_label`). The contract they check is referee/game.py's (docs/writing-a-game.md)."""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any

from referee.game import Choice, ChanceRequest, Outcome, Shuffle, json_equal

if TYPE_CHECKING:
    from referee.game import Game

#: JSON scalars: what a chance request may hold (card codes, numbers), so that outcomes are records
_SCALARS = (str, int, float, bool, type(None))


def _numbers(value: Any, players: int) -> bool:
    """Whether `value` is a list of `players` finite JSON numbers (bool is no number)."""
    return (isinstance(value, list) and len(value) == players
            and all(type(v) is int or (type(v) is float and math.isfinite(v)) for v in value))


def deal_end_error(data: dict[str, Any], players: int) -> str | None:
    """What is wrong with a deal_end record's core fields, or None: `deal`, the deal's number
    (an int), and `scores`, a list of numbers (int or float), one per seat."""
    if type(data.get("deal")) is not int:
        return f"deal_end record: 'deal' must be the deal's number (an int), not {data.get('deal')!r}"
    if not _numbers(data.get("scores"), players):
        return (f"deal_end record of deal {data['deal']}: 'scores' must be a list of {players} numbers, "
                f"one per seat, not {data.get('scores')!r}")
    return None


def record_error(data: Any, players: int) -> str | None:
    """What is wrong with a replay record a game emitted, or None: a dict whose `type` is "deal"
    or "deal_end", a deal_end also with its core fields (`deal_end_error`). (A "chance" record is
    the runner's: a game asks for its chance outcomes with `GameState.chance`.)"""
    kind = data.get("type") if type(data) is dict else None
    if kind == "deal_end":
        return deal_end_error(data, players)
    if kind != "deal":
        what = f"of type {kind!r}" if type(data) is dict else f"holding {data!r}, not a dict"
        hint = " (chance records are the runner's: ask with GameState.chance())" if kind == "chance" else ""
        return f"a Record {what}: a game's records are dicts of type deal or deal_end{hint}"
    return None


def outcome_error(outcome: Any, players: int) -> str | None:
    """What is wrong with a finished match's Outcome, or None: `scores` and `measure`, each a list
    of numbers (int or float), one per seat."""
    if not isinstance(outcome, Outcome):
        return f"outcome() returned {outcome!r}, not a referee.game.Outcome"
    if not _numbers(outcome.scores, players):
        return f"Outcome.scores must be a list of {players} numbers, one per seat, not {outcome.scores!r}"
    if not _numbers(outcome.measure, players):
        return f"Outcome.measure must be a list of {players} numbers, one per seat, not {outcome.measure!r}"
    return None


def plugin_label(game: Game) -> str:
    """How errors name a game's plugin: "game 'maumau' (referee_maumau)"."""
    return f"game {getattr(game, 'name', '?')!r} ({type(game).__module__.split('.')[0]})"


def request_error(request: Any) -> str | None:
    """What is wrong with a chance request a state made, or None: a `Shuffle` of a tuple of JSON
    scalars (card codes), or a `Choice` among a non-empty tuple of them, with a str kind."""
    if type(request) is Shuffle:
        what, items = "Shuffle.cards", request.cards
    elif type(request) is Choice:
        what, items = "Choice.options", request.options
        if type(items) is tuple and not items:
            return "chance() asked for a Choice among no options"
    else:
        return f"chance() returned {request!r}, not a referee.game.Shuffle, Choice or None"
    if type(items) is not tuple or not all(type(x) in _SCALARS for x in items):
        return f"{what} must be a tuple of JSON scalars (card codes), not {items!r}"
    if type(request.kind) is not str or not request.kind:
        return f"a chance request's kind must be a non-empty str, not {request.kind!r}"
    return None


def chance_error(request: ChanceRequest, outcome: Any) -> str | None:
    """What is wrong with an outcome of `request` (e.g. one read from a replay), or None: a
    Shuffle's is a list of exactly its cards (any order) satisfying its `until`; a Choice's is
    one of its options."""
    if type(request) is Choice:
        if any(json_equal(option, outcome) for option in request.options):
            return None
        return f"{outcome!r} is not one of the {len(request.options)} options of the {request.kind}"
    if not isinstance(outcome, list) or not all(type(x) in _SCALARS for x in outcome):
        return f"the {request.kind} outcome is not a list of cards"
    got, want = Counter(map(_key, outcome)), Counter(map(_key, request.cards))
    if got != want:
        missing = sorted((want - got).elements(), key=str)
        extra = sorted((got - want).elements(), key=str)
        return (f"the {request.kind} outcome is not an order of the {len(request.cards)} cards asked for "
                f"(missing {[v for _, v in missing]}, extra {[v for _, v in extra]})")
    if request.until is not None and not request.until(list(outcome)):
        return f"the {request.kind} outcome fails the game's condition on it{': ' + request.why if request.why else ''}"
    return None


def _key(value: Any) -> tuple[str, Any]:
    """A JSON scalar as a multiset key: true is not 1 (json_equal's rule)."""
    return ("bool" if type(value) is bool else "number" if type(value) in (int, float) else type(value).__name__,
            value)
