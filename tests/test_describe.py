"""The describer interface (referee/describe.py): the generic wording tells any action, event,
chance record and deal readably, never "None"; a plugin game without a describer of its own
works in `play`, `replay` (whole match and a seat's view) and `replay --html`; each built-in game
has its own describer, and the protocol schema is the envelope plus each game's definitions."""

from __future__ import annotations

import io
import importlib.util
import json
import re
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from referee import cli, schema
from referee.cli import common as cli_common
from referee.describe import GENERIC, Describer, Names, Zone, describer_of
from referee.game import EVERYONE, Event, Game, GameState, Outcome, Record
from referee.hookspecs import hookimpl
from referee.plugins import build_registry, get_plugin_manager
from referee.replay.html import page_data, viewer_data
from referee.replay.terminal import build_story, render
from referee.testing import random_playout
from referee.replay.verify import load_replay, simulate

NAMES = Names(["ann", "bob"])


# -- a tiny game with no describer -------------------------------------------------------------------


class TinyState(GameState):
    """Two seats, four cards c1..c4 dealt two each (always the same deal: no chance); seats play
    in turn (loudly or not) until the hands are empty; a seat scores the numbers of the cards it
    played. One deal."""

    def __init__(self) -> None:
        self.out: list[Any] = []
        self.hands = [["c1", "c4"], ["c2", "c3"]]
        self.table: list[str] = []
        self.points = [0, 0]
        self.turn: int | None = 0
        self.out.append(Record({"type": "deal", "deal": 1, "dealer": 1, "hands": [list(h) for h in self.hands],
                                "bonus": None}))
        for seat in (0, 1):
            self.out.append(Event("deal", {"deal": 1, "dealer": 1, "hand": list(self.hands[seat])}, (seat,)))

    def to_act(self) -> int | None:
        return self.turn

    def legal_actions(self) -> list[dict[str, Any]]:
        return [{"play": c, "loud": loud} for c in self.hands[self.turn] for loud in (False, True)]

    def apply(self, action: dict[str, Any]) -> None:
        seat = self.turn
        self.hands[seat].remove(action["play"])
        self.table.append(action["play"])
        self.points[seat] += int(action["play"][1])
        self.out.append(Event("played", {"seat": seat, "card": action["play"], "loud": action["loud"]}, EVERYONE))
        self.out.append(Event("drew", {"seat": seat, "n": 0}, (seat,)))  # once worded "draws None"
        if not self.hands[0] and not self.hands[1]:
            self.turn = None
            self.out.append(Record({"type": "deal_end", "deal": 1, "scores": list(self.points),
                                    "best": max((0, 1), key=lambda s: self.points[s])}))
        else:
            self.turn = 1 - seat

    def observe(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "hand": list(self.hands[seat]), "table": list(self.table)}

    def drain(self) -> list[Any]:
        out, self.out = self.out, []
        return out

    def outcome(self) -> Outcome:
        return Outcome(list(self.points), [float(p) for p in self.points])

    def zones(self) -> dict[str, list[str]]:
        return {"hand 0": list(self.hands[0]), "hand 1": list(self.hands[1]), "table": list(self.table)}

    def hidden_from(self, seat: int) -> set[str]:
        return set(self.hands[1 - seat])


class Tiny(Game):
    """A plugin's game that brings no describer: the core tells it in its generic words."""

    name = "tiny"
    title = "Tiny"
    min_players = max_players = 2

    def new_state(self, config, players, rng=None):  # with or without the rng (the contract is changing)
        return TinyState()

    def replay_state(self, config, players, script):
        return TinyState()


class TinyPlugin:
    @hookimpl
    def register_games(self, register):
        register(Tiny())


@pytest.fixture
def tiny_cli(monkeypatch):
    """The CLI with the tiny game's plugin registered (besides every installed one)."""
    pm = get_plugin_manager(extra=[TinyPlugin()])
    monkeypatch.setattr(cli_common, "_managers", {None: pm})
    return build_registry(pm)


def test_the_tiny_game_has_no_describer_and_gets_the_generic_one(tiny_cli):
    assert Tiny().describer() is None and describer_of(tiny_cli.game("tiny")) is GENERIC
    assert describer_of(None) is GENERIC  # a game not installed


def test_play_prints_a_plugin_games_deals_in_generic_words(tiny_cli, tmp_path):
    out = tmp_path / "m.jsonl"
    proc = CliRunner().invoke(cli.app, ["play", "tiny", "-p", "random", "-p", "random", "--seed", "3",
                                        "--out", str(out)])
    assert proc.exit_code == 0, proc.output
    assert "Deals" in proc.output and "Result" in proc.output and "None" not in proc.output
    end = next(r for r in load_replay(out).records if r["type"] == "deal_end")
    row = next(line for line in proc.output.splitlines() if line.startswith("│") and " 1 │" in line)
    assert [c.strip() for c in row.strip("│").split("│")][1:] == [str(s) for s in end["scores"]]


def test_replay_tells_a_plugin_games_match_in_generic_words(tiny_cli, tmp_path):
    out = tmp_path / "m.jsonl"
    random_playout(tiny_cli.game("tiny"), {}, 5, 2, replay=out)
    runner = CliRunner()
    whole = runner.invoke(cli.app, ["replay", str(out)])
    assert whole.exit_code == 0, whole.output
    text = whole.output
    assert "warning" not in text and "None" not in text
    moves = [r for r in load_replay(out).records if r["type"] == "move"]
    for rec in moves:  # each move: its fields, `play c2, loud true`
        loud = "loud" if rec["action"]["loud"] else "loud false"
        assert re.search(rf"\[{rec['seat']}\] random#{rec['seat']}\s+play {rec['action']['play']}, {loud}", text)
    assert "drew seat=[0] random#0 n=0" in text  # an event: its kind and fields, seats by name
    assert "bonus: none" in text  # the deal record's own fields
    assert "after deal 1" in text and "best: " in text  # the deal's end: scores and notes
    seat = runner.invoke(cli.app, ["replay", str(out), "--seat", "1"])
    assert seat.exit_code == 0, seat.output
    assert "as seen by [1]" in seat.output and "drew seat=[0]" not in seat.output


def test_replay_html_shows_a_plugin_games_match(tiny_cli, tmp_path):
    out, page = tmp_path / "m.jsonl", tmp_path / "m.html"
    random_playout(tiny_cli.game("tiny"), {}, 5, 2, replay=out)
    proc = CliRunner().invoke(cli.app, ["replay", str(out), "--html", str(page)])
    assert proc.exit_code == 0, proc.output
    data = page_data(page.read_text())
    assert data["game"] == "tiny" and data["faces"] == {} and data["css"] == "" and data["symbols"] == {}
    acts = [f["act"] for f in data["frames"] if "act" in f]
    assert len(acts) == 4 and all(a.startswith("play c") for a in acts)
    assert data["frames"][0]["piles"][0]["l"] == "table"  # a zone: a pile named as the zone
    assert data["deals"][0]["cols"]["points"] == load_replay(out).result["scores"]
    seat = viewer_data(load_replay(out), tiny_cli.game("tiny"), 0)
    assert all(h is None for h in seat["frames"][0]["h"][1:])


# -- the generic wording ------------------------------------------------------------------------------


def test_generic_wording_reads_any_field():
    assert GENERIC.action({"play": "7S"}).plain == "play 7S"
    assert GENERIC.action({"pass": True}).plain == "pass"
    assert GENERIC.action({"bid": 3, "cards": ["a", "b"], "x": None}).plain == "bid 3, cards a b, x none"
    assert GENERIC.action("odd").plain == "'odd'"
    event = Event("drew", {"seat": 1, "count": 2, "who": None, "flag": False}, (1,))
    assert GENERIC.event(event, NAMES).plain == "drew seat=[1] bob count=2 who=none flag=false"
    assert GENERIC.chance({"type": "chance", "deal": 1, "kind": "reshuffle", "n": 3}).plain == "chance: reshuffle n=3"
    assert GENERIC.deal_summary({"type": "deal_end", "deal": 2, "scores": [1.5, 3]}, 3) == ("2", ["1.5", "3", "-"])
    assert GENERIC.deal_summary({"type": "deal_end"}, 1) == ("?", ["-"])
    assert GENERIC.zone("stack") == Zone("stack") and GENERIC.face("q") == {"c": ["plain"], "r": "q"}
    assert GENERIC.schema() == {} and GENERIC.score_note() is None and not GENERIC.is_card("7S")


def test_generic_reading_of_an_observation_as_zones():
    obs = {"seat": 1, "deal": 2, "dealer": 0, "to_act": 1, "hand": ["5C", "AH"], "top": "AD", "suit": "D",
           "drawn": 0, "counts": [6, 2, 4], "stock": 33, "discard": 7, "totals": [0, 2, 0],
           "table": [{"seat": 0, "cards": ["7S", "7D"]}], "exchange": {"with": 2, "gave": ["9C"]}, "passed": []}
    # no card code known: strings in lists are cards, a string alone one when shaped like the hand's
    assert GENERIC.observation_zones(obs, 1) == {
        "hand 1": ["5C", "AH"], "hand 0": 6, "hand 2": 4, "top": ["AD"], "stock": 33, "discard": 7,
        "table": ["7S", "7D"], "exchange.gave": ["9C"]}
    assert GENERIC.observation_roles(obs, 1) == {0: ["dealer"]}
    assert GENERIC.observation_zones({"seat": 0}, 0) == {} and GENERIC.observation_zones(None, 0) == {}

    class Knows(Describer):
        def is_card(self, value):
            return isinstance(value, str) and len(value) == 2 and value != "xx"

        def zone(self, name):
            return Zone("passes", center=True) if name == "passed" else Zone(name)

    # a describer that knows its cards says which strings are; an empty zone it describes is shown
    zones = Knows().observation_zones({**obs, "mix": ["xx", "QS"], "suit": "DD"}, 1)
    assert zones["mix"] == ["QS"] and zones["suit"] == ["DD"] and zones["passed"] == []
    # hand sizes: a list whose entry for the seat is its hand's size, a key naming counts first
    assert GENERIC.observation_zones({"hand": ["a"], "totals": [3, 1], "sizes": [5, 1]}, 1) == {
        "hand 1": ["a"], "hand 0": 5}


@pytest.fixture(scope="module")
def games_with_describers() -> dict[str, int]:
    """Every game with a describer of its own, and a table size: the built-in ones, the example's if installed."""
    games = {"maumau": 3, "presidente": 4, "mayor": 4}
    if importlib.util.find_spec("referee_crazy_eights") is not None:
        games["crazy_eights"] = 3  # the generic describer: it has none of its own
    return games


@pytest.mark.parametrize("name", ["maumau", "presidente", "mayor", "crazy_eights"])
def test_each_games_observation_reads_as_the_seats_view_of_the_table(registry, tmp_path, games_with_describers, name):
    # issue 17: a seat's page is drawn from these zones: its hand, every hand's true size, and
    # only cards the observation holds (a card the seat knows is there but not which as None)
    if name not in games_with_describers:
        pytest.skip("the example game is not installed")
    game, players = registry.game(name), games_with_describers[name]
    d = describer_of(game)
    path = tmp_path / "m.jsonl"
    random_playout(game, {}, 3, players, replay=path)
    center = set()
    for step in simulate(load_replay(path), game):
        truth = {k: v for k, v in step.state.zones().items() if re.fullmatch(r"hand\s*_?\d+", k)}
        sizes = {int(re.search(r"\d+", k).group()): len(v) for k, v in truth.items()}
        for seat in range(players):
            obs = step.state.observe(seat)
            zones = d.observation_zones(obs, seat)
            assert zones[f"hand {seat}"] == obs["hand"], (step.index, seat)
            for other in range(players):
                zone = zones[f"hand {other}"]
                assert (zone if isinstance(zone, int) else len(zone)) == sizes[other], (step.index, seat, other)
            strings = set(re.findall(r'"([^"\\]*)"', json.dumps(obs)))
            named = {c for z in zones.values() if isinstance(z, list) for c in z if c is not None}
            assert named <= strings, (step.index, seat, named - strings)
            center |= {k for k, z in zones.items() if d.zone(k).center and z}
            for who, words in d.observation_roles(obs, seat).items():
                assert 0 <= who < players and words and all(isinstance(w, str) for w in words)
    assert center or name == "crazy_eights", "no card ever on the table"  # the generic shows none in the middle


# -- the built-in games' describers --------------------------------------------------------------------


@pytest.fixture(scope="module")
def registry():
    return build_registry(get_plugin_manager())


@pytest.mark.parametrize("name", ["maumau", "presidente", "mayor"])
def test_every_builtin_game_has_its_own_describer_and_schema(registry, name):
    describer = describer_of(registry.game(name))
    assert type(describer) is not Describer and isinstance(describer, Describer)
    own = describer.schema()
    assert {f"{name}_{part}" for part in schema.PARTS} <= set(own)
    assert set(own) <= set(schema.load()["$defs"])


def test_the_schema_is_the_envelope_plus_each_games_definitions(registry):
    whole = schema.load()
    envelope = schema.envelope()
    assert set(envelope["$defs"]) < set(whole["$defs"])
    assert schema.games() == sorted(n for n in registry.games if registry.game(n).schema())
    for name in schema.games():
        assert whole["$defs"][f"{name}_hello"]["allOf"][1]["properties"]["game"] == {"const": name}
    assert not re.search(r"\{(definitions|games|scores)\}", json.dumps(whole))  # the game-listing words filled
    text = schema.text()
    assert json.loads(text) == whole and text.endswith("}\n")


class Broken(Describer):
    def schema(self):
        return {"tiny_config": {}}


class BrokenTiny(Tiny):
    def describer(self):
        return Broken()


class BrokenPlugin:
    @hookimpl
    def register_games(self, register):
        register(BrokenTiny())


def test_a_part_a_game_leaves_out_is_the_generic_one():
    """issue 27: a game may declare some parts only (its actions, say); the rest accept any value
    the generic messages allow."""
    registry = build_registry(get_plugin_manager(extra=[BrokenPlugin()], autoload=False))
    defs = schema.load(registry)["$defs"]
    assert defs["tiny_config"] == {}
    for part in ("action", "obs", "event"):
        generic = defs[f"tiny_{part}"]
        assert set(generic) == {"description"} and "Not declared by tiny" in generic["description"]


def test_the_terminal_story_speaks_the_games_own_words(registry, tmp_path):
    path = tmp_path / "m.jsonl"
    random_playout(registry.game("mayor"), {}, 1, 4, replay=path)
    out = io.StringIO()
    render(Console(file=out, width=200, color_system=None), build_story(load_replay(path), registry.game("mayor")))
    assert "holds the called Mayor" in out.getvalue() or "plays alone" in out.getvalue()
