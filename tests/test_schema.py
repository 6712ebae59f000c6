"""The protocol's JSON Schema (referee/schema.json): a valid draft 2020-12 schema, printed by
`referee schema`, and true of every message the referee sends in real matches of every game and
variant (the example bots' replies are checked in tests/test_bots.py)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from referee import schema
from referee.config import resolve_config
from referee.game import Event
from referee.plugins import load_registry
from referee.testing import random_playout
from referee_maumau.state import MauMauState

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("maumau", "presidente", "mayor")
#: shorter matches than the defaults, so every variant fits in the time budget
SHORT = {"maumau": {"target": 40}, "presidente": {"rounds": 2}, "mayor": {"deals": 2}}
TABLES = {"maumau": (2, 4, 7), "presidente": (4,), "mayor": (4,)}


class Validators:
    """One validator per (game, definition), built once: validating by message type is much
    faster than going through the root's oneOf."""

    def __init__(self) -> None:
        self._cache: dict[str, Draft202012Validator] = {}
        self._rooted: set[tuple[str, str]] = set()

    def __call__(self, name: str) -> Draft202012Validator:
        if name not in self._cache:
            root = schema.load()
            root["$ref"] = f"#/$defs/{name}"
            self._cache[name] = Draft202012Validator(root)
        return self._cache[name]

    def check_sent(self, game: str, message: dict) -> None:
        """A message from the referee: its own game's definition (which includes the generic
        one), and the root for the first message of each type (the root adds only its oneOf)."""
        kind = message["type"]
        name = {"hello": f"{game}_hello", "event": f"{game}_event_message", "act": f"{game}_act"}.get(kind, kind)
        _check(self(name), message)
        if (game, kind) not in self._rooted:
            self._rooted.add((game, kind))
            _check(self("message"), message)


def _check(validator: Draft202012Validator, message: dict) -> None:
    errors = sorted(validator.iter_errors(message), key=lambda e: e.path)
    if errors:
        shown = json.dumps(message)
        details = "\n".join(f"  at {list(e.absolute_path)}: {e.message[:300]}" for e in errors[:5])
        pytest.fail(f"{shown[:600]}\n{details}")


@pytest.fixture(scope="module")
def validators() -> Validators:
    return Validators()


@pytest.fixture(scope="module")
def registry():
    return load_registry(None)


class Collector:
    """A runner Monitor keeping every distinct message sent (the same event goes to every seat)."""

    def __init__(self) -> None:
        self.messages: dict[str, dict] = {}

    def sent(self, seat, message, state) -> None:
        self.messages.setdefault(json.dumps(message, sort_keys=True), message)

    def stepped(self, state) -> None:
        pass


# -- the schema itself -------------------------------------------------------------------------


def test_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(schema.load())
    Draft202012Validator.check_schema(schema.rooted("mayor", "to_bot"))


def test_schema_has_definitions_for_every_builtin_game():
    assert set(GAMES) <= set(schema.games())  # and any installed plugin's that declares its own


def test_referee_schema_prints_the_shipped_schema():
    proc = subprocess.run([sys.executable, "-m", "referee", "schema"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    Draft202012Validator.check_schema(printed)
    assert printed == schema.load()
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_referee_schema_for_one_game_and_direction():
    proc = subprocess.run([sys.executable, "-m", "referee", "schema", "--game", "mayor", "--direction",
                           "to_referee"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert printed["$ref"] == "#/$defs/mayor_to_referee"
    validator = Draft202012Validator(printed)
    assert validator.is_valid({"type": "action", "id": 3, "action": {"play": "CASINO", "name": "RM"}})
    assert not validator.is_valid({"type": "action", "id": 3, "action": {"play": "CASINO"}})


@pytest.mark.parametrize("args", [["--game", "chess"], ["--direction", "sideways"]])
def test_referee_schema_rejects_unknown_names(args):
    proc = subprocess.run([sys.executable, "-m", "referee", "schema", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("game", GAMES)
def test_config_definition_lists_every_option(game, registry):
    """The hello's config definition names exactly the game's options, with their choices."""
    config = schema.load()["$defs"][f"{game}_config"]
    options = registry.games[game].options
    assert set(config["properties"]) == {o.name for o in options}
    assert set(config["required"]) == {o.name for o in options}
    for option in options:
        prop = config["properties"][option.name]
        if option.choices is not None:
            assert prop["enum"] == list(option.choices), option.name
        else:
            assert prop["type"] == {bool: "boolean", int: "integer", str: "string"}[option.type], option.name
        if option.min is not None:
            assert prop["minimum"] == option.min, option.name
        if option.max is not None:
            assert prop["maximum"] == option.max, option.name


# -- every message of real matches -------------------------------------------------------------


def _cases():
    registry = load_registry(None)
    for game in GAMES:
        for players in TABLES[game]:
            for i, variant in enumerate(registry.games[game].variants()):
                if players != TABLES[game][0] and i:  # other table sizes: the default rules only
                    continue
                yield pytest.param(game, variant, players, id=f"{game}-{players}p-{i}")


@pytest.mark.parametrize("game, variant, players", list(_cases()))
def test_every_message_of_a_match_validates(game, variant, players, registry, validators):
    collector = Collector()
    random_playout(registry.games[game], {**SHORT[game], **variant}, seed=11, players=players, monitor=collector)
    reply = validators(f"{game}_to_referee")
    kinds = set()
    for message in collector.messages.values():
        validators.check_sent(game, message)
        kinds.add(message["type"])
        if message["type"] == "act":
            # the replies a bot may give: any legal action echoed as listed, or its index
            for action in message["legal"][:3]:
                _check(reply, {"type": "action", "id": message["id"], "action": action})
            _check(reply, {"type": "action", "id": message["id"], "index": len(message["legal"]) - 1})
    assert kinds == {"hello", "event", "act", "end"}


def _play_out(game: str, state, validators: Validators, seed: int = 0) -> set[str]:
    """Drive a constructed position to the end with random legal actions, validating every event
    and act a seat would be sent; returns the event kinds seen."""
    rng = random.Random(seed)
    seen: set[str] = set()
    act_id = 0
    while True:
        for out in state.drain():
            if type(out) is Event:
                validators.check_sent(game, {"type": "event", "event": out.message()})
                seen.add(out.kind)
        seat = state.to_act()
        if seat is None:
            return seen
        legal = state.legal_actions()
        act_id += 1
        validators.check_sent(game, {"type": "act", "id": act_id, "obs": state.observe(seat), "legal": legal,
                                     "time_ms": 1000})
        state.apply(legal[rng.randrange(len(legal))])


def test_maumau_tiebreak_messages_validate(registry, validators):
    """MM-9's tie-break (rare in random matches): a position where seats 1 and 2 tie for lowest."""
    config = resolve_config(registry.games["maumau"], {}, 3)
    state = MauMauState.position(config, [["5C", "KC"], ["2D"], ["9H", "8H", "3S"]], ["9D"],
                                 ["4C", "4D", "4H", "4S"], turn=1, dealer=0, totals=[90, 70, 50])
    state.apply({"play": "2D", "say": "mau mau"})  # totals 105, 70, 70: a tie-break between 1 and 2
    assert "tiebreak" in _play_out("maumau", state, validators)


def test_every_event_kind_in_the_schema_occurs(registry, validators):
    """The per-game event definitions list no kind the referee never sends (over a few matches;
    Mau Mau's tie-break has its own test above)."""
    defs = schema.load()["$defs"]
    plays = {"maumau": [({"announcements": True}, 3), ({"ace": "skip_all"}, 4), ({"target": 15}, 2)],
             "presidente": [({"rounds": 3}, 4)], "mayor": [({"mode": "advanced", "deals": 4}, 4), ({}, 4)]}
    for game, configs in plays.items():
        seen: set[str] = {"tiebreak"} if game == "maumau" else set()
        for config, players in configs:
            for seed in range(4):
                collector = Collector()
                random_playout(registry.games[game], config, seed=seed, players=players, monitor=collector)
                seen.update(m["event"]["kind"] for m in collector.messages.values() if m["type"] == "event")
        declared = set(defs[f"{game}_event"]["properties"]["kind"]["enum"])
        assert declared == seen, f"{game}: declared but not seen {declared - seen}, seen but not declared {seen - declared}"


# -- what the schema rejects -------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_game_definitions_are_closed_and_the_generic_ones_open(game, registry, validators):
    """A field the referee does not send fails the game's definitions (so this schema cannot
    silently fall behind the referee) but passes the generic ones (bots ignore unknown fields)."""
    collector = Collector()
    random_playout(registry.games[game], SHORT[game], seed=2, monitor=collector)
    act = next(m for m in collector.messages.values() if m["type"] == "act")
    event = next(m for m in collector.messages.values() if m["type"] == "event")
    for message, where in ((act, act["obs"]), (event, event["event"])):
        validators.check_sent(game, message)
        where["a_field_from_the_future"] = 1
        assert not validators(f"{game}_to_bot").is_valid(message)
        assert validators("message").is_valid(message)


HELLO = {"type": "hello", "protocol": 1, "game": "maumau", "seat": 0, "players": 2, "names": ["a", "b"],
         "config": {}, "match": "m", "limits": {"move_ms": 1000, "start_ms": 5000, "max_line_bytes": 65536}}


@pytest.mark.parametrize(
    "definition, message",
    [
        ("message", {"type": "chat", "text": "hi"}),
        ("message", {"type": "ready"}),
        ("message", {"type": "ready", "name": ""}),
        ("message", {"type": "action", "id": 3}),
        ("message", {"type": "action", "id": 3, "index": 0, "action": {"pass": True}}),
        ("message", {"type": "action", "id": "3", "index": 0}),
        ("message", {"type": "action", "id": 3, "index": -1}),
        ("message", {**HELLO, "protocol": 2}),
        ("message", {**HELLO, "limits": {**HELLO["limits"], "total_ms": 0}}),
        ("message", {"type": "act", "id": 1, "obs": {}, "legal": [], "time_ms": 1000}),
        ("message", {"type": "event", "event": {"seat": 1}}),
        ("maumau_to_referee", {"type": "action", "id": 1, "action": {"play": "JH"}}),
        ("maumau_to_referee", {"type": "action", "id": 1, "action": {"play": "7S", "suit": "H"}}),
        ("maumau_to_referee", {"type": "action", "id": 1, "action": {"play": "7S", "say": "uno"}}),
        ("maumau_to_referee", {"type": "action", "id": 1, "action": {"draw": 1}}),
        ("maumau_to_referee", {"type": "action", "id": 1, "action": {"play": "1S"}}),
        ("presidente_to_referee", {"type": "action", "id": 1, "action": {"play": []}}),
        ("presidente_to_referee", {"type": "action", "id": 1, "action": {"play": "5H"}}),
        ("presidente_to_referee", {"type": "action", "id": 1, "action": {"play": ["5H"], "pass": True}}),
        ("mayor_to_referee", {"type": "action", "id": 1, "action": {"play": "CASINO"}}),
        ("mayor_to_referee", {"type": "action", "id": 1, "action": {"call": "H"}}),
        ("mayor_to_referee", {"type": "action", "id": 1, "action": {"play": "T20"}}),
        ("maumau_to_bot", {**HELLO, "config": {"hand_size": 6}}),
        ("maumau_to_bot", {"type": "event", "event": {"kind": "teleported", "seat": 1}}),
        ("maumau_to_bot", {"type": "event", "event": {"kind": "played", "seat": 1}}),
    ],
)
def test_schema_rejects(definition, message, validators):
    assert not validators(definition).is_valid(message)


@pytest.mark.parametrize(
    "definition, message",
    [
        ("maumau_to_referee", {"type": "ready", "name": "mybot", "version": "1.0", "author": "me"}),
        ("maumau_to_referee", {"type": "action", "id": 17, "action": {"play": "7S", "say": "mau"}}),
        ("maumau_to_referee", {"type": "action", "id": 17, "action": {"play": "JH", "suit": "S"}}),
        ("maumau_to_referee", {"type": "action", "id": 17, "index": 0}),
        ("maumau_to_referee", {"type": "action", "id": 17, "index": 0, "debug": "shed KS, worth 10 points"}),
        ("presidente_to_referee", {"type": "action", "id": 2, "action": {"play": ["5S", "5H"]}}),
        ("mayor_to_referee", {"type": "action", "id": 2, "action": {"discard": "Y4"}}),
        ("message", {"type": "event", "event": {"kind": "a_kind_from_a_plugin", "anything": [1]}}),
        ("message", {**HELLO, "game": "a-plugin-game", "extra": "fields are allowed"}),
        ("message", {**HELLO, "limits": {**HELLO["limits"], "total_ms": 60000}}),
    ],
)
def test_schema_accepts(definition, message, validators):
    _check(validators(definition), message)


def test_the_schema_holds_exactly_the_protocol_modules_messages():
    """The envelope's messages each way are referee.protocol's, each named by its `type`, and the
    messages the protocol module builds validate against them (the schema documents the module)."""
    from referee import protocol

    defs = schema.envelope()["$defs"]
    for direction, types in (("to_bot", protocol.TO_BOT), ("to_referee", protocol.TO_REFEREE)):
        named = [ref["$ref"].rsplit("/", 1)[1] for ref in defs[direction]["oneOf"]]
        assert named == list(types), direction
        for name in types:
            assert defs[name]["properties"]["type"] == {"const": name}, name
    whole = schema.envelope()
    built = [protocol.Hello("g", 0, 2, ["a", "b"], {}, "m", {"move_ms": 1, "start_ms": 1, "max_line_bytes": 9}).message(),
             protocol.act_message(1, {}, [{"x": 1}], 10), protocol.event_message({"kind": "k"}),
             protocol.end_message({"scores": [1, 0], "ranks": [1, 2], "faults": [0, 0], "disqualified": [],
                                   "fault_log": []})]
    for message in built:
        Draft202012Validator({**whole, "$ref": "#/$defs/to_bot"}).validate(message)
        assert json.loads(protocol.encode(message)) == message
    assert json.loads(protocol.act_line(1, {}, [{"x": 1}], 10)) == built[1]
    assert json.loads(protocol.event_line({"kind": "k"})) == built[2]
