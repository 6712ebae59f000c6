"""Bot protocol v1 (docs/protocol.md) in one place: every message the referee sends, built and
encoded here; every line a bot sends, parsed here; the caps on what a bot may make the referee
keep. Its JSON Schema (referee/schema.json, around each game's own definitions: referee.schema)
describes exactly these messages (tests/test_schema.py holds the two together).

The referee sends (`TO_BOT`): `hello` (`Hello.message`), `event` (`event_line`), `act`
(`act_message`, `act_line`), `end` (`end_message`); each is one compact JSON object per line,
UTF-8, newline included (`encode`). A bot sends (`TO_REFEREE`): `ready`, then `action` replies
(`parse`: a line is a JSON object or an `Invalid` line, with its reason (a fault's detail) and
the text to quote). A line longer than the channel's cap never reaches `parse`: the channel
hands on an `Overlong` instead, its head kept for the fault. What each message means to a bot
and how a bot's misbehaviour is judged is the players' (referee.bots.player: a subprocess bot;
referee.players: the interface). No state, no I/O.

Settled here (the protocol leaves it open):
- A blank line from a bot (a stray `print()`) is skipped, not a fault: `parse` returns None.
- NaN and Infinity are Python's extensions, not JSON: a bot sending them sends invalid JSON.
- A line nested deeper than the parser's recursion limit ("[[[[...") is invalid JSON too.
- A lone surrogate ("\\ud800": valid JSON, but no Unicode text, which no UTF-8 file can hold) is
  checked where it enters (issue 25): a line holding one anywhere (a value, a key, an unknown
  field) is `Invalid`, its parsed object kept (`Invalid.message`) for `ready`, whose text is made
  `printable` instead. A line is decoded strictly as UTF-8, so one can only come from an escape
  ("\\udc00"): only a line holding one is searched (most bots write plain ASCII or UTF-8).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from referee.version import PROTOCOL_VERSION as VERSION
from referee.replay.records import dumps_line

#: the message types each way
TO_BOT = ("hello", "event", "act", "end")
TO_REFEREE = ("ready", "action")
RAW_CAP = 200  # characters of offending text kept in a fault record

NAME_CAP = 100  # characters kept of the name, version and author a bot announces
DEBUG_CAP = 1000  # characters kept of an action's `debug` text (the rest is cut)
DEBUG_MATCH_CAP = 65536  # characters of `debug` text kept per seat and match (the rest is dropped)
#: the `debug` text that stands, once, for a seat's debug texts past DEBUG_MATCH_CAP
DEBUG_DROPPED = f"[referee] over {DEBUG_MATCH_CAP} characters of debug text in this match: the rest is dropped"

#: A message as one JSON line, newline included: orjson if installed (the stdlib's very bytes,
#: about 10x faster), NaN written as null. A partial: no Python frame of its own on the hot path.
encode = functools.partial(dumps_line, strict=False)


@dataclass(frozen=True, slots=True)
class Hello:
    """What a player learns before the match: the hello message's fields."""

    game: str
    seat: int
    players: int
    names: list[str]
    config: dict[str, Any]
    match: str
    limits: dict[str, int]

    def message(self) -> dict[str, Any]:
        """The `hello` message."""
        return {
            "type": "hello",
            "protocol": VERSION,
            "game": self.game,
            "seat": self.seat,
            "players": self.players,
            "names": self.names,
            "config": self.config,
            "match": self.match,
            "limits": self.limits,
        }


def act_message(id: int, obs: dict[str, Any], legal: list[Any], time_ms: int,
                bank_ms: int | None = None) -> dict[str, Any]:
    """The `act` message: decide now (`id`: the seat's own count of its acts); `bank_ms`, only in
    a match with a time bank: what of it the seat may still draw on beyond `time_ms`."""
    if bank_ms is None:
        return {"type": "act", "id": id, "obs": obs, "legal": legal, "time_ms": time_ms}
    return {"type": "act", "id": id, "obs": obs, "legal": legal, "time_ms": time_ms, "bank_ms": bank_ms}


def act_line(id: int, obs: dict[str, Any], legal: list[Any], time_ms: int, bank_ms: int | None = None) -> bytes:
    """The `act` message as one line."""
    if bank_ms is None:
        return encode({"type": "act", "id": id, "obs": obs, "legal": legal, "time_ms": time_ms})
    return encode({"type": "act", "id": id, "obs": obs, "legal": legal, "time_ms": time_ms, "bank_ms": bank_ms})


def event_message(event: dict[str, Any]) -> dict[str, Any]:
    """The `event` message carrying `event` (what `event_line` encodes)."""
    return {"type": "event", "event": event}


def end_message(result: dict[str, Any]) -> dict[str, Any]:
    """The `end` message: the match's result as told to the seat (referee.faults.fault_log_for)."""
    return {"type": "end", "result": result}


def event_line(event: dict[str, Any]) -> bytes:
    """The `event` message carrying `event`, as one line."""
    return b'{"type":"event","event":' + dumps_line(event, strict=False)[:-1] + b"}\n"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_loads = json.JSONDecoder(parse_constant=_reject_constant).decode


class Invalid(Exception):
    """A line from a bot that is no protocol message: `detail` says why, `raw` is what to quote
    (bytes or text, capped by whoever quotes it); `message`, the JSON object it is, when only its
    text is wrong (a lone surrogate)."""

    def __init__(self, detail: str, raw: bytes | str, message: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.raw = raw
        self.message = message


class Overlong:
    """Stands in a channel's line queue for a line longer than its max_line_bytes (its head
    kept for the fault)."""

    __slots__ = ("head",)

    def __init__(self, head: bytes) -> None:
        self.head = head


def parse(line: bytes) -> dict[str, Any] | None:
    """A bot's line (newline stripped) as a JSON object; None for a blank line; raises `Invalid`
    for a line that is not UTF-8, not JSON, or not an object."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise Invalid("line is not UTF-8", line) from None
    try:
        message = _loads(text)
    except ValueError:
        if not text.strip():
            return None  # a stray empty line (print()) is tolerated
        raise Invalid("line is not JSON", text) from None
    except RecursionError:  # "[[[[...": deeper than the parser's recursion limit
        raise Invalid("line is not JSON (nested too deeply)", text) from None
    if type(message) is not dict:
        raise Invalid("line is not a JSON object", text)
    # A surrogate can only come from an escape of one, \ud800 to \udfff (the line is UTF-8).
    # `92 in line` (a backslash) first: the usual line has none, and it costs a tenth of a search.
    if 92 in line and _SURROGATE_ESCAPE.search(line) is not None:
        where = lone_surrogate(message)
        if where is not None:
            raise Invalid(f"{where} holds a lone surrogate, which is not Unicode text", text, message)
    return message


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def lone_surrogate(message: dict[str, Any]) -> str | None:
    """Where in a parsed message a lone surrogate is ("field 'debug'", "a field name"), or
    None if every string in it, keys too, is Unicode text. (json pairs a high and a low
    surrogate escape into one character: what is left is alone.)"""
    stack: list[tuple[Any, str]] = [(message, "")]
    while stack:  # not recursive: a message may be nested as deeply as the parser allows
        value, field = stack.pop()
        if type(value) is dict:
            for key, item in value.items():
                if not key.isascii() and _SURROGATE.search(key):
                    return f"a field name in field {shown(field)}" if field else "a field name"
                stack.append((item, field or key))
        elif type(value) is list:
            stack.extend((item, field) for item in value)
        elif type(value) is str and not value.isascii() and _SURROGATE.search(value):
            return f"field {shown(field)}"
    return None


#: the categories of characters that are no printable text in a name: controls (an escape
#: sequence, a newline), format characters (a bidi override), surrogates, line and paragraph
#: separators. Spaces of every kind, private-use and not yet assigned characters stay.
_UNPRINTABLE = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def printable(text: str) -> tuple[str, list[str]]:
    """`text` with every character that is no printable text (`_UNPRINTABLE`) replaced by
    U+FFFD, and those characters' code points ("U+D800"), in order."""
    if text.isprintable():  # the usual name: one call in C (it also refuses spaces but " ")
        return text, []
    out, bad = [], []
    for ch in text:
        if unicodedata.category(ch) in _UNPRINTABLE:
            bad.append(f"U+{ord(ch):04X}")
            ch = "\ufffd"
        out.append(ch)
    return "".join(out), bad


def shown(value: Any, cap: int = 60) -> str:
    """A value from a bot quoted in a fault's detail: its repr, cut to `cap` characters (the
    offending line itself is kept, capped, as the fault's raw text)."""
    text = repr(value)
    return text if len(text) <= cap else text[: cap - 3] + "..."


def raw_text(data: bytes | bytearray, cap: int = RAW_CAP) -> str:
    """At most `cap` characters of raw bytes, decoded leniently, for fault records."""
    return bytes(data[: cap * 4]).decode("utf-8", "replace")[:cap]
