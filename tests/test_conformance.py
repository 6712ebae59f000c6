"""The conformance suite: seeded random matches of every registered game and variant.

At every step: every card is accounted for exactly once, a seat asked to act has a non-empty
legal list, nothing sent to a seat names a card that seat may not see; at the end the outcome
is well formed (C-5 ranks); and a seed replays to identical bytes (ms fields aside).
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from referee.plugins import load_registry
from referee.replay import read_replay
from referee.testing import random_playout

MATCHES = 200
REPLAYED = 5  # seeds per variant whose replay bytes are compared across two runs

_registry = load_registry()
CASES = [
    pytest.param(name, variant, n, id=f"{name}-{n}p-" + ("-".join(f"{k}={v}" for k, v in variant.items()) or "default"))
    for name, game in sorted(_registry.games.items())
    for variant in game.variants()
    for n in sorted({game.min_players, game.max_players})
]
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def strings_in(message) -> set[str]:
    """Every string (keys and values) inside a JSON-ready message."""
    return set(_STRING.findall(json.dumps(message, ensure_ascii=False)))


class Checker:
    """A runner Monitor asserting the per-step invariants."""

    def __init__(self):
        self.deck: Counter | None = None
        self.steps = 0
        self.acts = 0

    def sent(self, seat, message, state):
        if state is None:  # hello, before the deal
            return
        if message["type"] == "act":
            self.acts += 1
            assert message["legal"], f"seat {seat} asked to act with an empty legal list"
            assert state.to_act() == seat
        leaked = strings_in(message) & state.hidden_from(seat)
        assert not leaked, f"seat {seat} was sent hidden cards {sorted(leaked)} in {message}"

    def stepped(self, state):
        self.steps += 1
        cards = Counter(card for zone in state.zones().values() for card in zone)
        if self.deck is None:
            self.deck = cards
        assert cards == self.deck, f"cards not conserved: {cards - self.deck} extra, {self.deck - cards} missing"


@pytest.mark.parametrize("name, variant, players", CASES)
def test_random_matches_keep_every_invariant(name, variant, players):
    game = _registry.games[name]
    for seed in range(MATCHES):
        checker = Checker()
        result = random_playout(game, variant, seed=seed, players=players, monitor=checker)
        res = result.result
        assert checker.acts > 0 and checker.steps == checker.acts
        assert len(res["scores"]) == len(res["ranks"]) == len(res["faults"]) == players
        assert res["faults"] == [0] * players and res["disqualified"] == []
        assert min(res["ranks"]) == 1 and all(1 <= r <= players for r in res["ranks"])


@pytest.mark.parametrize("name, variant, players", CASES)
def test_same_seed_same_replay(name, variant, players, tmp_path):
    game = _registry.games[name]

    def records(path):
        out = []
        for record in read_replay(path):
            record.pop("ms", None)
            out.append(record)
        return out

    for seed in range(REPLAYED):
        a, b = tmp_path / f"a{seed}.jsonl", tmp_path / f"b{seed}.jsonl"
        random_playout(game, variant, seed=seed, players=players, replay=a)
        random_playout(game, variant, seed=seed, players=players, replay=b)
        ra, rb = records(a), records(b)
        assert ra == rb
        kinds = [r["type"] for r in ra]
        assert kinds[0] == "header" and kinds[1] == "deal" and kinds[-1] == "result"
        assert kinds.count("deal") == kinds.count("deal_end") >= 1
        assert ra[0]["seed"] == seed and ra[0]["game"] == name


def test_every_builtin_game_is_registered():
    assert {"maumau", "presidente", "mayor"} <= set(_registry.games)
