#!/usr/bin/env python3
"""Answers ready, then spins the CPU in an endless loop at its first act (and ignores SIGTERM)."""

import signal

from _botlib import messages, ready

signal.signal(signal.SIGTERM, signal.SIG_IGN)
for message in messages():
    if message["type"] == "hello":
        ready("spinner")
    elif message["type"] == "act":
        while True:
            pass
