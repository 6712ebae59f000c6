#!/usr/bin/env python3
"""Sleeps on every act, past move_ms, to spend its time bank (tests/test_bank.py): `banker.py MS`
sleeps MS ms; `banker.py late` sleeps to 150 ms past its deadline (time_ms + bank_ms). Each
action's debug text tells what its act said: "time_ms=T bank_ms=B" (B: - when not sent)."""

import sys
import time

from _botlib import messages, ready, send

plan = sys.argv[1]
for message in messages():
    if message["type"] == "hello":
        ready("banker")
    elif message["type"] == "act":
        time_ms, bank_ms = message["time_ms"], message.get("bank_ms")
        if plan == "late":
            time.sleep((time_ms + (bank_ms or 0) + 150) / 1000)
        else:
            time.sleep(int(plan) / 1000)
        send({"type": "action", "id": message["id"], "index": 0,
              "debug": f"time_ms={time_ms} bank_ms={'-' if bank_ms is None else bank_ms}"})
    elif message["type"] == "end":
        break
