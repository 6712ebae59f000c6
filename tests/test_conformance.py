"""The conformance suite: seeded random matches of every registered game and variant.

At every step: every card is accounted for exactly once, a seat asked to act has a non-empty
legal list, nothing sent to a seat names a card that seat may not see; at the end the outcome
is well formed (C-5 ranks); and a seed replays to identical bytes (ms fields aside).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from referee.config import resolve_config
from referee.game import Record
from referee.plugins import load_registry
from referee.replay import read_replay
from referee.testing import random_playout

MATCHES = 200  # per game, spread over its variants and table sizes (the first case gets the rest)
MIN_PER_CASE = 30
REPLAYED = 3  # seeds per case whose replay bytes are compared across two runs

_registry = load_registry()


def _cases():
    cases = []
    for name, game in sorted(_registry.games.items()):
        combos = [(variant, n) for variant in game.variants() for n in sorted({game.min_players, game.max_players})]
        each = max(MIN_PER_CASE, MATCHES // len(combos))
        for i, (variant, n) in enumerate(combos):
            count = max(each, MATCHES - each * (len(combos) - 1)) if i == 0 else each
            label = "-".join(f"{k}={v}" for k, v in variant.items()) or "default"
            cases.append(pytest.param(name, variant, n, count, id=f"{name}-{n}p-{label}"))
    return cases


CASES = _cases()
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _without_names(value):
    if isinstance(value, dict):
        return {k: _without_names(v) for k, v in value.items() if k != "name"}
    if isinstance(value, list):
        return [_without_names(v) for v in value]
    return value


def strings_in(message) -> set[str]:
    """Every string (keys and values) inside a JSON-ready message, `name` fields left out.

    A `name` is Mayor's Casino guess (M-11a: any card but the player's own; M-11: the name is
    public): it says nothing about where that card is.
    """
    return set(_STRING.findall(json.dumps(_without_names(message), ensure_ascii=False)))


def act_strings(message) -> set[str]:
    """The strings of an act message."""
    return strings_in(message["obs"]) | strings_in(message["legal"])


class Checker:
    """A runner Monitor asserting the per-step invariants.

    Events are checked when the step is over: those emitted before a new deal's `deal` record
    describe the deal that just ended, and are checked against what the seat could not see
    before the move (less the cards the move itself showed); the rest against the state after it.
    """

    def __init__(self, players: int):
        self.players = players
        self.deck: Counter | None = None
        self.steps = 0
        self.acts = 0
        self.before: list[set[str]] | None = None
        self.events: list[tuple[int, dict, bool]] = []
        self.new_deal = False

    def sent(self, seat, message, state):
        if state is None:  # hello, before the deal
            return
        if message["type"] == "act":
            self.acts += 1
            assert message["legal"], f"seat {seat} asked to act with an empty legal list"
            assert state.to_act() == seat
            self._check(seat, act_strings(message), state.hidden_from(seat), message)
        elif message["type"] == "event" and self.before is not None:
            self.events.append((seat, message, self.new_deal))
        else:  # the first deal's events, and `end`
            self._check(seat, strings_in(message), state.hidden_from(seat), message)

    def record(self, record):
        if record["type"] == "deal":
            self.new_deal = True

    def applying(self, state, seat, action):
        shown = strings_in(action)
        self.before = [state.hidden_from(s) - shown for s in range(self.players)]
        self.events = []
        self.new_deal = False

    def stepped(self, state):
        self.steps += 1
        for seat, message, after_new_deal in self.events:
            if self.new_deal and not after_new_deal:
                hidden = self.before[seat]
            else:
                hidden = state.hidden_from(seat)
            self._check(seat, strings_in(message), hidden, message)
        self.before = None
        cards = Counter(card for zone in state.zones().values() for card in zone)
        if self.deck is None:
            self.deck = cards
        assert cards == self.deck, f"cards not conserved: {cards - self.deck} extra, {self.deck - cards} missing"

    @staticmethod
    def _check(seat, strings, hidden, message):
        leaked = strings & hidden
        assert not leaked, f"seat {seat} was sent hidden cards {sorted(leaked)} in {message}"


@pytest.mark.parametrize("name, variant, players, count", CASES)
def test_random_matches_keep_every_invariant(name, variant, players, count):
    game = _registry.games[name]
    for seed in range(count):
        checker = Checker(players)
        result = random_playout(game, variant, seed=seed, players=players, monitor=checker)
        res = result.result
        assert checker.acts > 0 and checker.steps == checker.acts
        assert len(res["scores"]) == len(res["ranks"]) == len(res["faults"]) == players
        assert res["faults"] == [0] * players and res["disqualified"] == []
        assert min(res["ranks"]) == 1 and all(1 <= r <= players for r in res["ranks"])


@pytest.mark.parametrize("name, variant, players, count", CASES)
def test_same_seed_same_replay(name, variant, players, count, tmp_path):
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


DEAL_SEEDS = 4  # seeds per game whose deals are compared across two ways of playing


def _deals(game, config, players, seed, choose):
    """The `deal` records of one match started from `random.Random(seed)`, each seat choosing
    `choose(legal)`, by deal number."""
    state = game.new_state(config, players, random.Random(seed))
    deals = {}
    while True:
        for out in state.drain():
            if isinstance(out, Record) and out.data["type"] == "deal":
                deals[out.data["deal"]] = out.data
        if state.to_act() is None:
            return deals
        state.apply(choose(state.legal_actions()))


@pytest.mark.parametrize("name, players", [
    pytest.param(name, n, id=f"{name}-{n}p")
    for name, game in sorted(_registry.games.items()) for n in sorted({game.min_players, game.max_players})
])
def test_a_seed_deals_every_deal_alike_however_the_seats_play(name, players):
    """C-2, for duplicate tournaments: deal n of a seed is the same whatever was played before
    it (reshuffles included), so every seating of a duplicate set gets the same deals."""
    game = _registry.games[name]
    config = resolve_config(game, {}, players)
    compared = 0
    for seed in range(DEAL_SEEDS):
        pick = random.Random(seed)
        first = _deals(game, config, players, seed, lambda legal: legal[0])
        other = _deals(game, config, players, seed, lambda legal: legal[pick.randrange(len(legal))])
        for n in sorted(first.keys() & other.keys()):
            a, b = first[n], other[n]
            if a.get("dealer") != b.get("dealer") or a.get("active") != b.get("active"):
                continue  # a tie-break deal (MM-9) among other seats: dealt to other hands
            if name == "presidente" and n > 1 and config["jokers"]:
                continue  # P-10: the extra two cards go to the Slave, whoever it was
            for key in ("hands", "stock", "up", "reserve"):
                assert a.get(key) == b.get(key), f"seed {seed}, deal {n}: the {key} differ"
            compared += n > 1
    assert compared >= DEAL_SEEDS  # deals after the first were compared


def test_every_builtin_game_is_registered():
    assert {"maumau", "presidente", "mayor"} <= set(_registry.games)


def test_every_game_gets_at_least_200_matches():
    per_game = Counter()
    for case in CASES:
        per_game[case.values[0]] += case.values[3]
    assert all(count >= MATCHES for count in per_game.values()), per_game
