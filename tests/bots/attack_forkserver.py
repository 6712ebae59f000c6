"""Attack: reach a Unix socket of the referee's in its own view (issue 25, finding 8): the
multiprocessing forkserver's, when the referee's TMPDIR lies in a folder the bot sees, runs any
code outside the sandbox.

Walks every directory it can see (but the kernel's /proc, /sys and /dev, and /usr) for socket
files and connects to each.
"""

import os
import socket
import stat

from _attack import play, report

SKIP = {"/proc", "/sys", "/dev", "/usr"}


def sockets():
    found = []
    for dirpath, dirnames, files in os.walk("/"):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in SKIP]
        for name in files:
            path = os.path.join(dirpath, name)
            try:
                if stat.S_ISSOCK(os.lstat(path).st_mode):
                    found.append(path)
            except OSError:
                pass
    return found


def on_hello(msg):
    reached = []
    found = sockets()
    for path in found:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(0.5)
        try:
            s.connect(path)
            reached.append(path)
        except OSError:
            pass
        finally:
            s.close()
    report("forkserver", bool(reached), ", ".join(reached) or f"no socket reachable ({len(found)} seen)")


play(on_hello=on_hello)
