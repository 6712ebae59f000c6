#!/usr/bin/env python3
"""Plays first-legal while a thread floods stderr without pause, for as long as it lives."""

import os
import threading

from _botlib import answer, messages, ready


def flood():
    line = b"flood " * 1000 + b"\n"
    while True:
        os.write(2, line)


threading.Thread(target=flood, daemon=True).start()
for message in messages():
    if message["type"] == "hello":
        ready("stderrflood")
    elif message["type"] == "act":
        answer(message)
    elif message["type"] == "end":
        break
