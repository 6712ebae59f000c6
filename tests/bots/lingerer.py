#!/usr/bin/env python3
"""Plays first-legal, but ignores end, EOF and SIGTERM, and stays (only SIGKILL ends it)."""

import signal
import time

from _botlib import answer, messages, ready

signal.signal(signal.SIGTERM, signal.SIG_IGN)
for message in messages():
    if message["type"] == "hello":
        ready("lingerer")
    elif message["type"] == "act":
        answer(message)
time.sleep(60)
