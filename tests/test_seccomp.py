"""The sandbox's system-call filter (referee/bots/seccomp.py, issue 25 finding 7).

The filter is checked from inside a real sandbox: every call it leaves out fails with ENOSYS, the
calls filtered by argument do what the module says, evictions leave the page cache as it was
(seen from outside), and the program's descriptor is not left open. Each check runs also
without the filter (the same sandbox, no `--seccomp`), where it must come out otherwise: the
checks can fail. Then the attack bots (tests/bots/attack_{pagecache,notify,locks,syscalls}.py)
play: their covert channels and probes win in plain mode, and are held in the sandbox, as root
and as an unprivileged user.
"""

from __future__ import annotations

import errno
import json
import os
import platform
import shutil
import struct
import sys
import uuid
from pathlib import Path

import pytest
from botpython import BOT_PYTHON, open_folder, run_sandboxed
from test_integrity import BOTS, ROOT, _as_nobody, _system_python, assert_held, needs_bwrap, reports, run

from referee.bots import sandbox as sandbox_mod
from referee.bots import seccomp

PAGE = os.sysconf("SC_PAGE_SIZE")

# Run inside the sandbox: argv[1] is a JSON {name: number} of the denied calls, argv[2] a file to
# evict, argv[3] a file to lock; prints what each call answered (0 or its errno).
PROBE = r"""
import ctypes, json, mmap, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
L = ctypes.c_long

def call(nr, *args):
    r = libc.syscall(L(nr), *[L(a) for a in args])
    return 0 if r >= 0 else ctypes.get_errno()

def errno_of(fn):
    try:
        fn()
        return 0
    except OSError as exc:
        return exc.errno

out = {"fds": sorted(os.listdir("/proc/self/fd"))}
out["seccomp"] = next(l.split()[1] for l in open("/proc/self/status") if l.startswith("Seccomp:"))
fd = os.open(sys.argv[2], os.O_RDONLY)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
size = 4 * mmap.PAGESIZE
addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
ctypes.string_at(addr, size)  # every page read, and mapped
for advice in (21, 20, 9, 12, (1 << 32) | 21):  # PAGEOUT, COLD, REMOVE, MERGEABLE; PAGEOUT in the low half
    out[f"madvise {advice:#x}"] = call(28, addr, size, advice)
libc.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_NOREUSE)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
out["fadvise DONTNEED high"] = call(221, fd, 0, 0, (1 << 32) | 4)
os.close(fd)
denied = json.loads(sys.argv[1])
out["denied"] = {name: call(nr, *([0, 0, 0] if name == "modify_ldt" else [-1] * 6)) for name, nr in denied.items()}
fd = os.open(sys.argv[3], os.O_RDONLY)
lock = bytes(32)
flock = (ctypes.c_char * 32).from_buffer_copy(lock)
out["F_SETLK"] = call(72, fd, 6, ctypes.addressof(flock))
out["F_SETLK high"] = call(72, fd, (1 << 32) | 6, ctypes.addressof(flock))
out["F_OFD_SETLK"] = call(72, fd, 37, ctypes.addressof(flock))
out["F_GETFL"] = call(72, fd, 3)
out["F_SETLEASE"] = call(72, fd, 1024, 0)
dfd = os.open(os.path.dirname(sys.argv[3]), os.O_RDONLY | os.O_DIRECTORY)
out["F_NOTIFY"] = call(72, dfd, 1026, 1)
os.close(dfd)
out["flock"] = call(73, fd, 1)
buf = [bytearray(1)]
out["preadv2 0"] = errno_of(lambda: os.preadv(fd, buf, 0, 0))
out["preadv2 HIPRI"] = errno_of(lambda: os.preadv(fd, buf, 0, os.RWF_HIPRI))
out["preadv2 NOWAIT"] = errno_of(lambda: os.preadv(fd, buf, 0, os.RWF_NOWAIT))
iov = (ctypes.c_void_p * 2)(ctypes.addressof((ctypes.c_char * 1)()), 1)
out["preadv2 NOWAIT high"] = call(327, fd, ctypes.addressof(iov), 1, 0, 0, (1 << 32) | 8)
out["preadv2 DONTCACHE"] = call(327, fd, ctypes.addressof(iov), 1, 0, 0, 0x80)
out["clone NEWNET"] = call(56, 0x40000000 | 17, 0, 0, 0, 0)
out["socket AF_VSOCK"] = errno_of(lambda: socket.socket(40, socket.SOCK_STREAM).close())
out["socket AF_UNIX"] = errno_of(lambda: socket.socket(socket.AF_UNIX).close())
out["socket AF_UNIX high"] = call(41, (1 << 32) | 1, 1, 0)  # an int: the kernel reads the low half
out["thread"] = errno_of(lambda: __import__("threading").Thread(target=lambda: None).start())
out["fork"] = errno_of(lambda: os.waitpid(os.fork() or os._exit(0), 0))
print(json.dumps(out))
"""

x86_64 = pytest.mark.skipif(platform.machine() != "x86_64", reason="the probes use x86-64's call numbers")


def _denied_numbers() -> dict[str, int]:
    import pyseccomp

    numbers = {name: pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) for name in seccomp.DENIED}
    return {name: nr for name, nr in numbers.items() if nr >= 0}


def _allow_all() -> bytes:
    """A filter that lets every call through (the control: the same sandbox, no filter at work)."""
    import tempfile

    import pyseccomp

    with tempfile.TemporaryFile() as out:
        pyseccomp.SyscallFilter(pyseccomp.ALLOW).export_bpf(out)
        out.seek(0)
        return out.read()


def _probe(tmp_path: Path, filtered: bool, monkeypatch: pytest.MonkeyPatch) -> dict:
    """PROBE's answers from a sandboxed Python, with the filter or with one that allows all."""
    store, locked, script = tmp_path / "store.bin", tmp_path / "locked", tmp_path / "probe.py"
    script.write_text(PROBE)
    script.chmod(0o644)
    with monkeypatch.context() as patched:
        if not filtered:
            patched.setattr(seccomp, "build", _allow_all)
        proc = run_sandboxed(["/usr/bin/python3", str(script), json.dumps(_denied_numbers()), str(store),
                              str(locked)], tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _cached(path: Path) -> bool:
    """Whether the file's first page is in the page cache (asked from outside any sandbox)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


@pytest.fixture
def probe_files():
    """The probe's files, in a folder a bot's own uid may read (as root it runs as one)."""
    folder = open_folder("seccomp-probe-")
    store = folder / "store.bin"
    with open(store, "wb") as f:
        f.write(os.urandom(8 * PAGE))
        f.flush()
        os.fsync(f.fileno())  # clean pages: DONTNEED can drop them
    (folder / "locked").write_bytes(bytes(PAGE))
    for path in (store, folder / "locked"):
        path.chmod(0o644)
    yield folder
    sandbox_mod.remove_scratch(folder)


def test_the_allowlist_and_the_left_out_calls_do_not_overlap():
    assert not set(seccomp.ALLOWED) & set(seccomp.DENIED)
    for name in ("cachestat", "mincore", "inotify_init1", "fanotify_mark", "flock", "io_uring_setup",
                 "perf_event_open", "ptrace", "keyctl", "bpf", "userfaultfd", "fcntl", "madvise", "fadvise64",
                 "preadv2", "clone", "socket"):
        assert name not in seccomp.ALLOWED  # denied, or allowed only by argument
    assert isinstance(seccomp.build(), bytes) and len(seccomp.build()) % 8 == 0  # sock_filter: 8 bytes each


def _run_bpf(program: bytes, arch: int, nr: int, args: tuple[int, ...] = ()) -> int:
    """What a classic BPF seccomp program returns for one call (the few opcodes libseccomp emits)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * 6)[:6])
    code = [struct.unpack("<HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
        elif op == 0x54:  # and #k
            acc &= k
        elif op in (0x15, 0x25, 0x35, 0x45):  # jeq, jgt, jge, jset #k
            taken = {0x15: acc == k, 0x25: acc > k, 0x35: acc >= k, 0x45: bool(acc & k)}[op]
            pc += jt if taken else jf
        elif op == 0x06:  # ret #k
            return k
        else:
            raise AssertionError(f"opcode {op:#x} not known to this test")
        pc += 1


ALLOW, ENOSYS_RET = 0x7FFF0000, 0x00050000 | errno.ENOSYS
AUDIT_X86_64, AUDIT_I386 = 0xC000003E, 0x40000003


@x86_64
def test_the_other_abis_of_the_machine_fail_with_enosys():
    # The kernel here may lack x32: the program itself is run on made-up calls.
    program = seccomp.build()
    assert _run_bpf(program, AUDIT_X86_64, 39) == ALLOW  # getpid
    assert _run_bpf(program, AUDIT_X86_64, 0x40000000 | 39) == ENOSYS_RET  # x32's getpid
    assert _run_bpf(program, AUDIT_I386, 20) == ENOSYS_RET  # i386's getpid (int 0x80)
    assert _run_bpf(program, AUDIT_X86_64, 451) == ENOSYS_RET  # cachestat
    assert _run_bpf(program, AUDIT_X86_64, 1000) == ENOSYS_RET  # a call of a later kernel
    assert _run_bpf(program, AUDIT_X86_64, 221, (3, 0, 0, 4)) == 0x00050000  # fadvise64 DONTNEED: 0
    assert _run_bpf(program, AUDIT_X86_64, 221, (3, 0, 0, 1 << 32 | 4)) == 0x00050000  # the low half is read
    assert _run_bpf(program, AUDIT_X86_64, 221, (3, 0, 0, 2)) == ALLOW  # SEQUENTIAL


@needs_bwrap
@x86_64
def test_inside_the_sandbox_the_filter_holds_and_without_it_the_same_calls_run(probe_files, monkeypatch):
    tmp_path = probe_files
    store = tmp_path / "store.bin"
    open(store, "rb").read()
    assert _cached(store)
    got = _probe(tmp_path, filtered=True, monkeypatch=monkeypatch)
    assert got["seccomp"] == "2"
    assert _cached(store), "an eviction from inside the sandbox took effect"
    assert {n: e for n, e in got["denied"].items() if e != errno.ENOSYS} == {}
    enosys = errno.ENOSYS
    assert [got[k] for k in ("F_SETLK", "F_SETLK high", "F_OFD_SETLK", "F_SETLEASE", "F_NOTIFY", "flock")] == [enosys] * 6
    assert got["F_GETFL"] == 0 and got["preadv2 0"] == 0 and got["preadv2 HIPRI"] == 0
    assert got["preadv2 NOWAIT"] == got["preadv2 NOWAIT high"] == got["preadv2 DONTCACHE"] == errno.EOPNOTSUPP
    assert got["clone NEWNET"] == enosys and got["socket AF_VSOCK"] == enosys
    assert got["socket AF_UNIX"] == 0 and got["socket AF_UNIX high"] == 0  # read as the kernel reads it
    assert got["thread"] == 0 and got["fork"] == 0  # glibc's clone3 falls back to clone
    assert all(v == 0 for k, v in got.items() if k.startswith("madvise"))  # 0, and nothing done
    # the program's memfd is not left open: stdin, stdout, stderr and the listing's own descriptor
    assert len(got["fds"]) == 4, got["fds"]

    # The control: the same sandbox, its filter allowing every call.
    open(store, "rb").read()
    plain = _probe(tmp_path, filtered=False, monkeypatch=monkeypatch)
    assert plain["seccomp"] == "2"  # a filter, which lets every call through: the calls below run
    assert not _cached(store)
    not_built = {"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module"}  # in some kernels
    assert {n for n, e in plain["denied"].items() if e == errno.ENOSYS} <= not_built
    for key in ("F_SETLK", "F_SETLK high", "F_OFD_SETLK", "F_NOTIFY", "flock", "preadv2 NOWAIT high",
                "clone NEWNET", "socket AF_VSOCK"):
        assert plain[key] not in (errno.ENOSYS, errno.EOPNOTSUPP), (key, plain[key])


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (that would be the line)")
def test_without_libseccomp_the_sandbox_refuses_with_one_line(tmp_path):
    # The binding fails at import where the system has no libseccomp.so.2 (as pyseccomp does).
    (tmp_path / "pyseccomp.py").write_text('raise RuntimeError("Unable to find libseccomp")\n')
    proc = run(["play", "maumau", "-p", "random", "-p", f"{sys.executable} bots/python/random_bot.py", "--sandbox",
                "bwrap", "--out", str(tmp_path / "m.jsonl")], env={"PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Unable to find libseccomp" in proc.stderr and "apt-get install libseccomp2" in proc.stderr
    assert "--sandbox none" in proc.stderr
    assert not (tmp_path / "m.jsonl").exists()


# -- the attack bots -------------------------------------------------------------------------------------


@pytest.fixture
def shared():
    """Files two seats can both read (beside the checkout, so seen by bots run from it)."""
    directory = ROOT / "tests" / "artifacts" / f"seccomp-{uuid.uuid4().hex[:8]}"
    directory.mkdir(parents=True)
    directory.chmod(0o755)
    for k in range(16):
        (directory / str(k)).write_text("x")
    (directory / "range").write_bytes(bytes(PAGE))
    with open(directory / "store.bin", "wb") as f:
        f.write(os.urandom(16 * 16 * PAGE))
        f.flush()
        os.fsync(f.fileno())
    yield directory
    sandbox_mod.remove_scratch(directory)


def _bot(name: str, *args: str) -> str:
    return " ".join([BOT_PYTHON, str(BOTS / f"attack_{name}.py"), *args])


def _matches(shared: Path) -> list[list[str]]:
    """Two Mau Mau tables, one after the other: the page-cache writer and the lock pair; the
    page-cache reader (the writer and its sandbox are gone: a duplicate set's next seating), the
    inotify pair and the probes."""
    store, first = str(shared / "store.bin"), str(shared / "0")
    return [[_bot("pagecache", "write", store), _bot("locks", "send", first), _bot("locks", "receive", first),
             "random"],
            [_bot("pagecache", "read", store), _bot("notify", "send", first), _bot("notify", "receive", first),
             _bot("syscalls")]]


EXPECTED = ("cachestat", "mincore", "nowait", "flock", "posix", "ofd", "inotify", "dnotify")
PROBES = ("io_uring", "aio", "perf", "userfaultfd", "keyring", "ptrace", "vm_read", "modify_ldt", "i386")


def _play(shared: Path, out: Path, sandbox: str, nobody: bool = False) -> str:
    """Both tables played; every seat's log, joined."""
    logs = []
    for k, seats in enumerate(_matches(shared)):
        if nobody:
            seats = [_system_python(s) for s in seats]
        args = ["play", "maumau", *[a for s in seats for a in ("-p", s)], "--seed", "11", "--sandbox", sandbox,
                "--out", str(out / f"m{k}.jsonl"), "--move-ms", "30000"]
        proc = _as_nobody(args, out) if nobody else run(args, env={"TMPDIR": str(out)} if sandbox == "none" else None)
        assert proc.returncode == 0, proc.stderr
        logs += [p.read_text(errors="replace") for p in sorted(out.glob(f"m{k}.seat*.log"))]
    return "\n".join(logs)


@x86_64
def test_control_in_plain_mode_the_covert_channels_and_the_probes_win(shared, tmp_path):
    # What the filter is for (the old sandbox let each of these through too: see the report of
    # issue 25); this also shows the battery can fail.
    got = reports(_play(shared, tmp_path, "none"))
    lost = [name for name in EXPECTED + PROBES if not any(won for won, _ in got.get(name, []))]
    assert lost == [], got


@needs_bwrap
@x86_64
def test_the_covert_channels_and_the_probes_are_held_in_the_sandbox(shared, tmp_path):
    assert_held(_play(shared, tmp_path, "bwrap"), *EXPECTED, *PROBES)


@needs_bwrap
@x86_64
def test_the_covert_channels_and_the_probes_are_held_as_an_unprivileged_user(shared):
    import tempfile

    out = Path(tempfile.mkdtemp(prefix="referee-unpriv-"))
    os.chown(out, 65534, 65534)
    try:
        assert_held(_play(shared, out, "bwrap", nobody=True), *EXPECTED, *PROBES)
    finally:
        sandbox_mod.remove_scratch(out)
