#!/usr/bin/env python3
"""Answers ready, then at its first act writes a file that grows without end (in $TMPDIR)."""

import os
import tempfile

from _botlib import messages, ready

for message in messages():
    if message["type"] == "hello":
        ready("bigfile")
    elif message["type"] == "act":
        with open(os.path.join(tempfile.gettempdir(), f"bigfile-{os.getpid()}.bin"), "wb") as f:
            chunk = b"\0" * (1 << 20)
            while True:
                f.write(chunk)
                f.flush()
