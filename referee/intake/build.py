"""Building a submission (its manifest's `build` command) in a sandbox of its own, apart from any
match (as DMOJ and Riddles compile), and caching what it built by content (docs/contests.md).

The build sees what a bot sees (referee.bots.sandbox: its own user, PID, network and IPC
namespaces, no network, no capability, the system's programs and libraries read-only, a clean
environment, as root a uid of its own and cgroups), with these differences:
- the submission's files, read-only at /src, copied by the sandbox's own `cp` into /build, a
  tmpfs capped at `BuildLimits.disk_mb`: the build writes there and in /tmp (capped too), nowhere
  else; /build is its working directory and HOME;
- its own system-call filter (`seccomp.build_filter`: the bot's, plus file locks, which make,
  pip or npm take);
- its own limits: `time_s` of wall time (then its whole process group is killed), CPU seconds
  as much, memory and tasks by cgroup where the referee may make them (as root);
- what it built leaves the sandbox as a tar stream on a pipe of its own (the sandbox's `tar`,
  run after the build exits 0, the build's own processes cut off from that pipe), read by the
  referee up to the disk cap and unpacked by referee.intake.unpack's rules: no link, device or
  path out of the folder. A build that makes links (npm's node_modules/.bin) is refused: vendor
  what it needs as plain files.
Its output (stdout and stderr together) is kept in `build.log`, cut at `log_bytes`.

The cache: a build is keyed by the SHA-256 of the submission's content (every file's path, mode
bits and bytes, in a fixed order) and the command; a key already built successfully is not
built again. A failed build is not cached (it may have failed on a limit the organiser raises).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from referee.bots import sandbox, seccomp
from referee.errors import SubmissionError
from referee.intake.unpack import Caps, content_digest, unpack

MiB = 1024 * 1024
INSIDE_SRC = "/src"
INSIDE_BUILD = "/build"
TAR_FD = 3  # the descriptor the built files leave the sandbox on


@dataclass(frozen=True)
class BuildLimits:
    """A build's limits (the tournament's [intake] table may set them)."""

    time_s: int = 300
    memory_mb: int = 4096
    disk_mb: int = 512  # /build's tmpfs, and the most read back out of the sandbox
    tmp_mb: int = 256
    files: int = 20_000
    log_bytes: int = 256 * 1024
    pids: int = 256


@dataclass(frozen=True)
class Built:
    """A build's outcome: `folder` holds the built submission when it succeeded."""

    ok: bool
    key: str
    folder: Path | None
    log: Path
    reason: str = ""
    cached: bool = False
    seconds: float = 0.0


def content_key(folder: Path, command: tuple[str, ...]) -> str:
    """A build's cache key: the SHA-256 of its command and of the submission's content
    (referee.intake.unpack.content_digest)."""
    return hashlib.sha256(f"{command!r}\0{content_digest(folder)}".encode("utf-8", "surrogateescape")).hexdigest()


def build(source: Path, command: tuple[str, ...], cache: Path, limits: BuildLimits = BuildLimits()) -> Built:
    """Build the submission in `source` with `command` (from its manifest), or take the cached
    build of the same content; the result names the built folder, the log and why it failed."""
    source = Path(source).resolve()
    key = content_key(source, command)
    done = cache / key
    log = done / "build.log"
    if (done / "ok").exists() and (done / "files").is_dir():
        return Built(True, key, done / "files", log, cached=True)
    shutil.rmtree(done, ignore_errors=True)
    done.mkdir(parents=True, mode=0o755)
    started = time.monotonic()
    tar = done / "built.tar"
    try:
        reason = _run(source, command, limits, log, tar)
        if reason is None:
            try:
                unpack(tar, done / "files.partial", Caps(total_bytes=limits.disk_mb * MiB, files=limits.files,
                                                        ratio=float("inf")))
            except SubmissionError as exc:
                reason = f"what the build made cannot be taken: {str(exc).split(': refused: ', 1)[-1]}"
    finally:
        tar.unlink(missing_ok=True)
    seconds = time.monotonic() - started
    if reason is not None:
        shutil.rmtree(done / "files.partial", ignore_errors=True)
        return Built(False, key, None, log, reason, seconds=seconds)
    os.replace(done / "files.partial", done / "files")
    (done / "ok").write_text(f"{seconds:.1f}\n")
    return Built(True, key, done / "files", log, seconds=seconds)


def _run(source: Path, command: tuple[str, ...], limits: BuildLimits, log: Path, tar: Path) -> str | None:
    """Run the build in its sandbox; None when it exited 0 and its files are in `tar`, else why not."""
    flags, why = sandbox.probe()
    if flags is None:
        raise OSError(why)
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    box = sandbox.Box()
    try:
        box.confine(f"build-{os.getpid()}-{threading.get_ident()}", limits.pids, limits.memory_mb * MiB)
        if box.uid is not None:
            sandbox.check_reachable(source, box.uid)
        args = [*flags, *sandbox.system_binds(),
                "--size", str(limits.tmp_mb * MiB), "--perms", "0700", "--tmpfs", sandbox.INSIDE_TMP,
                "--size", str(limits.disk_mb * MiB), "--perms", "0700", "--tmpfs", INSIDE_BUILD,
                "--ro-bind", str(source), INSIDE_SRC, "--remount-ro", "/", "--chdir", INSIDE_BUILD,
                "--seccomp", str(box.data_fd(seccomp.build_filter()))]
        words = box.data_fd(b"".join(os.fsencode(a) + b"\0" for a in args))
        # stdout carries the tar of /build, written by the sandbox's own tar once the build exited 0;
        # the build's own output (and its processes') goes to stderr, the log: it never holds stdout
        script = (f'cp -R {INSIDE_SRC}/. {INSIDE_BUILD}/ >&2 || exit 125; "$@" >&2 </dev/null || exit $?; '
                  f'exec tar -C {INSIDE_BUILD} -cf - .')
        argv = [*box.prefix(), bwrap, "--args", str(words), "--", "/bin/sh", "-c", script, "build", *command]
        env = sandbox.bot_env({k: v for k, v in os.environ.items() if k in sandbox.KEPT_ENV or k.startswith("LC_")})
        env["HOME"] = env["TMPDIR"] = INSIDE_BUILD
        over: list[bool] = []
        with open(log, "wb") as log_file:
            try:
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env, start_new_session=True, pass_fds=box.fds)
            finally:
                box.started()
            readers = [threading.Thread(target=_capped_copy, args=(proc.stderr, log_file, limits.log_bytes),
                                        daemon=True),
                       threading.Thread(target=_tar_copy, args=(proc.stdout, tar, limits.disk_mb * MiB, over),
                                        daemon=True)]
            for t in readers:
                t.start()
            try:
                status = proc.wait(timeout=limits.time_s)
            except subprocess.TimeoutExpired:
                _kill(proc)
                return f"the build ran past its {limits.time_s} s"
            finally:
                for t in readers:
                    t.join(timeout=10)
        if status == 125:
            return "the submission's files could not be copied into the build folder (over the disk limit?)"
        if over:
            return f"the build made more than {limits.disk_mb} MB"
        if status != 0:
            return f"the build failed (exit status {status}); see its log"
        return None
    finally:
        box.close()


def _kill(proc: subprocess.Popen) -> None:
    """Kill the build's whole process group (the sandbox dies with bwrap)."""
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass
    proc.wait()


def _capped_copy(stream, out, cap: int) -> None:
    """Copy a pipe into `out` up to `cap` bytes (the rest read and dropped, then a note)."""
    written = 0
    dropped = False
    while chunk := stream.read(65536):
        if written < cap:
            part = chunk[:cap - written]
            out.write(part)
            written += len(part)
        else:
            dropped = True
    if dropped:
        out.write(f"\n[referee] the build's output past {cap:,} bytes is dropped\n".encode())
    out.flush()


def _tar_copy(stream, path: Path, cap: int, over: list[bool]) -> None:
    """Copy the tar stream into `path`: at most `cap` bytes and the tar's own headers' share
    (past it, `over` is marked and the pipe closed: the sandbox's tar dies of SIGPIPE)."""
    limit = cap + cap // 8 + (1 << 20)
    total = 0
    with stream, open(path, "wb") as out:
        while chunk := stream.read(65536):
            total += len(chunk)
            if total > limit:
                over.append(True)
                out.truncate(0)
                return
            out.write(chunk)
