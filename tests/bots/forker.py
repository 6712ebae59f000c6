#!/usr/bin/env python3
"""Plays first-legal, but leaves a child process running (its pid on stderr) when it exits.

The child inherits the bot's stdin, stdout and stderr, so the pipes stay open after the bot exits.
"""

import subprocess
import sys

from _botlib import answer, messages, ready

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
sys.stderr.write(f"child {child.pid}\n")
sys.stderr.flush()
for message in messages():
    if message["type"] == "hello":
        ready("forker")
    elif message["type"] == "act":
        answer(message)
    elif message["type"] == "end":
        break
