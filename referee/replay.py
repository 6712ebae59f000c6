"""Replay files: JSON Lines written as the match goes, one record per line, flushed per record."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def dumps(record: dict[str, Any]) -> str:
    """One record as a compact JSON line (no newline)."""
    return _dumps(record)


class ReplayWriter:
    """Appends records to a replay file; `.gz` paths are gzip-compressed."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.suffix == ".gz":
            self._file: IO[str] = gzip.open(self.path, "wt", encoding="utf-8")
        else:
            self._file = open(self.path, "w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        """Write one record and flush it, so a crash loses nothing already written."""
        self._file.write(_dumps(record) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file; safe to call twice."""
        if not self._file.closed:
            self._file.close()


def read_replay(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a replay file (plain or gzip-compressed), in order."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)
