#!/usr/bin/env python3
"""Plays an action that is never legal: {"play": "ZZ"}."""

from _botlib import messages, ready, send

for message in messages():
    if message["type"] == "hello":
        ready("illegal")
    elif message["type"] == "act":
        send({"type": "action", "id": message["id"], "action": {"play": "ZZ"}})
    elif message["type"] == "end":
        break
