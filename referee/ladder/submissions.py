"""The submissions folder, watched: which entries are new or changed since the ladder last looked.

A submission counts once it is complete, that is once it was dropped in by a rename (written
under a hidden or temporary name, `.name` or `name.part`/`.tmp`, then renamed): such names are
never read. An entry is an archive (`.zip`, `.tar`, `.tar.gz`, `.tgz`) or a folder; its content
key is the SHA-256 of its bytes (a folder: of every entry's path, and a file's mode and bytes, in
path order: referee.intake.unpack.content_digest),
so a submission is taken in again exactly when its content changes."""

from __future__ import annotations

from pathlib import Path

from referee.intake.unpack import content_digest, is_archive

#: suffixes of an entry still being written (renamed once complete)
PARTIAL = (".part", ".tmp", ".partial", "~")


def entries(folder: Path) -> list[Path]:
    """The complete entries of the submissions folder, in name order."""
    if not folder.is_dir():
        return []
    return [p for p in sorted(folder.iterdir())
            if not p.name.startswith(".") and not p.name.endswith(PARTIAL) and (p.is_dir() or is_archive(p))]


#: an entry's content key (see the module's docstring): the same digest intake's builds are cached by
content_key = content_digest


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
