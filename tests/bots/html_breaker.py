#!/usr/bin/env python3
"""Plays legally (index 0), but its texts are made to break an HTML page that embeds them in a
script element (issue 15 #8): its ready name, and one reply (to its second act) whose type does
the same, its one fault, whose detail and raw text hold "</script>" and "<!--"."""

import json

from _botlib import answer, messages, ready, write_line

BREAKER = "</script><!--<script>"
acts = 0
for message in messages():
    if message["type"] == "hello":
        ready(BREAKER)
    elif message["type"] == "act":
        acts += 1
        if acts == 2:
            write_line(json.dumps({"type": BREAKER, "id": message["id"]}, separators=(",", ":")))
        else:
            answer(message)
    elif message["type"] == "end":
        break
