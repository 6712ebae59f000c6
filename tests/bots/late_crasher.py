#!/usr/bin/env python3
"""Plays random legal actions from a PRNG seeded by everything its hello says (the match id, its
seat, the names, the config), writing a debug line per act to stderr (with markup and a control
character in it); in seat 1 it raises at its 6th act (a traceback on stderr, exit 1). Its moves
repeat only if the match is played again exactly: same deal, same hello."""

import json
import os
import random
import sys

from _botlib import messages, ready, send

rng = random.Random(0)
seat = acts = 0
for message in messages():
    if message["type"] == "hello":
        seat, acts = message["seat"], 0
        rng = random.Random(json.dumps([message["match"], seat, message["players"], message.get("names"),
                                        message.get("config")], sort_keys=True))
        print(f"deal key in my environment: {'yes' if 'REFEREE_DEAL_KEY' in os.environ else 'no'}",
              file=sys.stderr, flush=True)
        ready("late_crasher")
    elif message["type"] == "act":
        acts += 1
        print(f"act {message['id']}: [/]thinking \x1b[31m{len(message['legal'])} options", file=sys.stderr, flush=True)
        if seat == 1 and acts == 6:
            raise RuntimeError("planted bug: seat 1, 6th act")
        send({"type": "action", "id": message["id"], "index": rng.randrange(len(message["legal"]))})
    elif message["type"] == "end":
        break
