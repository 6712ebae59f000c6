"""The protocol logic of SubprocessPlayer, run over an in-memory channel (referee.bots.mock): no
process, no pipe, no waiting, so each case of docs/protocol.md and of referee/bots/player.py's
settled cases is checked exactly, and fast. The same cases against real bot processes are in
tests/test_subprocess_bot.py and tests/test_hostile.py."""

from __future__ import annotations

import json

import pytest

from referee.protocol import NAME_CAP, Overlong, encode, event_line
from referee.bots.mock import MockChannel, MockPlayer
from referee.players import Hello

HELLO = Hello("pick", 0, 2, ["mock", "other"], {"turns": 3}, "pick-0001",
              {"move_ms": 1000, "start_ms": 5000, "max_line_bytes": 65536})
READY = '{"type":"ready","name":"mock","version":"1.0"}\n'
LEGAL = [{"pick": 1}, {"pick": 2}, {"pick": 3}]


def reply(id: int, index: int = 0) -> str:
    return f'{{"type":"action","id":{id},"index":{index}}}\n'


def started(*answers, **settings) -> MockPlayer:
    """A MockPlayer that said READY to hello, then answers each later write with `answers`."""
    p = MockPlayer([READY, *answers], **settings)
    assert p.start(HELLO) is None
    return p


def act(p: MockPlayer, id: int):
    return p.act(id, {"seat": 0}, LEGAL, 1000)


def written(p: MockPlayer, k: int = -1) -> list[dict]:
    """The messages of the player's k-th write to the bot, in order."""
    return [json.loads(line) for line in p.channel.writes[k].splitlines()]


# -- hello and ready -----------------------------------------------------------------------------


def test_hello_is_the_first_write_and_ready_sets_the_names():
    p = started()
    assert p.channel.writes == [encode(HELLO.message())]
    assert p.name == "mock" and p.version == "1.0" and p.author is None
    assert not p.reusable  # "reuse" not declared


def test_announced_names_are_capped():
    long = "x" * (NAME_CAP + 50)
    p = MockPlayer([json.dumps({"type": "ready", "name": long, "version": long, "author": long}) + "\n"])
    assert p.start(HELLO) is None
    assert p.name == p.version == p.author == "x" * NAME_CAP


@pytest.mark.parametrize("line,detail", [
    ('{"type":"ready"}', "ready needs a non-empty string name"),
    ('{"type":"ready","name":""}', "ready needs a non-empty string name"),
    ('{"type":"ready","name":"a","version":2}', "ready's version and author must be strings"),
    ('{"type":"action","id":1,"index":0}', "expected a ready message, got type 'action'"),
])
def test_a_wrong_ready_is_invalid(line, detail):
    p = MockPlayer([line + "\n"])
    fault = p.start(HELLO)
    assert fault is not None and fault.kind == "invalid" and fault.detail == detail
    assert fault.raw == line  # the offending line is quoted


def test_no_ready_is_a_timeout_and_a_late_ready_is_ignored_at_the_next_act():
    p = MockPlayer([b"", READY + reply(1, 2)])  # silent at hello, then ready and the reply
    fault = p.start(HELLO)
    assert fault is not None and fault.kind == "timeout" and "no ready within 5000 ms" in fault.detail
    r = act(p, 1)
    assert r.fault is None and r.index == 2
    assert p.stats["late_ready"] == 1


@pytest.mark.parametrize("reuse,reusable", [("true", True), ("false", False), ("1", False), ('"yes"', False)])
def test_reuse_is_declared_only_by_true(reuse, reusable):
    p = MockPlayer([f'{{"type":"ready","name":"r","reuse":{reuse}}}\n'])
    assert p.start(HELLO) is None
    assert p.reusable is reusable
    assert not p.kept  # a MockPlayer has no process to keep, and no pool leased it


# -- act and the reply ---------------------------------------------------------------------------


def test_a_reply_to_an_id_not_asked_yet_is_invalid():
    p = started(reply(2))
    r = act(p, 1)
    assert r.fault is not None and r.fault.kind == "invalid"
    assert r.fault.detail == "reply to id 2, which was not asked yet"


def test_a_reply_to_an_old_id_is_discarded():
    p = started(reply(1, 1), reply(1, 0) + reply(2, 2))
    assert act(p, 1).index == 1
    r = act(p, 2)
    assert r.fault is None and r.index == 2
    assert p.stats["stale"] == 1


def test_a_second_reply_read_before_the_next_act_is_stale():
    p = started(reply(1) + reply(1, 2), reply(2, 1))  # act 1 answered twice
    assert act(p, 1).index == 0  # the first answer counts
    r = act(p, 2)
    assert r.fault is None and r.index == 1
    assert p.stats["stale"] == 1


def test_a_reply_read_early_to_the_next_id_is_invalid():
    p = started(reply(1) + reply(2))
    assert act(p, 1).index == 0
    r = act(p, 2)
    assert r.fault is not None and r.fault.detail == "reply to id 2, which was not asked yet"
    assert len(p.channel.writes) == 2  # judged before act 2 was written


def test_blank_lines_are_skipped():
    p = started("\n   \n\t\n" + reply(1, 2))
    r = act(p, 1)
    assert r.fault is None and r.index == 2
    assert p.stats["blank"] == 3 and p.stats["lines"] == 5  # ready, three blank lines, the reply


@pytest.mark.parametrize("line,detail", [
    (b"hello, referee", "line is not JSON"),
    (b'{"type":"action","id":1,"index":NaN}', "line is not JSON"),  # NaN is no JSON constant
    (b'{"type":"action","id":1,"index":Infinity}', "line is not JSON"),
    (b"[1, 2]", "line is not a JSON object"),
    (b'{"type":"action","id":1,"index":"\xff"}', "line is not UTF-8"),
    (b"[" * 100_000, "line is not JSON (nested too deeply)"),
    (b'{"type":"action","id":"1","index":0}', "the reply's id is not an integer"),
    (b'{"type":"action","id":1}', "a reply needs exactly one of action and index"),
    (b'{"type":"action","id":1,"index":0,"action":{}}', "a reply needs exactly one of action and index"),
    (b'{"type":"action","id":1,"index":0.0}', "index is not an integer"),
    (b'{"type":"action","id":1,"action":[1]}', "action is not a JSON object"),
    (b'{"type":"move","id":1,"index":0}', "expected an action reply, got type 'move'"),
])
def test_an_invalid_line_is_an_invalid_fault(line, detail):
    p = started(line + b"\n", max_line_bytes=1 << 20)
    r = act(p, 1)
    assert r.fault is not None and r.fault.kind == "invalid" and r.fault.detail == detail
    assert r.fault.raw and len(r.fault.raw) <= 200


def test_an_overlong_line_is_invalid_and_its_rest_is_skipped():
    pad = '{"type":"action","id":1,"index":0,"pad":"' + "x" * 100 + '"}\n'
    p = started(pad, reply(2, 1), "y" * 100, max_line_bytes=64)
    long = act(p, 1)
    assert long.fault is not None and long.fault.kind == "invalid"
    assert long.fault.detail == "line too long (over 64 bytes)"
    assert long.fault.raw.startswith('{"type":"action","id":1')
    assert act(p, 2).index == 1  # nothing of the long line was parsed as a line
    unterminated = act(p, 3)  # past the cap without a newline: reported without one
    assert unterminated.fault is not None and "line too long" in unterminated.fault.detail


def test_a_silent_bot_times_out_quoting_its_unterminated_line():
    p = started('{"type":"action","id":1,"index":0}')  # the newline forgotten
    r = act(p, 1)
    assert r.fault is not None and r.fault.kind == "timeout" and r.fault.detail == "no reply within 1000 ms"
    assert r.fault.raw == '{"type":"action","id":1,"index":0}'


def test_a_bot_that_closes_its_stdout_crashes_and_the_crash_is_sticky():
    p = started(None)
    crash = act(p, 1)
    assert crash.fault is not None and crash.fault.kind == "crash"
    assert crash.fault.detail == "closed its stdout (still running)"  # no process: no exit status
    writes = len(p.channel.writes)
    assert act(p, 2).fault == crash.fault and len(p.channel.writes) == writes  # no I/O any more
    p.event({"kind": "played"})
    p.end({"scores": [0, 0]})
    assert len(p.channel.writes) == writes


# -- events and end ------------------------------------------------------------------------------


def test_events_are_batched_with_the_next_act_in_one_write():
    p = started(reply(1), b"")
    first, second = {"kind": "deal", "hand": ["7S", "ÄÖ"]}, {"kind": "played", "seat": 1, "card": "8H"}
    p.event(first)
    p.event(second)
    assert len(p.channel.writes) == 1  # only hello: events wait for the act
    assert act(p, 1).index == 0
    assert p.channel.writes[1] == event_line(first) + event_line(second) + encode(
        {"type": "act", "id": 1, "obs": {"seat": 0}, "legal": LEGAL, "time_ms": 1000})
    p.event({"kind": "scores", "scores": [1, 2]})
    p.end({"scores": [1, 2]})
    assert [m["type"] for m in written(p)] == ["event", "end"]  # with end too, in one write
    assert p.channel.input_closed  # not kept: stdin closed after end
    p.close()
    assert p.channel.closed


def test_the_same_event_object_is_encoded_once_for_every_seat(monkeypatch):
    from referee.bots import player as player_mod

    calls = []
    monkeypatch.setattr(player_mod, "event_line", lambda event: calls.append(event) or event_line(event))
    seats = [started(), started()]
    event = {"kind": "played", "seat": 0}
    for p in seats:
        p.event(event)
    assert calls == [event]
    assert all(p.channel.pending == bytearray(event_line(event)) for p in seats)


def test_an_event_that_cannot_be_buffered_gives_the_bot_up():
    p = started(max_pending_bytes=100)
    p.event({"kind": "played", "pad": "e" * 200})  # over the cap even with nothing else waiting
    r = act(p, 1)
    assert r.fault is not None and r.fault.kind == "timeout"
    assert "stopped reading its stdin: over 100 bytes waiting to be sent" in r.fault.detail
    assert len(p.channel.writes) == 1  # the act was never sent


def test_the_transcript_has_every_line_in_order():
    lines = []
    p = MockPlayer([READY, "\n" + reply(1)], transcript=lambda way, line: lines.append((way, line)))
    assert p.start(HELLO) is None
    p.event({"kind": "deal"})
    act(p, 1)
    p.end({})
    assert [(way, json.loads(line)["type"] if line.strip() else "") for way, line in lines] == [
        ("send", "hello"), ("recv", "ready"), ("send", "event"), ("send", "act"), ("recv", ""),
        ("recv", "action"), ("send", "end")]


# -- the channel's line buffer -------------------------------------------------------------------


def test_line_splitting_across_reads():
    chan = MockChannel([], max_line_bytes=8)
    for chunk in (b'ab', b'c\nde', b'f\n\n1234', b'5678\n', b'123456789', b'abc\nok\n', b'12345678'):
        chan.feed(chunk)
    got = [x if isinstance(x, bytes) else ("LONG", x.head) for x in chan.lines]
    assert got == [b"abc", b"def", b"", b"12345678", ("LONG", b"123456789"), b"ok"]
    assert bytes(chan.partial) == b"12345678"
    chan.feed(b"9")  # the pending line passes the cap without a newline: reported at once
    assert isinstance(chan.lines[-1], Overlong) and not chan.partial
    chan.feed(b"zzz\nnext\n")  # the rest of it, up to its newline, is skipped
    assert chan.lines[-1] == b"next" and len(chan.lines) == 8
