#!/usr/bin/env python3
"""Answers its first act properly, then prints a line that is not JSON."""

from _botlib import answer, messages, ready, write_line

acts = 0
for message in messages():
    if message["type"] == "hello":
        ready("garbage")
    elif message["type"] == "act":
        acts += 1
        if acts == 2:
            write_line("I think I'll play the seven of hearts")
        else:
            answer(message)
    elif message["type"] == "end":
        break
