#!/usr/bin/env python3
"""Plays first-legal while a thread floods stderr without pause, for as long as it lives."""

import os
import threading

from _botlib import answer, messages, ready


def flood():
    line = b"flood " * 1000 + b"\n"
    while True:
        os.write(2, line)


# Over the log's 1 MB cap before the match starts, however short the match turns out to be
# (a quick match could end before the thread alone got there: a flaky flood).
chunk = b"flood " * 1000 + b"\n"
for _ in range(2_000_000 // len(chunk) + 1):
    os.write(2, chunk)
threading.Thread(target=flood, daemon=True).start()
for message in messages():
    if message["type"] == "hello":
        ready("stderrflood")
    elif message["type"] == "act":
        answer(message)
    elif message["type"] == "end":
        break
