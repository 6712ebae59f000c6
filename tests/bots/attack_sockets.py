"""Attack: reach a Unix socket of the host (an accomplice, docker.sock, ssh-agent, the
multiprocessing forkserver of a tournament) from the seat.

Lists its inherited descriptors; connects to every socket file under /tmp, /run, /var/run and /dev/shm, and to every socket named
in /proc/net/unix (abstract ones included); `attack_sockets.py PATH...` adds paths to try.
"""

import os
import socket
import stat
import sys

from _attack import play, report


def sockets():
    paths = set(sys.argv[1:])
    for root in ("/tmp", "/run", "/var/run", "/dev/shm"):
        for dirpath, _, files in os.walk(root):
            for name in files:
                path = os.path.join(dirpath, name)
                try:
                    if stat.S_ISSOCK(os.lstat(path).st_mode):
                        paths.add(path)
                except OSError:
                    pass
    try:
        with open("/proc/net/unix") as f:
            for line in f.read().splitlines()[1:]:
                parts = line.split()
                if len(parts) >= 8:
                    paths.add(parts[7])
    except OSError:
        pass
    return sorted(paths)


def inherited():
    """Descriptors beyond stdin, stdout and stderr: a way back to the referee (a pipe, a socket)."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the listing's own descriptor, closed by now
        if int(fd) > 2 and not target.startswith("/proc/"):
            out.append(f"fd {fd} -> {target}")
    return out


def on_hello(msg):
    fds = inherited()
    report("fds", bool(fds), ", ".join(fds) or "only stdin, stdout and stderr")
    reached = []
    for path in sockets():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(0.5)
        try:
            s.connect("\0" + path[1:] if path.startswith("@") else path)
            reached.append(path)
        except OSError:
            pass
        finally:
            s.close()
    report("sockets", bool(reached), ", ".join(reached) or "no socket reachable")


play(on_hello=on_hello)
