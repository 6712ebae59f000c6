"""The move record's `ms` is round(ms, 3) of the time the player took, bit for bit (issue 19: the
runner rounds by a cheaper path where it gives the very same float)."""

from __future__ import annotations

import dataclasses
import random

from referee.config import resolve_config
from referee.players import Player, StrategyPlayer
from referee.plugins import load_registry
from referee.replay.records import read_replay
from referee.runner import Limits, Seat, run_match
from referee_strategies.basic import RandomLegal

TIMES = [0.0, -0.0, 1e-7, 0.0004999, 0.0005, 0.0015, 0.0025, 2.675, 1.0005, 123.4565, 0.1234, 7.0, 1e10, 1e13,
         float("inf"), float("nan")] + [random.Random(0).random() * 10 ** k for k in range(-4, 6)]


class Timed(Player):
    """A random player that says it took each time of TIMES in turn."""

    def __init__(self, inner: StrategyPlayer) -> None:
        self.inner, self.k = inner, 0

    def start(self, hello):
        return self.inner.start(hello)

    def act(self, id, obs, legal, time_ms):
        reply = self.inner.act(id, obs, legal, time_ms)
        self.k += 1
        return dataclasses.replace(reply, ms=TIMES[self.k % len(TIMES)])

    def event(self, event):
        self.inner.event(event)

    def end(self, result):
        self.inner.end(result)


def test_move_ms_is_round_3(tmp_path):
    game = load_registry().games["maumau"]
    config = resolve_config(game, {}, 4)
    players = [Timed(StrategyPlayer(RandomLegal("maumau", i, config, random.Random(i)))) for i in range(4)]
    path = tmp_path / "r.jsonl"
    run_match(game, config, 3, [Seat(f"s{i}", "strategy", "x") for i in range(4)], players, Limits(), replay=path)
    moves = [r for r in read_replay(path) if r["type"] == "move"]
    counts = {s: 0 for s in range(4)}
    assert len(moves) > 2 * len(TIMES)
    for move in moves:
        counts[move["seat"]] += 1
        expected = round(TIMES[counts[move["seat"]] % len(TIMES)], 3)
        assert repr(move["ms"]) == repr(expected)
