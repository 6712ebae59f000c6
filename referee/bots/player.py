"""The adapter for external bots: a seat played by a program speaking protocol v1 (JSON lines)
on stdin/stdout, treated as hostile.

`SubprocessPlayer` is the protocol's state machine: hello/ready, act/action, events, end, and a
kept process's next match (reuse). It talks through a `Channel` (`referee.bots.channel`: lines,
deadlines, bounded buffers) to a `BotProcess` (`referee.bots.process`: the command, limits,
sandbox, stderr log, exit status, the kill); the wire format is `referee.protocol`, the
pool that keeps processes between matches `referee.bots.pool`. Misbehaviour comes back as a
`Fault`, never an exception. Events are buffered and written together with the next `act` (or
`end`) in one `os.write`, which is also the fast path of a decision.

Cases the protocol leaves open, settled here:
- A `ready` arriving after `start` timed out is ignored (it answers hello, not an act); any other
  message type while waiting for an action is `invalid`. A reply with an id never asked yet is
  `invalid`; one with an older id is discarded. Lines a bot sent before an act was written
  cannot answer it: a reply among them is stale (or, to an id not asked yet, invalid).
- Only a bot told `end` gets the `end_grace_ms` grace period to exit; a disqualified bot (closed
  without `end`) has its process group killed at once.
- A bot that leaves more than `max_pending_bytes` of events unread is given up: every later `act`
  returns at once a `timeout` fault ("stopped reading its stdin").
- A crash is sticky: every later `act` returns the same fault without I/O.
- An action's `debug` text (docs/protocol.md) is kept cut to DEBUG_CAP characters, and at most
  DEBUG_MATCH_CAP of them per match (then dropped, once with a note); a `debug` that is not a
  string is ignored, as any unknown field was before it meant something.

Hostile bots (docs/security.md):
- Every wait is `time_ms` (or `start_ms`) plus `grace_ms`, so transport jitter is not a fault;
  the bot is told `time_ms` only.
- At `close` every process of the bot is frozen and killed, wherever it went
  (`referee.bots.family`); stderr is read to its end for about a second at most, even while an
  escaped descendant holds the pipe.
- Conduct that is no protocol fault is noted in `conduct` (and in the log): processes still
  running after `end` and its grace period, stderr beyond the log cap, text in `ready` that is
  no printable text (replaced by U+FFFD: `unprintable`). `referee validate` reports them; a
  match is not affected.
- Text that is no Unicode (a lone surrogate, referee.protocol) anywhere in any other line
  is `invalid`: nothing a bot sends can later fail to be written (issue 25).

Reuse (docs/protocol.md, "Reusing a bot process"): leased from a `BotPool`, a bot that declared
`"reuse": true` keeps its stdin open after a clean `end` (`keepable`); `rebind` readies it for
its next match, whose `start` only sends hello. Everything per match (ids, stats, the announced
name) is reset there; what makes the process (argv, cwd, env, limits, sandbox, scratch) stays.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.bots import sandbox as _sandbox
from referee.bots.channel import MAX_PENDING_BYTES, Channel, Closed, PipeChannel
from referee.bots.family import Snapshot, new_bot_id
from referee.bots.limits import GRACE_MS, ResourceLimits
from referee.bots.process import BotProcess, LazyLog, command
from referee.faults import late_detail
from referee.game import Action
from referee.players import Fault, Player, Reply
from referee.resources import APPROXIMATE, CGROUP, PROCESS, Usage, cgroup_peak, sample
from referee.protocol import (DEBUG_CAP, DEBUG_DROPPED, DEBUG_MATCH_CAP, NAME_CAP, RAW_CAP, Hello, Invalid, Overlong,
                              act_line, encode, end_message, event_line, parse, printable, raw_text, shown)

_DEFAULT = ResourceLimits()
#: the longest a timed-out act waits on for its late reply, to say how late (no verdict changes)
LATE_WINDOW_MS = 500

# The last event object encoded and its line: the runner hands every seat the very same event
# object, so it is encoded once for all of them (one tuple, swapped whole: safe across threads;
# holding the object keeps its id from being reused).
_last_event: tuple[Any, bytes] = (None, b"")
_OK = object()  # a handler's "done, nothing to return" (the bot said ready)


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
        home: str | Path | None = None,
        shared: Sequence[str | Path] = (),
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
        #: the sandboxed bot's own directory (shown whole, its working directory) and the
        #: directories never shown whole (a tournament's folder, other entrants'): sandbox.wrap
        self.home = home
        self.shared = tuple(shared)
        #: (kind, detail) of misconduct that is no protocol fault: "stray-process", "stderr-flood"
        self.conduct: list[tuple[str, str]] = []
        #: the most matches one process may play ("Reusing a bot process", docs/protocol.md),
        #: set by its BotPool; 0 or 1: one, stdin closed after `end` as always
        self.reuse = 0
        #: the deal of the match being played, as its BotPool names it ((game, seed))
        self.deal: Any = None
        #: its BotPool's, while leased: called at `close`, True if the pool keeps the process
        self.keeper: Callable[[SubprocessPlayer], bool] | None = None
        self._log_mode = "wb"
        self._init_process()
        self._init_match()
        self._closed = False

    def _init_process(self) -> None:
        """The state of one bot process, before it starts (again, for a kept process that failed)."""
        #: the value of REFEREE_BOT_ID in every process of this bot
        self.bot_id = new_bot_id()
        #: the sandbox's hold on the running bot (its uid lease), None unsandboxed or once closed
        self.scratch: _sandbox.Box | None = None
        #: whether the bot declared in `ready` that it can play several matches ("reuse": true)
        self.reusable = False
        #: matches this process was told `end` of, and their deals (see `deal`)
        self.matches = 0
        self.seen: set[Any] = set()
        self._cpu_base = 0.0  # the CPU seconds its processes had used when this match began (a kept process's)
        self._kept = False  # told `end`, its stdin left open: it waits for its next hello
        self._remarks: list[str] = []  # the referee's lines for the log, beside the conduct notes
        self._proc: BotProcess | None = None
        self._chan: Channel | None = None  # set once started: the bot is talked to through it

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
        self._greeted = False  # hello sent
        self._want_id = -1  # act ids restart with each match
        self._t0 = 0.0
        self._end_deadline: float | None = None
        self._ended = False
        self._debug_left = DEBUG_MATCH_CAP  # characters of debug text this match may still keep

    # -- Player interface --------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The bot's process id, which is also its process group id (None if it never started)."""
        return self._proc.pid if self._proc is not None else None

    def stderr_log(self) -> Path | None:
        """This match's stderr log if something is in it yet (the bot's stderr, a referee's note)."""
        path = self.log_path
        try:
            return path if path is not None and path.stat().st_size > 0 else None
        except OSError:
            return None

    def stderr_tail(self) -> str:
        """The last ~2 KB the bot wrote to stderr."""
        proc = self._proc
        return proc.stderr.text() if proc is not None and proc.stderr is not None else ""

    def spawn(self) -> None:
        """Start the bot's process now, without waiting for it (`start` then greets it); a
        kept process runs already. A program that cannot start: `start` returns the crash."""
        if self._chan is None and self._dead is None and not self._closed and not self._kept:
            self._open()

    def start(self, hello: Hello) -> Fault | None:
        """Spawn the bot unless `spawn` did (or, kept from an earlier match, just greet it),
        send hello, wait for ready within start_ms (measured from the hello)."""
        self._seat = hello.seat
        if self._kept and not self._closed:
            self._kept = False
            self._greeted = True
            if self._proc is not None:
                self._cpu_base = sample(self._proc.pid)[0] or 0.0  # its earlier matches' CPU, not this one's
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
        if self._greeted or self._dead is not None or self._closed:
            return self._dead
        if self._chan is None:
            fault = self._open()
            if fault is not None:
                return fault
        self._greeted = True
        try:
            return self._greet(hello)
        except BaseException:
            self.close()
            raise

    def announced(self) -> dict[str, str] | None:
        """The name, version and author the bot gave in this match's `ready` (None: no ready)."""
        if self.name is None:
            return None
        said = {"name": self.name, "version": self.version, "author": self.author}
        return {k: v for k, v in said.items() if v is not None}

    def _open(self) -> Fault | None:
        """Start the bot's process and open the channel to it; the crash fault if it cannot start.
        (`referee.bots.mock.MockPlayer` opens an in-memory channel here instead.)"""
        log = None
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = LazyLog(self.log_path, self._log_mode)  # made at the bot's first stderr byte
            self._log_mode = "wb"
        try:
            argv, env, self.scratch = command(self.argv, cwd=self.cwd, env=self.env, resources=self.resources,
                                              sandbox=self.sandbox, hide=self.hide, bot_id=self.bot_id,
                                              home=self.home, shared=self.shared)
            self.sandboxed = self.scratch is not None
            try:
                proc = BotProcess(argv, env, self.cwd, self.bot_id, self.sandboxed,
                                  self.scratch.fds if self.scratch is not None else ())
            finally:
                if self.scratch is not None:
                    self.scratch.started()  # bwrap holds its descriptors now; the referee keeps none
        except (OSError, ValueError, IndexError) as exc:  # missing or non-executable program, bad cwd...
            self._dead = Fault("crash", f"cannot start {self.argv[0] if self.argv else '(empty command)'}: {exc}")
            if log is not None:
                log.write(f"[referee] {self._dead.detail}\n".encode())
                log.close()
            self._drop_scratch()
            return self._dead
        self._proc = proc
        try:
            proc.drain_stderr(log, self.stderr_cap)
            self._chan = PipeChannel(proc.stdin, proc.stdout, self.max_line_bytes, self.max_pending_bytes,
                                     self.spin_us)
        except BaseException:
            self.close()
            raise
        return None

    def _greet(self, hello: Hello) -> Fault | None:
        """Send hello over the open channel and wait for its ready within start_ms."""
        started = time.perf_counter()
        self._send(encode(hello.message()))
        result = self._chan.exchange(started + (self.start_ms + self.grace_ms) / 1000.0, self._on_ready)
        if result is _OK:
            return None
        if result is None:
            if self._stdout_closed_in_sandbox():
                return self._crash("closed its stdout")
            return self._fault("timeout", f"no ready within {self.start_ms} ms of hello", self._chan.partial)
        if type(result) is Closed:
            return self._crash(result.what)
        return result

    def event(self, event: dict[str, Any]) -> None:
        """Queue an event line; it is written with the next act or end (never blocks)."""
        chan = self._chan
        if self._dead is not None or chan is None or self._closed or self._ended:
            return
        global _last_event
        last = _last_event
        if event is last[0]:
            line = last[1]
        else:
            line = event_line(event)
            _last_event = (event, line)
        queued = chan.offer(line)
        if queued is True:
            if self.transcript is not None:
                self.transcript("send", line)
        elif queued is False:
            self._dead = self._fault(
                "timeout", f"stopped reading its stdin: over {self.max_pending_bytes} bytes waiting to be sent"
            )
        else:
            self._crash(queued.what)

    def act(self, id: int, obs: dict[str, Any], legal: list[Action], time_ms: int,
            meanwhile: Callable[[], None] | None = None, bank_ms: int | None = None) -> Reply:
        """Send pending events and the act; read until the reply to `id` or the deadline.

        `meanwhile`, if given, is called once the act is written, while the bot thinks (the
        runner writes its replay records then, off the time between a reply and the next act).
        `bank_ms`, in a match with a time bank, is what of it the bot may draw on: the deadline
        is then `time_ms + bank_ms`, and the act tells both.
        """
        if self._dead is not None:
            return Reply(fault=self._dead)
        chan = self._chan
        if chan is None or self._closed or self._ended:
            return Reply(fault=Fault("crash", "the bot is not running"))
        if chan.lines:
            early = self._early()
            if early is not None:
                return Reply(fault=early)
        line = act_line(id, obs, legal, time_ms, bank_ms)
        if bank_ms:
            time_ms += bank_ms  # the deadline, as waited for and as a timeout names it
        if self.transcript is not None:  # self._send, inline: the hot path
            self.transcript("send", line)
        chan.send(line)
        self._want_id = id
        self._t0 = started = time.perf_counter()
        result = chan.exchange(started + (time_ms + self.grace_ms) / 1000.0, self._on_reply, meanwhile)
        if type(result) is Reply:
            return result if result.debug is None else self._capped(result)
        if type(result) is Closed:
            result = self._crash(result.what)
        ms = (time.perf_counter() - started) * 1000.0
        if result is None:
            if self._stdout_closed_in_sandbox():
                return Reply(fault=self._crash("closed its stdout"), ms=ms)
            if self._exit_status(0) is not None:  # it exited; a child of its still holds stdout
                return Reply(fault=self._crash("exited"), ms=ms)
            late = self._late_by(chan, time_ms)
            if late is not None:
                return Reply(fault=self._fault("timeout", late_detail(late, time_ms)), ms=ms)
            # raw: whatever partial line the bot left unterminated (a forgotten newline shows here)
            return Reply(fault=self._fault("timeout", f"no reply within {time_ms} ms", chan.partial), ms=ms)
        return Reply(fault=result, ms=ms)

    def _late_by(self, chan: Channel, time_ms: int) -> float | None:
        """After a timeout, how late the bot's reply came, if it comes within a short window
        (LATE_WINDOW_MS): a slow bot is told it was slow, not to flush its stdout. The verdict
        stays a timeout and the reply is dropped; a bot that crashes meanwhile is dead from now on."""
        window = min(max(4 * self.grace_ms, time_ms // 4), LATE_WINDOW_MS)
        result = chan.exchange(time.perf_counter() + window / 1000.0, self._on_reply)
        if type(result) is Reply:
            return max(result.ms - time_ms, 0.0)
        if type(result) is Closed:
            self._crash(result.what)
        return None

    def _capped(self, reply: Reply) -> Reply:
        """`reply` with its debug text cut to DEBUG_CAP characters and counted against the
        match's DEBUG_MATCH_CAP; past it the text is dropped, the first time with DEBUG_DROPPED."""
        text = reply.debug[:DEBUG_CAP]
        left = self._debug_left
        if len(text) > left:
            text = DEBUG_DROPPED if left >= 0 else None
            left = -1
        else:
            left -= len(text)
        self._debug_left = left
        return Reply(reply.action, reply.index, reply.fault, reply.ms, text)

    def end(self, result: dict[str, Any]) -> None:
        """Send pending events and the end message, then close the bot's stdin; leave it open
        instead for a bot its pool may keep for another match (`keepable`)."""
        chan = self._chan
        if self._dead is not None or chan is None or self._closed or self._ended:
            return
        self._ended = True
        self._send(encode(end_message(result)))
        self._end_deadline = time.perf_counter() + self.end_grace_ms / 1000.0
        self.matches += 1
        self.seen.add(self.deal)
        keep = self.keepable(result)
        try:
            closed = chan.exchange(self._end_deadline, None)
            if type(closed) is Closed:
                self._crash(closed.what)
        finally:
            if keep and self._dead is None and not chan.pending:  # all of it written: it reads its stdin
                self._kept = True
            else:
                chan.close_input()

    def usage(self) -> Usage:
        """The CPU seconds and peak MB of the bot's processes in this match so far (None: unknown),
        read from /proc while it runs (referee.resources.sample); once it is reaped unsandboxed,
        from the rusage of its reaping; a process dead in the sandbox: its CPU unknown (bwrap keeps
        its children's rusage). The peak from the sandbox's memory cgroup where it made one
        ("cgroup": every process of the bot, gone ones too, and its scratch). A process kept from
        earlier matches: its CPU since this match began, its peak since it started ("approximate")."""
        proc = self._proc
        earlier = self.matches - (1 if self._ended else 0)  # matches of this process before this one
        measured = APPROXIMATE if earlier > 0 else PROCESS
        if proc is None:
            return Usage(measured=measured)
        cpu = peak = None
        if not self._closed and proc.exit_status(0) is None:
            cpu, peak = sample(proc.pid)
        elif not self.sandboxed:
            ru = proc.rusage
            if ru is not None:
                cpu, peak = ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024
            elif not self._closed:
                cpu = sample(proc.pid)[0]  # exited, not reaped yet: its CPU stays readable, its peak not
        box = self.scratch  # alive until the bot is closed
        for group in (box.cgroups if box is not None and measured == PROCESS else ()):
            charged = cgroup_peak(group)  # the pids cgroup has none
            if charged is not None:
                peak, measured = charged, CGROUP
        if cpu is not None:
            cpu = max(0.0, cpu - self._cpu_base)
        return Usage(cpu, peak, measured)

    def keepable(self, result: dict[str, Any]) -> bool:
        """Whether this process may play another match after this one, which ended in `result`:
        leased by a pool, declared reuse, has matches left (`reuse`), no fault of its seat in
        this match, and no stderr past the log's cap."""
        faults = result.get("faults")
        proc = self._proc
        return (self.keeper is not None and self.reusable and self.matches < self.reuse
                and isinstance(faults, list) and 0 <= self._seat < len(faults) and faults[self._seat] == 0
                and not self.conduct and proc is not None and proc.stderr is not None
                and proc.stderr.total <= self.stderr_cap)

    def process_key(self) -> tuple[Any, ...]:
        """Everything that makes this bot's process and how it is talked to (for a BotPool's
        keys): command line, working directory, environment, limits, sandbox, wire settings."""
        env = tuple(sorted(self.env.items())) if self.env is not None else None
        return (tuple(self.argv), os.fspath(self.cwd) if self.cwd is not None else None, env, self.resources,
                self.sandbox, self.home, self.shared, self.start_ms, self.max_line_bytes, self.grace_ms, self.stderr_cap,
                self.end_grace_ms, self.max_pending_bytes, self.spin_us)

    @property
    def kept(self) -> bool:
        """Told `end` with its stdin left open: it waits for the hello of its next match."""
        return self._kept and not self._closed

    def rebind(self, log_path: str | Path | None) -> bool:
        """Make a kept process ready for its next match, its stderr logged into `log_path` from
        now on. False, nothing changed, if it cannot play it: it exited, wrote to its stdout
        after `end`, or wrote more to stderr than its log takes."""
        proc, chan = self._proc, self._chan
        if not self.kept or proc is None or chan is None or proc.exit_status(0) is not None:
            return False
        if not chan.poll():
            return False
        if chan.eof or chan.lines or chan.partial or proc.stderr is None:
            return False
        log = None
        if log_path is not None:
            log_path = Path(log_path)
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log = LazyLog(log_path)  # nothing made yet: the match's fresh player may still use the path
        if not proc.stderr.switch(log, self.stderr_cap):
            return False
        self.log_path = log_path
        self._init_match()
        return True

    def alone(self, snapshot: Snapshot | None = None) -> bool:
        """Whether the bot's process runs alone: no child, nothing else in its process group or
        session or carrying its id (in the sandbox: besides bwrap's own two processes); through
        `snapshot` if given (a /proc pass since `started_at`)."""
        return self._proc is not None and self._proc.alone(snapshot)

    @property
    def started_at(self) -> int | None:
        """When its process started (clock ticks after boot), or None before it did."""
        return self._proc.since if self._proc is not None else None

    def running(self) -> bool:
        """Whether the bot's process is still running (not exited, not reaped)."""
        return self._proc is not None and not self._closed and self._exit_status(0) is None

    def hang_up(self, grace: bool = True) -> None:
        """End a kept process as the protocol ends a bot: close its stdin (EOF) and (with
        `grace`) give it end_grace_ms to exit; `close` then reaps it, noting what still runs.
        Without `grace`, `close` kills it at once."""
        if self.kept:
            self._kept = False
            self.keeper = None
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
        keeper, self.keeper = self.keeper, None
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
                    proc.wait_exit(self._end_deadline)
                    live = proc.still_running()
                    if live:
                        self.conduct.append(("stray-process", f"{len(live)} process{'es' if len(live) > 1 else ''} "
                                             f"still running {self.end_grace_ms} ms after end (killed)"))
                proc.kill()
        finally:
            if self._chan is not None:
                self._chan.close()
            if proc is not None:
                proc.close_pipes()
                if proc.stderr is not None:
                    proc.stderr.finish(self._notes)
            self._drop_scratch()

    # -- the process ---------------------------------------------------------------------------

    def _exit_status(self, wait: float) -> str | None:
        """How the bot's process ended ("exited with code 3"), waiting up to `wait` s; not reaped."""
        return self._proc.exit_status(wait) if self._proc is not None else None

    def _stdout_closed_in_sandbox(self) -> bool:
        """Whether a sandboxed bot closed its stdout yet lives on (asked only at a timeout)."""
        return self.sandboxed and self._proc is not None and self._proc.stdout_closed()

    def _close_stdin(self) -> None:
        if self._chan is not None:
            self._chan.close_input()

    def _notes(self, stderr_bytes: int) -> list[str]:
        """The conduct notes for the log, once stderr is read to its end."""
        if stderr_bytes > self.stderr_cap:
            self.conduct.append(("stderr-flood", f"wrote {stderr_bytes} bytes to stderr, over the "
                                 f"{self.stderr_cap}-byte log cap"))
        # The log already ends in "[stderr truncated]": only the other notes go there.
        return [detail for kind, detail in self.conduct if kind != "stderr-flood"] + self._remarks

    def _drop_scratch(self) -> None:
        if self.scratch is not None:
            self.scratch.close()  # its uid, free for another bot once this one is dead
            self.scratch = None

    # -- faults --------------------------------------------------------------------------------

    def _fault(self, kind: str, detail: str, raw: bytes | bytearray | str = b"") -> Fault:
        text = raw[:RAW_CAP] if isinstance(raw, str) else raw_text(raw)
        return Fault(kind, detail, text, self.stderr_tail())

    def _crash(self, what: str) -> Fault:
        """The sticky crash fault, saying how the bot ended if it did."""
        status = self._exit_status(0.1)
        proc = self._proc
        if status is not None and proc is not None and proc.stderr is not None:
            proc.stderr.settle(0.1)  # let the drain thread catch the bot's last words
        detail = status if status is not None else f"{what} (still running)"
        chan = self._chan
        self._dead = self._fault("crash", detail, chan.partial if chan is not None else b"")
        if chan is not None:
            chan.discard()
        return self._dead

    # -- messages ------------------------------------------------------------------------------

    def _send(self, line: bytes) -> None:
        """Queue one line for the bot's stdin (and the transcript)."""
        if self.transcript is not None:
            self.transcript("send", line)
        self._chan.send(line)

    def _parse(self, item: bytes | Overlong, lenient: bool = False) -> Any:
        """A line as a JSON object (a dict), the invalid Fault it is, or None for a blank line;
        `lenient` (a ready): the object even if its text is no Unicode text (`_printable` then)."""
        if type(item) is Overlong:
            if self.transcript is not None:
                self.transcript("recv", item.head + b"...[line too long]\n")
            return self._fault("invalid", f"line too long (over {self.max_line_bytes} bytes)", item.head)
        if self.transcript is not None:
            self.transcript("recv", item + b"\n")
        self.stats["lines"] += 1
        try:
            message = parse(item)
        except Invalid as bad:
            if lenient and bad.message is not None:
                return bad.message
            return self._fault("invalid", bad.detail, bad.raw)
        if message is None:
            self.stats["blank"] += 1
        return message

    def _on_ready(self, item: bytes | Overlong) -> Any:
        message = self._parse(item, lenient=True)
        if type(message) is not dict:
            return message
        if message.get("type") == "action" and self.matches:
            # a kept process's reply to an act of its last match (sent twice): discarded
            self.stats["stale"] += 1
            return None
        if message.get("type") != "ready":
            return self._fault("invalid", f"expected a ready message, got type {shown(message.get('type'))}", item)
        name = message.get("name")
        if not isinstance(name, str) or not name:
            return self._fault("invalid", "ready needs a non-empty string name", item)
        version, author = message.get("version"), message.get("author")
        if not isinstance(version, (str, type(None))) or not isinstance(author, (str, type(None))):
            return self._fault("invalid", "ready's version and author must be strings", item)
        self.name = self._printable("name", name[:NAME_CAP])
        self.version = self._printable("version", version[:NAME_CAP]) if version is not None else None
        self.author = self._printable("author", author[:NAME_CAP]) if author is not None else None
        self.reusable = message.get("reuse") is True  # anything else: started per match, as always
        self._ready = True
        return _OK

    def _printable(self, field: str, text: str) -> str:
        """A text of `ready` as kept: each character that is no printable text (a control, a
        format character, a lone surrogate) replaced by U+FFFD, and noted (`conduct`)."""
        kept, bad = printable(text)
        if bad:
            shown_bad = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
            self.conduct.append(("unprintable", f"ready's {field} held {len(bad)} character"
                                 f"{'s' if len(bad) > 1 else ''} that {'are' if len(bad) > 1 else 'is'} not printable "
                                 f"text ({shown_bad}): replaced with U+FFFD"))
        return kept

    def _early(self) -> Fault | None:
        """Judge the lines the bot sent before this act was written (read while it answered an
        earlier one): none can answer it. A reply to an id asked before is stale; a reply to an
        id not asked yet is invalid (PROTOCOL.md), even the id about to be asked."""
        lines = self._chan.lines
        while lines:
            result = self._on_reply(lines.popleft())  # against the last id asked
            if type(result) is Reply:  # a second reply to the last act
                self.stats["stale"] += 1
            elif result is not None:
                return result
        return None

    def _on_reply(self, item: bytes | Overlong) -> Any:
        message = self._parse(item)
        if type(message) is not dict:
            return message
        kind = message.get("type")
        if kind != "action":
            if kind == "ready" and not self._ready:
                self.stats["late_ready"] += 1
                return None  # a late answer to hello (the start timed out): nothing to score
            return self._fault("invalid", f"expected an action reply, got type {shown(kind)}", item)
        rid = message.get("id")
        if type(rid) is not int:
            return self._fault("invalid", "the reply's id is not an integer", item)
        if rid != self._want_id:
            if rid < self._want_id:
                self.stats["stale"] += 1
                return None  # a reply to an old id is discarded (PROTOCOL.md)
            return self._fault("invalid", f"reply to id {shown(rid)}, which was not asked yet", item)
        action = message.get("action")
        index = message.get("index")
        if (action is None) == (index is None):
            return self._fault("invalid", "a reply needs exactly one of action and index", item)
        ms = (time.perf_counter() - self._t0) * 1000.0
        debug = message.get("debug")
        if type(debug) is not str or not debug:
            debug = None  # none, or not text: ignored (such a field was an unknown one before)
        if index is not None:
            if type(index) is not int:
                return self._fault("invalid", "index is not an integer", item)
            return Reply(index=index, ms=ms, debug=debug)
        if type(action) is not dict:
            return self._fault("invalid", "action is not a JSON object", item)
        return Reply(action=action, ms=ms, debug=debug)
