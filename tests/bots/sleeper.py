#!/usr/bin/env python3
"""Answers ready and its first act, then sleeps far past the deadline on its 2nd act."""

import time

from _botlib import answer, messages, ready

acts = 0
for message in messages():
    if message["type"] == "hello":
        ready("sleeper")
    elif message["type"] == "act":
        acts += 1
        if acts == 2:
            time.sleep(60)
        answer(message)
    elif message["type"] == "end":
        break
