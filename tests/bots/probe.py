#!/usr/bin/env python3
"""Plays first-legal after writing its own resource limits and environment facts to stderr."""

import os
import resource
import sys

from _botlib import answer, messages, ready

for name in ("CPU", "AS", "FSIZE", "NOFILE", "CORE"):
    soft, hard = resource.getrlimit(getattr(resource, "RLIMIT_" + name))
    sys.stderr.write(f"limit {name} {soft} {hard}\n")
sys.stderr.write(f"env HOME={os.environ.get('HOME')} TMPDIR={os.environ.get('TMPDIR')} "
                 f"PROBE_SECRET={os.environ.get('PROBE_SECRET')}\n")
sys.stderr.write(f"pid {os.getpid()}\n")
sys.stderr.flush()
for message in messages():
    if message["type"] == "hello":
        ready("probe")
    elif message["type"] == "act":
        answer(message)
    elif message["type"] == "end":
        break
