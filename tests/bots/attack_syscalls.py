"""Attack: system calls a card bot never needs, each a door into the shared kernel (x86-64).

Each is tried once, at hello, with harmless arguments; WON when the kernel ran it:
io_uring_setup (reads that see the page cache, unfiltered), io_setup (Linux AIO, the same),
perf_event_open (counters), userfaultfd, add_key (a kernel keyring), ptrace (PTRACE_TRACEME in
a child), process_vm_readv (its own memory), modify_ldt, and the i386 ABI (`int 0x80`, around a
filter written for x86-64's calls). Everything it made is closed again.
"""

import ctypes
import mmap
import os
import platform

from _attack import play, report

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {"io_uring_setup": 425, "io_setup": 206, "io_destroy": 207, "perf_event_open": 298, "userfaultfd": 323,
      "add_key": 248, "keyctl": 250, "ptrace": 101, "process_vm_readv": 310, "modify_ldt": 154}


def syscall(name, *args):
    # a variadic call: integers passed as longs, or their high halves are garbage
    result = libc.syscall(ctypes.c_long(NR[name]), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if result < 0:
        raise OSError(ctypes.get_errno(), f"{name}: {os.strerror(ctypes.get_errno())}")
    return result


def io_uring():
    os.close(syscall("io_uring_setup", 4, ctypes.create_string_buffer(120)))
    return "io_uring_setup made a ring"


def aio():
    ctx = ctypes.c_ulong(0)
    syscall("io_setup", 4, ctypes.byref(ctx))
    syscall("io_destroy", ctx)
    return "io_setup made an AIO context"


def perf():
    attr = bytearray(64)
    attr[0:4] = (1).to_bytes(4, "little")  # PERF_TYPE_SOFTWARE
    attr[4:8] = (64).to_bytes(4, "little")  # size (PERF_ATTR_SIZE_VER0)
    attr[8:16] = (1).to_bytes(8, "little")  # PERF_COUNT_SW_TASK_CLOCK
    attr[40:48] = ((1 << 5) | (1 << 6)).to_bytes(8, "little")  # exclude_kernel, exclude_hv
    buf = (ctypes.c_char * 64).from_buffer(attr)
    os.close(syscall("perf_event_open", buf, 0, -1, -1, 0))
    return "perf_event_open counts its task clock"


def uffd():
    os.close(syscall("userfaultfd", 1 | os.O_CLOEXEC))  # UFFD_USER_MODE_ONLY
    return "userfaultfd made a descriptor"


def keyring():
    key = syscall("add_key", b"user", b"referee-attack", b"x", 1, -2)  # KEY_SPEC_PROCESS_KEYRING
    syscall("keyctl", 3, key)  # KEYCTL_REVOKE
    return f"add_key made key {key}"


def ptrace():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        result = libc.syscall(NR["ptrace"], 0, 0, 0, 0)  # PTRACE_TRACEME
        os.write(w, str(result if result == 0 else -ctypes.get_errno()).encode())
        os._exit(0)
    os.close(w)
    answer = os.read(r, 32).decode()
    os.close(r)
    os.waitpid(pid, 0)
    if answer != "0":
        raise OSError(-int(answer), f"ptrace: {os.strerror(-int(answer))}")
    return "PTRACE_TRACEME in a child"


def vm_read():
    src, dst = ctypes.create_string_buffer(b"secret"), ctypes.create_string_buffer(6)

    class IoVec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    local, remote = IoVec(ctypes.addressof(dst), 6), IoVec(ctypes.addressof(src), 6)
    syscall("process_vm_readv", os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    return f"process_vm_readv read {dst.raw!r}"


def ldt():
    syscall("modify_ldt", 0, ctypes.create_string_buffer(16), 16)  # read the LDT
    return "modify_ldt read the LDT"


def i386():
    # mov eax, 20 (getpid in the i386 table); int 0x80; ret
    code = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(b"\xb8\x14\x00\x00\x00\xcd\x80\xc3")
    address = ctypes.addressof(ctypes.c_char.from_buffer(code))
    result = ctypes.CFUNCTYPE(ctypes.c_int)(address)()
    if result < 0:
        raise OSError(-result, f"int 0x80 getpid: {os.strerror(-result)}")
    return f"int 0x80 getpid answered {result}"


def on_hello(msg):
    if platform.machine() != "x86_64":
        return
    for name, fn in (("io_uring", io_uring), ("aio", aio), ("perf", perf), ("userfaultfd", uffd),
                     ("keyring", keyring), ("ptrace", ptrace), ("vm_read", vm_read), ("modify_ldt", ldt),
                     ("i386", i386)):
        try:
            report(name, True, fn())
        except Exception as exc:
            report(name, False, f"{type(exc).__name__}: {exc}")


play(on_hello)
