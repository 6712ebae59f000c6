"""Attack: two seats of one author pass each other a message through files both can only read.

    attack_notify.py send DIR/0       (at its first act: opens DIR/k for each 1 bit k)
    attack_notify.py receive DIR/0    (watches DIR from hello; decodes at each act, reports once)

The receiver watches DIR with inotify (IN_OPEN); the sender opens DIR/k (of DIR/0 ... DIR/15),
read-only, for each 1 bit k of its message: a fixed byte (0xA5) and a byte of its hand.
Then tries dnotify (fcntl F_NOTIFY) on DIR, the older way to be told of the same.
"""

import ctypes
import fcntl
import hashlib
import os
import struct
import sys

from _attack import play, report

libc = ctypes.CDLL(None, use_errno=True)
IN_OPEN = 0x20
IN_NONBLOCK = os.O_NONBLOCK
MAGIC = 0xA5

role, directory = sys.argv[1], os.path.dirname(sys.argv[2])  # FILE: DIR/0 (the bot sees its directory)
state = {"fd": None, "names": set(), "done": False}


def watch():
    fd = libc.inotify_init1(IN_NONBLOCK)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1: " + os.strerror(ctypes.get_errno()))
    if libc.inotify_add_watch(fd, directory.encode(), IN_OPEN) < 0:
        raise OSError(ctypes.get_errno(), "inotify_add_watch: " + os.strerror(ctypes.get_errno()))
    return fd


def events(fd):
    try:
        data = os.read(fd, 65536)
    except BlockingIOError:
        return []
    names, at = [], 0
    while at < len(data):
        _, _, _, size = struct.unpack_from("iIII", data, at)
        names.append(data[at + 16: at + 16 + size].rstrip(b"\0").decode())
        at += 16 + size
    return names


def dnotify():
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.fcntl(fd, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
    except OSError as exc:
        report("dnotify", False, f"{type(exc).__name__}: {exc}")
    else:
        report("dnotify", True, f"F_NOTIFY set on {directory}")
    finally:
        os.close(fd)


def on_hello(msg):
    if role == "receive":
        try:
            state["fd"] = watch()
        except OSError as exc:
            report("inotify", False, f"{type(exc).__name__}: {exc}")
            state["done"] = True
            dnotify()


def send(msg):
    byte = hashlib.sha256(repr(msg.get("observation", msg)).encode()).digest()[0]  # of its hand
    message = MAGIC << 8 | byte
    for k in range(16):
        if message >> (15 - k) & 1:
            os.close(os.open(os.path.join(directory, str(k)), os.O_RDONLY))


def on_act(msg, acted):
    if role == "send":
        if acted == 0:
            send(msg)
        return
    if state["done"]:
        return
    state["names"] |= set(events(state["fd"]))
    message = sum(1 << (15 - k) for k in range(16) if str(k) in state["names"])
    if message >> 8 == MAGIC or acted >= 3:
        state["done"] = True
        if message >> 8 == MAGIC:
            report("inotify", True, f"the other seat's byte {message & 0xFF:#04x}, through opens of {directory}")
        else:
            report("inotify", False, f"read {message:#06x}, no message")
        dnotify()  # once the message is in: a win ends the seat


play(on_hello, on_act)
