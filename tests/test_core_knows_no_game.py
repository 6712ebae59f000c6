"""The core knows no game (issue 17): no module under referee/ names a built-in game, holds a
card code of a built-in deck, or uses a built-in game's own field names. The games' words and
pictures live in their plugins' describers (referee/describe.py).

The vocabulary is the plugins' own, gathered from the games themselves: their names and titles;
every card of their decks (every zone of a fresh match of every variant) and the character
classes of their schemas' card patterns (`[CDHS]`, `[RYBG]`...); and the field names
of their schema definitions, options, replay records, events, observations, legal actions and
zones (seeded playouts of every variant), less the words of the common envelope and the few
ordinary words the core uses in its own sense (GENERIC).

What is searched: the code of every Python module (comments and docstrings left out, found with
tokenize and ast, so prose about the games may stay), and the whole of any other file (the
viewer page, the envelope schema). Names, card codes and card patterns count anywhere in that
code, on word boundaries (names case-insensitively); a field name counts as a quoted literal, the
way code reads a game's fields ("candidate", d['ally'], .get("trick")), so English in a message
("called sys.exit") or a variable of the core's own (`candidate`, `set.discard`) is no hit.
"""

from __future__ import annotations

import ast
import io
import random
import re
import tokenize
from pathlib import Path

import pytest

from referee import schema
from referee.config import resolve_config
from referee.game import Event
from referee.plugins import load_registry
from referee.testing import random_playout, seeded_state
from referee.replay.verify import load_replay, simulate

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "referee"
REGISTRY = load_registry()
#: the built-in games and a table size for their playouts
BUILTIN = {"maumau": 3, "presidente": 4, "mayor": 4}
#: the core's own words that some game also uses as a field name (each in the core's own sense)
GENERIC = {
    # replay records and the GameState interface (referee/game.py, docs/replays.md)
    "deal", "deal_end", "dealer", "deals", "hands", "hand", "chance", "card", "cards", "to_act", "seats",
    # the viewers' own words: the table, its piles and their top, a deal's points, a table taken
    "table", "pile", "piles", "top", "points", "done",
    # what the CLI, the validator and the config read and print in their own sense
    "count", "passed", "played", "play", "none", "on", "kept",  # kept: the failing matches validate keeps
}
#: hits that are no game's: (file, hit) -> why
NOT_A_GAME = {("referee/tournament/designs.py", "card GF"): "the Galois field GF(q) of the seating designs"}
# The contract's conduct penalty (referee.game.penalty, issue 29): an event "penalty" with `why` and
# `ruling` is the core's own vocabulary, which a game (Mau Mau's MM-7) uses, not the other way round
for _path in ("referee/game.py", "referee/runner.py", "referee/cli/play.py", "referee/validate.py",
              "referee/cli/tournament.py", "referee/tournament/reporting.py", "referee/tournament/standings.py"):
    for _word in ("penalty", "ruling", "why"):
        NOT_A_GAME[(_path, f"field {_word}")] = "the contract's conduct penalty (referee.game.penalty)"
# the replay viewer counts them per seat and reason too (issue 29)
for _word in ("ruling", "why"):
    NOT_A_GAME[("referee/replay/html.py", f"field {_word}")] = "the contract's conduct penalty (referee.game.penalty)"
# A contest submission's manifest (`run`) and an intake report's `reason` (issue 28)
for _path, _word in (("referee/intake/manifest.py", "run"), ("referee/intake/run.py", "run"),
                     ("referee/intake/run.py", "reason"), ("referee/cli/intake.py", "reason"),
                     ("referee/cli/ladder.py", "reason"), ("referee/ladder/run.py", "reason"),
                     ("referee/ladder/site.py", "reason"), ("referee/ladder/state.py", "reason")):
    NOT_A_GAME[(_path, f"field {_word}")] = "a contest submission's manifest and intake report"


def _walk_schema(value, words: set[str]) -> None:
    if isinstance(value, dict):
        for key, sub in value.items():
            if key == "properties" and isinstance(sub, dict):
                words.update(sub)
            if key in ("enum", "const"):
                words.update(v for v in (sub if isinstance(sub, list) else [sub]) if isinstance(v, str))
            _walk_schema(sub, words)
    elif isinstance(value, list):
        for sub in value:
            _walk_schema(sub, words)


def _keys(value, words: set[str]) -> None:
    if isinstance(value, dict):
        for key, sub in value.items():
            words.add(key)
            _keys(sub, words)
    elif isinstance(value, list):
        for sub in value:
            _keys(sub, words)


def _envelope_words() -> set[str]:
    defs = schema.load()["$defs"]
    words: set[str] = set()
    games = set(BUILTIN) | set(schema.games())  # and any installed plugin's own (crazy_eights)
    _walk_schema({k: v for k, v in defs.items() if not any(k.startswith(g + "_") for g in games)}, words)
    return words


def _card_classes(defs: dict) -> set[str]:
    """The character classes naming letters in the card patterns of some schema definitions."""
    classes: set[str] = set()
    for definition in defs.values():
        for pattern in re.findall(r"'pattern': '([^']*)'", repr(definition)):
            classes.update(c for c in re.findall(r"\[[^\]]+\]", pattern) if re.search(r"[A-Z]", c))
    return classes


def _vocabulary(tmp_path: Path) -> tuple[set[str], set[str], set[str], set[str]]:
    """The built-in games' names, card codes, card patterns' classes and field names."""
    names: set[str] = set()
    codes: set[str] = set()
    classes: set[str] = set()
    fields: set[str] = set()
    defs = schema.load()["$defs"]
    for name, players in BUILTIN.items():
        game = REGISTRY.game(name)
        names |= {game.name, game.title}
        fields |= {o.name for o in game.options}
        own = {k: v for k, v in defs.items() if k.startswith(name + "_")}
        _walk_schema(own, fields)
        classes |= _card_classes(own)
        for k, variant in enumerate(game.variants()):
            config = resolve_config(game, variant, players)
            for zone in seeded_state(game, config, players, random.Random(k)).zones().values():
                codes.update(zone)
            path = tmp_path / f"{name}-{k}.jsonl"
            random_playout(game, variant, 1, players, replay=path)
            replay = load_replay(path)
            for rec in replay.records:
                if rec["type"] in ("deal", "deal_end"):
                    fields.update(rec)
                elif rec["type"] == "chance":  # the core's record: only its kind is the game's word
                    fields.add(rec["kind"])
                elif rec["type"] == "move":
                    _keys(rec["action"], fields)
            for step in simulate(replay, game):
                fields.update(z for z in step.state.zones() if not re.fullmatch(r"hand\s*_?\d+", z))
                for out in step.outputs:
                    if type(out) is Event:
                        fields.add(out.kind)
                        _keys(out.data, fields)
                seat = step.state.to_act()
                if seat is not None:
                    _keys(step.state.observe(seat), fields)
                    for action in step.state.legal_actions():
                        _keys(action, fields)
    fields = {w for w in fields if len(w) >= 3 and re.fullmatch(r"\w+", w)}
    return names, codes, classes, fields - GENERIC - _envelope_words() - names


def _code(path: Path) -> str:
    """A core file's code: a Python module without its comments and docstrings, any other file whole."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return text
    docstrings = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docstrings.add((first.lineno, first.col_offset))
    parts = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.start in docstrings):
            continue
        parts.append(tok.string)
    return " ".join(parts)


def _core_files() -> list[Path]:
    return sorted(p for p in CORE.rglob("*") if p.is_file() and p.suffix in (".py", ".html", ".json", ".css", ".js"))


def hits(path: Path, names: set[str], codes: set[str], classes: set[str], fields: set[str]) -> list[str]:
    """What of the games' vocabulary a core file holds."""
    code = _code(path)
    found = []
    for name in sorted(names):
        pattern = r"(?<![\w])" + r"\s*".join(map(re.escape, name.split())) + r"(?![\w])"
        if re.search(pattern, code, re.I):
            found.append(f"game {name!r}")
    for card in sorted(codes):
        if re.search(rf"(?<![\w]){re.escape(card)}(?![\w])", code):
            found.append(f"card {card}")
    for cls in sorted(classes):
        if cls in code:
            found.append(f"card pattern {cls}")
    for word in sorted(fields):
        if re.search(rf"[\"'`]{re.escape(word)}[\"'`]", code):
            found.append(f"field {word}")
    where = str(path.relative_to(ROOT))
    return [hit for hit in found if (where, hit) not in NOT_A_GAME]


@pytest.fixture(scope="module")
def vocabulary(tmp_path_factory):
    return _vocabulary(tmp_path_factory.mktemp("playouts"))


def test_the_vocabulary_is_the_games_own(vocabulary):
    names, codes, classes, fields = vocabulary
    assert {"maumau", "mau mau", "presidente", "mayor"} <= {n.lower() for n in names}
    assert {"JH", "7S", "X1", "R10", "GM", "T19", "THIEF"} <= codes
    assert {"[CDHS]", "[RYBG]"} <= classes
    assert {"candidate", "ally", "reserve", "stock", "places", "roles", "fallen", "exchange", "called", "trick",
            "revolution"} <= fields


def test_no_core_module_knows_a_builtin_game(vocabulary):
    found = {str(p.relative_to(ROOT)): h for p in _core_files() if (h := hits(p, *vocabulary))}
    assert not found, "\n".join(f"{path}: {', '.join(h)}" for path, h in found.items())
