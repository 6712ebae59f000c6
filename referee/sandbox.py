"""The optional bot sandbox: bubblewrap (`bwrap`) around a bot's command line.

With `sandbox = "bwrap"` a bot runs with
- no network (`--unshare-net`: a private loopback only), no shared IPC, its own hostname;
- its own PID namespace (`--unshare-pid`): it sees only its own processes, and when the sandbox
  ends every process in it is killed by the kernel, however it tried to escape (setsid, double
  fork, a cleaned environment);
- `--die-with-parent` (the sandbox dies with the referee) and `--new-session` (no terminal);
- a read-only view of the whole filesystem, except one per-bot scratch directory, writable,
  which is also its HOME and TMPDIR (deleted after the match); the bot's working directory
  stays its own (read-only), so relative paths in its command line and its own files work;
- the match's output directory (the replay being written, the other seats' logs) and the other
  bots' scratch directories hidden behind empty read-only directories;
- a clean environment: PATH, locale and terminal variables, HOME/TMPDIR, REFEREE_* variables,
  and whatever the caller set explicitly for this bot; nothing else of the referee's.

Without bwrap (or where it cannot create namespaces: some containers), the referee says so
once on stderr and runs bots with the plain resource limits.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

SANDBOXES = ("none", "bwrap")

# Variables a bot keeps from the referee's environment inside the sandbox (plus REFEREE_*).
KEPT_ENV = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM")

_lock = threading.Lock()
_probe: tuple[bool, str] | None = None
_warned = False
_scratch_root: Path | None = None


def _base_flags() -> list[str]:
    return [
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session",
        "--ro-bind", "/", "/",
        "--dev", "/dev", "--remount-ro", "/dev",
        "--proc", "/proc",
    ]


def check(sandbox: str) -> None:
    """Raise ValueError for a sandbox name that is not one of SANDBOXES."""
    if sandbox not in SANDBOXES:
        raise ValueError(f"sandbox must be one of {', '.join(SANDBOXES)}, got {sandbox!r}")


def probe() -> tuple[bool, str]:
    """(usable, why not): whether bwrap is installed and can build a sandbox here; probed once."""
    global _probe
    with _lock:
        if _probe is not None:
            return _probe
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            _probe = (False, "bubblewrap (bwrap) is not installed")
            return _probe
        true = shutil.which("true") or "/bin/true"
        try:
            proc = subprocess.run([bwrap, *_base_flags(), "--", true], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as exc:
            _probe = (False, f"bwrap cannot run: {exc}")
            return _probe
        if proc.returncode != 0:
            why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            _probe = (False, f"bwrap cannot create a sandbox here: {why[-1] if why else proc.returncode}")
        else:
            _probe = (True, "")
        return _probe


def available() -> bool:
    """Whether bots can be sandboxed; the first time it cannot, one warning goes to stderr."""
    global _warned
    usable, why = probe()
    if not usable:
        with _lock:
            if not _warned:
                _warned = True
                sys.stderr.write(f"referee: warning: {why}; bots run without the sandbox "
                                 "(resource limits only)\n")
                sys.stderr.flush()
    return usable


def _root() -> Path:
    """This process's directory of bot scratch directories (removed at exit)."""
    global _scratch_root
    with _lock:
        if _scratch_root is None or not _scratch_root.is_dir():
            _scratch_root = Path(tempfile.mkdtemp(prefix="referee-scratch-"))
            atexit.register(remove_scratch, _scratch_root)
        return _scratch_root


def new_scratch() -> Path:
    """A fresh private scratch directory for one bot."""
    return Path(tempfile.mkdtemp(prefix="bot-", dir=_root()))


def remove_scratch(path: Path) -> None:
    """Delete a bot's scratch directory (symlinks inside are removed, never followed), even
    when the bot took the permissions away from something in it (chmod 000 on a directory
    stops an unprivileged referee's rmtree)."""
    shutil.rmtree(path, ignore_errors=True)
    if os.path.lexists(path):
        _make_removable(path)
        shutil.rmtree(path, ignore_errors=True)


def _make_removable(root: str | Path) -> None:
    """Give the owner rwx on every directory under `root` (top-down, so a 000 directory is
    opened before it is listed); symlinks are left alone, never followed."""
    def allow(directory: str) -> None:
        try:
            os.chmod(directory, 0o700)
        except OSError:
            pass

    allow(os.fspath(root))
    for dirpath, dirnames, _ in os.walk(root):
        for name in dirnames:
            sub = os.path.join(dirpath, name)
            if not os.path.islink(sub):
                allow(sub)


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def bot_env(env: Mapping[str, str] | None, scratch: Path) -> dict[str, str]:
    """The sandboxed bot's environment: kept variables, REFEREE_*, the caller's own, HOME/TMPDIR."""
    base = os.environ
    given = env if env is not None else base
    out = {}
    for key, value in given.items():
        if (key in KEPT_ENV or key.startswith(("LC_", "REFEREE_"))
                or (env is not None and base.get(key) != value)):  # set by the caller for this bot
            out[key] = value
    out.update({"HOME": str(scratch), "TMPDIR": str(scratch), "TMP": str(scratch), "TEMP": str(scratch)})
    return out


def wrap(argv: Sequence[str], cwd: str | os.PathLike | None, env: dict[str, str], scratch: Path,
         hide: Sequence[str | os.PathLike] = ()) -> list[str]:
    """The bwrap command line running `argv` in the sandbox (env passed with --setenv)."""
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    workdir = Path(cwd if cwd is not None else os.getcwd()).resolve()
    own = [workdir] + [(workdir / a).resolve() for a in argv if os.sep in a and (workdir / a).is_file()]
    args = [bwrap, *_base_flags()]
    masks = [_root()]
    for h in hide:
        p = Path(h).resolve()
        # Never hide the bot's own files (say, a replay written into its own directory).
        if p.is_dir() and not any(_inside(o, p) for o in own):
            masks.append(p)
    for m in masks:
        args += ["--tmpfs", str(m)]
    args += ["--bind", str(scratch), str(scratch)]  # inside the hidden root: mounted before it turns read-only
    for m in masks:
        args += ["--remount-ro", str(m)]
    args += ["--chdir", str(workdir), "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return [*args, "--", *argv]
