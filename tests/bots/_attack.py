"""Shared plumbing of the attack bots: play random legal moves, report each attempt on stderr.

Every attempt is reported as one stderr line, `ATTACK <name> WON <detail>` when the bot got what
its seat may not have, `ATTACK <name> HELD <detail>` when the referee stopped it; the tests read
the seat's log. The bot plays legal moves either way, so the match ends normally.
"""

import json
import random
import sys


def report(name, won, detail=""):
    sys.stderr.write(f"ATTACK {name} {'WON' if won else 'HELD'} {detail}\n")
    sys.stderr.flush()


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
            _send({"type": "action", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))})


def _send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
