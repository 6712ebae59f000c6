#!/usr/bin/env python3
"""Answers ready, then at its first act allocates memory (touching every page) until stopped."""

from _botlib import messages, ready

hoard = []
for message in messages():
    if message["type"] == "hello":
        ready("hog")
    elif message["type"] == "act":
        while True:
            hoard.append(bytearray(16 << 20))  # zero-filled: every page is really used
