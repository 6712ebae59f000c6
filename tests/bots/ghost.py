#!/usr/bin/env python3
"""Plays first-legal, but first leaves an orphan in its own session with an EMPTY environment
(no REFEREE_BOT_ID to be found by). Only the sandbox's PID namespace catches it. The orphan's
command line carries argv[1], so a test can look for it in /proc."""

import os
import sys

from _botlib import answer, messages, ready

TAG = sys.argv[1] if len(sys.argv) > 1 else "ghost"
CODE = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execve(sys.executable, [sys.executable, "-c", CODE, TAG], {})
    os._exit(0)
os.wait()

for message in messages():
    if message["type"] == "hello":
        ready("ghost")
    elif message["type"] == "act":
        answer(message)
    elif message["type"] == "end":
        break
