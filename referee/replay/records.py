"""Replay files: JSON Lines written as the match goes, one record per line.

Records are buffered in memory and written at each deal's end, at the match's end and when the
file is closed (one write(2) per deal instead of one per record, which doubled the engine's cost
per decision). What a kill can lose: the records of the deal in play (a `play` killed outright;
Ctrl-C and errors lose nothing: the runner closes the writer, which writes what is buffered). A
tournament plays an interrupted match again anyway.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.signing import Signer

try:  # optional: about 10x faster than the stdlib encoder on replay records and protocol lines
    import orjson
except ImportError:  # pragma: no cover - the stdlib writes the very same bytes, slower
    orjson = None

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def dumps(record: dict[str, Any]) -> str:
    """One record as a compact JSON line (no newline)."""
    return _dumps(record)


def _stdlib_line_bytes(record: Any) -> bytes:
    """The stdlib's line for `record`, newline included, UTF-8. A lone surrogate (no Unicode text:
    UTF-8 cannot hold it) goes as its JSON escape ("\\ud800", the same string read back), so no
    text can stop a writer (issue 25; bots' text is checked where it enters, referee.protocol):
    valid text gives the very same bytes."""
    return (_dumps(record) + "\n").encode("utf-8", "backslashreplace")


if orjson is not None:
    _orjson_dumps = orjson.dumps
    # Anything orjson would write differently from the stdlib (subclasses, dataclasses, dates,
    # non-str keys, ints past 64 bits) makes it raise instead, and the stdlib writes it.
    _OPTIONS = (orjson.OPT_APPEND_NEWLINE | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                | orjson.OPT_PASSTHROUGH_DATETIME)

    def dumps_line(record: Any, strict: bool = True) -> bytes:
        """One record as a compact JSON line, newline included, UTF-8: byte for byte what
        `dumps(record) + "\\n"` encodes to. Floats in [1e-10, 1e-4), which orjson writes
        otherwise, go through the stdlib; so does, when `strict`, a line holding a null (it may
        stand for a NaN or an infinity, which the stdlib writes as NaN/Infinity, not JSON)."""
        try:
            line = _orjson_dumps(record, None, _OPTIONS)
        except TypeError:
            return _stdlib_line_bytes(record)
        # maybe such a float or null (or text like it; the marks of `_may_differ`); bytes.find is
        # faster than `in` here
        if line.find(b"e-") >= 0 or line.find(b"0.0000") >= 0 or (strict and line.find(b"null") >= 0):
            return _stdlib_line_bytes(record)
        return line

else:  # pragma: no cover
    _orjson_dumps = _OPTIONS = None  # ReplayWriter.add: calling None raises TypeError, the stdlib writes

    def dumps_line(record: Any, strict: bool = True) -> bytes:
        """One record as a compact JSON line, newline included, UTF-8."""
        return _stdlib_line_bytes(record)


class ReplayWriter:
    """Writes records to a replay file, buffered up to each deal's end (`FLUSH_AT` records) and
    written whole then; `.gz` paths are gzip-compressed. The bytes are `dumps_line`'s, record for
    record, but its checks for a line orjson writes otherwise are made once over each buffer
    instead of once a record (issue 19: three `bytes.find` calls cost more than orjson's encoding);
    a record is kept until then, for the rare line the stdlib writes again."""

    #: records after which everything buffered is written (and a gzip stream flushed)
    FLUSH_AT = frozenset(("header", "deal_end", "result"))
    #: bytes buffered at most before they are written anyway (a very long deal)
    MAX_BUFFER = 1 << 20

    def __init__(self, path: str | Path, signer: Signer | None = None) -> None:
        self.path = Path(path)
        self._signer = signer
        self._hash = hashlib.sha256() if signer is not None else None  # of every byte written
        self._buf = bytearray()
        self._settled = 0  # the buffer's bytes before this are final (_settle)
        self._kept: list[Any] = []  # the records of the orjson lines after those, in order
        try:
            self._file = self._open()
        except FileNotFoundError:  # its directory is made only then: no mkdir and stat a match
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self._open()
        self._sync = self._file.flush if self.path.suffix == ".gz" else None

    def _open(self) -> IO[bytes]:
        if self.path.suffix == ".gz":
            return gzip.open(self.path, "wb")
        return open(self.path, "wb", buffering=0)

    def write(self, record: dict[str, Any]) -> None:
        """Add one record; at a deal's end, the match's end, or past MAX_BUFFER, write them all."""
        if self._signer is not None and record.get("type") == "result":
            self._write_signed(record)
            return
        self.add(record)
        if record.get("type") in self.FLUSH_AT:
            self.flush()

    def add(self, record: dict[str, Any]) -> None:
        """`write` for a record that ends no deal (a move, a chance outcome): the hot path, with
        no FLUSH_AT test."""
        try:
            line = _orjson_dumps(record, None, _OPTIONS)
        except TypeError:  # also without orjson: the stdlib's line
            self._settle()
            self._buf += _stdlib_line_bytes(record)
            self._settled = len(self._buf)
        else:
            buf = self._buf
            buf += line
            self._kept.append(record)  # until _settle has checked its line
            if len(buf) >= self.MAX_BUFFER:
                self.flush()

    def _write_signed(self, record: dict[str, Any]) -> None:
        """Write the result record signed, over the hash of every line before it (all written
        first: the hash is made as they are)."""
        from referee.signing import REPLAY, signed_line

        self.flush()
        line = signed_line(self._signer, REPLAY, self._hash.digest(), dumps_line(record))
        self._buf += line
        self._settled = len(self._buf)
        self.flush()

    @property
    def digest(self) -> str | None:
        """The SHA-256 (hex) of every line written so far, or None when not signing."""
        return self._hash.hexdigest() if self._hash is not None else None

    def _settle(self) -> None:
        """The orjson lines buffered since the last settled byte, each that may read otherwise from
        the stdlib (a null, which may stand for a NaN or an infinity; a float in [1e-10, 1e-4); or
        text like them) written again by the stdlib: one search of the buffer a deal, not three
        searches a record."""
        buf, start, kept = self._buf, self._settled, self._kept
        if kept and _may_differ(buf, start):
            lines = bytes(buf[start:]).split(b"\n")[:-1]  # one a kept record
            del buf[start:]
            for line, record in zip(lines, kept):
                line += b"\n"
                if _may_differ(line):
                    line = _stdlib_line(record, line)
                buf += line
        kept.clear()
        self._settled = len(buf)

    def flush(self) -> None:
        """Write every buffered record (in the OS's cache when it returns)."""
        if not self._buf:
            return
        self._settle()
        view = memoryview(self._buf)
        if self._hash is not None:
            self._hash.update(view)
        written = 0
        while written < len(view):  # a raw file may take less than asked
            written += self._file.write(view[written:]) or 0
        view.release()
        self._buf.clear()
        self._settled = 0
        if self._sync is not None:
            self._sync()

    def close(self) -> None:
        """Write what is buffered and close the file; safe to call twice."""
        if not self._file.closed:
            try:
                self.flush()
            finally:
                self._file.close()


def _may_differ(data: bytes | bytearray, start: int = 0) -> bool:
    """Whether orjson's bytes from `start` on may read otherwise from the stdlib's: a null (which
    may stand for a NaN or an infinity), a float in [1e-10, 1e-4), or text like them (the marks
    `dumps_line` looks for, inline there: its hot path)."""
    return data.find(b"null", start) >= 0 or data.find(b"e-", start) >= 0 or data.find(b"0.0000", start) >= 0


def _stdlib_line(record: Any, line: bytes) -> bytes:
    """The stdlib's line for a record orjson wrote as `line`: from the record, or, if it changed
    since (orjson writes it otherwise now), from `line` parsed back (orjson writes floats that
    parse to the very same value; only a NaN or an infinity it wrote as null is lost)."""
    try:
        if _orjson_dumps(record, None, _OPTIONS) == line:
            return _stdlib_line_bytes(record)
    except TypeError:
        pass
    return _stdlib_line_bytes(json.loads(line))


def read_replay(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a replay file (plain or gzip-compressed), in order."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)
