"""An in-memory channel and player for protocol tests: the protocol logic of `SubprocessPlayer`
run against a scripted bot, without any process, pipe or wait.

`MockChannel` is a `Channel` whose far end is a script: each write the referee makes (hello;
events and an act together; end) is recorded whole in `writes` and handed to the bot, whose
answer is read back through the very line buffer the pipe channel uses (line caps and
`Overlong` included). The bot is either a callable, `bot(written) -> answer`, or a sequence of
answers taken one per write. An answer is the bytes (or text) the bot writes to its stdout in
reply, lines with their newlines; b"" says nothing (the exchange then ends as at its deadline,
at once); None closes the bot's stdout and stdin, as a bot that exits does. What an exchange
does not hand on stays in `lines`, as over a pipe.

`MockPlayer` is a `SubprocessPlayer` over a `MockChannel`: everything but the process (no log,
no stderr, no exit status; a kept process needs one, so a MockPlayer is never kept).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from referee.bots.channel import MAX_PENDING_BYTES, STDIN_CLOSED, STDOUT_CLOSED, Channel, Closed
from referee.bots.player import SubprocessPlayer
from referee.players import Fault

Answer = bytes | str | None
Bot = Callable[[bytes], Answer] | Iterable[Answer]


class MockChannel(Channel):
    """A channel to a scripted bot (the module docstring gives the script)."""

    def __init__(self, bot: Bot, max_line_bytes: int = 65536,
                 max_pending_bytes: int = MAX_PENDING_BYTES) -> None:
        super().__init__(max_line_bytes, max_pending_bytes)
        if callable(bot):
            self._bot: Callable[[bytes], Answer] = bot
        else:
            answers = iter(bot)
            self._bot = lambda written: next(answers, b"")
        #: every write the referee made, whole, in order
        self.writes: list[bytes] = []
        #: the referee closed the bot's stdin (EOF to it)
        self.input_closed = False
        self.closed = False
        self._gone = False  # the bot closed its end: writes fail as with EPIPE

    def flush(self) -> Closed | None:
        """Hand everything pending to the bot in one write and read back its answer."""
        if not self.pending:
            return None
        if self._gone or self.input_closed:
            self.pending.clear()
            return STDIN_CLOSED
        written = bytes(self.pending)
        self.pending.clear()
        self.writes.append(written)
        answer = self._bot(written)
        if answer is None:
            self.eof = self._gone = True
        else:
            self.feed(answer.encode() if isinstance(answer, str) else answer)
        return None

    def exchange(self, deadline: float, handle: Callable[[Any], Any] | None,
                 meanwhile: Callable[[], None] | None = None) -> Any:
        """As `Channel.exchange`, with no waiting: once the bot's answer is handled, nothing
        more comes, so it returns None (the deadline) at once."""
        if self.pending:
            closed = self.flush()
            if closed is not None:
                return closed
        if meanwhile is not None:
            meanwhile()
        lines = self.lines
        if handle is None:
            lines.clear()
            return None
        while lines:
            result = handle(lines.popleft())
            if result is not None:
                return result
        if self.eof:
            return STDOUT_CLOSED
        return None

    def poll(self) -> bool:
        return True  # the bot writes only in answer to a write

    def close_input(self) -> None:
        self.input_closed = True

    def close(self) -> None:
        self.closed = True
        self.pending.clear()
        self.partial.clear()
        self.lines.clear()


class MockPlayer(SubprocessPlayer):
    """A `SubprocessPlayer` whose bot is `bot` over a `MockChannel` (`channel`, once started);
    `settings` are SubprocessPlayer's."""

    def __init__(self, bot: Bot, **settings: Any) -> None:
        super().__init__(["mock-bot"], **settings)
        self.bot = bot
        self.channel: MockChannel | None = None

    def _open(self) -> Fault | None:
        self.channel = self._chan = MockChannel(self.bot, self.max_line_bytes, self.max_pending_bytes)
        return None
