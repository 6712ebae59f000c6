#!/usr/bin/env python3
"""Plays one act, then closes its stdout at the second and stays alive (sleeping)."""

import os
import time

from _botlib import answer, messages, ready

acts = 0
for message in messages():
    if message["type"] == "hello":
        ready("closer")
    elif message["type"] == "act":
        acts += 1
        if acts == 2:
            os.close(1)
            time.sleep(120)
        answer(message)
