"""Attack: use root's powers (or the referee user's) from inside the seat.

Tries to remount / read-write, to write outside its scratch (its working directory, /, /usr, /etc
and every PATH given as argument), to read /etc/shadow, to make an undeletable file (chattr +i)
in its scratch, to signal pid 1 and its parent, and to make a new user namespace.
"""

import ctypes
import fcntl
import os
import struct
import sys
import tempfile

from _attack import play, report

libc = ctypes.CDLL(None, use_errno=True)


def attempt(name, fn):
    try:
        detail = fn()
        report(name, True, detail or "")
    except Exception as exc:
        report(name, False, f"{type(exc).__name__}: {exc}")


def remount():
    if libc.mount(b"none", b"/", None, 32, None) != 0:  # MS_REMOUNT, read-write
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return "remounted /"


def write_in(directory):
    def go():
        path = os.path.join(directory, f"attack-root-{os.getpid()}")
        with open(path, "w") as f:
            f.write("x")
        # A host directory under /tmp that the bot does not see (the sandbox shows it its own
        # files only) is a bare mount point inside its own scratch (its /tmp): writing there
        # reaches nothing of the host's, and is no win.
        scratch = tempfile.gettempdir()
        if scratch != "/" and os.stat(path).st_dev == os.stat(scratch).st_dev and os.path.realpath(path).startswith(
                os.path.realpath(scratch) + os.sep):
            os.unlink(path)
            raise OSError(f"{path} is in its own scratch only")
        return f"wrote {path}"
    return go


def shadow():
    with open("/etc/shadow") as f:
        return f"read {len(f.read())} bytes"


def immutable():
    path = os.path.join(tempfile.gettempdir(), "undeletable")
    with open(path, "w") as f:
        f.write("x")
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, 0x40086602, struct.pack("l", 0x10))  # FS_IOC_SETFLAGS, FS_IMMUTABLE_FL
    finally:
        os.close(fd)
    return "chattr +i in scratch"


def userns():
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return "made a user namespace"


def kill_parent():
    os.kill(os.getppid(), 0)
    if os.getppid() in (0, 1):
        raise OSError("parent is the sandbox's init")
    return f"can signal my parent {os.getppid()}"


def capabilities():
    with open("/proc/self/status") as f:
        effective = f.read().split("CapEff:")[1].split()[0]
    if not effective.strip("0"):
        raise OSError("no capability")
    return f"capabilities {effective}"


def on_hello(msg):
    attempt("remount", remount)
    for d in [os.getcwd(), "/", "/usr", "/etc", *sys.argv[1:]]:
        attempt(f"write:{d}", write_in(d))
    attempt("shadow", shadow)
    attempt("immutable", immutable)
    attempt("userns", userns)
    attempt("signal", kill_parent)
    attempt("caps", capabilities)


play(on_hello=on_hello)
