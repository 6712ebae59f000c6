#!/usr/bin/env python3
"""Answers acts with a valid reply padded far beyond the line cap (200,000 bytes)."""

import json

from _botlib import messages, ready, write_line

for message in messages():
    if message["type"] == "hello":
        ready("longline")
    elif message["type"] == "act":
        write_line(json.dumps({"type": "action", "id": message["id"], "index": 0, "pad": "x" * 200_000}))
    elif message["type"] == "end":
        break
