#!/usr/bin/env python3
"""Plays first-legal, but first leaves processes meant to outlive it (their pids on stderr):
a child in a new session (setsid), and a grandchild in yet another session whose parent
exits at once (double fork: it is no longer the bot's descendant). Both ignore SIGTERM."""

import os
import subprocess
import sys
import time

from _botlib import answer, messages, ready

SLEEP = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"

child = subprocess.Popen([sys.executable, "-c", SLEEP], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
sys.stderr.write(f"setsid-child {child.pid}\n")
sys.stderr.flush()

read, write = os.pipe()
if os.fork() == 0:  # the middle process: a new session, one more fork, then gone
    os.setsid()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.close(write)
        os.execv(sys.executable, [sys.executable, "-c", SLEEP])
    os.write(write, str(pid).encode())
    os._exit(0)
os.close(write)
grandchild = int(os.read(read, 64))
sys.stderr.write(f"orphan {grandchild}\n")
sys.stderr.flush()
time.sleep(0.05)

for message in messages():
    if message["type"] == "hello":
        ready("escaper")
    elif message["type"] == "act":
        answer(message)
    elif message["type"] == "end":
        break
