#!/usr/bin/env python3
"""Answers every act with replies to the previous id only (a flood of them), never the one asked."""

from _botlib import messages, ready, write_line

for message in messages():
    if message["type"] == "hello":
        ready("stale")
    elif message["type"] == "act":
        old = message["id"] - 1
        for _ in range(2000):
            write_line('{"type":"action","id":%d,"index":0}' % old)
    elif message["type"] == "end":
        break
