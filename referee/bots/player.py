"""The adapter for external bots: a program speaking protocol v1 (JSON lines) on stdin/stdout.

Every bot is treated as hostile. Each bot runs in its own session and process group, so the
whole group (children included) can be killed with one `os.killpg`. Every wait has a deadline;
the bot's stdin and stdout are non-blocking and multiplexed with `selectors`, so a bot that stops
reading its stdin times out instead of hanging the referee. Reads go through our own bounded
line buffer (a line longer than `max_line_bytes` is an `invalid` fault), stderr is drained by a
daemon thread into a capped log file, and misbehaviour comes back as a `Fault`, never an
exception. Events are buffered in memory and written together with the next `act` (or `end`) in
one `os.write`, which is also the fast path of a decision.

Cases the protocol leaves open, settled here:
- A blank line from a bot (a stray `print()`) is skipped, not a fault.
- A `ready` arriving after `start` timed out is ignored (it answers hello, not an act); any other
  message type while waiting for an action is `invalid`. A reply with an id never asked yet is
  `invalid`; one with an older id is discarded.
- Only a bot told `end` gets the `end_grace_ms` grace period to exit; a disqualified bot (closed
  without `end`) has its process group killed at once.
- A bot that leaves more than `max_pending_bytes` of events unread is given up: every later `act`
  returns at once a `timeout` fault ("stopped reading its stdin").
- A descendant that leaves the bot's session (`setsid`) escapes `killpg`; `close` finds it all
  the same (below) and stops reading stderr after about a second instead of waiting for EOF.

Hostile bots (docs/security.md):
- Every wait is `time_ms` (or `start_ms`) plus `grace_ms`, so transport jitter is not a fault;
  the bot is told `time_ms` only.
- The bot runs under resource limits (CPU seconds, address space, file size, open files, no core
  dumps) set by a wrapper command (`referee.bots.limits`), never by a `preexec_fn`; optionally inside
  the bubblewrap sandbox (`referee.bots.sandbox`).
- Every process of the bot carries `REFEREE_BOT_ID=<unique id>` in its environment. At `close`
  the referee freezes (SIGSTOP) and then kills (SIGKILL) every live process that is in the bot's
  process group or session, descends from it, or carries its id, repeating the scan until no new
  one appears (a forking bot cannot outrun it). A descendant that both leaves the session and
  drops the variable escapes this in plain mode; in the sandbox its PID namespace dies with it.
- Conduct that is no protocol fault is noted in `conduct` (and in the log): processes still
  running after `end` and its grace period, stderr beyond the log cap. `referee validate`
  reports them; a match is not affected.

Reuse (docs/protocol.md, "Reusing a bot process"): a bot that declares `"reuse": true` in its
`ready` and is leased from a `BotPool` keeps its stdin open after a clean `end`; the pool then
hands the same process to a later match (`rebind`: its stderr drain re-pointed to that match's
log), whose `start` only sends hello. Everything per match (ids, stats, the announced name) is
reset there; what makes the process (argv, cwd, env, limits, sandbox, scratch) stays.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import secrets
import select
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.bots import sandbox as _sandbox
from referee.game import Action
from referee.bots.limits import GRACE_MS, ResourceLimits, wrapper
from referee.players import RAW_CAP, Fault, Hello, Player, Reply
from referee.replay.records import dumps_line

STDERR_TAIL_BYTES = 2048  # stderr kept for fault records
READ_CHUNK = 65536  # bytes per os.read of the bot's stdout or stderr
NAME_CAP = 100  # characters kept of the name, version and author a bot announces
MAX_PENDING_BYTES = 16 << 20  # unsent bytes (events) buffered for a bot before it is given up
TRUNCATED_LINE = b"[stderr truncated]\n"
BOT_ID_VAR = "REFEREE_BOT_ID"  # the marker every process of a bot inherits
_DEFAULT = ResourceLimits()
_ids = itertools.count(1)
# The last event object encoded and its line: the runner hands every seat the very same event
# object, so it is encoded once for all of them (one tuple, swapped whole: safe across threads;
# holding the object keeps its id from being reused).
_last_event: tuple[Any, bytes] = (None, b"")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# NaN and Infinity are Python extensions, not JSON: a bot sending them sends invalid JSON.
_loads = json.JSONDecoder(parse_constant=_reject_constant).decode


class _Overlong:
    """Stands in the line queue for a line longer than max_line_bytes (its head kept for the fault)."""

    __slots__ = ("head",)

    def __init__(self, head: bytes) -> None:
        self.head = head


_OK = object()  # a handler's "done, nothing to return" (the bot said ready)


def _shown(value: Any, cap: int = 60) -> str:
    """A value from a bot quoted in a fault's detail: its repr, cut to `cap` characters (the
    offending line itself is kept, capped, as the fault's raw text)."""
    text = repr(value)
    return text if len(text) <= cap else text[: cap - 3] + "..."


def _text(data: bytes | bytearray, cap: int = RAW_CAP) -> str:
    """At most `cap` characters of raw bytes, decoded leniently, for fault records."""
    return bytes(data[: cap * 4]).decode("utf-8", "replace")[:cap]


class _StderrDrain:
    """A daemon thread reading a bot's stderr to EOF: the last bytes kept, the first `cap` logged.

    Past the cap it writes one "[stderr truncated]" line and keeps reading into the void, so the
    bot never blocks on a full stderr pipe.
    """

    def __init__(self, pipe: Any, log: Any, cap: int, name: str) -> None:
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

    def switch(self, log: Any, cap: int) -> bool:
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


class SubprocessPlayer(Player):
    """A seat played by an external program speaking protocol v1 (PROTOCOL.md)."""

    kind = "command"

    def __init__(
        self,
        argv: Sequence[str],
        log_path: str | Path | None = None,
        start_ms: int = 5000,
        max_line_bytes: int = 65536,
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        stderr_cap: int = 1_000_000,
        end_grace_ms: int = 2000,
        max_pending_bytes: int = MAX_PENDING_BYTES,
        transcript: Callable[[str, bytes], None] | None = None,
        grace_ms: int = GRACE_MS,
        resources: ResourceLimits | None = _DEFAULT,
        sandbox: str = "none",
        hide: Sequence[str | Path] | None = None,
        spin_us: int = 0,
    ) -> None:
        self.argv = [os.fspath(a) for a in argv]
        self.log_path = Path(log_path) if log_path is not None else None
        self.start_ms = start_ms
        self.max_line_bytes = max_line_bytes
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.stderr_cap = stderr_cap
        self.end_grace_ms = end_grace_ms
        self.max_pending_bytes = max_pending_bytes
        #: called with ("send", line) for every line written and ("recv", line) for every line read
        self.transcript = transcript
        self.grace_ms = grace_ms
        #: how long to poll for a reply before sleeping until it comes (referee.bots.limits.spin_us)
        self.spin_us = spin_us
        #: the OS limits of every process of the bot (None: the referee's own)
        self.resources = resources
        _sandbox.check(sandbox)
        #: "none" or "bwrap" (asked for); `sandboxed` tells whether the bot really runs in it
        self.sandbox = sandbox
        self.sandboxed = False
        #: directories the sandboxed bot may not see (default: the directory of its log, where
        #: the replay and the other seats' logs are written)
        self.hide = list(hide) if hide is not None else ([self.log_path.parent] if self.log_path else [])
        #: (kind, detail) of misconduct that is no protocol fault: "stray-process", "stderr-flood"
        self.conduct: list[tuple[str, str]] = []
        #: the most matches one process may play ("Reusing a bot process", docs/protocol.md),
        #: set by its BotPool; 0 or 1: one, stdin closed after `end` as always
        self.reuse = 0
        #: the deal of the match being played, as its BotPool names it ((game, seed))
        self.deal: Any = None
        self._keeper: Callable[[SubprocessPlayer], bool] | None = None  # its BotPool's, while leased
        self._log_mode = "wb"
        self._init_process()
        self._init_match()
        self._closed = False

    def _init_process(self) -> None:
        """The state of one bot process, before it starts (again, for a kept process that failed)."""
        #: the value of REFEREE_BOT_ID in every process of this bot
        self.bot_id = f"{os.getpid()}-{next(_ids)}-{secrets.token_hex(4)}"
        self.scratch: Path | None = None
        #: whether the bot declared in `ready` that it can play several matches ("reuse": true)
        self.reusable = False
        #: matches this process was told `end` of, and their deals (see `deal`)
        self.matches = 0
        self.seen: set[Any] = set()
        self._kept = False  # told `end`, its stdin left open: it waits for its next hello
        self._remarks: list[str] = []  # the referee's lines for the log, beside the conduct notes
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: _StderrDrain | None = None
        self._sel: selectors.BaseSelector | None = None
        self._in_fd = -1
        self._out_fd = -1
        self._writing = False  # stdin registered with the selector
        self._out = bytearray()  # bytes not yet written to the bot's stdin
        self._buf = bytearray()  # the incomplete line read from the bot's stdout
        self._lines: deque[bytes | _Overlong] = deque()
        self._discarding = False  # skipping the rest of an overlong line
        self._eof = False
        self._since = 0  # the bot's start time (clock ticks after boot): its processes are younger

    def _init_match(self) -> None:
        """The state of one match (again at each hello of a kept process)."""
        #: counters of what the bot sent: lines, blank lines, replies to old ids, late readys
        self.stats = {"lines": 0, "blank": 0, "stale": 0, "late_ready": 0}
        #: what the bot announced in `ready` (None until then)
        self.name: str | None = None
        self.version: str | None = None
        self.author: str | None = None
        self._seat = -1
        self._dead: Fault | None = None  # sticky: every later act returns it without I/O
        self._ready = False
        self._want_id = -1  # act ids restart with each match
        self._t0 = 0.0
        self._end_deadline: float | None = None
        self._ended = False

    # -- Player interface --------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The bot's process id, which is also its process group id (None if it never started)."""
        return self._proc.pid if self._proc is not None else None

    def stderr_tail(self) -> str:
        """The last ~2 KB the bot wrote to stderr."""
        return self._stderr.text() if self._stderr is not None else ""

    def start(self, hello: Hello) -> Fault | None:
        """Spawn the bot (or, kept from an earlier match, just greet it), send hello, wait for
        ready within start_ms."""
        self._seat = hello.seat
        if self._kept and not self._closed:
            self._kept = False
            fault = self._greet(hello)
            if fault is None:
                return None
            # It did not answer this match's hello as it declared it would (it ended, wrote
            # something else, took too long): a fresh process plays the match instead, as without
            # reuse, and the kept one's failure is no fault of the match.
            self._remarks.append(f"the process kept from an earlier match failed its next hello ({fault.kind}: "
                                 f"{fault.detail}): a fresh one was started")
            self._stop()
            self._init_process()
            self._init_match()
            self._seat = hello.seat
            self._log_mode = "ab"  # after what the kept process left in this match's log
        if self._proc is not None or self._dead is not None or self._closed:
            return self._dead
        log = None
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = open(self.log_path, self._log_mode)
            self._log_mode = "wb"
        try:
            argv, env = self._command()
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=self.cwd,
                env=env,
                close_fds=True,
                start_new_session=True,  # own session and process group: killpg reaches every child
            )
        except (OSError, ValueError, IndexError) as exc:  # missing or non-executable program, bad cwd...
            self._dead = Fault("crash", f"cannot start {self.argv[0] if self.argv else '(empty command)'}: {exc}")
            if log is not None:
                log.write(f"[referee] {self._dead.detail}\n".encode())
                log.close()
            self._drop_scratch()
            return self._dead
        self._proc = proc
        self._since = _start_ticks(proc.pid) or 0
        try:
            self._stderr = _StderrDrain(proc.stderr, log, self.stderr_cap, f"referee-stderr-{proc.pid}")
            assert proc.stdin is not None and proc.stdout is not None
            self._in_fd = proc.stdin.fileno()
            self._out_fd = proc.stdout.fileno()
            os.set_blocking(self._in_fd, False)
            os.set_blocking(self._out_fd, False)
            self._sel = selectors.DefaultSelector()
            self._sel.register(self._out_fd, selectors.EVENT_READ)
            return self._greet(hello)
        except BaseException:
            self.close()
            raise

    def _greet(self, hello: Hello) -> Fault | None:
        """Send hello to the running process and wait for its ready within start_ms."""
        started = time.perf_counter()
        self._send(self._line(hello.message()))
        result = self._exchange(started + (self.start_ms + self.grace_ms) / 1000.0, self._on_ready)
        if result is _OK:
            return None
        if result is None:
            if self._stdout_closed_in_sandbox():
                return self._crash("closed its stdout")
            return self._fault("timeout", f"no ready within {self.start_ms} ms of hello", self._buf)
        return result

    def event(self, event: dict[str, Any]) -> None:
        """Queue an event line; it is written with the next act or end (never blocks)."""
        if self._dead is not None or self._proc is None or self._closed or self._ended:
            return
        global _last_event
        last = _last_event
        if event is last[0]:
            line = last[1]
        else:
            line = b'{"type":"event","event":' + dumps_line(event, strict=False)[:-1] + b"}\n"
            _last_event = (event, line)
        if len(self._out) + len(line) > self.max_pending_bytes:
            crashed = self._flush()  # no waiting: only what the pipe takes right now
            if crashed is not None:
                return
            if len(self._out) + len(line) > self.max_pending_bytes:
                self._out.clear()
                self._dead = self._fault(
                    "timeout", f"stopped reading its stdin: over {self.max_pending_bytes} bytes waiting to be sent"
                )
                return
        self._send(line)

    def act(self, id: int, obs: dict[str, Any], legal: list[Action], time_ms: int,
            meanwhile: Callable[[], None] | None = None) -> Reply:
        """Send pending events and the act; read until the reply to `id` or the deadline.

        `meanwhile`, if given, is called once the act is written, while the bot thinks (the
        runner writes its replay records then, off the time between a reply and the next act).
        """
        if self._dead is not None:
            return Reply(fault=self._dead)
        if self._proc is None or self._closed or self._ended:
            return Reply(fault=Fault("crash", "the bot is not running"))
        if self._lines:
            early = self._early()
            if early is not None:
                return Reply(fault=early)
        self._send(self._line({"type": "act", "id": id, "obs": obs, "legal": legal, "time_ms": time_ms}))
        self._want_id = id
        self._t0 = started = time.perf_counter()
        result = self._exchange(started + (time_ms + self.grace_ms) / 1000.0, self._on_reply, meanwhile)
        if type(result) is Reply:
            return result
        ms = (time.perf_counter() - started) * 1000.0
        if result is None:
            if self._stdout_closed_in_sandbox():
                return Reply(fault=self._crash("closed its stdout"), ms=ms)
            if self._exit_status(0) is not None:  # it exited; a child of its still holds stdout
                return Reply(fault=self._crash("exited"), ms=ms)
            # raw: whatever partial line the bot left unterminated (a forgotten newline shows here)
            return Reply(fault=self._fault("timeout", f"no reply within {time_ms} ms", self._buf), ms=ms)
        return Reply(fault=result, ms=ms)

    def end(self, result: dict[str, Any]) -> None:
        """Send pending events and the end message, then close the bot's stdin; leave it open
        instead for a bot its pool may keep for another match (`keepable`)."""
        if self._dead is not None or self._proc is None or self._closed or self._ended:
            return
        self._ended = True
        self._send(self._line({"type": "end", "result": result}))
        self._end_deadline = time.perf_counter() + self.end_grace_ms / 1000.0
        self.matches += 1
        self.seen.add(self.deal)
        keep = self.keepable(result)
        try:
            self._exchange(self._end_deadline, None)
        finally:
            if keep and self._dead is None and not self._out:  # all of it written: it reads its stdin
                self._kept = True
            else:
                self._close_stdin()

    def keepable(self, result: dict[str, Any]) -> bool:
        """Whether this process may play another match after this one, which ended in `result`:
        leased by a pool, declared reuse, has matches left (`reuse`), no fault of its seat in
        this match, and no stderr past the log's cap."""
        faults = result.get("faults")
        return (self._keeper is not None and self.reusable and self.matches < self.reuse
                and isinstance(faults, list) and 0 <= self._seat < len(faults) and faults[self._seat] == 0
                and not self.conduct and self._stderr is not None and self._stderr.total <= self.stderr_cap)

    def process_key(self) -> tuple[Any, ...]:
        """Everything that makes this bot's process and how it is talked to (for a BotPool's
        keys): command line, working directory, environment, limits, sandbox, wire settings."""
        env = tuple(sorted(self.env.items())) if self.env is not None else None
        return (tuple(self.argv), os.fspath(self.cwd) if self.cwd is not None else None, env, self.resources,
                self.sandbox, self.start_ms, self.max_line_bytes, self.grace_ms, self.stderr_cap,
                self.end_grace_ms, self.max_pending_bytes, self.spin_us)

    @property
    def kept(self) -> bool:
        """Told `end` with its stdin left open: it waits for the hello of its next match."""
        return self._kept and not self._closed

    def rebind(self, log_path: str | Path | None) -> bool:
        """Make a kept process ready for its next match, its stderr logged into `log_path` from
        now on. False, nothing changed, if it cannot play it: it exited, wrote to its stdout
        after `end`, or wrote more to stderr than its log takes."""
        if not self.kept or self._proc is None or self._sel is None or self._exit_status(0) is not None:
            return False
        out_fd = self._out_fd
        try:
            while not self._eof and any(key.fd == out_fd for key, _ in self._sel.select(0)):
                self._read()
        except (OSError, ValueError):
            return False
        if self._eof or self._lines or self._buf or self._stderr is None:
            return False
        log = None
        if log_path is not None:
            log_path = Path(log_path)
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log = open(log_path, "wb")
        if not self._stderr.switch(log, self.stderr_cap):
            if log is not None:
                log.close()
            return False
        self.log_path = log_path
        self._init_match()
        return True

    def alone(self) -> bool:
        """Whether the bot's process runs alone: no child, nothing else in its process group or
        session or carrying its id (in the sandbox: besides bwrap's own two processes)."""
        proc = self._proc
        if proc is None or self._exit_status(0) is not None:
            return False
        family = _family(proc.pid, self.bot_id, self._since)
        if self.sandboxed:
            return len(_sandbox_strays(proc.pid, family)) == 1
        return set(family) == {proc.pid}

    def running(self) -> bool:
        """Whether the bot's process is still running (not exited, not reaped)."""
        return self._proc is not None and not self._closed and self._exit_status(0) is None

    def hang_up(self, grace: bool = True) -> None:
        """End a kept process as the protocol ends a bot: close its stdin (EOF) and (with
        `grace`) give it end_grace_ms to exit; `close` then reaps it, noting what still runs.
        Without `grace`, `close` kills it at once."""
        if self.kept:
            self._kept = False
            self._keeper = None
            self._close_stdin()
            self._end_deadline = time.perf_counter() + self.end_grace_ms / 1000.0 if grace else None
        elif not grace:
            self._end_deadline = None

    def settled(self) -> bool:
        """Whether `close` would not wait: the process exited, or its grace after `end` is over."""
        return (self._proc is None or self._end_deadline is None or time.perf_counter() >= self._end_deadline
                or self._exit_status(0) is not None)

    def close(self) -> None:
        """Close stdin, give an ended bot its grace period, kill its process group, reap it.
        A kept process (see `end`) goes back to its pool instead, if the pool takes it."""
        if self._closed:
            return
        keeper, self._keeper = self._keeper, None
        if keeper is not None and keeper(self):
            return
        self._closed = True
        self._stop()

    def _stop(self) -> None:
        """Close stdin, give an ended bot its grace period, kill its process group, reap it, close
        its log, remove its scratch directory."""
        proc = self._proc
        try:
            if proc is not None:
                self._close_stdin()
                if self._end_deadline is not None:
                    # Only a bot told `end` is owed the grace period; a disqualified one is not.
                    self._wait_exit(self._end_deadline)
                    live = _family(proc.pid, self.bot_id, self._since)
                    if self.sandboxed:
                        live = _sandbox_strays(proc.pid, live)
                    if live:
                        self.conduct.append(("stray-process", f"{len(live)} process{'es' if len(live) > 1 else ''} "
                                             f"still running {self.end_grace_ms} ms after end (killed)"))
                # Before the bot dies its children are found by descent too. Its pid stays a zombie
                # until proc.wait, so neither it nor its group id can be reused meanwhile.
                _kill_family(proc.pid, self.bot_id, self._since)
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # the whole group, also after a clean exit
                except OSError:
                    pass
                try:
                    proc.wait(timeout=5.0)
                except Exception:
                    pass
        finally:
            try:
                if self._sel is not None:
                    self._sel.close()
                if proc is not None and proc.stdout is not None:
                    proc.stdout.close()
            except Exception:
                pass
            if self._stderr is not None:
                self._stderr.finish(self._notes)
            self._drop_scratch()
            self._out.clear()
            self._buf.clear()
            self._lines.clear()

    # -- the process -----------------------------------------------------------------------------

    def _command(self) -> tuple[list[str], dict[str, str]]:
        """The full command line (limits wrapper, sandbox) and the environment to start it with."""
        if not self.argv:
            raise IndexError("empty command")
        env = dict(self.env if self.env is not None else os.environ)
        for name in _sandbox.NEVER_ENV:  # the deal key, even unsandboxed
            env.pop(name, None)
        env[BOT_ID_VAR] = self.bot_id
        program = self.argv[0]
        if os.sep in program:
            found = os.path.join(self.cwd, program) if self.cwd is not None else program
            if not (os.path.isfile(found) and os.access(found, os.X_OK)):
                raise FileNotFoundError(f"{program} does not exist or is not executable")
        else:
            # Searched on the bot's PATH, with the bot's working directory for relative entries.
            if shutil.which(program, path=_abs_path(env.get("PATH", os.defpath), self.cwd)) is None:
                raise FileNotFoundError(f"{program} is not on PATH")
        argv = wrapper(self.resources) + self.argv
        if self.sandbox == "bwrap":
            # bwrap itself starts with the bot's clean environment: its init (pid 1 inside) shows
            # its own environment to the bot.
            self.scratch = _sandbox.new_scratch()
            env = _sandbox.bot_env(self.env, self.scratch)
            env[BOT_ID_VAR] = self.bot_id
            argv = _sandbox.wrap(argv, self.cwd, self.scratch, self.hide)
            self.sandboxed = True
        return argv, env

    def _stdout_closed_in_sandbox(self) -> bool:
        """Whether a sandboxed bot closed its stdout yet lives on (asked only at a timeout).

        bwrap's own two processes keep the pipe open, so no EOF tells it: no process of the bot
        other than them still holds the pipe's write end.
        """
        if not self.sandboxed or self._proc is None:
            return False
        try:
            pipe = f"pipe:[{os.fstat(self._out_fd).st_ino}]"
        except OSError:
            return False
        root = self._proc.pid
        family = _family(root, self.bot_id, self._since)
        if not family:
            return False
        for pid in family:
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

    def _notes(self, stderr_bytes: int) -> list[str]:
        """The conduct notes for the log, once stderr is read to its end."""
        if stderr_bytes > self.stderr_cap:
            self.conduct.append(("stderr-flood", f"wrote {stderr_bytes} bytes to stderr, over the "
                                 f"{self.stderr_cap}-byte log cap"))
        # The log already ends in "[stderr truncated]": only the other notes go there.
        return [detail for kind, detail in self.conduct if kind != "stderr-flood"] + self._remarks

    def _drop_scratch(self) -> None:
        if self.scratch is not None:
            _sandbox.remove_scratch(self.scratch)

    # -- wire I/O ------------------------------------------------------------------------------

    @staticmethod
    def _line(message: dict[str, Any]) -> bytes:
        return dumps_line(message, strict=False)  # orjson if installed: the stdlib's bytes (NaN: null), ~10x faster

    def _send(self, line: bytes) -> None:
        """Queue one line for the bot's stdin (and the transcript)."""
        if self.transcript is not None:
            self.transcript("send", line)
        self._out += line

    def _exchange(self, deadline: float, handle: Callable[[Any], Any] | None,
                  meanwhile: Callable[[], None] | None = None) -> Any:
        """Write what is pending and read lines until `handle` returns something or `deadline`.

        Returns the handler's result, a crash Fault, or None at the deadline. With `handle`
        None, lines read are dropped and it returns None once everything is written. `meanwhile`
        is called after the first write. Before the first wait for a line, the pipe is polled for
        up to `spin_us` (once the bot has all its input): a quick reply is then read at once,
        without the wake-up of a process asleep in the kernel.
        """
        if self._out:
            crashed = self._flush()  # the fast path: one write takes it all
            if crashed is not None:
                return crashed
        if meanwhile is not None:
            meanwhile()
        sel = self._sel
        assert sel is not None
        lines = self._lines
        spin = self.spin_us if handle is not None else 0
        while True:
            if handle is None:
                lines.clear()
                if not self._out:
                    return None
            while lines:
                result = handle(lines.popleft())
                if result is not None:
                    return result
            if self._eof:
                return self._crash("closed its stdout")
            now = time.perf_counter()
            timeout = deadline - now
            if timeout <= 0:
                return None
            want_write = bool(self._out)
            if spin and not want_write:
                self._spin(min(deadline, now + spin / 1e6))
                spin = 0
                continue
            if want_write != self._writing:
                if want_write:
                    sel.register(self._in_fd, selectors.EVENT_WRITE)
                else:
                    sel.unregister(self._in_fd)
                self._writing = want_write
            for key, _ in sel.select(timeout):
                if key.fd == self._out_fd:
                    self._read()
                else:
                    crashed = self._flush()
                    if crashed is not None:
                        return crashed

    def _spin(self, until: float) -> None:
        """Poll the bot's stdout until a complete line or EOF arrives, or `until`."""
        read, lines, clock = self._read, self._lines, time.perf_counter
        while not lines and not self._eof and clock() < until:
            read()

    def _flush(self) -> Fault | None:
        """Write as much pending output as the pipe takes now; a crash Fault if it is closed."""
        try:
            written = os.write(self._in_fd, self._out)
        except BlockingIOError:
            return None
        except OSError:  # EPIPE: nobody reads the bot's stdin any more
            self._out.clear()
            return self._crash("closed its stdin")
        if written == len(self._out):
            self._out.clear()
        else:
            del self._out[:written]
        return None

    def _read(self) -> None:
        """One chunk from the bot's stdout into the line queue (EOF noted)."""
        try:
            data = os.read(self._out_fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._eof = True
            assert self._sel is not None
            self._sel.unregister(self._out_fd)
            return
        self._feed(data)

    def _feed(self, data: bytes) -> None:
        """Split bytes into complete lines; an overlong line becomes one _Overlong, its rest skipped."""
        cap = self.max_line_bytes
        buf = self._buf
        lines = self._lines
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            if self._discarding:
                self._discarding = False
            elif len(buf) + (nl - start) > cap:
                lines.append(_Overlong(bytes(buf[: RAW_CAP * 4]) + data[start : start + RAW_CAP * 4]))
                buf.clear()
            elif buf:
                buf += data[start:nl]
                lines.append(bytes(buf))
                buf.clear()
            else:
                lines.append(data[start:nl])
            start = nl + 1
        if start < len(data) and not self._discarding:
            if len(buf) + len(data) - start > cap:
                # Reported now, without waiting for a newline that may never come.
                lines.append(_Overlong(bytes(buf[: RAW_CAP * 4]) + data[start : start + RAW_CAP * 4]))
                buf.clear()
                self._discarding = True
            else:
                buf += data[start:]

    # -- message handling --------------------------------------------------------------------

    def _parse(self, item: bytes | _Overlong) -> tuple[dict[str, Any] | None, Fault | None]:
        """A line as a JSON object, or the invalid fault it is; (None, None) for a blank line."""
        if type(item) is _Overlong:
            if self.transcript is not None:
                self.transcript("recv", item.head + b"...[line too long]\n")
            return None, self._fault("invalid", f"line too long (over {self.max_line_bytes} bytes)", item.head)
        if self.transcript is not None:
            self.transcript("recv", item + b"\n")
        self.stats["lines"] += 1
        try:
            text = item.decode("utf-8")
        except UnicodeDecodeError:
            return None, self._fault("invalid", "line is not UTF-8", item)
        try:
            message = _loads(text)
        except ValueError:
            if not text.strip():
                self.stats["blank"] += 1
                return None, None  # a stray empty line (print()) is tolerated
            return None, self._fault("invalid", "line is not JSON", text)
        except RecursionError:  # "[[[[...": deeper than the parser's recursion limit
            return None, self._fault("invalid", "line is not JSON (nested too deeply)", text)
        if type(message) is not dict:
            return None, self._fault("invalid", "line is not a JSON object", text)
        return message, None

    def _on_ready(self, item: bytes | _Overlong) -> Any:
        message, fault = self._parse(item)
        if message is None:
            return fault
        if message.get("type") == "action" and self.matches:
            # a kept process's reply to an act of its last match (sent twice): discarded
            self.stats["stale"] += 1
            return None
        if message.get("type") != "ready":
            return self._fault("invalid", f"expected a ready message, got type {_shown(message.get('type'))}", item)
        name = message.get("name")
        if not isinstance(name, str) or not name:
            return self._fault("invalid", "ready needs a non-empty string name", item)
        version, author = message.get("version"), message.get("author")
        if not isinstance(version, (str, type(None))) or not isinstance(author, (str, type(None))):
            return self._fault("invalid", "ready's version and author must be strings", item)
        self.name = name[:NAME_CAP]
        self.version = version[:NAME_CAP] if version is not None else None
        self.author = author[:NAME_CAP] if author is not None else None
        self.reusable = message.get("reuse") is True  # anything else: started per match, as always
        self._ready = True
        return _OK

    def _early(self) -> Fault | None:
        """Judge the lines the bot sent before this act was written (read while it answered an
        earlier one): none can answer it. A reply to an id asked before is stale; a reply to an
        id not asked yet is invalid (PROTOCOL.md), even the id about to be asked."""
        lines = self._lines
        while lines:
            result = self._on_reply(lines.popleft())  # against the last id asked
            if type(result) is Reply:  # a second reply to the last act
                self.stats["stale"] += 1
            elif result is not None:
                return result
        return None

    def _on_reply(self, item: bytes | _Overlong) -> Any:
        message, fault = self._parse(item)
        if message is None:
            return fault
        kind = message.get("type")
        if kind != "action":
            if kind == "ready" and not self._ready:
                self.stats["late_ready"] += 1
                return None  # a late answer to hello (the start timed out): nothing to score
            return self._fault("invalid", f"expected an action reply, got type {_shown(kind)}", item)
        rid = message.get("id")
        if type(rid) is not int:
            return self._fault("invalid", "the reply's id is not an integer", item)
        if rid != self._want_id:
            if rid < self._want_id:
                self.stats["stale"] += 1
                return None  # a reply to an old id is discarded (PROTOCOL.md)
            return self._fault("invalid", f"reply to id {_shown(rid)}, which was not asked yet", item)
        action = message.get("action")
        index = message.get("index")
        if (action is None) == (index is None):
            return self._fault("invalid", "a reply needs exactly one of action and index", item)
        ms = (time.perf_counter() - self._t0) * 1000.0
        if index is not None:
            if type(index) is not int:
                return self._fault("invalid", "index is not an integer", item)
            return Reply(index=index, ms=ms)
        if type(action) is not dict:
            return self._fault("invalid", "action is not a JSON object", item)
        return Reply(action=action, ms=ms)

    # -- faults and the process ----------------------------------------------------------------

    def _fault(self, kind: str, detail: str, raw: bytes | str = b"") -> Fault:
        text = raw[:RAW_CAP] if isinstance(raw, str) else _text(raw)
        return Fault(kind, detail, text, self.stderr_tail())

    def _crash(self, what: str) -> Fault:
        """The sticky crash fault, saying how the bot ended if it did."""
        status = self._exit_status(0.1)
        if status is not None and self._stderr is not None:
            self._stderr.settle(0.1)  # let the drain thread catch the bot's last words
        detail = status if status is not None else f"{what} (still running)"
        self._dead = self._fault("crash", detail, self._buf)
        self._out.clear()
        return self._dead

    def _exit_status(self, wait: float) -> str | None:
        """How the bot's process ended ("exited with code 3"), waiting up to `wait` s; not reaped."""
        proc = self._proc
        if proc is None:
            return None
        deadline = time.perf_counter() + wait
        while True:
            if proc.returncode is not None:
                return _describe(proc.returncode, self.sandboxed)
            try:
                # WNOWAIT leaves the zombie in place, so the pid (= process group id) cannot be
                # reused before close() kills the group.
                info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return None
            if info is not None:
                if info.si_code == os.CLD_EXITED:
                    return _describe(info.si_status, self.sandboxed)
                return _describe(-info.si_status)
            if time.perf_counter() >= deadline:
                return None
            time.sleep(0.005)

    def _wait_exit(self, deadline: float) -> None:
        """Until the bot's process exits or `deadline`: woken at once by a pidfd when it exits."""
        fd = None
        try:
            fd = os.pidfd_open(self._proc.pid) if self._proc is not None else None
        except (OSError, AttributeError):
            pass
        try:
            while self._exit_status(0) is None:
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

    def _close_stdin(self) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.closed:
            return
        try:
            if self._writing and self._sel is not None:
                self._sel.unregister(self._in_fd)
                self._writing = False
        except Exception:
            pass
        try:
            proc.stdin.close()
        except OSError:
            pass


class BotPool:
    """Bot processes kept alive between matches, so that a bot that declared reuse is not
    started for every match ("Reusing a bot process", docs/protocol.md). One per tournament
    worker process; a key names everything that makes a process (its entrant, command line,
    working directory, environment, limits, sandbox), and only a process of the same key plays
    a seat.

    Fairness: a process never plays the same deal twice (`seat`'s `deal`, (game, seed): the
    seatings of a duplicate set go to different processes), never sits at two seats at once (a
    leased process is out of the pool until its match is closed), and is kept only after a
    clean match (`SubprocessPlayer.keepable`: no fault of its seat, no conduct note; and
    nothing on its stdout after `end`, no other process beside it) for at most `max_matches`
    matches. Every other process ends as without reuse: stdin closed after `end`.
    """

    def __init__(self, size: int, max_matches: int) -> None:
        #: processes kept idle per key (the oldest beyond it is ended)
        self.size = max(1, size)
        #: the most matches one process plays
        self.max_matches = max_matches
        #: seats given a fresh process and seats given a kept one, so far
        self.started = 0
        self.reused = 0
        self._idle: dict[Hashable, list[SubprocessPlayer]] = {}  # per key, the longest idle first
        self._leased: set[SubprocessPlayer] = set()
        self._retiring: list[SubprocessPlayer] = []  # told EOF, given end_grace_ms to exit

    def seat(self, players: list[Player], keys: Sequence[Hashable | None], deal: Hashable) -> list[Player]:
        """`players` (none started yet), each subprocess seat whose key is not None played by
        an idle process of that key that has not played `deal` if there is one (it logs into
        the fresh player's log), else by its fresh player; both are leased until closed."""
        self._reap()
        seated = list(players)
        for i, (player, key) in enumerate(zip(players, keys)):
            if key is None or not isinstance(player, SubprocessPlayer):
                continue
            kept = self._take(key, deal, player)
            if kept is not None:
                kept.transcript, kept.hide = player.transcript, player.hide  # this match's
                seated[i] = kept
                self.reused += 1
            else:
                self.started += 1
            chosen = seated[i]
            assert isinstance(chosen, SubprocessPlayer)
            chosen.deal = deal
            chosen.reuse = self.max_matches
            chosen._keeper = functools.partial(self._give_back, key)
            self._leased.add(chosen)
        return seated

    def _take(self, key: Hashable, deal: Hashable, fresh: SubprocessPlayer) -> SubprocessPlayer | None:
        """The longest idle process of `key` that has not played `deal`, made ready for the match
        of `fresh`; those found unable to play on the way are ended."""
        idle = self._idle.get(key)
        k = 0
        while idle and k < len(idle):
            candidate = idle[k]
            if deal in candidate.seen:
                k += 1
                continue
            del idle[k]
            if candidate.rebind(fresh.log_path):
                return candidate
            self._retire(candidate)
        return None

    def _give_back(self, key: Hashable, player: SubprocessPlayer) -> bool:
        """A leased player's close: True if the pool keeps it (a kept process running alone)."""
        self._leased.discard(player)
        if not player.kept or not player.alone():
            return False  # it closes as usual
        idle = self._idle.setdefault(key, [])
        idle.append(player)
        while len(idle) > self.size:
            self._retire(idle.pop(0))
        self._reap()
        return True

    def _retire(self, player: SubprocessPlayer) -> None:
        player.hang_up()
        self._retiring.append(player)

    def _reap(self, wait: bool = False) -> None:
        """Close the retired processes that exited or whose grace is over (with `wait`: all)."""
        left = []
        for player in self._retiring:
            if wait or player.settled():
                player.close()
            else:
                left.append(player)
        self._retiring = left

    def idle(self) -> int:
        """How many processes are kept idle."""
        return sum(len(v) for v in self._idle.values())

    def close(self, grace: bool = True) -> None:
        """End every process of the pool: EOF to each, then (with `grace`) up to end_grace_ms
        to exit, all at once, before what runs is killed. Never raises."""
        players = [p for idle in self._idle.values() for p in idle] + list(self._leased)
        self._idle.clear()
        self._leased.clear()
        for player in players:
            try:
                player.hang_up(grace)
            except Exception:
                pass
            self._retiring.append(player)
        for player in self._retiring:
            try:
                player._keeper = None
                player.close()
            except Exception:
                pass
        self._retiring = []


def _describe(returncode: int, sandboxed: bool = False) -> str:
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


# -- a bot's processes, found through /proc ------------------------------------------------------


def _abs_path(path: str, cwd: str | Path | None) -> str:
    """PATH with relative entries made absolute against `cwd` (where the bot will run)."""
    if cwd is None:
        return path
    return os.pathsep.join(p if os.path.isabs(p) else os.path.join(cwd, p) for p in path.split(os.pathsep))


def _stat(pid: int | str) -> tuple[int, int, int, str, int] | None:
    """(ppid, pgid, sid, state, start ticks) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    return int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode(), int(fields[19])


def _sandbox_strays(root: int, family: dict[int, int]) -> dict[int, int]:
    """The processes of a sandboxed bot that count as still running: none once the bot's own
    process (pid 2 in its namespace, after bwrap's init) has exited, since the kernel is then
    killing the rest; else all but bwrap's own two processes."""
    wrappers = {root} | {pid for pid in family if (_stat(pid) or (0,))[0] == root and _comm(pid) == "bwrap"}
    main = [pid for pid in family if pid not in wrappers and (_stat(pid) or (0,))[0] in wrappers
            and _ns_pid(pid) == 2]
    return {pid: start for pid, start in family.items() if pid not in wrappers} if main else {}


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


def _start_ticks(pid: int) -> int | None:
    st = _stat(pid)
    return st[4] if st is not None else None


def _family(root: int, bot_id: str, since: int) -> dict[int, int]:
    """Every live process of a bot: {pid: start ticks}.

    A process belongs to the bot if it is in the bot's process group or session, descends from
    the bot's process or from another of its processes, or carries REFEREE_BOT_ID=<bot_id> in its
    environment. Only processes started no earlier than the bot are looked at.
    """
    marker = f"{BOT_ID_VAR}={bot_id}".encode()
    procs: dict[int, tuple[int, int, int, str, int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    me = os.getpid()
    for entry in entries:
        if not entry.isdigit():
            continue
        st = _stat(entry)
        if st is not None and st[4] >= since and int(entry) != me:
            procs[int(entry)] = st
    members = set()
    for pid, (ppid, pgid, sid, state, start) in procs.items():
        if pid == root or pgid == root or sid == root:
            members.add(pid)
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            continue
        if marker + b"\0" in environ or environ.endswith(marker):
            members.add(pid)
    children: dict[int, list[int]] = {}
    for pid, st in procs.items():
        children.setdefault(st[0], []).append(pid)
    todo = list(members)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in members:
                members.add(child)
                todo.append(child)
    return {pid: procs[pid][4] for pid in members if procs[pid][3] not in ("Z", "X")}


def _signal(pid: int, start: int, sig: int) -> None:
    """Send `sig` to `pid` only if it is still the process that started at `start` (pidfd: no reuse race)."""
    try:
        fd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        fd = None
    try:
        if _start_ticks(pid) != start:
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


def _kill_family(root: int, bot_id: str, since: int) -> None:
    """Freeze every process of the bot until a scan finds no new one, then kill them all; again
    while a scan shortly after still finds one (a child whose fork raced the freeze)."""
    for attempt in range(5):
        frozen: dict[int, int] = {}
        for _ in range(50):
            new = {pid: start for pid, start in _family(root, bot_id, since).items() if pid not in frozen}
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
