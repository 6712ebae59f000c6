"""Attack: see more than its own files (issue 25, finding 4), and the sandbox's set-up.

Tries to read each path listed in `targets.txt` beside it (not on its command line, which gives
the bot what it names): the tournament file and its entrants' tokens, another entrant's code, a
file in the caller's working directory, a root-only 0600 key lying beside its own code. Reads
pid 1's command line, where bwrap's arguments showed every host path of the set-up.
"""

import os

from _attack import play, report

SETUP = ("--bind", "--ro-bind", "--tmpfs", "--chdir", "--symlink")  # bwrap's options: the set-up shows


def targets():
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.txt")) as f:
            return f.read().split()
    except OSError:
        return []


def on_hello(msg):
    for path in targets():
        try:
            with open(path, "rb") as f:
                data = f.read(4096)
            report("view", True, f"{path} ({len(data)} bytes)")
        except OSError as exc:
            report("view", False, f"{path}: {exc.strerror}")
    try:
        with open("/proc/1/cmdline", "rb") as f:
            args = f.read().decode("utf-8", "replace").split("\0")
    except OSError as exc:
        report("cmdline", False, f"/proc/1/cmdline: {exc.strerror}")
        return
    shown = [a for a in args if a in SETUP]
    report("cmdline", bool(shown), f"pid 1 shows {' '.join(shown[:6])}" if shown else
           f"pid 1 shows no set-up ({len(args)} words)")


play(on_hello=on_hello)
