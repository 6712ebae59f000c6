#!/usr/bin/env python3
"""Answers hello, then never reads its stdin again (the referee's pipe to it fills up)."""

import json
import sys
import time

json.loads(sys.stdin.readline())
sys.stdout.write('{"type":"ready","name":"deaf"}\n')
sys.stdout.flush()
time.sleep(60)
