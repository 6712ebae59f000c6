"""The conformance kit fails the ways a game written from the docs alone breaks sealing, replays
and secrecy (issue 27): each broken game here is a small one the kit must fail, naming the cause.

- a stock ordered by `list(set(...))`: the same within one process, another under another
  PYTHONHASHSEED (the kit replays in a second process);
- its own `random.Random(deal)`, the global `random` module: repeatable, so `verify` passes, but
  not sealed by the deal key (the kit deals every seed under two keys: the deals must differ);
- `random.SystemRandom()`: sealed by nothing and repeatable by nobody;
- a hand leaked in an observation, or in a public event.

The games are picklable (module level): the kit plays them in another process.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.game import EVERYONE, Event, Game, GameState, Outcome, Record, Shuffle
from referee.testing import check_game

#: sixteen cards: enough that a set's order differs between two hash seeds, and two keys' deals
CARDS = tuple(rank + suit for suit in "CD" for rank in "23456789")
HAND = 3


class DrawState(GameState):
    """Two seats, three cards each, the rest a stock: a seat plays a card (public), then draws the
    stock's top card (told to it alone) while there is one; the pips played score.

    `flaw` breaks the game one way (see the module's docstring)."""

    def __init__(self, players: int, flaw: str | None) -> None:
        self.n, self.flaw = players, flaw
        self.deal = 1
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.stock: list[str] = list(CARDS)
        self.table: list[str] = []
        self.scores = [0] * players
        self.turn: int | None = None
        self.pending = True
        self._out: list[Any] = []

    def chance(self):
        return Shuffle(CARDS) if self.pending else None

    def apply_chance(self, deck):
        self.pending = False
        if self.flaw == "own_random":
            deck = list(CARDS)
            random.Random(self.deal).shuffle(deck)
        elif self.flaw == "global_random":
            deck = list(CARDS)
            random.shuffle(deck)
        elif self.flaw == "system_random":
            deck = list(CARDS)
            random.SystemRandom().shuffle(deck)
        self.hands = [sorted(deck[HAND * s:HAND * s + HAND]) for s in range(self.n)]
        stock = deck[HAND * self.n:]
        self.stock = list(set(stock)) if self.flaw == "set_order" else stock
        self.turn = 0
        self._out.append(Record({"type": "deal", "deal": 1, "hands": [list(h) for h in self.hands],
                                 "stock": list(self.stock)}))
        for seat in range(self.n):
            self._out.append(Event("deal", {"hand": list(self.hands[seat])}, (seat,)))

    def to_act(self):
        return self.turn

    def legal_actions(self):
        return [{"play": card} for card in self.hands[self.turn]] if self.turn is not None else []

    def apply(self, action):
        seat, card = self.turn, action["play"]
        self.hands[seat].remove(card)
        self.table.append(card)
        self.scores[seat] += int(card[0])
        self._out.append(Event("played", {"seat": seat, "card": card}, EVERYONE))
        if self.stock:
            drawn = self.stock.pop(0)
            self.hands[seat].append(drawn)
            self.hands[seat].sort()
            self._out.append(Event("drew", {"seat": seat, "card": drawn}, (seat,)))
            told = {"seat": seat, "hand": list(self.hands[seat])} if self.flaw == "event_leak" else {"seat": seat}
            self._out.append(Event("drew", told, tuple(s for s in range(self.n) if s != seat)))
        if any(self.hands):
            self.turn = (seat + 1) % self.n
            return
        self.turn = None
        self._out.append(Record({"type": "deal_end", "deal": 1, "scores": list(self.scores)}))

    def observe(self, seat):
        obs = {"seat": seat, "hand": list(self.hands[seat]), "table": list(self.table), "stock": len(self.stock)}
        if self.flaw == "obs_leak":
            obs["hands"] = [list(h) for h in self.hands]
        return obs

    def drain(self):
        out, self._out = self._out, []
        return out

    def outcome(self):
        return Outcome(list(self.scores), [float(s) for s in self.scores])

    def zones(self):
        zones = {f"hand {s}": list(h) for s, h in enumerate(self.hands)}
        zones["stock"], zones["table"] = list(self.stock), list(self.table)
        return zones

    def hidden_from(self, seat):
        return set(self.stock) | {c for s, h in enumerate(self.hands) if s != seat for c in h}


class Draw(Game):
    name = "draw"
    title = "Play and draw"
    min_players = 2
    max_players = 2

    def __init__(self, flaw: str | None = None) -> None:
        self.flaw = flaw

    def new_state(self, config, players):
        return DrawState(players, self.flaw)


def test_the_sound_game_passes_replayed_in_another_process_and_sealed_by_the_key():
    report = check_game(Draw(), seeds=range(4), replayed=2)
    assert report.matches == 4 and report.verified == 2 and report.elsewhere == 2 and report.sealed == 4
    assert "2 replays verified (2 in another process), 4 deals sealed by the key" in str(report)


@pytest.mark.parametrize("flaw, cause", [
    ("set_order", "in another process (PYTHONHASHSEED="),
    ("own_random", "the seed dealt the same cards under two deal keys"),
    ("global_random", "the seed dealt the same cards under two deal keys"),
    ("system_random", "the same seed wrote different replays"),
    ("obs_leak", "seat 0 was sent hidden cards"),
    ("event_leak", "seat 1 was sent hidden cards"),
])
def test_the_kit_fails_a_broken_game_naming_the_cause(flaw, cause):
    with pytest.raises(AssertionError) as caught:
        check_game(Draw(flaw), seeds=range(2), replayed=1)
    text = str(caught.value)
    assert text.startswith("draw, 2 players, config default, seed 0: "), text
    assert cause in text, text
    if flaw == "set_order":
        assert "an order taken from a set" in text and "sort them" in text, text
    if flaw in ("own_random", "global_random", "system_random"):
        assert "random.Random of its own" in text and "SystemRandom" in text and "GameState.chance()" in text, text


def test_an_unpicklable_game_is_told_to_live_at_module_level():
    class Local(Draw):
        pass

    with pytest.raises(AssertionError, match="cannot pickle it .*define its Game class, and what it holds, at module"):
        check_game(Local(), seeds=range(1), replayed=1)


def test_a_game_that_plays_alike_everywhere_is_not_blamed_for_the_hash_seed(monkeypatch):
    """The other process gets another hash seed than this one's, pinned or random."""
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    assert check_game(Draw(), seeds=range(1), replayed=1).elsewhere == 1
    from referee.testing import _other_hash_seed

    assert _other_hash_seed() == "1"
    monkeypatch.delenv("PYTHONHASHSEED")
    assert _other_hash_seed() == "0"


def test_the_readmes_name_what_the_template_uses():
    """The READMEs once named a `replay_state` method that no longer exists, and a module the
    template does not import."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    template = root / "examples" / "crazy_eights"
    readme = (template / "README.md").read_text(encoding="utf-8")
    for text in (readme, (root / "README.md").read_text(encoding="utf-8")):
        assert "replay_state" not in text
    named = set(re.findall(r"`(referee\.\w+)`", readme.split("Copy this")[0]))
    imported = {m for path in template.rglob("*.py")
                for m in re.findall(r"^from (referee\.\w+)", path.read_text(encoding="utf-8"), re.M)}
    assert named == imported


def test_told_runs_the_kits_leak_check_on_every_line():
    """The identical-messages tests (tests/test_leak.py) play through `told`, which checks every
    line as the kit does: a leaked hand fails there too, and a sound game's lines pass."""
    from referee.testing import told

    first = lambda seat, obs, legal: 0  # noqa: E731
    assert all(len(lines) > 3 for lines in told(Draw(), {}, first))
    for flaw, seat in (("obs_leak", 0), ("event_leak", 1)):
        with pytest.raises(AssertionError, match=f"seat {seat} was sent hidden cards"):
            told(Draw(flaw), {}, first)
