"""Shared plumbing of the attack bots: play random legal moves, report each attempt on stderr.

Every attempt is reported as one stderr line, `ATTACK <name> WON <detail>` when the bot got what
its seat may not have, `ATTACK <name> HELD <detail>` when the referee stopped it; the tests read
the seat's log. A bot that won also answers its next act with a `{"type":"cheated",...}` line, a
protocol fault, so that a win shows where no log is kept (validate, a tournament's journal). It
plays legal moves otherwise, so the match ends normally.
"""

import json
import random
import sys


won = []


def report(name, success, detail=""):
    sys.stderr.write(f"ATTACK {name} {'WON' if success else 'HELD'} {detail}\n")
    sys.stderr.flush()
    if success:
        won.append(f"{name}: {detail}")


def play(on_hello=None, on_act=None):
    """Answer hello and every act (a random legal index); call the hooks first."""
    rng = random.Random()
    acted = 0
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("type") == "hello":
            if on_hello is not None:
                on_hello(msg)
            _send({"type": "ready", "name": "attacker"})
        elif msg.get("type") == "act":
            if on_act is not None:
                on_act(msg, acted)
            acted += 1
            if won:
                _send({"type": "cheated", "id": msg["id"], "won": won.pop()})
            else:
                _send({"type": "action", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))})


def _send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
