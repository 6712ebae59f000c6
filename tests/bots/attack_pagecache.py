"""Attack: pass a message to another seat through the page cache of a file both can only read.

    attack_pagecache.py write FILE    (at hello: a 16-bit message, one bit per page of FILE)
    attack_pagecache.py read FILE     (at its first act: reads it back, reports)

The writer evicts every page (posix_fadvise DONTNEED, madvise MADV_PAGEOUT on a mapping), then
reads the pages of the 1 bits; the reader tells which pages are cached, three ways: cachestat(2),
mincore(2) on a mapping, and preadv2 with RWF_NOWAIT (last: its miss starts a read). The message
is a fixed byte (0xA5) and a byte of what the writer knows: all pages cached, or none, never
decodes.
The bits outlive both processes and their sandboxes (a duplicate set's next seating could read
them). Pages lie 16 apart, and the file is read with POSIX_FADV_RANDOM: no readahead.
"""

import ctypes
import hashlib
import mmap
import os
import sys

from _attack import play, report

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p)

MAGIC = 0xA5
BITS = 16
STRIDE = 16  # pages between two bits
PAGE = mmap.PAGESIZE
NR_CACHESTAT = 451  # x86-64 and every ABI of the generic table
MADV_PAGEOUT = 21

role, path = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
span = BITS * STRIDE * PAGE


def offset(bit):
    return bit * STRIDE * PAGE


def mapping():
    addr = libc.mmap(None, span, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    return addr


def write(message):
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    try:
        libc.madvise(mapping(), span, MADV_PAGEOUT)  # the other way to evict
    except OSError:
        pass
    for bit in range(BITS):
        if message >> (BITS - 1 - bit) & 1:
            os.pread(fd, 1, offset(bit))


def by_cachestat(bit):
    class Range(ctypes.Structure):
        _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]

    stat = (ctypes.c_uint64 * 5)()
    if libc.syscall(NR_CACHESTAT, fd, ctypes.byref(Range(offset(bit), PAGE)), stat, 0) != 0:
        raise OSError(ctypes.get_errno(), "cachestat: " + os.strerror(ctypes.get_errno()))
    return stat[0] > 0


_vec = {}


def by_mincore(bit):
    if "addr" not in _vec:
        _vec["addr"] = mapping()
    vec = ctypes.create_string_buffer(BITS * STRIDE)
    if libc.mincore(_vec["addr"], span, vec) != 0:
        raise OSError(ctypes.get_errno(), "mincore: " + os.strerror(ctypes.get_errno()))
    return vec.raw[bit * STRIDE] & 1 == 1


def by_nowait(bit):
    try:
        os.preadv(fd, [bytearray(1)], offset(bit), os.RWF_NOWAIT)
        return True
    except BlockingIOError:
        return False


def read(name, probe):
    try:
        bits = [probe(bit) for bit in range(BITS)]
    except OSError as exc:
        report(name, False, f"{type(exc).__name__}: {exc}")
        return
    message = sum(int(b) << (BITS - 1 - k) for k, b in enumerate(bits))
    if message >> 8 == MAGIC:
        report(name, True, f"read the other seat's byte {message & 0xFF:#04x} from the page cache of {path}")
    else:
        report(name, False, f"read {message:#06x}, no message")


def on_hello(msg):
    if role == "write":
        hand = repr(msg).encode()  # what it knows; the hand comes with the first act
        write(MAGIC << 8 | hashlib.sha256(hand).digest()[0])
        sys.stderr.write("wrote the message\n")


def on_act(msg, acted):
    if role == "read" and acted == 0:
        for name, probe in (("cachestat", by_cachestat), ("mincore", by_mincore), ("nowait", by_nowait)):
            read(name, probe)


play(on_hello, on_act)
