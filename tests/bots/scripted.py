#!/usr/bin/env python3
"""A bot following a script given as JSON in argv[1], for unit tests of the adapter.

Script: {"ready": LINE or null, "acts": [[STEP, ...], ...]}. The n-th act runs the n-th list of
steps; after the script, acts are answered with index 0. A STEP is a line to write (with "{id}"
and "{old}" replaced by the act's id and id - 1), {"sleep": seconds}, {"raw": text written
as is, no newline}, {"hex": bytes in hex, written as is}, or {"exit": code}. An empty list of
steps answers with index 0. "ready" defaults to a proper ready line; null: none.
"""

import json
import sys
import time

from _botlib import answer, messages, write_line

script = json.loads(sys.argv[1])
ready_line = script.get("ready", '{"type":"ready","name":"scripted"}')
acts = [list(steps) for steps in script.get("acts", [])]

for message in messages():
    if message["type"] == "hello":
        if ready_line is not None:
            write_line(ready_line)
    elif message["type"] == "act":
        steps = acts.pop(0) if acts else []
        if not steps:
            answer(message)
        for step in steps:
            if isinstance(step, str):
                write_line(step.replace("{id}", str(message["id"])).replace("{old}", str(message["id"] - 1)))
            elif "sleep" in step:
                time.sleep(step["sleep"])
            elif "raw" in step:
                sys.stdout.write(step["raw"])
                sys.stdout.flush()
            elif "hex" in step:
                sys.stdout.buffer.write(bytes.fromhex(step["hex"]))
                sys.stdout.flush()
            elif "exit" in step:
                sys.exit(step["exit"])
    elif message["type"] == "end":
        break
