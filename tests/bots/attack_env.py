"""Attack: read the organiser's environment (a token, the deal key) from any process visible.

`attack_env.py NEEDLE...`: looks for each needle in its own environment and in the environment of
every process it can see (/proc/*/environ: bwrap's init is pid 1 in the sandbox, the referee is
its parent outside).
"""

import os
import sys

from _attack import play, report

needles = [n.encode() for n in sys.argv[1:]]


def on_hello(msg):
    found = []
    for pid in ["self"] + [p for p in os.listdir("/proc") if p.isdigit()]:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                data = f.read()
        except OSError:
            continue
        found += [f"{n.decode()} in /proc/{pid}/environ" for n in needles if n in data]
    report("env", bool(found), "; ".join(found) or f"none of {len(needles)} needles visible")


play(on_hello=on_hello)
