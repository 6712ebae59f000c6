"""A tournament's results journal and its output directory: `journal.jsonl`, written by the
driver alone, a first line naming the tournament and a fingerprint of its schedule, then one
JSON line per finished match, flushed and fsynced, so a killed run loses only the matches in
flight. A write that fails cuts the journal back to its last whole line; `_repair` cuts a line
torn by a crash. `claim` holds the output directory for one run at a time.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import referee.signing as signing


from referee.errors import DiskFull, RefereeError, UsageError, full_disk
from referee.tournament.schedule import MatchSpec

JOURNAL = "journal.jsonl"
LOCK = ".lock"  # held (flock) by the run using the output directory; holds its pid
RESUME = "run again with --resume: the journal keeps every finished match"


def fingerprint(matches: list[MatchSpec]) -> str:
    """A digest of the whole schedule: a journal only resumes the tournament it was written for.

    The digest of `json.dumps([asdict(m) for m in matches], sort_keys=True)`, hashed a match at
    a time: the whole schedule is never held as JSON (which cost 1.5 KB a match at its peak).
    """
    digest = hashlib.sha256(b"[")
    encode = json.JSONEncoder(sort_keys=True).encode
    for k, m in enumerate(matches):
        if k:
            digest.update(b", ")
        digest.update(encode(asdict(m)).encode())
    digest.update(b"]")
    return digest.hexdigest()[:16]


class Journal:
    """The append-only results journal: one fsynced line per finished match.

    With a `signer` every line is signed (referee/signing.py) over the SHA-256 of every line
    before it: a chain, picked up from the file's own bytes when a run resumes it."""

    def __init__(self, path: Path, head: dict[str, Any], signer: signing.Signer | None = None) -> None:
        self.path = path
        self._signer = signer
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._chain = hashlib.sha256()
        if signer is not None and os.fstat(self._fd).st_size:
            with open(path, "rb") as f:  # streamed: the journal is never held whole
                for block in iter(lambda: f.read(1 << 20), b""):
                    self._chain.update(block)
        if os.fstat(self._fd).st_size == 0:
            try:
                self.append(head)
            except BaseException:
                os.close(self._fd)
                raise

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a line (signed, with a signer), fsynced."""
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        if self._signer is not None:
            line = signing.signed_line(self._signer, signing.JOURNAL, self._chain.digest(), line)
        self._write(line)
        if self._signer is not None:
            self._chain.update(line)  # only a line the journal holds is chained

    def _write(self, line: bytes) -> None:
        """Append one whole line, fsynced. A write that fails (a full disk writes part of a
        line, then fails) cuts the journal back to where the line began, so it never ends in
        part of a line (which a later append would bury, making the journal unreadable):
        DiskFull for a full disk, else RefereeError."""
        start = os.lseek(self._fd, 0, os.SEEK_END)  # the run holds the journal: no other writer
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view):]
            os.fsync(self._fd)
        except OSError as exc:
            try:
                os.ftruncate(self._fd, start)  # frees what was written: works on a full disk
                os.fsync(self._fd)
            except OSError:
                pass  # _repair cuts a torn last line when the run resumes
            if full_disk(exc) is not None:
                raise DiskFull.of(exc, self.path, RESUME) from None
            raise RefereeError(f"cannot write the journal {str(self.path)!r}: {exc.strerror or exc}; "
                               f"once fixed, {RESUME}") from None

    def close(self) -> None:
        os.close(self._fd)


def _repair(path: Path) -> None:
    """Cut a line torn by a crash off the end of the journal, so appends stay line-aligned.

    Read backwards from the end a block at a time to its last newline (the journal is never read
    whole), and cut in place (never a rewrite, which a second crash could leave half done)."""
    with open(path, "r+b") as f:
        end = f.seek(0, os.SEEK_END)
        if not end:
            return
        f.seek(end - 1)
        if f.read(1) == b"\n":
            return
        cut = 0  # no newline at all: nothing of it was ever a whole line
        stop = end
        while stop > 0:
            start = max(0, stop - 65536)
            f.seek(start)
            at = f.read(stop - start).rfind(b"\n")
            if at >= 0:
                cut = start + at + 1
                break
            stop = start
        f.truncate(cut)
        os.fsync(f.fileno())


_claimed: dict[Path, int] = {}  # output directories this process holds: the lock file's fd


@contextmanager
def claim(out: Path) -> Iterator[None]:
    """Hold output directory `out` (created if need be) for this run; UsageError if another run
    holds it. Held by this process already, it is a no-op: the outermost claim releases it.

    An exclusive flock on `out/.lock`, which the kernel releases when the run ends, however it
    ends; the file stays (removing it would let two runs lock two different files).
    """
    key = out.resolve()
    if key in _claimed:
        yield
        return
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise UsageError(f"cannot use {out} as the output directory: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip()
        os.close(fd)
        raise UsageError(f"{out} is in use by another run{f' (pid {holder})' if holder.isdigit() else ''}: "
                         "wait for it to end, or choose another --out") from None
    os.ftruncate(fd, 0)
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError as exc:
        os.close(fd)
        if full_disk(exc) is not None:
            raise DiskFull.of(exc, out / LOCK, "run again") from None
        raise UsageError(f"cannot use {out} as the output directory: {exc.strerror}") from None
    _claimed[key] = fd
    try:
        yield
    finally:
        del _claimed[key]
        os.ftruncate(fd, 0)
        os.close(fd)
