#!/usr/bin/env python3
"""Plays two acts, then leaves mid-match with exit code 3 (and a last word on stderr)."""

import sys

from _botlib import answer, messages, ready

acts = 0
for message in messages():
    if message["type"] == "hello":
        ready("quitter")
    elif message["type"] == "act":
        acts += 1
        if acts == 3:
            sys.stderr.write("quitter: I have had enough\n")
            sys.stderr.flush()
            sys.exit(3)
        answer(message)
