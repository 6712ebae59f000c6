"""Attack: read the referee's outputs and the other bots' scratch files.

`attack_files.py PATH...`: tries to read each PATH (a replay being written, the protocol log, the
journal, the deal key, another seat's log); writes a marker into its own scratch (TMPDIR) and,
at each act, looks for another bot's marker anywhere under /tmp and the scratch roots.
"""

import glob
import os
import sys
import tempfile

from _attack import play, report

MARK = "attack-files-marker-"
mine = f"{MARK}{os.getpid()}-{os.urandom(4).hex()}"


def on_hello(msg):
    for path in sys.argv[1:]:
        try:
            with open(path, "rb") as f:
                data = f.read(4096)
            report("read", True, f"{path} ({len(data)} bytes)")
        except OSError as exc:
            report("read", False, f"{path}: {exc.strerror}")
    with open(os.path.join(tempfile.gettempdir(), mine), "w") as f:
        f.write("secret")


seen = set()


def on_act(msg, acted):
    roots = {"/tmp", "/var/tmp", "/dev/shm", tempfile.gettempdir()} | set(glob.glob("/tmp/referee-scratch-*"))
    if os.path.dirname(tempfile.gettempdir()) != "/":  # the directory of the scratch directories
        roots.add(os.path.dirname(tempfile.gettempdir()))
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in files:
                if name.startswith(MARK) and name != mine and name not in seen:
                    seen.add(name)
                    report("scratch", True, f"another bot's file {os.path.join(dirpath, name)}")
    if acted == 0 and not seen:
        report("scratch", False, "no other bot's file found")


play(on_hello=on_hello, on_act=on_act)
