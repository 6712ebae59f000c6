#!/usr/bin/env python3
"""At its first act writes one 100 MB line (a reply padded with "x"), then plays first-legal."""

import sys

from _botlib import answer, messages, ready

SIZE = 100 * 1024 * 1024
first = True
for message in messages():
    if message["type"] == "hello":
        ready("bigline")
    elif message["type"] == "act":
        if first:
            first = False
            head = '{"type":"action","id":%d,"index":0,"pad":"' % message["id"]
            out = sys.stdout.buffer
            chunk = b"x" * (1 << 20)
            out.write(head.encode())
            for _ in range(SIZE >> 20):
                out.write(chunk)
            out.write(b'"}\n')
            out.flush()
        else:
            answer(message)
    elif message["type"] == "end":
        break
