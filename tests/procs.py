"""Live processes found through /proc, for the tests that check no bot outlives its match."""

from __future__ import annotations

import os


def running(marker: str) -> dict[int, int]:
    """{pid: parent pid} of live processes whose command line mentions `marker` (zombies excluded)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if marker.encode() in cmdline and fields[0] != "Z":
            found[int(entry)] = int(fields[1])
    return found
