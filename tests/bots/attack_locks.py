"""Attack: two seats of one author pass each other a message through locks on files both can only read.

    attack_locks.py send DIR/0       (from hello: holds the locks of its message's 1 bits)
    attack_locks.py receive DIR/0    (at its first act: tests each lock without taking it, reports)

Three ways, one 16-bit message each (a fixed byte, 0xA5, and a byte of what the sender knows):
flock(2) on DIR/0 ... DIR/15, POSIX record locks (F_SETLK) on bytes 0-15 of DIR/range and open
file description locks (F_OFD_SETLK) on its bytes 100-115. Read locks on read-only descriptors;
the receiver asks F_GETLK / F_OFD_GETLK whether a write lock would conflict.
"""

import fcntl
import hashlib
import os
import struct
import sys

from _attack import play, report

MAGIC = 0xA5
F_OFD_GETLK, F_OFD_SETLK = 36, 37
role, directory = sys.argv[1], os.path.dirname(sys.argv[2])  # FILE: DIR/0 (the bot sees its directory)
held = []  # the sender's descriptors, open (and locked) while it lives
OFD_BASE = 100


def flock_struct(kind, start):
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, start, 1, 0)


def send(message):
    bits = [k for k in range(16) if message >> (15 - k) & 1]
    try:
        for k in bits:
            held.append(os.open(os.path.join(directory, str(k)), os.O_RDONLY))
            fcntl.flock(held[-1], fcntl.LOCK_SH)
        # (a process's POSIX locks on a file go with any of its descriptors of it: none is closed)
        posix, ofd = (os.open(os.path.join(directory, "range"), os.O_RDONLY) for _ in range(2))
        held.extend([posix, ofd])
        for k in bits:
            fcntl.fcntl(posix, fcntl.F_SETLK, flock_struct(fcntl.F_RDLCK, k))
            fcntl.fcntl(ofd, F_OFD_SETLK, flock_struct(fcntl.F_RDLCK, OFD_BASE + k))
    except OSError as exc:
        sys.stderr.write(f"cannot lock: {exc}\n")


def conflicts(kind, k):
    if kind == "flock":
        fd = os.open(os.path.join(directory, str(k)), os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # and its lock, if it took it
        return False
    fd = os.open(os.path.join(directory, "range"), os.O_RDONLY)
    try:
        cmd, start = (fcntl.F_GETLK, k) if kind == "posix" else (F_OFD_GETLK, OFD_BASE + k)
        answer = fcntl.fcntl(fd, cmd, flock_struct(fcntl.F_WRLCK, start))
        return struct.unpack("hhqqi4x", answer)[0] != fcntl.F_UNLCK
    finally:
        os.close(fd)


def receive():
    for kind in ("flock", "posix", "ofd"):
        try:
            message = sum(int(conflicts(kind, k)) << (15 - k) for k in range(16))
        except OSError as exc:
            report(kind, False, f"{type(exc).__name__}: {exc}")
            continue
        if message >> 8 == MAGIC:
            report(kind, True, f"the other seat's byte {message & 0xFF:#04x}, through {kind} locks in {directory}")
        else:
            report(kind, False, f"read {message:#06x}, no message")


def on_hello(msg):
    if role == "send":
        send(MAGIC << 8 | hashlib.sha256(repr(msg).encode()).digest()[0])


def on_act(msg, acted):
    if role == "receive" and acted == 0:
        receive()


play(on_hello, on_act)
