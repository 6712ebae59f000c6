#!/usr/bin/env python3
"""Plays first-legal while a chain of processes grows behind it: each link starts a new session,
forks the next link after a few milliseconds and sleeps (up to 300 links)."""

import os
import time

from _botlib import answer, messages, ready


def link(depth):
    while True:
        os.setsid()
        time.sleep(0.005)
        if depth >= 300 or os.fork() != 0:
            while True:
                time.sleep(60)
        depth += 1


if os.fork() == 0:
    link(1)
for message in messages():
    if message["type"] == "hello":
        ready("breeder")
    elif message["type"] == "act":
        answer(message)
    elif message["type"] == "end":
        break
