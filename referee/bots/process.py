"""A bot's process: starting it, draining its stderr, telling how it ended, killing it.

`command` builds what is started: the bot's argv behind the resource-limit wrapper
(`referee.bots.limits`: CPU seconds, address space, file size, open files, no core dumps; set by
a wrapper command, never by a `preexec_fn`), optionally inside the bubblewrap sandbox
(`referee.bots.sandbox`), with REFEREE_BOT_ID in its environment and the deal key never in it.
`BotProcess` runs it in its own session and process group, so the whole group (children
included) is killed with one `os.killpg`; `kill` first freezes and kills every process of the
bot wherever it went (`referee.bots.family`). `StderrDrain` reads stderr on a daemon thread
into a capped log (a `LazyLog`: made at the first byte), so a bot never blocks on a full stderr
pipe and never fills the disk; at the end it reads to EOF for about a second at most, so a
descendant that escaped holding the pipe cannot keep the referee waiting.

Nothing here waits without a deadline; once the process runs, only `drain_stderr` may raise
(it cannot start its thread), and the caller then kills the process.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from referee.bots import sandbox as _sandbox
from referee.bots.family import (BOT_ID_VAR, Snapshot, family, kill_family, sandbox_strays, start_ticks,
                                 stdout_closed_in_sandbox)
from referee.bots.limits import MB, ResourceLimits, wrapper

STDERR_TAIL_BYTES = 2048  # stderr kept for fault records
READ_CHUNK = 65536  # bytes per os.read of the bot's stderr
TRUNCATED_LINE = b"[stderr truncated]\n"


def _abs_path(path: str, cwd: str | Path | None) -> str:
    """PATH with relative entries made absolute against `cwd` (where the bot will run)."""
    if cwd is None:
        return path
    return os.pathsep.join(p if os.path.isabs(p) else os.path.join(cwd, p) for p in path.split(os.pathsep))


def command(argv: Sequence[str], *, cwd: str | Path | None, env: Mapping[str, str] | None,
            resources: ResourceLimits | None, sandbox: str, hide: Sequence[str | Path],
            bot_id: str, home: str | Path | None = None,
            shared: Sequence[str | Path] = ()) -> tuple[list[str], dict[str, str], _sandbox.Box | None]:
    """The full command line (limits wrapper, sandbox), the environment to start it with, and
    the sandbox's `Box` (None unsandboxed: start the command with its `fds`, then call its
    `started`; `close` it once the bot is dead). Raises FileNotFoundError for a program that is
    not there, OSError for a sandbox that cannot be used, IndexError for an empty command; no
    box is left open then."""
    if not argv:
        raise IndexError("empty command")
    full_env = dict(env if env is not None else os.environ)
    for name in _sandbox.NEVER_ENV:  # the deal key, even unsandboxed
        full_env.pop(name, None)
    full_env[BOT_ID_VAR] = bot_id
    program = argv[0]
    if os.sep in program:
        found = os.path.join(cwd, program) if cwd is not None else program
        if not (os.path.isfile(found) and os.access(found, os.X_OK)):
            raise FileNotFoundError(f"{program} does not exist or is not executable")
    else:
        # Searched on the bot's PATH, with the bot's working directory for relative entries.
        if shutil.which(program, path=_abs_path(full_env.get("PATH", os.defpath), cwd)) is None:
            raise FileNotFoundError(f"{program} is not on PATH")
    full = wrapper(resources) + list(argv)
    if sandbox != "bwrap":
        return full, full_env, None
    # bwrap itself starts with the bot's clean environment: its init (pid 1 inside) shows its
    # own environment to the bot.
    box = _sandbox.Box()
    try:
        if resources is not None:
            # Its processes (threads included) and memory in all, scratch included, where cgroups can be made.
            pids = resources.nproc or _sandbox.PIDS_MAX
            memory = (resources.memory_mb + resources.fsize_mb) * MB if resources.memory_mb > 0 else 0
            box.confine(bot_id, pids, memory)
        full_env = _sandbox.bot_env(env)
        full_env[BOT_ID_VAR] = bot_id
        # The scratch holds no more than the largest file the bot may write.
        size = resources.fsize_mb if resources is not None else _sandbox.SCRATCH_MB
        return _sandbox.wrap(full, cwd, box, hide, home, shared, size), full_env, box
    except BaseException:
        box.close()
        raise


def describe_exit(returncode: int, sandboxed: bool = False) -> str:
    """An exit status in words: "exited with code 3", "killed by signal SIGKILL"."""
    if sandboxed and 128 < returncode < 128 + 65:
        returncode = 128 - returncode  # bwrap exits 128+N for a bot killed by signal N
    if returncode >= 0:
        return f"exited with code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = str(-returncode)
    return f"killed by signal {name}"


class BotProcess:
    """One started bot program (its `command`), in its own session and process group.

    Its pid stays a zombie until `kill` reaps it (exit statuses are read with WNOWAIT), so
    neither the pid nor the process group id can be reused while the bot's processes are
    looked for and killed.
    """

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: str | Path | None,
                 bot_id: str, sandboxed: bool, pass_fds: Sequence[int] = ()) -> None:
        """Start `argv` with stdin, stdout and stderr piped (and `pass_fds` open: bwrap's);
        raises OSError or ValueError if it cannot start (a missing or non-executable program,
        a bad cwd)."""
        self.popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            cwd=cwd,
            env=env,
            close_fds=True,
            pass_fds=tuple(pass_fds),
            start_new_session=True,  # own session and process group: killpg reaches every child
        )
        #: the bot's process id, which is also its process group and session id
        self.pid = self.popen.pid
        self.bot_id = bot_id
        #: whether it runs in the sandbox (bwrap is then the process started)
        self.sandboxed = sandboxed
        #: the bot's start time (clock ticks after boot): all its processes are younger
        self.since = start_ticks(self.pid) or 0
        #: its stderr reader, once `drain_stderr` started it
        self.stderr: StderrDrain | None = None
        #: the rusage of its reaping (`kill`; in the sandbox: bwrap's own, the bot's not in it)
        self.rusage: Any = None

    @property
    def stdin(self) -> BinaryIO:
        assert self.popen.stdin is not None
        return self.popen.stdin

    @property
    def stdout(self) -> BinaryIO:
        assert self.popen.stdout is not None
        return self.popen.stdout

    def drain_stderr(self, log: LazyLog | None, cap: int) -> None:
        """Start reading stderr into `log` (closed at the end; or None), at most `cap` bytes of it."""
        self.stderr = StderrDrain(self.popen.stderr, log, cap, f"referee-stderr-{self.pid}")

    def exit_status(self, wait: float) -> str | None:
        """How the process ended ("exited with code 3"), waiting up to `wait` s; not reaped."""
        proc = self.popen
        deadline = time.perf_counter() + wait
        while True:
            if proc.returncode is not None:
                return describe_exit(proc.returncode, self.sandboxed)
            try:
                # WNOWAIT leaves the zombie in place, so the pid (= process group id) cannot be
                # reused before kill() kills the group.
                info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return None
            if info is not None:
                if info.si_code == os.CLD_EXITED:
                    return describe_exit(info.si_status, self.sandboxed)
                return describe_exit(-info.si_status)
            if time.perf_counter() >= deadline:
                return None
            time.sleep(0.005)

    def wait_exit(self, deadline: float) -> None:
        """Until the process exits or `deadline`: woken at once by a pidfd when it exits."""
        fd = None
        try:
            fd = os.pidfd_open(self.pid)
        except (OSError, AttributeError):
            pass
        try:
            while self.exit_status(0) is None:
                left = deadline - time.perf_counter()
                if left <= 0:
                    return
                if fd is not None:
                    select.select([fd], [], [], left)  # readable once the process has exited
                else:
                    time.sleep(min(0.01, left))
        finally:
            if fd is not None:
                os.close(fd)

    def still_running(self) -> dict[int, int]:
        """The bot's processes that count as running ({pid: start ticks}; in the sandbox
        without bwrap's own two)."""
        live = family(self.pid, self.bot_id, self.since)
        return sandbox_strays(self.pid, live) if self.sandboxed else live

    def alone(self, snapshot: Snapshot | None = None) -> bool:
        """Whether the bot's process runs alone: not exited, no child, nothing else in its
        process group or session or carrying its id (in the sandbox: besides bwrap's own two).
        `snapshot`: a /proc pass taken since this bot started (`Snapshot`), to share one scan."""
        if self.exit_status(0) is not None:
            return False
        if snapshot is None:
            snapshot = Snapshot(self.since)
        live = snapshot.family(self.pid, self.bot_id, self.since)
        if self.sandboxed:
            return len(sandbox_strays(self.pid, live)) == 1
        return set(live) == {self.pid}

    def stdout_closed(self) -> bool:
        """Whether a sandboxed bot closed its stdout yet lives on (asked only at a timeout: bwrap
        keeps the pipe open, so no EOF tells it); False unsandboxed."""
        if not self.sandboxed:
            return False
        try:
            out_fd = self.stdout.fileno()
        except ValueError:  # closed already
            return False
        return stdout_closed_in_sandbox(self.pid, self.bot_id, self.since, out_fd)

    def kill(self) -> None:
        """Kill every process of the bot and its process group, and reap it; never raises."""
        # Before the bot dies its children are found by descent too. Its pid stays a zombie
        # until popen.wait, so neither it nor its group id can be reused meanwhile.
        kill_family(self.pid, self.bot_id, self.since)
        try:
            os.killpg(self.pid, signal.SIGKILL)  # the whole group, also after a clean exit
        except OSError:
            pass
        try:
            self.wait_exit(time.perf_counter() + 5.0)
            if self.popen.returncode is None:
                # reaped with wait4, not popen.wait: its rusage (CPU, peak memory) comes with it
                pid, status, usage = os.wait4(self.pid, os.WNOHANG)
                if pid == self.pid:
                    self.popen.returncode = os.waitstatus_to_exitcode(status)
                    self.rusage = usage
        except Exception:
            pass

    def close_pipes(self) -> None:
        """Close our ends of its stdin and stdout if still open (a channel closes them first)."""
        for pipe in (self.popen.stdin, self.popen.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass


class LazyLog:
    """A bot's stderr log, made only when something is written into it: a bot that writes
    nothing to stderr leaves no file. A log made beforehand (empty, so that the sandbox could
    hide it: `referee.bots.sandbox`) is removed at `close` if nothing was written into it."""

    def __init__(self, path: str | Path, mode: str = "wb") -> None:
        self.path = Path(path)
        self._mode = mode  # "ab": after what an earlier process of this match left in it
        self._file: BinaryIO | None = None

    def write(self, data: bytes) -> None:
        if self._file is None:
            self._file = open(self.path, self._mode)
        self._file.write(data)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Close the file; remove it if it was made beforehand and is still empty; never raises."""
        try:
            if self._file is not None:
                self._file.close()
            elif self.path.stat().st_size == 0:
                self.path.unlink()
        except OSError:
            pass


class StderrDrain:
    """A daemon thread reading a bot's stderr to EOF: the last bytes kept, the first `cap` logged.

    Past the cap it writes one "[stderr truncated]" line and keeps reading into the void, so the
    bot never blocks on a full stderr pipe.
    """

    def __init__(self, pipe: Any, log: LazyLog | None, cap: int, name: str) -> None:
        self.tail = b""  # replaced, never mutated: reading it from another thread is safe
        self.total = 0  # bytes read into the current log
        self._pipe = pipe
        self._log = log
        self._room = max(0, cap)
        self._last = b"\n"
        self._stop = False
        self._eof = False
        # Held while a chunk is read and logged, so that `switch` moves to the next log between
        # two chunks, never in the middle of one.
        self._lock = threading.Lock()
        self._poller = select.poll()
        self._poller.register(pipe.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        poller = self._poller
        try:
            while not self._stop:
                # Poll with a timeout so `stop` works even if an escaped descendant keeps the pipe open.
                if not poller.poll(200):
                    continue
                with self._lock:
                    if not self._chunk():
                        break
        except (OSError, ValueError):
            pass

    def _chunk(self) -> bool:
        """Read and log one chunk (the pipe is readable); False at EOF."""
        data = os.read(self._pipe.fileno(), READ_CHUNK)
        if not data:
            self._eof = True
            return False
        self.tail = (self.tail + data)[-STDERR_TAIL_BYTES:]
        self.total += len(data)
        self._log_chunk(data)
        return True

    def switch(self, log: LazyLog | None, cap: int) -> bool:
        """Log from now on into `log` (a reused bot's next match), after logging what the pipe
        holds now into the current log, which is then closed; the tail is emptied. False, and
        nothing switched, if the current log overflowed its cap (the bot flooded stderr) or the
        pipe is closed."""
        with self._lock:
            try:
                poller = select.poll()  # its own: one poll object may not be polled by two threads
                poller.register(self._pipe.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
                while not self._eof and poller.poll(0) and self._chunk():
                    pass
            except (OSError, ValueError):
                return False
            if self._eof or self._room < 0 or not self._thread.is_alive():
                return False
            old, self._log = self._log, log
            self._room, self._last, self.tail, self.total = max(0, cap), b"\n", b"", 0
        if old is not None:
            try:
                old.close()
            except OSError:
                pass
        return True

    def _log_chunk(self, data: bytes) -> None:
        log = self._log
        if log is None or self._room < 0:
            return
        try:
            if len(data) <= self._room:
                log.write(data)
                self._room -= len(data)
                self._last = data[-1:]
            else:
                kept = data[: self._room]
                if kept:
                    self._last = kept[-1:]
                log.write(kept + (b"" if self._last == b"\n" else b"\n") + TRUNCATED_LINE)
                self._last = b"\n"
                self._room = -1  # truncated: drain the rest to nowhere
            log.flush()
        except (OSError, ValueError):
            self._room = -1

    def text(self) -> str:
        """The last ~2 KB of stderr, decoded leniently."""
        return self.tail.decode("utf-8", "replace")

    def settle(self, timeout: float) -> None:
        """Give the thread up to `timeout` seconds to read what a just-exited bot left."""
        self._thread.join(timeout)

    def finish(self, notes: Callable[[int], list[str]] | None = None) -> None:
        """Wait for EOF (briefly), stop the thread, append the referee's notes (`notes(bytes read)`)
        to the log, close the pipe and the log; never raises."""
        try:
            self._thread.join(1.0)
            if self._thread.is_alive():
                self._stop = True
                self._thread.join(1.0)
            if not self._thread.is_alive():
                self._pipe.close()
                if self._log is not None or notes is not None:
                    notes = notes(self.total) if notes is not None else []
                if self._log is not None:
                    if notes:
                        lead = b"" if self._last == b"\n" else b"\n"
                        self._log.write(lead + "".join(f"[referee] {n}\n" for n in notes).encode())
                    self._log.close()
        except Exception:
            pass
