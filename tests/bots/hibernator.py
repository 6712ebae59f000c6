#!/usr/bin/env python3
"""Answers ready, then sleeps forever at its first act, deaf to SIGTERM, SIGINT and SIGHUP."""

import signal

from _botlib import messages, ready

for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)
for message in messages():
    if message["type"] == "hello":
        ready("hibernator")
    elif message["type"] == "act":
        while True:
            signal.pause()
