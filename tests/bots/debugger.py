#!/usr/bin/env python3
"""Plays first-legal with a `debug` text beside each action: its first over the 1,000-character
cap, its second a `debug` that is no string (an object), every later one "reason <act id>"."""

from _botlib import messages, ready, send

acts = 0
for message in messages():
    if message["type"] == "hello":
        ready("debugger")
    elif message["type"] == "act":
        acts += 1
        debug = "x" * 1500 if acts == 1 else {"not": "text"} if acts == 2 else f"reason {message['id']}"
        send({"type": "action", "id": message["id"], "index": 0, "debug": debug})
    elif message["type"] == "end":
        break
