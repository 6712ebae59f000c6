#!/usr/bin/env python3
"""Copies every line it receives to stderr (its log), answering ready and acts with index 0."""

import json
import sys

from _botlib import answer, messages, ready

for message in messages():
    sys.stderr.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stderr.flush()
    if message["type"] == "hello":
        ready("echo")
    elif message["type"] == "act":
        answer(message)
