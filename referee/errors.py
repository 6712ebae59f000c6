"""The referee's own exceptions.

Bot misbehaviour is never an exception: it is a fault, recorded as a result (see
`referee.players.Fault`). These exceptions are for bad input from the user (a bad config, an
unknown game) and for bugs in the referee or a plugin. Only `referee.cli` turns them into
output and exit codes.
"""

from __future__ import annotations

import errno


class RefereeError(Exception):
    """Base class of every error the referee raises on purpose."""


class UsageError(RefereeError):
    """The user asked for something that cannot be done (exit code 2)."""


class ConfigError(UsageError):
    """A game or match configuration is invalid."""


class PluginError(RefereeError):
    """A plugin is broken: a duplicate name, a bad registration, a misspelt hook."""


class RulesError(RefereeError):
    """A rules plugin was asked to apply an action that is not legal (a referee bug)."""


class RefereeFailure(RefereeError):
    """The referee failed, not a bot nor the user: an error on the referee's side in a match (a
    referee or plugin bug), or failed matches left in a tournament (exit code 3)."""


class SubmissionError(RefereeError):
    """A contest submission is refused (a bad manifest, an unsafe archive): the message is the one
    line its author is told. Reported per submission by intake, never as a traceback."""


class DiskFull(UsageError):
    """The disk the referee writes its own outputs to is full (ENOSPC, EDQUOT): stop at once.
    The user's to fix, as any file that cannot be written (exit code 2)."""

    @classmethod
    def of(cls, error: OSError, where: object, then: str) -> DiskFull:
        """The error for `error`, met writing under `where` (or its own file); `then`: what to do
        once space is freed."""
        target = error.filename if error.filename is not None else where
        return cls(f"the disk is full: cannot write {str(target)!r} ({error.strerror or error}); "
                   f"free some space, then {then}")


FULL_DISK = (errno.ENOSPC, errno.EDQUOT)


def full_disk(exc: BaseException) -> OSError | None:
    """The 'no space left' or 'quota exceeded' OSError that `exc` is or was raised from (its
    cause or context, however deep), or None."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen:
        if isinstance(at, OSError) and at.errno in FULL_DISK:
            return at
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return None


def first_line(exc: BaseException, width: int = 300) -> str:
    """`Type: the first line of its message`, cut at `width` characters: an error in one line."""
    try:
        text = str(exc).strip().splitlines()
    except Exception:  # a plugin's exception whose str() fails
        text = ["(its message cannot be shown)"]
    line = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
    # printable wherever it is shown (a bot's text may be in it: control characters, lone surrogates)
    line = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in line)
    return line if len(line) <= width else line[:width - 3] + "..."
