#!/usr/bin/env python3
"""Plays index 0; at its first act it burns CPU (`burn`: about 0.3 s of busy loop) or takes
memory (`hog`: about 100 MB, touched and held), or neither (no argument: an idle bot). With
`reuse` as a second argument it declares reuse and does so in its process's first match only;
with `crash`, it exits at its second act (a crash: disqualified, its process reaped at once)."""

import sys
import time

from _botlib import answer, messages, send

mode = sys.argv[1] if len(sys.argv) > 1 else "idle"
reuse = sys.argv[2:] == ["reuse"]
crash = sys.argv[2:] == ["crash"]
held = None
matches = 0
for message in messages():
    if message["type"] == "hello":
        matches += 1
        send({"type": "ready", "name": mode, **({"reuse": True} if reuse else {})})
    elif message["type"] == "act":
        if message["id"] == 2 and crash:
            sys.exit(3)
        if message["id"] == 1 and matches == 1 and mode == "burn":
            started = time.process_time()
            while time.process_time() - started < 0.3:
                pass
        elif message["id"] == 1 and matches == 1 and mode == "hog":
            held = bytearray(100 * 1024 * 1024)
            for i in range(0, len(held), 4096):
                held[i] = 1
        answer(message)
    elif message["type"] == "end" and not reuse:
        break
