"""Per-seat resources of a match (issue 29), as isolate's meta file reports a run ("time",
"max-rss"): each seat's decision times as percentiles, and a bot process's CPU seconds and peak
memory.

The result record's `resources` holds one `seat_record` per seat (docs/replays.md). Times come
from the runner (every decision's ms, appended to a list per seat: percentiles are computed once,
at the end). A bot's CPU and peak memory are read from /proc while it runs (`sample`), at the
match's end before its `end`: the sum of user and system time of its processes and of the
children they waited for, and the largest peak resident set (VmHWM) of any one of them. Not the
rusage of its reaping: in the bubblewrap sandbox the bot is a grandchild of the process started
and bwrap does not pass its children's rusage on (wait4 on bwrap gives bwrap's own milliseconds).
Where the sandbox puts the bot in a memory cgroup of its own (as root: referee.bots.sandbox), its
peak is the cgroup's (`cgroup_peak`: every process of the bot, those gone included, and its
scratch's files), as isolate's "cg-mem"; its CPU is still /proc's.

`measured` says how far the figures go: "process" (a process started for this match), "cgroup"
(the same, its peak from its cgroup), "approximate" (a process kept from earlier matches: the
CPU over this match, the peak since it started), "in-process" (a strategy or a person: times only).

A tournament pools an entrant's decision times over its matches through `ms_hist`, a histogram
of 1/8-octave bins kept in its journal records (`histogram`, `hist_percentile`).
"""

from __future__ import annotations

import bisect
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

PROCESS, APPROXIMATE, IN_PROCESS, CGROUP = "process", "approximate", "in-process", "cgroup"
MEASURED = (CGROUP, PROCESS, APPROXIMATE, IN_PROCESS)
#: histogram bins per octave of microseconds (`histogram`): a bin's middle is within 4.4% of its values
BINS_PER_OCTAVE = 8

try:
    _TICKS = os.sysconf("SC_CLK_TCK")
except (ValueError, OSError, AttributeError):
    _TICKS = 100


@dataclass(frozen=True)
class Usage:
    """A bot's CPU seconds and peak memory in MB (None: unknown), and how they were measured."""

    cpu_s: float | None = None
    peak_mb: float | None = None
    measured: str = IN_PROCESS


def percentile(ordered: Sequence[float], q: float) -> float | None:
    """The nearest-rank `q` percentile (0 < q <= 1) of sorted values: the smallest value with at
    least q of them at or below it (an observed value); None for none."""
    if not ordered:
        return None
    return ordered[min(len(ordered), max(1, math.ceil(q * len(ordered) - 1e-9))) - 1]


_UNMEASURED = Usage()


def seat_record(ms: list[float], usage: Usage | None) -> dict[str, Any]:
    """One seat's entry of the result's `resources`: its timed decisions (a fault that took no
    time is none), their p50, p90 and max in ms (rounded to 0.1; None without one), its CPU
    seconds and peak MB (None: unknown, or no process) and how they were measured. Once per seat
    and match, in the runner's `finish`: kept to a sort and a few lookups (bench/engine.py)."""
    times = sorted(ms)
    if math.isfinite(sum(times)):  # the usual case, in C: the untimed (0) first, cut off
        if times and times[0] <= 0.0:
            times = times[bisect.bisect_right(times, 0.0):]
    else:  # a player's own NaN or infinity: none either
        times = sorted(m for m in ms if 0.0 < m < math.inf)
    n = len(times)
    usage = usage or _UNMEASURED
    cpu, peak = usage.cpu_s, usage.peak_mb
    return {"decisions": n,
            # nearest rank, as `percentile`: the ceil(q * n)-th smallest
            "ms_p50": round(times[(n + 1) // 2 - 1], 1) if n else None,
            "ms_p90": round(times[min(n, max(1, math.ceil(0.9 * n - 1e-9))) - 1], 1) if n else None,
            "ms_max": round(times[-1], 1) if n else None,
            "cpu_s": None if cpu is None else round(cpu, 3), "peak_mb": None if peak is None else round(peak, 1),
            "measured": usage.measured}


def shown(value: float | None, ms: bool = False) -> str:
    """A figure for a table: "-" when unknown; a time that rounds to 0 (`ms`) as "<0.1"."""
    if value is None:
        return "-"
    return "<0.1" if ms and value == 0 else f"{value:g}"


# -- a bot's processes, read from /proc ------------------------------------------------------------


def _tree(root: int) -> list[int]:
    """`root` and its live descendants (each thread's `children` in /proc); those that left the
    tree (reparented away) are not found."""
    found, i = [root], 0
    while i < len(found):
        pid = found[i]
        i += 1
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    found.extend(int(c) for c in f.read().split())
            except (OSError, ValueError):
                pass
    return found


def _cpu_ticks(pid: int) -> int | None:
    """utime + stime + cutime + cstime of a process (its own and its waited-for children's), in ticks."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        fields = data[data.rindex(b")") + 2:].split()
        return int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    except (OSError, ValueError, IndexError):
        return None


def _peak_kb(pid: int) -> int | None:
    """A process's peak resident set (VmHWM) in kB; None for a zombie or a process gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def sample(root: int) -> tuple[float | None, float | None]:
    """(CPU seconds, peak MB) of the process `root` and its descendants as they are now: CPU
    summed (a waited-for child's is in its parent's), the peak of the largest one; None: unknown."""
    cpu: int | None = None
    peak: int | None = None
    for pid in _tree(root):
        ticks = _cpu_ticks(pid)
        if ticks is not None:
            cpu = ticks + (cpu or 0)
        kb = _peak_kb(pid)
        if kb is not None and (peak is None or kb > peak):
            peak = kb
    return (None if cpu is None else cpu / _TICKS), (None if peak is None else peak / 1024)


def cgroup_peak(group: os.PathLike | str) -> float | None:
    """The peak memory in MB a memory cgroup has charged (v2 `memory.peak`, v1
    `memory.max_usage_in_bytes`), None if it has neither."""
    for name in ("memory.peak", "memory.max_usage_in_bytes"):
        try:
            with open(os.path.join(group, name), "rb") as f:
                return int(f.read().split()[0]) / (1024 * 1024)
        except (OSError, ValueError, IndexError):
            continue
    return None


# -- pooled decision times: a histogram of 1/8-octave bins ---------------------------------------


def _bin(ms: float) -> int:
    """The histogram bin of a time in ms: 1/8 octave of microseconds (bin 0: 1 us or less)."""
    us = ms * 1000.0
    return 0 if us <= 1.0 else int(math.log2(us) * BINS_PER_OCTAVE)


def histogram(ms: Iterable[float]) -> list[int]:
    """The times' histogram, compactly: [first bin, its count, the next bin's count, ...]
    (empty for none); see `hist_percentile`."""
    counts: dict[int, int] = {}
    for m in ms:
        if 0.0 < m < math.inf:
            k = _bin(m)
            counts[k] = counts.get(k, 0) + 1
    if not counts:
        return []
    first, last = min(counts), max(counts)
    return [first, *(counts.get(k, 0) for k in range(first, last + 1))]


def hist_counts(hist: Sequence[int]) -> dict[int, int]:
    """A `histogram` as {bin: count} (bins without one left out); {} for anything malformed."""
    if not isinstance(hist, (list, tuple)) or len(hist) < 2 or not all(type(v) is int and v >= 0 for v in hist):
        return {}
    return {hist[0] + i: n for i, n in enumerate(hist[1:]) if n}


def hist_percentile(counts: dict[int, int], q: float) -> float | None:
    """The nearest-rank `q` percentile of binned times, in ms: the middle of its bin (within 4.4%)."""
    total = sum(counts.values())
    if not total:
        return None
    rank = max(1, math.ceil(q * total - 1e-9))
    seen = 0
    for k in sorted(counts):
        seen += counts[k]
        if seen >= rank:
            return 0.001 if k == 0 else 2 ** ((k + 0.5) / BINS_PER_OCTAVE) / 1000.0
    return None  # not reached
