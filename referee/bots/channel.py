"""The line channel between the referee and one bot: lines out to its stdin, lines in from its
stdout, every wait bounded by a deadline.

`Channel` is what `SubprocessPlayer` talks through; it knows lines and bytes, never messages or
faults. Its contract:
- `send` queues a line; `offer` queues an event line unless more than `max_pending_bytes` would
  then wait unsent (the bot stopped reading: everything pending is dropped, False). Queued bytes
  go out with the next `flush` or `exchange`, several lines in one write.
- `exchange(deadline, handle)` writes what is pending and reads lines, handing each complete one
  to `handle` until it returns something, which `exchange` returns; None once `deadline` passes;
  `STDOUT_CLOSED` or `STDIN_CLOSED` when the bot closed its end of a pipe (the player makes that
  a crash). Lines the bot sent beyond the one answered stay in `lines`.
- Lines are cut at `max_line_bytes` by our own buffer (`feed`): a longer line becomes one
  `Overlong` in `lines`, reported as soon as the cap is passed (not at a newline that may never
  come), and the rest of it, up to its newline, is skipped.

`PipeChannel` is the real one: the bot's stdin and stdout non-blocking, multiplexed with
`selectors`, so a bot that stops reading its stdin times out instead of hanging the referee.
`referee.bots.mock.MockChannel` is an in-memory one for protocol tests.
"""

from __future__ import annotations

import os
import selectors
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from typing import Any, BinaryIO

from referee.protocol import RAW_CAP, Overlong

READ_CHUNK = 65536  # bytes per os.read of the bot's stdout
MAX_PENDING_BYTES = 16 << 20  # unsent bytes (events) buffered for a bot before it is given up


class Closed:
    """What `exchange` and `flush` return when the bot closed its end of a pipe."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        #: what the bot did, in the words of the crash fault's detail
        self.what = what


STDOUT_CLOSED = Closed("closed its stdout")
STDIN_CLOSED = Closed("closed its stdin")  # EPIPE: nobody reads the bot's stdin any more


class Channel(ABC):
    """Lines to and from one bot (the module docstring gives the contract)."""

    def __init__(self, max_line_bytes: int, max_pending_bytes: int = MAX_PENDING_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self.max_pending_bytes = max_pending_bytes
        #: complete lines read and not handled yet (an `Overlong` for a line over the cap)
        self.lines: deque[bytes | Overlong] = deque()
        #: the incomplete line read so far (a timeout's fault quotes it: a forgotten newline)
        self.partial = bytearray()
        #: bytes queued and not written yet
        self.pending = bytearray()
        #: the bot closed its stdout
        self.eof = False
        self._discarding = False  # skipping the rest of an overlong line

    def send(self, line: bytes) -> None:
        """Queue `line` for the bot (written by the next flush or exchange)."""
        self.pending += line

    def offer(self, line: bytes) -> bool | Closed:
        """Queue an event line, True; unless, even after writing what the bot's stdin takes
        right now (no waiting), more than max_pending_bytes would wait: then nothing is queued,
        everything pending is dropped, False. STDIN_CLOSED if that write found it closed."""
        if len(self.pending) + len(line) > self.max_pending_bytes:
            closed = self.flush()
            if closed is not None:
                return closed
            if len(self.pending) + len(line) > self.max_pending_bytes:
                self.pending.clear()
                return False
        self.pending += line
        return True

    def discard(self) -> None:
        """Drop what is pending (the bot is given up)."""
        self.pending.clear()

    def feed(self, data: bytes) -> None:
        """Split bytes read from the bot into complete lines; an overlong line becomes one
        Overlong, its rest skipped."""
        cap = self.max_line_bytes
        buf = self.partial
        lines = self.lines
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            if self._discarding:
                self._discarding = False
            elif len(buf) + (nl - start) > cap:
                lines.append(Overlong(bytes(buf[: RAW_CAP * 4]) + data[start : start + RAW_CAP * 4]))
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
                lines.append(Overlong(bytes(buf[: RAW_CAP * 4]) + data[start : start + RAW_CAP * 4]))
                buf.clear()
                self._discarding = True
            else:
                buf += data[start:]

    @abstractmethod
    def flush(self) -> Closed | None:
        """Write as much pending output as the bot takes now, without waiting; STDIN_CLOSED if
        it closed its stdin (what is pending is dropped)."""

    @abstractmethod
    def exchange(self, deadline: float, handle: Callable[[Any], Any] | None,
                 meanwhile: Callable[[], None] | None = None) -> Any:
        """Write what is pending and read lines until `handle` returns something or `deadline`
        (time.perf_counter()). Returns the handler's result, a `Closed`, or None at the
        deadline. With `handle` None, lines read are dropped and it returns None once everything
        is written. `meanwhile` is called once, after the first write."""

    @abstractmethod
    def poll(self) -> bool:
        """Read what the bot has written so far, without waiting; False if reading failed."""

    @abstractmethod
    def close_input(self) -> None:
        """Close the bot's stdin (EOF to it); never raises."""

    @abstractmethod
    def close(self) -> None:
        """Close the channel, its buffers emptied; never raises."""


class PipeChannel(Channel):
    """The channel over a bot process's stdin and stdout pipes (it owns both from now on)."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO, max_line_bytes: int,
                 max_pending_bytes: int = MAX_PENDING_BYTES, spin_us: int = 0) -> None:
        super().__init__(max_line_bytes, max_pending_bytes)
        #: how long `exchange` polls for a line before it sleeps until one comes
        #: (referee.bots.limits.spin_us)
        self.spin_us = spin_us
        self._stdin = stdin
        self._stdout = stdout
        self._in_fd = stdin.fileno()
        self._out_fd = stdout.fileno()
        os.set_blocking(self._in_fd, False)
        os.set_blocking(self._out_fd, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._out_fd, selectors.EVENT_READ)
        self._writing = False  # stdin registered with the selector

    def exchange(self, deadline: float, handle: Callable[[Any], Any] | None,
                 meanwhile: Callable[[], None] | None = None) -> Any:
        """As `Channel.exchange`. Before the first wait for a line, the pipe is polled for up to
        `spin_us` (once the bot has all its input): a quick reply is then read at once, without
        the wake-up of a process asleep in the kernel."""
        if self.pending:
            closed = self.flush()  # the fast path: one write takes it all
            if closed is not None:
                return closed
        if meanwhile is not None:
            meanwhile()
        sel = self._sel
        lines = self.lines
        spin = self.spin_us if handle is not None else 0
        while True:
            if handle is None:
                lines.clear()
                if not self.pending:
                    return None
            while lines:
                result = handle(lines.popleft())
                if result is not None:
                    return result
            if self.eof:
                return STDOUT_CLOSED
            now = time.perf_counter()
            timeout = deadline - now
            if timeout <= 0:
                return None
            want_write = bool(self.pending)
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
                    closed = self.flush()
                    if closed is not None:
                        return closed

    def _spin(self, until: float) -> None:
        """Poll the bot's stdout until a complete line or EOF arrives, or `until`."""
        read, lines, clock = self._read, self.lines, time.perf_counter
        while not lines and not self.eof and clock() < until:
            read()

    def flush(self) -> Closed | None:
        try:
            written = os.write(self._in_fd, self.pending)
        except BlockingIOError:
            return None
        except OSError:  # EPIPE: nobody reads the bot's stdin any more
            self.pending.clear()
            return STDIN_CLOSED
        if written == len(self.pending):
            self.pending.clear()
        else:
            del self.pending[:written]
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
            self.eof = True
            self._sel.unregister(self._out_fd)
            return
        self.feed(data)

    def poll(self) -> bool:
        out_fd = self._out_fd
        try:
            while not self.eof and any(key.fd == out_fd for key, _ in self._sel.select(0)):
                self._read()
        except (OSError, ValueError):
            return False
        return True

    def close_input(self) -> None:
        stdin = self._stdin
        if stdin.closed:
            return
        try:
            if self._writing:
                self._sel.unregister(self._in_fd)
                self._writing = False
        except Exception:
            pass
        try:
            stdin.close()
        except OSError:
            pass

    def close(self) -> None:
        try:
            self._sel.close()
            self._stdout.close()
        except Exception:
            pass
        self.pending.clear()
        self.partial.clear()
        self.lines.clear()
