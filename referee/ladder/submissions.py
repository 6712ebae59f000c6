"""The submissions folder, watched: which entries are new or changed since the ladder last looked.

A submission counts once it is complete, that is once it was dropped in by a rename (written
under a hidden or temporary name, `.name` or `name.part`/`.tmp`, then renamed): such names are
never read. An entry is an archive (`.zip`, `.tar`, `.tar.gz`, `.tgz`) or a folder; its content
key is the SHA-256 of its bytes (a folder: of every file's path, mode and bytes, in path order),
so a submission is taken in again exactly when its content changes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from referee.intake.unpack import is_archive

#: suffixes of an entry still being written (renamed once complete)
PARTIAL = (".part", ".tmp", ".partial", "~")


def entries(folder: Path) -> list[Path]:
    """The complete entries of the submissions folder, in name order."""
    if not folder.is_dir():
        return []
    return [p for p in sorted(folder.iterdir())
            if not p.name.startswith(".") and not p.name.endswith(PARTIAL) and (p.is_dir() or is_archive(p))]


def content_key(path: Path) -> str:
    """The SHA-256 of an entry's content (see the module's docstring)."""
    digest = hashlib.sha256()
    if not path.is_dir():
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            file = Path(root) / name
            rel = file.relative_to(path).as_posix()
            if file.is_symlink():
                digest.update(f"L {rel} {os.readlink(file)}\n".encode())
                continue
            digest.update(f"F {rel} {file.stat().st_mode & 0o111:o} {file.stat().st_size}\n".encode())
            with open(file, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    digest.update(chunk)
    return digest.hexdigest()


def changed(folder: Path, seen: dict[str, str]) -> list[tuple[Path, str]]:
    """The complete entries that are new, or whose content changed, with their content keys."""
    out = []
    for entry in entries(folder):
        try:
            key = content_key(entry)
        except OSError:
            continue  # removed or changing while read: looked at again next time
        if seen.get(entry.name) != key:
            out.append((entry, key))
    return out
