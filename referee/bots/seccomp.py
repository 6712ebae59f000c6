"""The sandbox's system-call filter (seccomp), built with libseccomp and handed to bwrap.

Bots in their sandboxes still share one kernel, and what that kernel keeps across processes is
a channel between them, and between the seatings of a duplicate set that follow one another:
which pages of a read-only file are cached, who watches or locks a file both can open. The
filter closes the calls that set or read such state, and those a card bot never needs.

Allowed: Docker's default allowlist for a process without capabilities (moby/profiles,
seccomp/default.json), on this machine's native ABI only, minus:
- page-cache residency readers: `cachestat`, `mincore`; `io_uring_*` and the AIO calls
  (`io_setup`, `io_submit`...), which can read with RWF_NOWAIT where no argument can be seen;
- notification and locks on files two bots can both open: `inotify_*`, `fanotify_*`, `flock`,
  and fcntl's locks (F_SETLK, F_SETLKW, F_GETLK, F_OFD_*), leases and dnotify (F_NOTIFY);
- reaching other processes or the kernel's shared state: `ptrace`, `process_vm_readv/writev`,
  `kcmp`, `pidfd_getfd`, `perf_event_open`, `bpf`, `userfaultfd`, `keyctl`/`add_key`/
  `request_key`, `modify_ldt`; and what Docker allows only with a capability (the mount family,
  `unshare`, `setns`, `kexec_*`, module loading, `reboot`, clocks, `chroot`...).
Filtered by argument, because Python, Node, Go and glibc make the calls (an `int` argument is
compared on its low 32 bits, as the kernel reads it, so a value cannot hide in the high half):
- `madvise` with MADV_PAGEOUT, MADV_COLD or MADV_REMOVE (evicting a file's page) or
  MADV_MERGEABLE (same-page merging, a timing channel) and `fadvise64` with
  POSIX_FADV_DONTNEED or POSIX_FADV_NOREUSE return 0 and do nothing;
- `preadv2`/`pwritev2` with RWF_NOWAIT (which reads only what is cached: a residency probe) or
  RWF_DONTCACHE (which evicts) fail with EOPNOTSUPP;
- `fcntl`: only the commands on the descriptor itself (dup, flags, owner and signal, pipe size,
  seals, hints); `clone` without namespace flags; `socket` for AF_UNIX, AF_INET, AF_INET6 and
  AF_NETLINK; `personality` with Docker's values.
Every other call fails with ENOSYS: glibc's fallback from `clone3` to `clone` needs ENOSYS, and
calls added by later kernels stay closed. The other ABIs of the machine (i386's `int 0x80` and
x32 on x86-64, AArch32 on arm64) fail so too: a bot cannot switch ABIs around the filter.

What no filter closes on a shared kernel is in docs/security.md ("The system-call filter").
"""

from __future__ import annotations

import errno
import tempfile
import threading

# Docker's default allowlist (no capability), the removed calls left out (see the docstring).
# Names a kernel or libseccomp does not know on this ABI are skipped.
ALLOWED = (
    "accept", "accept4", "access", "adjtimex", "alarm", "bind", "brk", "capget", "capset", "chdir", "chmod",
    "chown", "chown32", "clock_adjtime", "clock_adjtime64", "clock_getres", "clock_getres_time64",
    "clock_gettime", "clock_gettime64", "clock_nanosleep", "clock_nanosleep_time64", "close", "close_range",
    "connect", "copy_file_range", "creat", "dup", "dup2", "dup3", "epoll_create", "epoll_create1", "epoll_ctl",
    "epoll_ctl_old", "epoll_pwait", "epoll_pwait2", "epoll_wait", "epoll_wait_old", "eventfd", "eventfd2",
    "execve", "execveat", "exit", "exit_group", "faccessat", "faccessat2", "fallocate", "fchdir", "fchmod",
    "fchmodat", "fchmodat2", "fchown", "fchown32", "fchownat", "fdatasync", "fgetxattr", "flistxattr",
    "fork", "fremovexattr", "fsetxattr", "fstat", "fstat64", "fstatat64", "fstatfs", "fstatfs64", "fsync",
    "ftruncate", "ftruncate64", "futex", "futex_requeue", "futex_time64", "futex_wait", "futex_waitv",
    "futex_wake", "futimesat", "getcpu", "getcwd", "getdents", "getdents64", "getegid", "getegid32",
    "geteuid", "geteuid32", "getgid", "getgid32", "getgroups", "getgroups32", "getitimer", "getpeername",
    "getpgid", "getpgrp", "getpid", "getppid", "getpriority", "getrandom", "getresgid", "getresgid32",
    "getresuid", "getresuid32", "getrlimit", "get_robust_list", "getrusage", "getsid", "getsockname",
    "getsockopt", "get_thread_area", "gettid", "gettimeofday", "getuid", "getuid32", "getxattr", "getxattrat",
    "ioctl", "ioprio_get", "ioprio_set", "ipc", "kill", "landlock_add_rule", "landlock_create_ruleset",
    "landlock_restrict_self", "lchown", "lchown32", "lgetxattr", "link", "linkat", "listen", "listmount",
    "listxattr", "listxattrat", "llistxattr", "_llseek", "lremovexattr", "lseek", "lsetxattr", "lstat",
    "lstat64", "map_shadow_stack", "membarrier", "memfd_create", "memfd_secret", "mkdir", "mkdirat", "mknod",
    "mknodat", "mlock", "mlock2", "mlockall", "mmap", "mmap2", "mprotect", "mq_getsetattr", "mq_notify",
    "mq_open", "mq_timedreceive", "mq_timedreceive_time64", "mq_timedsend", "mq_timedsend_time64", "mq_unlink",
    "mremap", "mseal", "msgctl", "msgget", "msgrcv", "msgsnd", "msync", "munlock", "munlockall", "munmap",
    "name_to_handle_at", "nanosleep", "newfstatat", "_newselect", "open", "openat", "openat2", "pause",
    "pidfd_open", "pidfd_send_signal", "pipe", "pipe2", "pkey_alloc", "pkey_free", "pkey_mprotect", "poll",
    "ppoll", "ppoll_time64", "prctl", "pread64", "preadv", "prlimit64", "process_mrelease", "pselect6",
    "pselect6_time64", "pwrite64", "pwritev", "read", "readahead", "readlink", "readlinkat", "readv", "recv",
    "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg", "remap_file_pages", "removexattr", "removexattrat",
    "rename", "renameat", "renameat2", "restart_syscall", "rmdir", "rseq", "rt_sigaction", "rt_sigpending",
    "rt_sigprocmask", "rt_sigqueueinfo", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait",
    "rt_sigtimedwait_time64", "rt_tgsigqueueinfo", "sched_getaffinity", "sched_getattr", "sched_getparam",
    "sched_get_priority_max", "sched_get_priority_min", "sched_getscheduler", "sched_rr_get_interval",
    "sched_rr_get_interval_time64", "sched_setaffinity", "sched_setattr", "sched_setparam",
    "sched_setscheduler", "sched_yield", "seccomp", "select", "semctl", "semget", "semop", "semtimedop",
    "semtimedop_time64", "send", "sendfile", "sendfile64", "sendmmsg", "sendmsg", "sendto", "setfsgid",
    "setfsgid32", "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups", "setgroups32", "setitimer",
    "setpgid", "setpriority", "setregid", "setregid32", "setresgid", "setresgid32", "setresuid",
    "setresuid32", "setreuid", "setreuid32", "setrlimit", "set_robust_list", "setsid", "setsockopt",
    "set_thread_area", "set_tid_address", "setuid", "setuid32", "setxattr", "setxattrat", "shmat", "shmctl",
    "shmdt", "shmget", "shutdown", "sigaltstack", "signalfd", "signalfd4", "sigprocmask", "sigreturn",
    "socketcall", "socketpair", "splice", "stat", "stat64", "statfs", "statfs64", "statmount", "statx",
    "symlink", "symlinkat", "sync", "sync_file_range", "syncfs", "sysinfo", "tee", "tgkill", "time",
    "timer_create", "timer_delete", "timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime",
    "timer_settime64", "timerfd_create", "timerfd_gettime", "timerfd_gettime64", "timerfd_settime",
    "timerfd_settime64", "times", "tkill", "truncate", "truncate64", "ugetrlimit", "umask", "uname", "unlink",
    "unlinkat", "uretprobe", "utime", "utimensat", "utimensat_time64", "utimes", "vfork", "vmsplice", "wait4",
    "waitid", "waitpid", "write", "writev",
    # Docker's per-architecture additions (each exists on its own ABI only), modify_ldt left out
    "arch_prctl", "sync_file_range2", "swapcontext", "riscv_flush_icache", "riscv_hwprobe",
)

# Left out of Docker's allowlist on purpose (the docstring says why); tests check each fails.
DENIED = (
    "cachestat", "mincore", "io_uring_setup", "io_uring_enter", "io_uring_register", "io_setup", "io_submit",
    "io_cancel", "io_destroy", "io_getevents", "io_pgetevents", "inotify_init", "inotify_init1",
    "inotify_add_watch", "inotify_rm_watch", "fanotify_init", "fanotify_mark", "flock", "ptrace",
    "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise", "perf_event_open", "bpf",
    "userfaultfd", "keyctl", "add_key", "request_key", "modify_ldt", "mount", "umount2", "fsopen", "fsmount",
    "open_tree", "move_mount", "unshare", "setns", "kexec_load", "kexec_file_load", "init_module",
    "finit_module", "delete_module", "reboot", "chroot", "clone3",
)

MASK32 = 0xFFFFFFFF
# madvise (advice: arg 2)
MADV_ALLOWED = (0, 1, 2, 3, 4, 8, 10, 11, 13, 14, 15, 16, 17, 18, 19, 22, 23, 24, 25, 102, 103)
MADV_NEUTERED = (9, 12, 20, 21)  # REMOVE, MERGEABLE, COLD, PAGEOUT: 0, nothing done
# fadvise64 (advice: arg 3 on 64-bit ABIs)
FADV_ALLOWED = (0, 1, 2, 3)  # NORMAL, RANDOM, SEQUENTIAL, WILLNEED
FADV_NEUTERED = (4, 5)  # DONTNEED, NOREUSE
# preadv2/pwritev2 (flags: arg 5)
RWF_ALLOWED = 0x1 | 0x2 | 0x4 | 0x10 | 0x20 | 0x40  # HIPRI, DSYNC, SYNC, APPEND, NOAPPEND, ATOMIC
RWF_REFUSED = (0x8, 0x80)  # NOWAIT, DONTCACHE: EOPNOTSUPP; any other unknown flag: ENOSYS
# fcntl (cmd: arg 1): the descriptor's own commands; no lock (5-7, 36-38), lease (1024, 1025),
# dnotify (1026)
FCNTL_ALLOWED = (0, 1, 2, 3, 4, 8, 9, 10, 11, 15, 16, 17, 1027, 1028, 1030, 1031, 1032, 1033, 1034, 1035, 1036,
                 1037, 1038)
CLONE_NAMESPACES = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET (as Docker)
SOCKET_DOMAINS = (1, 2, 10, 16)  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)  # Docker's: PER_LINUX, UNAME26... and the query
# 64-bit native ABIs whose argument positions above are known; a 32-bit machine gets no filter.
NATIVE = {"X86_64", "AARCH64", "PPC64LE", "S390X", "RISCV64", "MIPSEL64", "MIPS64"}
HINT = ("install libseccomp (Debian/Ubuntu: apt-get install libseccomp2; Fedora: dnf install libseccomp) and "
        "pyseccomp (pip install pyseccomp), or run with --sandbox none (no protection from the bots)")

# A submission's build (referee.intake.build) runs compilers and package tools, which lock files
# (make's jobserver, ccache, pip, npm, cargo): the build filter is the bot's plus the file locks.
# A build runs alone, before any match, so a lock is no channel to another bot.
BUILD_EXTRA = ("flock",)
FCNTL_LOCKS = (5, 6, 7, 36, 37, 38)  # F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW

_lock = threading.Lock()
_program: bytes | None = None
_build_program: bytes | None = None


class Unavailable(OSError):
    """The filter cannot be built here (no libseccomp or binding, an unknown ABI)."""


def build() -> bytes:
    """The filter as a BPF program (built once per process); raises Unavailable, with why."""
    global _program
    with _lock:
        if _program is None:
            _program = _compile()
        return _program


def build_filter() -> bytes:
    """The filter of a submission's build: the bot's, plus file locks (BUILD_EXTRA, FCNTL_LOCKS)."""
    global _build_program
    with _lock:
        if _build_program is None:
            _build_program = _compile(builds=True)
        return _build_program


def _compile(builds: bool = False) -> bytes:
    try:
        import pyseccomp as sc
    except (ImportError, RuntimeError, OSError) as exc:  # RuntimeError: the binding found no libseccomp
        raise Unavailable(f"the system-call filter cannot be built: {exc}") from None
    try:
        native = sc.system_arch()
        arch = next((name for name in NATIVE if getattr(sc.Arch, name, None) == native), None)
        if arch is None:
            raise Unavailable(f"the system-call filter has no rules for this machine's ABI ({native:#x})")
        enosys = sc.ERRNO(errno.ENOSYS)
        f = sc.SyscallFilter(enosys)
        f.set_attr(sc.Attr.ACT_BADARCH, enosys)  # the machine's other ABIs: i386, x32, AArch32

        def add(action: int, name: str, *args: object) -> None:
            if sc.resolve_syscall(sc.Arch.NATIVE, name) >= 0:  # not on this ABI: nothing to allow
                f.add_rule(action, name, *args)

        def low(index: int, value: int) -> object:
            return sc.Arg(index, sc.MASKED_EQ, MASK32, value)

        for name in ALLOWED:
            add(sc.ALLOW, name)
        for advice in MADV_ALLOWED:
            add(sc.ALLOW, "madvise", low(2, advice))
        for advice in MADV_NEUTERED:
            add(sc.ERRNO(0), "madvise", low(2, advice))
        for advice in FADV_ALLOWED:
            add(sc.ALLOW, "fadvise64", low(3, advice))
        for advice in FADV_NEUTERED:
            add(sc.ERRNO(0), "fadvise64", low(3, advice))
        for name in ("preadv2", "pwritev2"):
            add(sc.ALLOW, name, sc.Arg(5, sc.MASKED_EQ, MASK32 & ~RWF_ALLOWED, 0))
            for flag in RWF_REFUSED:
                add(sc.ERRNO(errno.EOPNOTSUPP), name, sc.Arg(5, sc.MASKED_EQ, flag, flag))
        for cmd in FCNTL_ALLOWED + (FCNTL_LOCKS if builds else ()):
            add(sc.ALLOW, "fcntl", low(1, cmd))
        for name in BUILD_EXTRA if builds else ():
            add(sc.ALLOW, name)
        add(sc.ALLOW, "clone", sc.Arg(1 if arch == "S390X" else 0, sc.MASKED_EQ, CLONE_NAMESPACES, 0))
        for domain in SOCKET_DOMAINS:
            add(sc.ALLOW, "socket", low(0, domain))
        for persona in PERSONALITIES:
            add(sc.ALLOW, "personality", low(0, persona))
        with tempfile.TemporaryFile() as out:
            f.export_bpf(out)
            out.seek(0)
            return out.read()
    except Unavailable:
        raise
    except OSError as exc:
        raise Unavailable(f"the system-call filter cannot be built: {exc}") from None
