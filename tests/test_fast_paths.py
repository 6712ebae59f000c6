"""The runner's fast paths (issue 9) behave exactly like the generic Player path.

A plain StrategyPlayer is asked directly (no Reply per decision) and events are skipped for
players that do not listen: a match must give the same replay, result and faults as the same
match played through a generic Player wrapper that goes through `act` and `event`.
"""

from __future__ import annotations

import json
import random

import pytest

from referee.config import resolve_config
from referee.players import Player, Strategy, StrategyPlayer
from referee.plugins import load_registry
from referee.replay.records import ReplayWriter, dumps, read_replay
from referee.runner import Limits, Seat, run_match
from referee_strategies.basic import RandomLegal

registry = load_registry()


class Wrapped(Player):
    """A StrategyPlayer seen through the generic Player interface (the runner's slow path)."""

    def __init__(self, inner: StrategyPlayer) -> None:
        self.inner = inner
        self.events = 0

    def start(self, hello):
        return self.inner.start(hello)

    def event(self, event):
        self.events += 1
        self.inner.event(event)

    def act(self, id, obs, legal, time_ms):
        return self.inner.act(id, obs, legal, time_ms)

    def end(self, result):
        self.inner.end(result)


class Odd(Strategy):
    """Chooses in every way a strategy may: an index, an action, a bool, out of range, raising."""

    def choose(self, obs, legal):
        k = self.rng.randrange(12)
        if k == 0:
            return dict(legal[-1])  # an equal action, not the legal object itself
        if k == 1 and self.seat == 1:
            return len(legal)  # out of range: an illegal fault
        if k == 2 and self.seat == 2:
            return True  # a bool is no index: an action, illegal
        if k == 3 and self.seat == 3:
            raise ValueError("boom")  # a crash
        return self.rng.randrange(len(legal))


class Listening(RandomLegal):
    def __init__(self, *args):
        super().__init__(*args)
        self.seen: list[str] = []

    def event(self, event):
        self.seen.append(event["kind"])


def _play(game_name, variant, seed, factory, wrap, path):
    game = registry.games[game_name]
    config = resolve_config(game, variant, 4)
    seats = [Seat(f"s{i}", "strategy", "x") for i in range(4)]
    strategies = [factory(game_name, i, config, random.Random(f"{seed}/{i}")) for i in range(4)]
    players = [StrategyPlayer(s) for s in strategies]
    if wrap:
        players = [Wrapped(p) for p in players]
    result = run_match(game, config, seed, seats, players, Limits(max_faults=3), replay=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        line.pop("ms", None)
        line.pop("resources", None)  # the result's times (issue 29), as the moves' ms
    result.result.pop("resources", None)
    return result, lines, strategies


@pytest.mark.parametrize("game", ["maumau", "presidente", "mayor"])
@pytest.mark.parametrize("factory", [RandomLegal, Odd, Listening], ids=["random", "odd", "listening"])
def test_fast_path_matches_generic_player_path(tmp_path, game, factory):
    for seed in range(3):
        fast, fast_lines, fast_strats = _play(game, {}, seed, factory, False, tmp_path / "fast.jsonl")
        slow, slow_lines, slow_strats = _play(game, {}, seed, factory, True, tmp_path / "slow.jsonl")
        assert fast_lines == slow_lines
        assert fast.result == slow.result
        assert fast.decisions == slow.decisions
        assert [(f.seat, f.kind, f.detail) for f in fast.faults] == [(f.seat, f.kind, f.detail) for f in slow.faults]
        if factory is Listening:
            assert [s.seen for s in fast_strats] == [s.seen for s in slow_strats]
            assert all(s.seen for s in fast_strats)
        if factory is Odd and seed == 0:
            assert {f.kind for f in fast.faults} >= {"illegal"}


def test_listens():
    config = {}
    assert not StrategyPlayer(RandomLegal("maumau", 0, config, random.Random(0))).listens()
    assert StrategyPlayer(Listening("maumau", 0, config, random.Random(0))).listens()

    class Sub(StrategyPlayer):
        def event(self, event):
            pass

    assert Sub(RandomLegal("maumau", 0, config, random.Random(0))).listens()


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_replay_writer_lines(tmp_path, suffix):
    records = [{"type": "header", "name": "é ü \u2028 \x01 \"q\" \\"}, {"a": [1, 2.5, -1.5, None, True]},
               {"type": "move", "ms": 0.012, "action": {"play": ["3C", "3D"]}}]
    path = tmp_path / f"r{suffix}"
    writer = ReplayWriter(path)
    for record in records:
        writer.write(record)
    writer.close()
    writer.close()
    assert list(read_replay(path)) == records
    if suffix == ".jsonl":
        expected = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
        assert path.read_bytes() == expected.encode("utf-8")
        assert dumps(records[0]) == json.dumps(records[0], ensure_ascii=False, separators=(",", ":"))


def test_orjson_and_stdlib_write_the_same_bytes(tmp_path, monkeypatch):
    """replay.dumps_line with orjson (if installed) and without it give the same bytes."""
    import importlib.util
    import sys

    import referee.replay.records as replay

    monkeypatch.setitem(sys.modules, "orjson", None)  # the import fails: the stdlib fallback
    spec = importlib.util.spec_from_file_location("replay_without_orjson", replay.__file__)
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    assert plain.orjson is None
    records: list = [{"f": x} for x in (1e-5, 1e-9, 1e-11, 1e16, 1e-4, 0.0001, 5e-324, 1.7976931348623157e308)]
    records += [{1: 2, None: 3}, {"n": 2**70}, {"t": (1, 2)}, {"nested": [[[{"a": None}]]]}, "text", 3, None]
    records += [{"x": float("nan")}, {"x": [float("inf"), -float("inf")]}]  # not JSON, but what the stdlib writes
    for seed in range(3):
        for game in ("maumau", "presidente", "mayor"):
            _, lines, _ = _play(game, {}, seed, Odd, False, tmp_path / "r.jsonl")
            records += lines
    for record in records:
        assert replay.dumps_line(record) == plain.dumps_line(record) == (replay.dumps(record) + "\n").encode()
    # not strict (for protocol lines): the same bytes too, but for NaN and infinities
    for record in records:
        text = replay.dumps(record)
        if "NaN" not in text and "Infinity" not in text:
            assert replay.dumps_line(record, strict=False) == (text + "\n").encode()


def test_random_strategy_draws_what_randrange_draws():
    """RandomLegal's inlined randrange: the same indices as Random.randrange, seed for seed."""
    lengths = [1, 2, 3, 5, 8, 13, 17, 31, 32, 33, 64, 65, 100, 1] * 20
    for seed in range(5):
        strategy = RandomLegal("maumau", 0, {}, random.Random(seed))
        reference = random.Random(seed)
        assert [strategy.choose({}, [{}] * n) for n in lengths] == [reference.randrange(n) for n in lengths]
    strategy = RandomLegal("maumau", 0, {}, random.Random(1))
    strategy.rng = random.Random(2)  # a PRNG swapped in later is the one used
    reference = random.Random(2)
    assert [strategy.choose({}, [{}] * 50) for _ in range(20)] == [reference.randrange(50) for _ in range(20)]
    with pytest.raises(ValueError):
        RandomLegal("maumau", 0, {}, random.Random(0)).choose({}, [])


def test_the_replay_writer_writes_at_each_deals_end_and_at_close(tmp_path):
    # issue 19: one write(2) per record doubled the engine's cost; now a deal is written whole
    path = tmp_path / "r.jsonl"
    writer = ReplayWriter(path)
    writer.write({"type": "header"})
    assert path.read_bytes().count(b"\n") == 1  # the header at once
    writer.write({"type": "deal", "deal": 1})
    writer.write({"type": "move", "deal": 1})
    assert path.read_bytes().count(b"\n") == 1  # the deal in play: buffered
    writer.write({"type": "deal_end", "deal": 1})
    assert path.read_bytes().count(b"\n") == 4
    writer.write({"type": "move", "deal": 2})
    writer.close()  # what an error or Ctrl-C leaves: written at close
    assert [r["type"] for r in read_replay(path)] == ["header", "deal", "move", "deal_end", "move"]
