#!/usr/bin/env python3
"""Plays first-legal, writing 3 MB to stderr first (past any sane log cap)."""

import sys

from _botlib import answer, messages, ready

for _ in range(3000):
    sys.stderr.write("chatter " * 125 + "\n")  # 1,001 bytes a line
sys.stderr.flush()
for message in messages():
    if message["type"] == "hello":
        ready("chatty")
    elif message["type"] == "act":
        answer(message)
    elif message["type"] == "end":
        break
