"""The bot sandbox: bubblewrap (`bwrap`) around a bot's command line.

A sandboxed bot sees only what it is given, never the referee's machine minus a few holes:
- **its own user namespace, with no capability** (`--unshare-user --cap-drop ALL`, and no nested
  user namespace where bwrap can forbid it): uid and gid 65534 inside. Outside, it runs as the
  referee's user; as root, never as root: each running bot gets a uid and gid of its own from a
  range (`REFEREE_SANDBOX_UIDS`, default 60000-60999), leased under a lock file in
  /run/referee-uids so that no two bots alive share one, even across processes, set by
  `setpriv` before bwrap starts (as `isolate` runs each box under its own uid). Where user
  namespaces are off, there is no sandbox (never one without them). It cannot remount, chattr,
  ptrace or signal anything outside;
- **its own PID namespace**: it sees only its own processes (pid 1 is bwrap's init, started with
  the bot's clean environment; bwrap's arguments come through a file descriptor, `--args`, so
  its command line shows none of the set-up, only the bot's own command), and every process in
  it dies with the sandbox, however it tried to escape (setsid, double fork, a cleaned environment);
- **no network** (a private loopback), no shared IPC, its own hostname and cgroup view, no
  terminal (`--new-session`), and it dies with the referee (`--die-with-parent`);
- **a filesystem built from nothing**: the system's programs and libraries read-only (/usr and
  the /bin, /lib... links, a short list of /etc files that programs need and that hold no
  secret), a private /dev and /proc, a private writable /tmp that is the bot's own scratch (a
  tmpfs of its own, capped in bytes: also its HOME and TMPDIR; gone with the sandbox, so no bot
  writes to the referee's disk), and, read-only, the bot's own files: its `home` when it is given
  one (a tournament entrant's `dir`), the directories of the scripts on its command line and its
  interpreter's prefix. Its working directory is its home, else its first script's directory;
  relative paths on its command line are made absolute. Nothing else exists inside: not the
  caller's working directory, no /run, no host /tmp (so no host Unix socket, no multiprocessing
  forkserver, no other bot's scratch), no home, no /root, no /var. Where the referee's outputs
  (replays, logs, journal, protocol log, deal key) or its temporary directory lie inside a
  directory the bot may see, they are hidden behind empty read-only mounts; a directory of the
  bot's that is, or lies inside, one of them, or is one of the `shared` directories (a
  tournament's folder, another entrant's), is not shown whole: only the files named on its
  command line are;
- **a clean environment**: PATH, locale and terminal variables, HOME/TMPDIR, and what the
  caller set explicitly for this bot; nothing else of the referee's (REFEREE_DEAL_KEY least);
- **a system-call filter** (`referee.bots.seccomp`, bwrap's `--seccomp`): Docker's allowlist
  minus the calls that make the shared kernel a channel between bots (page-cache residency,
  inotify, file locks, io_uring...); every other call fails with ENOSYS.
- **resources of its own**: its scratch's tmpfs is capped (`fsize_mb`); where the referee may
  make cgroups (root, cgroup v1's pids and memory controllers) the bot runs in cgroups of its
  own, entered before bwrap starts: a cap on its tasks (a fork bomb fails to fork) and on its
  memory in all, scratch included. Elsewhere the rlimits (referee.bots.limits) are all there is.

`sandbox = "bwrap"` where bwrap or libseccomp is missing, or bwrap cannot build a sandbox here, is
an error that says how to install it, never a silent run without the sandbox or its filter.
"""

from __future__ import annotations

import atexit
import errno
import fcntl
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from referee.bots import seccomp
from referee.bots.limits import MB

SANDBOXES = ("none", "bwrap")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; "
                "Arch: pacman -S bubblewrap), or run with --sandbox none (no protection from the bots)")

# Variables a bot keeps from the referee's environment inside the sandbox (plus LC_*).
KEPT_ENV = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM")
NEVER_ENV = ("REFEREE_DEAL_KEY",)  # never passed to a bot, even when the caller set it
UID = GID = 65534  # the bot's ids inside its user namespace ("nobody")
INSIDE_TMP = "/tmp"  # where the bot's scratch (a tmpfs) is mounted: its HOME and TMPDIR
SCRATCH_MB = 64  # the scratch's size where the bot's fsize_mb does not say (0: not limited)
PIDS_MAX = 512  # tasks (processes and threads) of one bot in all, where it has a cgroup and nproc is off
UIDS_VAR = "REFEREE_SANDBOX_UIDS"  # the outside uids (and gids) of bots run by root: "FIRST-LAST"
UIDS = (60000, 60999)
UID_LOCKS = Path("/run/referee-uids")  # one lock file per uid leased, shared by every referee

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

    Tried in order: a user namespace that cannot make another; a user namespace; both as the
    bot will run (as root: under a leased uid), with the system-call filter, which must be there
    too. Never without a user namespace: None then.
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
        why = ""
        try:
            box = Box()
        except (OSError, ValueError) as exc:
            _probe = (None, str(exc))
            return _probe
        try:
            for no_nested in (True, False):
                flags = _namespaces(True, no_nested)
                fd = box.data_fd(seccomp.build())
                try:
                    proc = subprocess.run([*box.prefix(), bwrap, *flags, *system_binds(), "--seccomp", str(fd), "--", true],
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, timeout=20, env={}, pass_fds=(fd,))
                except (OSError, subprocess.TimeoutExpired) as exc:
                    _probe = (None, f"bwrap cannot run: {exc}")
                    return _probe
                finally:
                    box.started()
                if proc.returncode == 0:
                    _probe = (flags, "")
                    return _probe
                lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
                why = why or (lines[-1] if lines else f"exit status {proc.returncode}")
        finally:
            box.close()
        _probe = (None, f"bwrap cannot create a sandbox here (are user namespaces off?): {why}")
        return _probe


def uid_range() -> tuple[int, int]:
    """The outside uids a root referee gives its bots (`REFEREE_SANDBOX_UIDS`, "FIRST-LAST");
    ValueError for a value that is not a range of unprivileged uids."""
    text = os.environ.get(UIDS_VAR, "").strip()
    if not text:
        return UIDS
    first, sep, last = text.partition("-")
    try:
        low, high = int(first), int(last)
    except ValueError:
        low = high = -1
    if not sep or not 0 < low <= high < 2**31 - 1:
        raise ValueError(f"{UIDS_VAR} must be a range of uids FIRST-LAST (e.g. 60000-60999), not 0; "
                         f"got {text!r}")
    return low, high


class Box:
    """What the referee holds for one sandboxed bot while it runs: as root, the lease of the
    outside uid it runs as (a locked lock file: no other bot alive gets that uid), and the file
    descriptors handed to bwrap (closed here once bwrap started). `close` when the bot is dead."""

    def __init__(self) -> None:
        """Lease a uid (as root; OSError when every uid of the range is taken)."""
        self.uid: int | None = None
        self._lease: int | None = None
        self.fds: list[int] = []
        #: the bot's own cgroups (one per controller), once `confine` made them
        self.cgroups: list[Path] = []
        if os.geteuid() == 0:
            self.uid, self._lease = _lease_uid()

    def confine(self, name: str, pids: int, memory_bytes: int) -> None:
        """Give the bot cgroups of its own where the referee may make them (`cgroup_parents`):
        at most `pids` tasks (a fork bomb fails to fork), `memory_bytes` in all its processes and
        its scratch (0: no limit). Nothing where cgroups cannot be made (the rlimits remain)."""
        for controller, parent in cgroup_parents().items():
            path = parent / f"{CGROUP_PREFIX}{name}"
            try:
                path.mkdir()
            except OSError:
                continue
            self.cgroups.append(path)
            try:
                if controller == "pids" and pids > 0:
                    (path / "pids.max").write_text(str(pids))
                elif controller == "memory" and memory_bytes > 0:
                    limit = "memory.max" if (path / "memory.max").exists() else "memory.limit_in_bytes"
                    (path / limit).write_text(str(memory_bytes))
            except OSError:
                pass

    def prefix(self) -> list[str]:
        """What starts bwrap: entering the bot's cgroups (a shell that moves itself, then execs),
        as the leased uid (`setpriv`); or nothing."""
        enter = []
        if self.cgroups:
            enter = ["/bin/sh", "-c", 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 126; shift; done; shift; '
                     'exec "$@"', "sh", *(str(c / "cgroup.procs") for c in self.cgroups), "--"]
        if self.uid is None:
            return enter
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            raise OSError("setpriv (util-linux) is needed to run bots as a user of their own when the referee "
                          "runs as root")
        return [*enter, setpriv, f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--"]

    def data_fd(self, data: bytes) -> int:
        """A file descriptor (memfd) holding `data`, for bwrap (`--args FD`, `--seccomp FD`...):
        passed to bwrap when it starts, closed here once it started (bwrap closes its own)."""
        fd = os.memfd_create("bwrap-data", os.MFD_CLOEXEC)
        self.fds.append(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    def started(self) -> None:
        """bwrap has started (or could not): close the descriptors handed to it."""
        fds, self.fds = self.fds, []
        for fd in fds:
            os.close(fd)

    def close(self) -> None:
        """The bot is dead: remove its cgroups, release its uid; never raises."""
        self.started()
        cgroups, self.cgroups = self.cgroups, []
        # Its last processes may still be exiting (killed with the sandbox): a moment for them.
        deadline = time.monotonic() + CGROUP_WAIT_S
        for path in cgroups:
            while True:
                try:
                    path.rmdir()
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        break  # left to a later run's sweep
                    time.sleep(0.01)
        lease, self._lease = self._lease, None
        if lease is not None:
            os.close(lease)  # closing the file releases its flock


CGROUP_PREFIX = "referee-bot-"
CGROUP_WAIT_S = 2.0  # the longest a closed bot's cgroups wait for its last processes to exit
_cgroup_parents: dict[str, Path] | None = None


def cgroup_parents() -> dict[str, Path]:
    """{controller: directory} where this process may make its bots' cgroups: as root, under
    its own cgroup of cgroup v1's `pids` and `memory` hierarchies; {} elsewhere (not root, or
    cgroup v2 only: not done yet)."""
    global _cgroup_parents
    if _cgroup_parents is None:
        found: dict[str, Path] = {}
        if os.geteuid() == 0:
            try:
                lines = Path("/proc/self/cgroup").read_text().splitlines()
            except OSError:
                lines = []
            for line in lines:
                _, controllers, path = line.split(":", 2)
                for controller in ("pids", "memory"):
                    if controller in controllers.split(","):
                        parent = Path("/sys/fs/cgroup", controller, path.lstrip("/"))
                        if (parent / "cgroup.procs").exists() and os.access(parent, os.W_OK):
                            found[controller] = parent
                            _sweep_cgroups(parent)
        _cgroup_parents = found
    return _cgroup_parents


def _sweep_cgroups(parent: Path) -> None:
    """Remove the bots' cgroups a killed referee left under `parent`: empty ones (rmdir fails
    on one with a process) made over a minute ago (a fresh one waits for its bot's shell)."""
    try:
        entries = [e for e in os.scandir(parent) if e.name.startswith(CGROUP_PREFIX)]
    except OSError:
        return
    for entry in entries:
        try:
            if time.time() - entry.stat(follow_symlinks=False).st_mtime > 60:
                os.rmdir(entry.path)
        except OSError:
            pass


def _lease_uid() -> tuple[int, int]:
    """(uid, fd of its locked lock file): a uid of the range that no bot alive holds, starting
    the search at a random one (fewer collisions between processes)."""
    low, high = uid_range()
    UID_LOCKS.mkdir(mode=0o700, parents=True, exist_ok=True)
    count = high - low + 1
    start = int.from_bytes(os.urandom(4), "big") % count
    for k in range(count):
        uid = low + (start + k) % count
        fd = os.open(UID_LOCKS / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return uid, fd
    raise OSError(f"every uid of {UIDS_VAR} ({low}-{high}) runs a bot: widen the range")


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
    """This run's one directory of temporary folders (a tournament worker's matches in progress;
    a bot's own scratch is a tmpfs of its sandbox): removed at exit, by a later run's `sweep` if
    this process is killed outright."""
    global _scratch_root
    with _lock:
        if _scratch_root is None or not _scratch_root.is_dir():
            _scratch_root = new_root()
            atexit.register(remove_scratch, _scratch_root)
        return _scratch_root


def use_scratch_root(path: str | os.PathLike) -> None:
    """Put this process's temporary folders under `path` (a tournament's workers share the
    driver's root, which the driver removes)."""
    global _scratch_root
    with _lock:
        _scratch_root = Path(path)


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


def bot_env(env: Mapping[str, str] | None) -> dict[str, str]:
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


def system_binds() -> list[str]:
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


def _named(argv: Sequence[str], workdir: Path) -> list[tuple[int, Path, bool]]:
    """(index, absolute path, whether it is a program) of each existing file named on the
    command line, relative paths against `workdir`."""
    out = []
    for i, arg in enumerate(argv):
        if os.sep not in arg or arg.startswith("-"):
            continue
        path = Path(arg) if os.path.isabs(arg) else workdir / arg
        if path.is_file():
            program = os.access(path, os.X_OK) and (i == 0 or path.suffix == "")
            out.append((i, Path(os.path.abspath(path)), program))
    return out


def own_paths(argv: Sequence[str], workdir: Path, home: Path | None = None) -> list[Path]:
    """The directories a bot may read: its `home` if given, the prefix of each program on its
    command line (as given and with symlinks resolved: a venv and the Python it points to), and
    the directory of each file named on it (its scripts). Not its working directory as such."""
    paths = [home] if home is not None else []
    for _, absolute, program in _named(argv, workdir):
        if program:
            candidates = [_prefix(absolute), _prefix(absolute.resolve())]
        else:
            candidates = [absolute.parent, absolute.resolve().parent]
        for c in candidates:
            if not any(_inside(c, p) for p in paths):
                paths = [p for p in paths if not _inside(p, c)] + [c]
    return paths


def home_of(argv: Sequence[str], workdir: Path, home: Path | None = None) -> Path | None:
    """A bot's own directory: its `home` if given, else its first script's directory (a file
    named on its command line that is not a system program), else None."""
    if home is not None:
        return home
    named = [(p, program) for _, p, program in _named(argv, workdir)
             if not any(_inside(p, Path(top)) for top in SYSTEM)]
    scripts = [p for p, program in named if not program] or [p for p, _ in named]
    return scripts[0].parent if scripts else None


def wrap(argv: Sequence[str], cwd: str | os.PathLike | None, box: Box,
         hide: Sequence[str | os.PathLike] = (), home: str | os.PathLike | None = None,
         shared: Sequence[str | os.PathLike] = (), scratch_mb: int = SCRATCH_MB) -> list[str]:
    """The command line running `argv` in the sandbox (start it with `bot_env`'s environment,
    passing `box.fds`, then call `box.started()`): bwrap's own arguments are in a descriptor.

    `hide`: the referee's outputs; `home`: the bot's own directory (shown whole, its working
    directory); `shared`: directories never shown whole (a tournament's folder, the other
    entrants' own directories); `scratch_mb`: the size of its /tmp (0: not limited)."""
    flags, why = probe()
    if flags is None:
        raise OSError(_hinted(why))
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    workdir = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
    own_home = Path(os.path.abspath(home)) if home is not None else None
    hidden = [Path(os.path.abspath(h)) for h in hide]
    # The referee's temporary directory (its scratch roots, multiprocessing's forkserver socket)
    # is never shown, wherever TMPDIR points; a bot's own directory may lie inside it.
    never = [Path(os.path.abspath(d)) for d in shared] + [Path(os.path.abspath(tempfile.gettempdir()))]
    named = _named(argv, workdir)
    whole: list[Path] = []
    files: list[Path] = []
    own = own_paths(argv, workdir, own_home)
    for o in own:
        # A shared directory inside it is masked, unless another of its own paths lies there.
        mixed = any(_inside(d, o) and (d == o or any(_inside(p, d) for p in own)) for d in never)
        if o == own_home and not any(_inside(o, h) for h in hidden):
            whole.append(o)
        elif any(_inside(o, h) for h in hidden) or mixed:
            # Not shown whole: only the files named on the command line that lie in it.
            files += [p for _, p, _ in named if _inside(p, o) and not any(_inside(p, h) for h in hidden)]
        else:
            whole.append(o)
    start = home_of(argv, workdir, own_home)
    if (start is not None and start not in never and not any(_inside(start, p) for p in whole)
            and not any(_inside(start, h) for h in hidden)):
        # Its own directory is shown whole even where another file named on its command line
        # made a shared directory holding it one of its paths (then shown as named files only).
        whole.append(start)
    if box.uid is not None:
        for path in [*whole, *files]:
            check_reachable(path, box.uid)
    args = [*flags, *system_binds()]
    if scratch_mb > 0:
        args += ["--size", str(scratch_mb * MB)]
    args += ["--perms", "0700", "--tmpfs", INSIDE_TMP]
    for path in whole:
        if path != Path("/"):
            args += ["--ro-bind", str(path), str(path)]
    for path in dict.fromkeys(files):
        if not any(_inside(path, w) for w in whole):
            args += ["--ro-bind", str(path), str(path)]
    args += _masks(whole, [*hidden, *never])
    # Relative paths on the command line, made absolute: the bot runs in its own directory.
    where = {i: str(p) for i, p, _ in named}
    command = [where.get(i, arg) for i, arg in enumerate(argv)]
    # The sandbox's own root (a tmpfs holding the mount points) read-only too: the scratch is the
    # only place a bot writes.
    args += ["--remount-ro", "/", "--chdir", str(start) if start is not None else INSIDE_TMP]
    # bwrap reads the filter and closes the descriptor before it starts the bot
    args += ["--seccomp", str(box.data_fd(seccomp.build()))]
    words = box.data_fd(b"".join(os.fsencode(a) + b"\0" for a in args))
    return [*box.prefix(), bwrap, "--args", str(words), "--", *command]


def closed_to_bots(path: str | os.PathLike) -> Path | None:
    """As root, where sandboxed bots run under uids of their own: the first existing folder on
    the way to `path` that other users cannot enter (a bot's files below it are out of its reach),
    else None (and None when not root)."""
    if os.geteuid() != 0:
        return None
    for folder in reversed(Path(os.path.abspath(path)).parents):
        if folder.exists() and not os.stat(folder).st_mode & 0o001:
            return folder
    return None


def check_reachable(path: Path, uid: int) -> None:
    """OSError unless `uid` (no group of its own on the file) may read `path`: bwrap, run as
    the bot's uid, finds what it binds as that uid, as the bot reads it."""
    for folder in reversed(path.parents):
        if not os.stat(folder).st_mode & 0o001:
            break
    else:
        need = 0o005 if path.is_dir() else 0o004
        if os.stat(path).st_mode & need == need:
            return
        folder = path
    raise OSError(f"{path} cannot be read by uid {uid}, which the bot runs as (the referee runs as root): "
                  f"{folder} is closed to other users; make the bot's files and interpreter readable by all")


def _masks(own: list[Path], hide: Sequence[Path]) -> list[str]:
    """Mounts hiding each path of `hide` that lies inside a directory the bot sees: a directory
    behind an empty read-only tmpfs (unless the bot's own files are in it: then only the files
    named in `hide`), a file behind /dev/null (unless a hidden directory holds it already)."""
    visible = [p for p in hide if any(_inside(p, o) and p != o for o in own)]
    dirs = [p for p in visible if p.is_dir() and not p.is_symlink() and not any(_inside(o, p) for o in own)]
    dirs = [d for d in dirs if not any(d != e and _inside(d, e) for e in dirs)]  # outermost only
    args: list[str] = []
    for d in dict.fromkeys(dirs):
        args += ["--tmpfs", str(d), "--remount-ro", str(d)]
    for p in dict.fromkeys(visible):
        if p.is_file() and p not in own and not any(_inside(p, d) for d in dirs):
            args += ["--ro-bind", "/dev/null", str(p)]
    return args


def make_hidden_logs(logs: Sequence[Path]) -> None:
    """Create a sandboxed match's bot logs before any bot starts.

    So that a sandboxed bot sharing a directory with them sees none of them (`_masks` hides
    files one by one there); one left empty is removed when its bot is closed. Unsandboxed, a log
    is created at its bot's first byte."""
    for path in logs:
        path.touch()


_GUARD: list[str] | None = None


def guard_prefix() -> list[str]:
    """`setpriv --pdeathsig KILL --` if this machine has a setpriv that takes it, else [].

    A bot run under it is SIGKILLed by the kernel when the worker thread that started it dies,
    even if the worker is SIGKILLed and no cleanup of ours runs (util-linux >= 2.33).
    """
    global _GUARD
    if _GUARD is None:
        prefix: list[str] = []
        setpriv = shutil.which("setpriv")
        if setpriv is not None:
            try:
                ok = subprocess.run([setpriv, "--pdeathsig", "KILL", "--", "true"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5).returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
            if ok:
                prefix = [setpriv, "--pdeathsig", "KILL", "--"]
        _GUARD = prefix
    return _GUARD


#: what `play` and `tournament` print, once, when they run command bots outside the sandbox
UNSANDBOXED = ("command bots run without a sandbox: each can read this machine's files (the replay being "
               "written included), see its processes and use its network; run strangers' bots with "
               "--sandbox bwrap (see docs/security.md)")


def require(sandbox: str, what: str = "--sandbox bwrap") -> None:
    """UsageError where `sandbox` is one this machine cannot give (never a silent run without)."""
    from referee.errors import UsageError

    check(sandbox)
    if sandbox == "bwrap":
        if os.geteuid() == 0:
            try:
                uid_range()
            except ValueError as exc:
                raise UsageError(f"{what}: {exc}") from None
        reason = unavailable_reason()
        if reason is not None:
            raise UsageError(f"{what}: {reason}")
