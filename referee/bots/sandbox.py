"""The bot sandbox: bubblewrap (`bwrap`) around a bot's command line.

A sandboxed bot sees only what it is given, never the referee's machine minus a few holes:
- **its own user namespace, with no capability** (`--unshare-user --cap-drop ALL`, and no nested
  user namespace where bwrap can forbid it): uid and gid 65534 inside, as root and as a user.
  It cannot remount, chattr, ptrace or signal anything outside;
- **its own PID namespace**: it sees only its own processes (pid 1 is bwrap's init, started with
  the bot's clean environment), and every process in it dies with the sandbox, however it tried
  to escape (setsid, double fork, a cleaned environment);
- **no network** (a private loopback), no shared IPC, its own hostname and cgroup view, no
  terminal (`--new-session`), and it dies with the referee (`--die-with-parent`);
- **a filesystem built from nothing**: the system's programs and libraries read-only (/usr and
  the /bin, /lib... links, a short list of /etc files that programs need and that hold no
  secret), a private /dev and /proc, a private writable /tmp that is the bot's own scratch
  directory (also its HOME and TMPDIR; removed after the match whatever the bot did to it), and,
  read-only, the bot's working directory, its interpreter's prefix and the directories of the
  scripts on its command line. Nothing else exists inside: no /run, no host /tmp (so no host Unix
  socket, no multiprocessing forkserver, no other bot's scratch), no home, no /root, no /var.
  Where the referee's outputs (replays, logs, journal, protocol log, deal key) lie inside a
  directory the bot may see, they are hidden behind empty read-only mounts;
- **a clean environment**: PATH, locale and terminal variables, HOME/TMPDIR, and what the
  caller set explicitly for this bot; nothing else of the referee's (REFEREE_DEAL_KEY least);
- **a system-call filter** (`referee.bots.seccomp`, bwrap's `--seccomp`): Docker's allowlist
  minus the calls that make the shared kernel a channel between bots (page-cache residency,
  inotify, file locks, io_uring...); every other call fails with ENOSYS.

`sandbox = "bwrap"` where bwrap or libseccomp is missing, or bwrap cannot build a sandbox here, is
an error that says how to install it, never a silent run without the sandbox or its filter.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from referee.bots import seccomp

SANDBOXES = ("none", "bwrap")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; "
                "Arch: pacman -S bubblewrap), or run with --sandbox none (no protection from the bots)")

# Variables a bot keeps from the referee's environment inside the sandbox (plus LC_*).
KEPT_ENV = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM")
NEVER_ENV = ("REFEREE_DEAL_KEY",)  # never passed to a bot, even when the caller set it
UID = GID = 65534  # the bot's ids inside its user namespace ("nobody")
INSIDE_TMP = "/tmp"  # where the bot's scratch directory is mounted: its HOME and TMPDIR

# The system, read-only: top-level directories (bound, or recreated as the same symlink) ...
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# ... and the /etc entries programs need (dynamic linker, users and groups, time zone, locale,
# alternatives, interpreters' own configuration); /etc's secrets (shadow, ssh keys, ssl/private,
# sudoers, credentials of services) are not among them.
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group", "nsswitch.conf",
       "localtime", "timezone", "locale.alias", "locale.conf", "default/locale", "mime.types", "os-release",
       "debian_version", "hosts", "host.conf", "gai.conf", "protocols", "services", "ssl/certs",
       "ca-certificates.conf", "terminfo", "perl")
ETC_GLOBS = ("python3*", "java-*", "ruby*", "php*")

_lock = threading.Lock()
_probe: tuple[list[str] | None, str] | None = None
_scratch_root: Path | None = None


def _namespaces(user: bool, no_nested: bool) -> list[str]:
    flags = ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--hostname", "sandbox", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if user:
        flags += ["--unshare-user", "--uid", str(UID), "--gid", str(GID)]
        if no_nested:
            flags.append("--disable-userns")
    return flags


def check(sandbox: str) -> None:
    """Raise ValueError for a sandbox name that is not one of SANDBOXES."""
    if sandbox not in SANDBOXES:
        raise ValueError(f"sandbox must be one of {', '.join(SANDBOXES)}, got {sandbox!r}")


def probe() -> tuple[list[str] | None, str]:
    """(namespace flags, why not): the strongest bwrap set-up this machine allows, probed once.

    Tried in order: a user namespace that cannot make another; a user namespace; (as root only,
    where user namespaces are off) no user namespace, every capability dropped; each with the
    system-call filter, which must be there too. None: no sandbox.
    """
    global _probe
    with _lock:
        if _probe is not None:
            return _probe
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            _probe = (None, "bubblewrap (bwrap) is not installed")
            return _probe
        try:
            seccomp.build()
        except seccomp.Unavailable as exc:
            _probe = (None, f"{exc}: {seccomp.HINT}")
            return _probe
        true = shutil.which("true") or "/bin/true"
        tries = [(True, True), (True, False)] + ([(False, False)] if os.geteuid() == 0 else [])
        why = ""
        for user, no_nested in tries:
            flags = _namespaces(user, no_nested)
            fd = seccomp.program_fd()
            try:
                proc = subprocess.run([bwrap, *flags, *_system(), "--seccomp", str(fd), "--", true],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      timeout=20, env={}, pass_fds=(fd,))
            except (OSError, subprocess.TimeoutExpired) as exc:
                _probe = (None, f"bwrap cannot run: {exc}")
                return _probe
            finally:
                os.close(fd)
            if proc.returncode == 0:
                _probe = (flags, "")
                return _probe
            lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            why = why or (lines[-1] if lines else f"exit status {proc.returncode}")
        _probe = (None, f"bwrap cannot create a sandbox here: {why}")
        return _probe


def available() -> bool:
    """Whether bots can be sandboxed on this machine."""
    return probe()[0] is not None


def unavailable_reason() -> str | None:
    """None where the sandbox works; else why not and how to fix it, in one sentence."""
    flags, why = probe()
    return None if flags is not None else _hinted(why)


def _hinted(why: str) -> str:
    """`why` with how to fix it (the filter's reasons carry their own)."""
    return why if why.endswith(seccomp.HINT) else f"{why}: {INSTALL_HINT}"


#: the name of every scratch root (in the system's temporary directory), and of its lock file
ROOT_PREFIX = "referee-scratch-"
OWNER = ".owner"
_owned: list[int] = []  # the lock files of this process's roots, open (and locked) until it exits


def new_root() -> Path:
    """A fresh scratch root (mode 0700), owned by this process until it exits: its `.owner`
    file is locked (flock) as long as the process lives. The roots of processes that died
    without removing theirs (killed outright: SIGKILL, the OOM killer) are removed first
    (`sweep`). The root is made under another name and renamed once locked, so a root by
    its name is always locked while its owner lives."""
    sweep()
    tmp = Path(tempfile.mkdtemp(prefix=".referee-new-"))
    fd = os.open(tmp / OWNER, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _owned.append(fd)
    root = tmp.with_name(ROOT_PREFIX + tmp.name[len(".referee-new-"):])
    os.rename(tmp, root)
    return root


def sweep() -> list[Path]:
    """Remove the scratch roots of this user whose owner died (its lock is free); those of
    processes alive, and any this cannot tell (no lock file), are left. The removed ones."""
    base = Path(tempfile.gettempdir())
    removed = []
    try:
        entries = [e for e in os.scandir(base) if e.name.startswith(ROOT_PREFIX)]
    except OSError:
        return removed
    uid = os.geteuid()
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            fd = os.open(os.path.join(entry.path, OWNER), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its owner lives
        finally:
            os.close(fd)
        remove_scratch(Path(entry.path))
        removed.append(Path(entry.path))
    return removed


def scratch_root() -> Path:
    """This run's one directory of bot scratch directories (removed at exit; by a later run's
    `sweep` if this process is killed outright)."""
    global _scratch_root
    with _lock:
        if _scratch_root is None or not _scratch_root.is_dir():
            _scratch_root = new_root()
            atexit.register(remove_scratch, _scratch_root)
        return _scratch_root


def use_scratch_root(path: str | os.PathLike) -> None:
    """Put this process's scratch directories under `path` (a tournament's workers share the
    driver's root, which the driver removes)."""
    global _scratch_root
    with _lock:
        _scratch_root = Path(path)


def new_scratch() -> Path:
    """A fresh private scratch directory for one bot (mode 0700; inside, the bot owns it)."""
    root = scratch_root()
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="bot-", dir=root))


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


def bot_env(env: Mapping[str, str] | None, scratch: Path | None = None) -> dict[str, str]:
    """The sandboxed bot's environment: kept variables, the caller's own, HOME/TMPDIR (/tmp)."""
    base = os.environ
    given = env if env is not None else base
    out = {}
    for key, value in given.items():
        if key in NEVER_ENV:
            continue
        if (key in KEPT_ENV or key.startswith("LC_")
                or (env is not None and base.get(key) != value)):  # set by the caller for this bot
            out[key] = value
    out.update({"HOME": INSIDE_TMP, "TMPDIR": INSIDE_TMP, "TMP": INSIDE_TMP, "TEMP": INSIDE_TMP})
    return out


def _system() -> list[str]:
    """The read-only system part of the sandbox's filesystem, /proc and /dev."""
    args: list[str] = []
    for top in SYSTEM:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    etc = [Path("/etc", name) for name in ETC] + sorted(p for g in ETC_GLOBS for p in Path("/etc").glob(g))
    for path in etc:
        if os.path.lexists(path):
            args += ["--ro-bind-try", str(path), str(path)]
    return args + ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]


def _prefix(program: Path) -> Path:
    """What to show of a program: its install prefix (`X` for `X/bin/prog`: a venv, a Node or
    Java install), else its own directory."""
    parent = program.parent
    if parent.name in ("bin", "sbin") and parent.parent != Path("/") and parent.parent != Path.home():
        return parent.parent
    return parent


def own_paths(argv: Sequence[str], workdir: Path) -> list[Path]:
    """The directories a bot may read: its working directory, the prefix of each program on its
    command line (as given and with symlinks resolved: a venv and the Python it points to), and
    the directory of each file named on it (its scripts)."""
    paths = [workdir]
    for i, arg in enumerate(argv):
        if os.sep not in arg or arg.startswith("-"):
            continue
        path = Path(arg) if os.path.isabs(arg) else workdir / arg
        if not path.is_file():
            continue
        absolute = Path(os.path.abspath(path))
        if os.access(path, os.X_OK) and (i == 0 or path.suffix == ""):
            candidates = [_prefix(absolute), _prefix(path.resolve())]
        else:
            candidates = [absolute.parent, path.resolve().parent]
        for c in candidates:
            if not any(_inside(c, p) for p in paths):
                paths = [p for p in paths if not _inside(p, c)] + [c]
    return paths


def wrap(argv: Sequence[str], cwd: str | os.PathLike | None, scratch: Path,
         hide: Sequence[str | os.PathLike] = ()) -> tuple[list[str], tuple[int, ...]]:
    """The bwrap command line running `argv` in the sandbox, and the descriptors to pass to it
    (`pass_fds`; the caller closes them once it started, or failed to start, the process). Start
    it with `bot_env`'s environment: bwrap and its init pass it on, and show nothing else."""
    flags, why = probe()
    if flags is None:
        raise OSError(_hinted(why))
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    workdir = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
    args = [bwrap, *flags, *_system(), "--bind", str(scratch), INSIDE_TMP]
    hidden = [Path(os.path.abspath(h)) for h in hide]
    # A file named on the command line inside the referee's outputs (the journal, a replay) makes
    # no directory of them the bot's own: only its working directory may lie there.
    own = [o for o in own_paths(argv, workdir)
           if o == workdir or not any(_inside(o, h) for h in hidden)]
    for path in own:
        if path != Path("/"):
            args += ["--ro-bind", str(path), str(path)]
    args += _masks(own, hide)
    # The sandbox's own root (a tmpfs holding the mount points) read-only too: the scratch is the
    # only place a bot writes.
    args += ["--remount-ro", "/", "--chdir", str(workdir)]
    # bwrap reads the filter and closes the descriptor before it starts the bot
    fd = seccomp.program_fd()
    return [*args, "--seccomp", str(fd), "--", *argv], (fd,)


def _masks(own: list[Path], hide: Sequence[str | os.PathLike]) -> list[str]:
    """Mounts hiding each of the referee's outputs that lies inside a directory the bot sees: a
    directory behind an empty read-only tmpfs (unless the bot's own files are in it: then only
    the output files named in `hide`), a file behind /dev/null (unless a hidden directory holds
    it already). Outputs must exist when the bot starts."""
    paths = [Path(os.path.abspath(h)) for h in hide]
    visible = [p for p in paths if any(_inside(p, o) for o in own)]
    dirs = [p for p in visible if p.is_dir() and not p.is_symlink() and not any(_inside(o, p) for o in own)]
    dirs = [d for d in dirs if not any(d != e and _inside(d, e) for e in dirs)]  # outermost only
    args: list[str] = []
    for d in dict.fromkeys(dirs):
        args += ["--tmpfs", str(d), "--remount-ro", str(d)]
    for p in dict.fromkeys(visible):
        if p.is_file() and p not in own and not any(_inside(p, d) for d in dirs):
            args += ["--ro-bind", "/dev/null", str(p)]
    return args


#: what `play` and `tournament` print, once, when they run command bots outside the sandbox
UNSANDBOXED = ("command bots run without a sandbox: each can read this machine's files (the replay being "
               "written included), see its processes and use its network; run strangers' bots with "
               "--sandbox bwrap (see docs/security.md)")


def require(sandbox: str, what: str = "--sandbox bwrap") -> None:
    """UsageError where `sandbox` is one this machine cannot give (never a silent run without)."""
    from referee.errors import UsageError

    check(sandbox)
    if sandbox == "bwrap":
        reason = unavailable_reason()
        if reason is not None:
            raise UsageError(f"{what}: {reason}")
