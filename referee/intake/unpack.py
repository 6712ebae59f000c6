"""Unpacking a submission's archive (`.zip`, `.tar`, `.tar.gz`/`.tgz`) into a folder of its own,
safely: the archive is a stranger's, and an adversary's (docs/contests.md).

Refused, with one line saying why (`SubmissionError`), before anything is written when the
archive's own index tells, else as soon as the stream does:
- a member whose path leaves the target: absolute (`/etc/x`, `C:\\x`), `..` anywhere, a
  backslash (a Windows separator that is a plain character here), an empty or NUL name;
- a member that is no plain file or folder: a symbolic or hard link (inside the target or not),
  a device, a FIFO, a sparse file;
- too much: more than `Caps.files` members, more than `Caps.total_bytes` unpacked, or (past
  `Caps.ratio_floor` bytes) more than `Caps.ratio` times the archive's size on disk: a zip bomb.
  A zip's index may lie about a member's size: the bytes are counted as they are inflated, and
  a member that inflates past what its index said (or past the caps) stops the unpacking.
Nested archives are left packed (plain files). Files are written with mode 0644, or 0755 when the
archive marks them executable (no setuid, setgid or sticky bit, no owner but the referee's), each
opened with O_EXCL | O_NOFOLLOW under folders the unpacking made itself. The target must not exist
yet; on a refusal it is removed again, so nothing is left of a refused archive.

Python's own `tarfile` "data" filter (PEP 706) refuses most of the same, but lets links inside
the target through and knows no caps; the rules here are checked first, on every member, and
the tar members are then read by hand, never through `extractall`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tarfile
import zipfile
from zlib import error as zlib_error
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from referee.errors import SubmissionError

MiB = 1024 * 1024
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Caps:
    """What an archive may unpack to (the defaults are the ones docs/contests.md names)."""

    total_bytes: int = 256 * MiB  # the unpacked files' sizes, summed
    files: int = 10_000  # members, folders included
    ratio: float = 100.0  # unpacked bytes per byte of the archive on disk...
    ratio_floor: int = 1 * MiB  # ...checked once the unpacked bytes pass this (small archives compress well)


ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")


def content_digest(path: Path) -> str:
    """The SHA-256 of what a submission holds: an archive's bytes; a folder's every entry in path
    order, a folder by its path, a link by its path and target, a file by its path, executable
    bits, size and bytes. The same content gives the same digest wherever it lies."""
    digest = hashlib.sha256()
    if not path.is_dir():
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(dirs + files):
            entry = Path(root) / name
            rel = entry.relative_to(path).as_posix()
            if entry.is_symlink():
                digest.update(f"L {rel} {os.readlink(entry)}\n".encode("utf-8", "surrogateescape"))
            elif entry.is_dir():
                digest.update(f"D {rel}\n".encode("utf-8", "surrogateescape"))
            else:
                st = entry.stat()
                digest.update(f"F {rel} {st.st_mode & 0o111:o} {st.st_size}\n".encode("utf-8", "surrogateescape"))
                with open(entry, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        digest.update(chunk)
    return digest.hexdigest()


def is_archive(path: Path) -> bool:
    """Whether `path` is named like an archive this module unpacks."""
    name = path.name.lower()
    return any(name.endswith(suffix) for suffix in ARCHIVE_SUFFIXES)


def unpack(archive: Path, target: Path, caps: Caps = Caps()) -> int:
    """Unpack `archive` into the new folder `target`; the number of files written. Raises
    SubmissionError (and removes `target`) for an archive refused by the rules above."""
    archive = Path(archive)
    target = Path(target)
    try:
        size = archive.stat().st_size
    except OSError as exc:
        raise SubmissionError(f"{archive.name}: cannot be read ({exc.strerror or exc})") from None
    target.mkdir(mode=0o755)  # FileExistsError for a target that exists: the caller's mistake
    try:
        budget = _Budget(caps, size, archive.name)
        if archive.name.lower().endswith(".zip"):
            return _unzip(archive, target, budget)
        return _untar(archive, target, budget)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


class _Budget:
    """The caps, spent as members are seen and bytes written."""

    def __init__(self, caps: Caps, archive_bytes: int, label: str) -> None:
        self.caps, self.archive_bytes, self.label = caps, max(archive_bytes, 1), label
        self.files = 0
        self.written = 0

    def refuse(self, why: str) -> SubmissionError:
        """The error refusing the archive, naming it."""
        return SubmissionError(f"{self.label}: refused: {why}")

    def member(self, name: str) -> None:
        """Count one more member."""
        self.files += 1
        if self.files > self.caps.files:
            raise self.refuse(f"more than {self.caps.files:,} files")

    def declared(self, total: int) -> None:
        """Check the sizes the archive's index declares, summed, before writing anything."""
        self._check(total, "its index declares")

    def wrote(self, count: int) -> None:
        """Count bytes written."""
        self.written += count
        self._check(self.written, "it unpacks to")

    def _check(self, total: int, how: str) -> None:
        caps = self.caps
        if total > caps.total_bytes:
            raise self.refuse(f"{how} more than {caps.total_bytes:,} bytes (the cap on a submission's size)")
        if total > caps.ratio_floor and total > caps.ratio * self.archive_bytes:
            raise self.refuse(f"{how} {total:,} bytes from {self.archive_bytes:,}: over {caps.ratio:g} times "
                              "its size (a zip bomb?)")


def safe_path(name: str) -> PurePosixPath | None:
    """The relative path an archive member's name stands for, or None if it may not be unpacked
    (absolute, `..`, a backslash, a drive letter, empty, NUL)."""
    if not name or "\x00" in name or "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return None
    return PurePosixPath(*parts)


def _refuse_path(budget: _Budget, name: str) -> SubmissionError:
    return budget.refuse(f"the member {name!r} would be written outside the submission's folder")


def _untar(archive: Path, target: Path, budget: _Budget) -> int:
    try:
        tar = tarfile.open(archive, mode="r:*")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise budget.refuse(f"not a readable tar or zip archive ({exc})") from None
    with tar:
        plan: list[tuple[tarfile.TarInfo, PurePosixPath]] = []
        total = 0
        # The whole index first, nothing written before it is checked; read member by member, each
        # header checked before the stream is inflated past its data: a member declaring more
        # than the caps stops the reading at its header.
        for member in _members(tar, budget):
            budget.member(member.name)
            if member.isdir() and all(part in ("", ".") for part in member.name.split("/")):
                continue  # "." or "./": the folder itself (as `tar -C DIR -cf - .` writes it)
            path = safe_path(member.name)
            if path is None:
                raise _refuse_path(budget, member.name)
            if member.issym() or member.islnk():
                raise budget.refuse(f"the member {member.name!r} is a link (to {member.linkname!r}): links are "
                                    "not accepted")
            if member.issparse():
                raise budget.refuse(f"the member {member.name!r} is a sparse file")
            if not (member.isreg() or member.isdir()):
                raise budget.refuse(f"the member {member.name!r} is a device, FIFO or other special file")
            total += member.size if member.isreg() else 0
            budget.declared(total)
            plan.append((member, path))
        written = 0
        for member, path in plan:
            if member.isdir():
                _folder(target, path)
                continue
            source = tar.extractfile(member)
            if source is None:  # not a regular file after all
                raise budget.refuse(f"the member {member.name!r} cannot be read as a file")
            try:
                with source:
                    _write(target, path, _chunks(source, member.size, budget, member.name), member.mode & 0o111)
            except (tarfile.TarError, OSError, EOFError, zlib_error) as exc:
                if isinstance(exc, OSError) and exc.errno is not None:
                    raise  # the disk's, not the archive's
                raise budget.refuse(f"the member {member.name!r} cannot be unpacked ({exc})") from None
            written += 1
        return written


def _members(tar: tarfile.TarFile, budget: _Budget) -> Iterator[tarfile.TarInfo]:
    """The tar's members, read lazily; a damaged archive refused."""
    while True:
        try:
            member = tar.next()
        except (tarfile.TarError, OSError, EOFError, zlib_error) as exc:
            raise budget.refuse(f"a damaged tar archive ({exc})") from None
        if member is None:
            return
        yield member


def _unzip(archive: Path, target: Path, budget: _Budget) -> int:
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise budget.refuse(f"not a readable zip archive ({exc})") from None
    with zf:
        plan: list[tuple[zipfile.ZipInfo, PurePosixPath]] = []
        total = 0
        for info in zf.infolist():
            budget.member(info.filename)
            path = safe_path(info.filename)
            if path is None:
                raise _refuse_path(budget, info.filename)
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)
            if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                what = "a link" if kind == stat.S_IFLNK else "a device, FIFO or other special file"
                raise budget.refuse(f"the member {info.filename!r} is {what}")
            if info.flag_bits & 0x1:
                raise budget.refuse(f"the member {info.filename!r} is encrypted")
            total += 0 if info.is_dir() else info.file_size
            plan.append((info, path))
        budget.declared(total)
        written = 0
        for info, path in plan:
            if info.is_dir():
                _folder(target, path)
                continue
            try:
                with zf.open(info) as source:
                    _write(target, path, _chunks(source, info.file_size, budget, info.filename),
                           (info.external_attr >> 16) & 0o111)
            except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
                raise budget.refuse(f"the member {info.filename!r} cannot be unpacked ({exc})") from None
            written += 1
        return written


def _chunks(source, declared: int, budget: _Budget, name: str) -> Iterator[bytes]:
    """A member's bytes in chunks, counted against the budget as they come; refused once past the
    size the index declared (a zip's index may lie: the stream is what counts)."""
    seen = 0
    while chunk := source.read(CHUNK):
        seen += len(chunk)
        if seen > declared:
            raise budget.refuse(f"the member {name!r} unpacks to more than the {declared:,} bytes its index "
                                "declares (a zip bomb?)")
        budget.wrote(len(chunk))
        yield chunk


def _folder(target: Path, path: PurePosixPath) -> Path:
    """Make the folder `path` under `target` (and those above it), refusing to pass through anything
    that is not a folder this unpacking made (no link can be there: links are refused)."""
    at = target
    for part in path.parts:
        at = at / part
        try:
            at.mkdir(mode=0o755)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(at).st_mode):
                raise SubmissionError(f"{path}: a file and a folder of the same name") from None
    return at


def _write(target: Path, path: PurePosixPath, chunks: Iterator[bytes], executable: int) -> None:
    """Write one file, new (a member named twice is refused), not through a link."""
    folder = _folder(target, path.parent) if path.parent.parts else target
    file = folder / path.name
    mode = 0o755 if executable else 0o644
    try:
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), mode)
    except FileExistsError:
        raise SubmissionError(f"{path}: named twice in the archive") from None
    with os.fdopen(fd, "wb") as out:
        for chunk in chunks:
            out.write(chunk)
    os.chmod(file, mode)  # the umask aside


def copy_folder(source: Path, target: Path, caps: Caps = Caps()) -> int:
    """Copy a submission given as a folder into the new folder `target` under the archives' rules
    (no link or special file, the caps on files and bytes; the ratio does not apply); the number
    of files copied. Raises SubmissionError (and removes `target`) for a folder refused."""
    source = Path(source)
    target.mkdir(mode=0o755)
    try:
        budget = _Budget(Caps(caps.total_bytes, caps.files, float("inf"), caps.ratio_floor), 1, source.name)
        written = 0
        for folder, dirs, files in os.walk(source, followlinks=False):
            dirs.sort()
            for name in sorted(dirs) + sorted(files):
                path = Path(folder) / name
                rel = PurePosixPath(path.relative_to(source).as_posix())
                budget.member(str(rel))
                mode = os.lstat(path).st_mode
                if stat.S_ISLNK(mode):
                    raise budget.refuse(f"{str(rel)!r} is a link: links are not accepted")
                if stat.S_ISDIR(mode):
                    _folder(target, rel)
                elif stat.S_ISREG(mode):
                    with open(path, "rb") as f:
                        _write(target, rel, _chunks(f, os.fstat(f.fileno()).st_size, budget, str(rel)),
                               mode & 0o111)
                    written += 1
                else:
                    raise budget.refuse(f"{str(rel)!r} is a device, FIFO or other special file")
        return written
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
