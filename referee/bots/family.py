"""A bot's processes, found through /proc, and how they are all killed.

Every process of a bot carries `REFEREE_BOT_ID=<unique id>` in its environment (`new_bot_id`).
A process belongs to the bot (`family`) if it is in the bot's process group or session,
descends from the bot's process or from another of its processes, or carries its id; only
processes started no earlier than the bot are looked at. `kill_family` freezes (SIGSTOP) every
one of them, repeating the scan until no new one appears (a forking bot cannot outrun it), then
kills (SIGKILL) them all. Signals go through a pidfd, checked against the start time: a pid
reused meanwhile is never hit.

Settled here: a descendant that leaves the bot's session (`setsid`) escapes `killpg` but not
the scan; one that both leaves the session and drops the variable escapes it in plain mode; in
the sandbox its PID namespace dies with the bot (docs/security.md).

In the bubblewrap sandbox, bwrap's own two processes (outside, and as the sandbox's init) are
no bot processes: `sandbox_strays` leaves them out, and `stdout_closed_in_sandbox` tells that
the bot closed its stdout although they keep the pipe open.
"""

from __future__ import annotations

import itertools
import os
import secrets
import signal
import time

BOT_ID_VAR = "REFEREE_BOT_ID"  # the marker every process of a bot inherits
_ids = itertools.count(1)


def new_bot_id() -> str:
    """A value of REFEREE_BOT_ID no other bot of any referee process carries."""
    return f"{os.getpid()}-{next(_ids)}-{secrets.token_hex(4)}"


def _stat(pid: int | str) -> tuple[int, int, int, str, int] | None:
    """(ppid, pgid, sid, state, start ticks) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    return int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode(), int(fields[19])


def _ns_pid(pid: int) -> int | None:
    """A process's pid in its own (innermost) PID namespace."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError):
        pass
    return None


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def start_ticks(pid: int) -> int | None:
    """When a process started (clock ticks after boot), or None if it is gone."""
    st = _stat(pid)
    return st[4] if st is not None else None


class Snapshot:
    """One pass over /proc: every process started at or after `since` but this one ({pid:
    stat}), and the REFEREE_BOT_ID values each carries (read only where asked for, once a process).
    One snapshot answers `family` for several bots: a pool checks all seats of a match at once."""

    __slots__ = ("procs", "_ids")

    def __init__(self, since: int) -> None:
        self.procs: dict[int, tuple[int, int, int, str, int]] = {}
        self._ids: dict[int, frozenset[str]] = {}
        try:
            entries = os.listdir("/proc")
        except OSError:
            return
        me = os.getpid()
        for entry in entries:
            if not entry.isdigit():
                continue
            st = _stat(entry)
            if st is not None and st[4] >= since and int(entry) != me:
                self.procs[int(entry)] = st

    def bot_ids(self, pid: int) -> frozenset[str]:
        """The REFEREE_BOT_ID values a process's environment holds (an entry ending in
        `REFEREE_BOT_ID=<id>`, as many as it has), read once."""
        found = self._ids.get(pid)
        if found is None:
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    environ = f.read()
            except OSError:
                environ = b""
            prefix = BOT_ID_VAR.encode() + b"="
            found = frozenset(item[item.rindex(prefix) + len(prefix):].decode(errors="replace")
                              for item in environ.split(b"\0") if prefix in item)
            self._ids[pid] = found
        return found

    def family(self, root: int, bot_id: str, since: int) -> dict[int, int]:
        """The live processes of the bot whose process is `root`, as `family` finds them."""
        procs = self.procs
        members = set()
        for pid, (ppid, pgid, sid, state, start) in procs.items():
            if start < since:
                continue
            if pid == root or pgid == root or sid == root or bot_id in self.bot_ids(pid):
                members.add(pid)
        children: dict[int, list[int]] = {}
        for pid, st in procs.items():
            if st[4] >= since:
                children.setdefault(st[0], []).append(pid)
        todo = list(members)
        while todo:
            for child in children.get(todo.pop(), ()):
                if child not in members:
                    members.add(child)
                    todo.append(child)
        return {pid: procs[pid][4] for pid in members if procs[pid][3] not in ("Z", "X")}


def family(root: int, bot_id: str, since: int) -> dict[int, int]:
    """Every live process of the bot whose process is `root`: {pid: start ticks} (see the
    module docstring); only processes started at or after `since` are looked at."""
    return Snapshot(since).family(root, bot_id, since)


def sandbox_strays(root: int, members: dict[int, int]) -> dict[int, int]:
    """Of a sandboxed bot's processes (`family`), those that count as still running: none once
    the bot's own process (pid 2 in its namespace, after bwrap's init) has exited, since the
    kernel is then killing the rest; else all but bwrap's own two processes."""
    wrappers = {root} | {pid for pid in members if (_stat(pid) or (0,))[0] == root and _comm(pid) == "bwrap"}
    main = [pid for pid in members if pid not in wrappers and (_stat(pid) or (0,))[0] in wrappers
            and _ns_pid(pid) == 2]
    return {pid: start for pid, start in members.items() if pid not in wrappers} if main else {}


def stdout_closed_in_sandbox(root: int, bot_id: str, since: int, out_fd: int) -> bool:
    """Whether a sandboxed bot closed its stdout (our end: `out_fd`) yet lives on: no process of
    the bot but bwrap's own two still holds the pipe's write end (they keep it open, so no EOF
    tells it)."""
    try:
        pipe = f"pipe:[{os.fstat(out_fd).st_ino}]"
    except OSError:
        return False
    members = family(root, bot_id, since)
    if not members:
        return False
    for pid in members:
        st = _stat(pid)
        if st is None or pid == root or (st[0] == root and _comm(pid) == "bwrap"):
            continue  # bwrap itself, outside and as the sandbox's init
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            return False  # cannot tell: no verdict
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == pipe:
                    return False
            except OSError:
                continue
    return True


def _signal(pid: int, start: int, sig: int) -> None:
    """Send `sig` to `pid` only if it is still the process that started at `start` (pidfd: no reuse race)."""
    try:
        fd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        fd = None
    try:
        if start_ticks(pid) != start:
            return
        if fd is not None:
            signal.pidfd_send_signal(fd, sig)
        else:
            os.kill(pid, sig)
    except OSError:
        pass
    finally:
        if fd is not None:
            os.close(fd)


def kill_family(root: int, bot_id: str, since: int) -> None:
    """Freeze every process of the bot until a scan finds no new one, then kill them all; again
    while a scan shortly after still finds one (a child whose fork raced the freeze)."""
    for attempt in range(5):
        frozen: dict[int, int] = {}
        for _ in range(50):
            new = {pid: start for pid, start in family(root, bot_id, since).items() if pid not in frozen}
            if not new:
                break
            for pid, start in new.items():
                _signal(pid, start, signal.SIGSTOP)
            frozen.update(new)
        for pid, start in frozen.items():
            _signal(pid, start, signal.SIGKILL)
        if not frozen:
            return
        time.sleep(0.01 * (attempt + 1))  # the kills land; a racing fork's child shows up
