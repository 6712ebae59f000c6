"""The wire format of protocol v1 (docs/protocol.md) as the referee writes and reads it.

What the referee sends is encoded here (`encode`, `event_line`): one compact JSON object per
line, UTF-8, newline included. What a bot sends is parsed here (`parse`): a line is a JSON
object or an `Invalid` line, with its reason (a fault's detail) and the text to quote. A line
longer than the channel's cap never reaches `parse`: the channel hands on an `Overlong` instead,
its head kept for the fault. Also here: the caps on what a bot may make the referee keep (names,
quoted text, debug text). No state, no I/O.

Settled here (the protocol leaves it open):
- A blank line from a bot (a stray `print()`) is skipped, not a fault: `parse` returns None.
- NaN and Infinity are Python's extensions, not JSON: a bot sending them sends invalid JSON.
- A line nested deeper than the parser's recursion limit ("[[[[...") is invalid JSON too.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from referee.players import RAW_CAP
from referee.replay.records import dumps_line

NAME_CAP = 100  # characters kept of the name, version and author a bot announces
DEBUG_CAP = 1000  # characters kept of an action's `debug` text (the rest is cut)
DEBUG_MATCH_CAP = 65536  # characters of `debug` text kept per seat and match (the rest is dropped)
#: the `debug` text that stands, once, for a seat's debug texts past DEBUG_MATCH_CAP
DEBUG_DROPPED = f"[referee] over {DEBUG_MATCH_CAP} characters of debug text in this match: the rest is dropped"

#: A message as one JSON line, newline included: orjson if installed (the stdlib's very bytes,
#: about 10x faster), NaN written as null. A partial: no Python frame of its own on the hot path.
encode = functools.partial(dumps_line, strict=False)


def event_line(event: dict[str, Any]) -> bytes:
    """The `event` message carrying `event`, as one line."""
    return b'{"type":"event","event":' + dumps_line(event, strict=False)[:-1] + b"}\n"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_loads = json.JSONDecoder(parse_constant=_reject_constant).decode


class Invalid(Exception):
    """A line from a bot that is no protocol message: `detail` says why, `raw` is what to quote
    (bytes or text, capped by whoever quotes it)."""

    def __init__(self, detail: str, raw: bytes | str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.raw = raw


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
    return message


def shown(value: Any, cap: int = 60) -> str:
    """A value from a bot quoted in a fault's detail: its repr, cut to `cap` characters (the
    offending line itself is kept, capped, as the fault's raw text)."""
    text = repr(value)
    return text if len(text) <= cap else text[: cap - 3] + "..."


def raw_text(data: bytes | bytearray, cap: int = RAW_CAP) -> str:
    """At most `cap` characters of raw bytes, decoded leniently, for fault records."""
    return bytes(data[: cap * 4]).decode("utf-8", "replace")[:cap]
