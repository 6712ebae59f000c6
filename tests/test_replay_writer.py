"""The replay writer writes `dumps_line`'s bytes record for record (issue 19): its checks for a
float orjson writes otherwise are made once a buffer, and a line with one is written again."""

from __future__ import annotations

import enum

from referee.replay.records import ReplayWriter, dumps_line

TRICKY: list = [{"f": x} for x in (1e-5, 1e-9, 1e-11, 1e16, 1e-4, 0.0001, 5e-324, 1.7976931348623157e308, 2.5e-7)]
TRICKY += [{1: 2, None: 3}, {1: 1e-5, "1": 2}, {"n": 2**70}, {"t": (1, 2)}, {"nested": [[[{"a": None}]]]}]
TRICKY += [{"x": float("nan")}, {"x": [float("inf"), -float("inf")], "y": 1e-6}, {"s": "one-eyed 0.00001"}]
TRICKY += [{"type": "move", "ms": 0.004, "action": {"play": "7H"}}, {"e": "é ü \u2028 \x01 \"q\" \\"}, {"k": 3.0}]


class Colour(enum.IntEnum):
    RED = 1


TRICKY += [{"c": Colour.RED, "f": 1e-5}, {"c": Colour.RED}]


def _written(tmp_path, records, flush_every=None):
    path = tmp_path / "r.jsonl"
    writer = ReplayWriter(path)
    for i, record in enumerate(records):
        writer.add(record)
        if flush_every and i % flush_every == 0:
            writer.flush()
    writer.close()
    return path.read_bytes()


def test_the_writer_writes_dumps_lines_bytes(tmp_path):
    expected = b"".join(dumps_line(r) for r in TRICKY)
    assert _written(tmp_path, TRICKY) == expected
    assert _written(tmp_path, TRICKY[::-1]) == b"".join(dumps_line(r) for r in TRICKY[::-1])
    for every in (1, 2, 3, 5):
        assert _written(tmp_path, TRICKY, every) == expected


def test_a_small_float_among_moves(tmp_path):
    moves = [{"type": "move", "deal": 1, "seat": i % 4, "action": {"draw": True}, "ms": 0.003} for i in range(50)]
    records = moves[:20] + [{"type": "move", "ms": 1e-5}] + moves[20:] + [{"x": None}] + moves[:5]
    assert _written(tmp_path, records) == b"".join(dumps_line(r) for r in records)


def test_past_max_buffer(tmp_path, monkeypatch):
    monkeypatch.setattr(ReplayWriter, "MAX_BUFFER", 64)
    records = [{"i": i, "f": 1e-5 if i % 7 == 0 else 0.5, "n": None if i % 11 == 0 else 1} for i in range(100)]
    assert _written(tmp_path, records) == b"".join(dumps_line(r) for r in records)


def test_a_record_changed_after_it_was_added(tmp_path):
    """The line holds the record as it was when added, even when its line is written again."""
    path = tmp_path / "r.jsonl"
    writer = ReplayWriter(path)
    records = [{"a": None, "f": 1e-5}, {"b": [1, None]}, {"c": "text"}]
    for record in records:
        writer.add(record)
    expected = b"".join(dumps_line(r) for r in records)
    records[0]["a"] = 1
    records[1]["b"].append(object())  # orjson cannot write it now
    records[2]["c"] = None
    writer.close()
    assert path.read_bytes() == expected


def test_the_writer_makes_a_missing_directory(tmp_path):
    for path in (tmp_path / "a" / "b" / "r.jsonl", tmp_path / "c" / "r.jsonl.gz", tmp_path / "r.jsonl"):
        writer = ReplayWriter(path)
        writer.write({"type": "header"})
        writer.close()
        assert path.is_file()
