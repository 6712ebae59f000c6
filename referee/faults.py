"""What a bot's fault means for its author: a hint at the usual cause, and the decision it hit.

A fault record says what happened (`timeout: no reply within 1000 ms`); the author needs what
to fix. `hint` reads the fault's kind, detail and raw text for the usual causes (stdout not
flushed, a missing newline, debug text printed to stdout, a wrong id, an index counted from 1,
an action not copied from `legal`), and `legal_summary` shows the decision in a few words.
Every output that shows a fault uses them: play's result, validate's report, a tournament's
fault table, the replay's `fault_log`. `fault_log_for` is that log as one seat may see it (its
`end` message, a seat's view of a replay).
"""

from __future__ import annotations

import json
import re
from typing import Any

#: how many legal actions a summary shows before "... (N in all)"
SHOWN = 4
#: a timeout's detail when the reply came after the limit, within the window the referee waits
_LATE = re.compile(r"answered (\d+) ms late \(limit \d+ ms\)")


def late_detail(late_ms: float, limit_ms: int) -> str:
    """A timeout's detail when the bot's reply came `late_ms` after its `limit_ms`."""
    return f"answered {late_ms:.0f} ms late (limit {limit_ms} ms)"


def late_by(detail: str) -> int | None:
    """How many ms late a timeout's reply came, if its `detail` is a `late_detail` (else None)."""
    found = _LATE.match(detail)
    return None if found is None else int(found.group(1))


def hint(kind: str, detail: str, raw: str = "", stale: int = 0) -> str:
    """One sentence on the usual cause of a fault and how to fix it ("" when none fits)."""
    if kind == "timeout":
        if "total time budget" in detail:
            return "the seat used up its thinking time for the whole match (total_ms): answer faster"
        if late_by(detail) is not None:
            return ("the reply came after the limit: answer within time_ms (plus bank_ms with a time bank: "
                    "each act tells them), keeping a margin for start-up and transport")
        if "stopped reading" in detail:
            return "the bot stopped reading its stdin: read every line the referee sends, events included"
        if raw:
            return ("the bot's last output has no newline: end every message with \\n and flush stdout "
                    "(the partial line is the raw text)")
        if stale:
            return f"the bot answered only earlier acts ({stale} stale replies): echo the id of the act you answer"
        return ("nothing came back in time: flush stdout after each line (Python: print(..., flush=True); "
                "C: fflush(stdout)), read stdin line by line, and answer within time_ms")
    if kind == "invalid":
        text = raw.strip()
        if "not JSON" in detail and text and text[0] not in "{[":
            return "a stdout line that is no JSON message: print debug output to stderr, never to stdout"
        if "not asked yet" in detail:
            return "echo the id of the act you answer (the act's own id, not a counter of yours)"
        if "too long" in detail:
            return "a line over max_line_bytes (told in hello): send one short JSON object per line"
        if "expected an action reply" in detail or "exactly one of action and index" in detail:
            return 'answer an act with {"type":"action","id":<its id>,"index":<k>} (or "action": one of legal)'
        if "ready" in detail:
            return 'answer hello with {"type":"ready","name":"<your bot>"}'
        return ""
    if kind == "illegal":
        if detail.startswith("index"):
            return "an index counts from 0 to len(legal)-1 of this act's legal list"
        return "send one of this act's legal actions exactly as listed (copy it from legal), or its index"
    if kind == "crash":
        if "cannot start" in detail:
            return "the command could not be started: check the program and its path"
        return "the bot exited or closed its stdout: its stderr (the seat's log) says why"
    return ""


def legal_summary(legal: list[Any]) -> str:
    """The decision in a few words: the first legal actions as compact JSON, and how many."""
    shown = ", ".join(json.dumps(a, separators=(",", ":")) for a in legal[:SHOWN])
    more = f", ... ({len(legal)} in all)" if len(legal) > SHOWN else ""
    return f"[{shown}{more}]"


def fault_log_for(seat: int, log: list[Any]) -> list[Any]:
    """A result's fault log as `seat` may see it: its own entries whole, another seat's only its
    seat, deal and kind (its legal actions, raw text and log show that seat's hand and code)."""
    return [f if not isinstance(f, dict) or f.get("seat") == seat else
            {"seat": f.get("seat"), "deal": f.get("deal"), "kind": f.get("kind")} for f in log]
