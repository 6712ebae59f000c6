"""Attack: stop the contest with text that cannot be written (issue 25 #1).

`attack_unicode.py [WHERE...]` (default: `ready debug`) puts lone surrogates ("\\ud800", valid
JSON, which no UTF-8 file can hold) and terminal control characters where each WHERE says:
- ready: in `ready`'s name, version and author (besides an escape sequence, a bidi override and
  a newline);
- debug, action, unknown, key, type: in its first reply's `debug`, a field of its action object,
  an unknown field, an unknown field's key, its `type`.
It plays random legal moves otherwise. A referee that writes such text raw stops the match (it
cannot write its replay or journal): the attack won, which the referee's exit and outputs show
(the referee kills the bot as it stops). Told `end`, the match went on: it reports that it held.
A bot disqualified for its reply is closed without `end` and reports nothing.
"""

import json
import random
import sys

from _attack import report

SURROGATE = "\ud800"
where = set(sys.argv[1:] or ["ready", "debug"])
rng = random.Random()


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")  # ensure_ascii: the surrogates go as \\u escapes
    sys.stdout.flush()


acted = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        if "ready" in where:
            send({"type": "ready", "name": f"evil{SURROGATE}\x1b[2J\u202e\n", "version": "\udfff1.0",
                  "author": "\udbff" + "x" * 300})
        else:
            send({"type": "ready", "name": "unicode"})
    elif msg.get("type") == "act":
        reply = {"type": "action", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))}
        if acted == 0:
            if "debug" in where:
                reply["debug"] = f"thinking {SURROGATE}"
            if "action" in where:
                del reply["index"]
                reply["action"] = {**msg["legal"][0], "why": SURROGATE}
            if "unknown" in where:
                reply["note"] = ["fine", {"deep": SURROGATE}]
            if "key" in where:
                reply[SURROGATE] = 1
            if "type" in where:
                reply["type"] = SURROGATE
        acted += 1
        send(reply)
    elif msg.get("type") == "end":
        report("unicode", False, f"told end: the match went on (faults {msg['result']['faults']})")
        break
