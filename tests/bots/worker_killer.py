#!/usr/bin/env python3
"""Answers ready and its first act, then SIGKILLs its parent (the referee's worker) on its 2nd act.

In plain mode a bot runs as the referee's user and can signal it. With WORKER_KILLER_ONCE=<path>
it does so only once in all: when it can create that file (else it plays on).
"""

import os
import signal

from _botlib import answer, messages, ready

acts = 0
for message in messages():
    if message["type"] == "hello":
        ready("worker_killer")
    elif message["type"] == "act":
        acts += 1
        if acts == 2:
            once = os.environ.get("WORKER_KILLER_ONCE")
            try:
                if once:
                    os.close(os.open(once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                os.kill(os.getppid(), signal.SIGKILL)
            except FileExistsError:
                pass
        answer(message)
    elif message["type"] == "end":
        break
