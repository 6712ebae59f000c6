#!/usr/bin/env python3
"""Answers its first act with JSON nested 60,000 deep (within the line cap): a parser bomb."""

from _botlib import messages, ready, write_line

for message in messages():
    if message["type"] == "hello":
        ready("deepjson")
    elif message["type"] == "act":
        write_line('{"type":"action","id":%d,"action":%s}' % (message["id"], "[" * 30000 + "]" * 30000))
    elif message["type"] == "end":
        break
