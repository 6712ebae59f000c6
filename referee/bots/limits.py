"""Operating-system resource limits for bot processes, applied by a wrapper command.

A bot's limits are set by the program that starts it, not by the referee in a `preexec_fn`
(which runs between fork and exec in a copy of a possibly multi-threaded referee: a source of
deadlocks). The wrapper is util-linux's `prlimit`, prefixed to the bot's command line:
`prlimit --cpu=600:601 --as=BYTES --fsize=BYTES --nofile=256:256 --core=0 -- python3 bot.py`.
Where `prlimit` is missing, a tiny Python program does the same (`setrlimit`, then `execvp`).

The limits are per process and inherited by every child the bot starts. RLIMIT_NPROC is off by
default: it counts every process of the user (not just the bot's), and root ignores it.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
from dataclasses import dataclass
from typing import Any

MB = 1 << 20

# Defaults: generous for a real bot, small enough that a hostile one cannot hurt the machine.
CPU_S = 600  # CPU seconds per process (the move deadlines stop a busy bot much earlier)
MEMORY_MB = 2048  # address space per process
FSIZE_MB = 64  # largest file a bot may write
NOFILE = 256  # open file descriptors
NPROC = 0  # processes of the user; 0 = not limited (see the module docstring)
GRACE_MS = 50  # waited past every deadline before a timeout, for transport jitter
SPIN_US = 200  # polled for a bot's reply before sleeping, where a core is free for it (spin_us)


# The largest value each limit may take (a tournament file's [limits], an entrant's own times,
# the CLI options): beyond them the OS or the clock overflows, or the value is a typo.
MAX_MS = 86_400_000  # move_ms, start_ms, grace_ms, total_ms, bank_ms: one day
MAX_FAULT_COUNT = 1_000_000  # max_faults
MAX_CPU_S = 604_800  # cpu_s: one week
MAX_MEMORY_MB = 1 << 20  # memory_mb: 1 TiB
MAX_FSIZE_MB = 1 << 20  # fsize_mb: 1 TiB
MAX_NOFILE = 1 << 20  # nofile: Linux's default ceiling (fs.nr_open)
MAX_SPIN_US = 1_000_000  # spin_us: one second
LIMIT_MAX = {"move_ms": MAX_MS, "start_ms": MAX_MS, "max_faults": MAX_FAULT_COUNT, "grace_ms": MAX_MS,
             "total_ms": MAX_MS, "bank_ms": MAX_MS, "cpu_s": MAX_CPU_S, "memory_mb": MAX_MEMORY_MB,
             "fsize_mb": MAX_FSIZE_MB, "nofile": MAX_NOFILE, "spin_us": MAX_SPIN_US}
MAX_CONCURRENCY = 1024  # a tournament's matches at once (each a worker process with its bots)


@dataclass(frozen=True)
class ResourceLimits:
    """Per-process limits for a bot; 0 leaves a limit as the referee's own."""

    cpu_s: int = CPU_S
    memory_mb: int = MEMORY_MB
    fsize_mb: int = FSIZE_MB
    nofile: int = NOFILE
    nproc: int = NPROC

    def rlimits(self) -> list[tuple[str, int, int]]:
        """(prlimit option, soft, hard) for every limit in force; core dumps are always off."""
        out = []
        if self.cpu_s > 0:
            # SIGXCPU at the soft limit, SIGKILL a second later at the hard one.
            out.append(("cpu", self.cpu_s, self.cpu_s + 1))
        if self.memory_mb > 0:
            out.append(("as", self.memory_mb * MB, self.memory_mb * MB))
        if self.fsize_mb > 0:
            out.append(("fsize", self.fsize_mb * MB, self.fsize_mb * MB))
        if self.nofile > 0:
            out.append(("nofile", self.nofile, self.nofile))
        if self.nproc > 0:
            out.append(("nproc", self.nproc, self.nproc))
        out.append(("core", 0, 0))
        return out

    def record(self) -> dict[str, int]:
        """The limits as reported (validate's JSON, docs)."""
        return {"cpu_s": self.cpu_s, "memory_mb": self.memory_mb, "fsize_mb": self.fsize_mb,
                "nofile": self.nofile, "nproc": self.nproc}


_RESOURCE = {
    "cpu": resource.RLIMIT_CPU,
    "as": resource.RLIMIT_AS,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "nproc": resource.RLIMIT_NPROC,
    "core": resource.RLIMIT_CORE,
}

# The fallback wrapper: argv is NAME=SOFT:HARD ... -- command...; never raises past a limit it
# may not set (a hard limit above the current one), exec errors exit 127 like a shell.
_FALLBACK = """\
import os, resource, sys
a = sys.argv[1:]
i = a.index("--")
for spec in a[:i]:
    name, _, value = spec.partition("=")
    soft, _, hard = value.partition(":")
    try:
        resource.setrlimit(getattr(resource, "RLIMIT_" + name.upper()), (int(soft), int(hard)))
    except (ValueError, OSError):
        pass
try:
    os.execvp(a[i + 1], a[i + 1:])
except OSError as exc:
    sys.stderr.write("cannot start %s: %s\\n" % (a[i + 1], exc))
    os._exit(127)
"""


def _capped(name: str, soft: int, hard: int) -> tuple[int, int]:
    """The limit lowered to what this process may grant (a child cannot raise a hard limit)."""
    cur_soft, cur_hard = resource.getrlimit(_RESOURCE[name])
    if cur_hard != resource.RLIM_INFINITY:
        hard = min(hard, cur_hard)
        soft = min(soft, hard)
    return soft, hard


def wrapper(limits: ResourceLimits | None) -> list[str]:
    """The argv prefix that starts a command under `limits` (empty for None)."""
    if limits is None:
        return []
    specs = [(name, *_capped(name, soft, hard)) for name, soft, hard in limits.rlimits()]
    prlimit = shutil.which("prlimit")
    if prlimit is not None:
        return [prlimit, *(f"--{name}={soft}:{hard}" for name, soft, hard in specs), "--"]
    return [sys.executable, "-I", "-S", "-c", _FALLBACK, *(f"{name}={soft}:{hard}" for name, soft, hard in specs),
            "--"]


def spin_us(matches_at_once: int = 1) -> int:
    """How long the referee polls for a bot's reply before it sleeps, by default: SPIN_US when
    this process may use two cores per match played at once (one for the referee, one for the
    bot that is thinking), else 0.

    Polling answers a quick bot sooner (no wake-up of a sleeping process, about 30-60 us on a
    VM), at the price of up to SPIN_US of CPU per decision; without a core to spare it would take
    that CPU from the bots.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return SPIN_US if cores >= 2 * max(1, matches_at_once) else 0


def subprocess_options(limits: Any) -> dict[str, Any]:
    """SubprocessPlayer keyword arguments from a match's `referee.runner.Limits`."""
    return {
        "start_ms": limits.start_ms,
        "max_line_bytes": limits.max_line_bytes,
        "grace_ms": limits.grace_ms,
        "resources": ResourceLimits(limits.cpu_s, limits.memory_mb, limits.fsize_mb, limits.nofile, limits.nproc),
        "sandbox": limits.sandbox,
        "spin_us": spin_us() if limits.spin_us is None else limits.spin_us,
    }
