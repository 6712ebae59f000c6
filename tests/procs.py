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


def with_env(variable: str, value: str) -> dict[int, str]:
    """{pid: command line (cut to 200 characters)} of live processes whose environment holds
    variable=value (inherited by everything a test starts; zombies excluded)."""
    marker = f"{variable}={value}".encode()
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if marker in environ and stat[stat.rindex(b")") + 2:].split()[0] not in (b"Z", b"X"):
            found[int(entry)] = cmdline.replace(b"\0", b" ").decode("utf-8", "replace")[:200]
    return found
