"""Where a tournament's matches run: the executor seam.

The tournament driver (referee/tournament/run.py) hands one task per match to a `Backend`, which wraps
a `concurrent.futures.Executor` and tells the driver what it needs to know about where tasks run:

- `local`: the default worker processes, a `ProcessPoolExecutor` (forkserver, with pipes for its
  locks: referee/tournament/pipesync.py) whose initializer
  loads the plugins once per worker. Workers share the driver's file system: they write the
  replays into the output directory themselves. A worker killed outright breaks the whole pool
  (every task in it fails with `BrokenProcessPool`): `broken` says so, `restart` starts a new one.
- `dask`: a `distributed.Client` used through `client.get_executor()`, connected to a scheduler
  (`tcp://HOST:8786`) or, without an address, to a `LocalCluster` started for the run (worker
  processes, one thread each). Tasks are retried on failure (`retries=RETRIES`) and rescheduled
  when their worker dies (the scheduler's `allowed-failures`); workers return the replay with the
  record unless the output directory is shared storage (`shared_out`); the bots of a match get a
  parent-death guard (`referee.tournament.run.play_task`), since a dask worker can die mid-match.
  A scheduler may have no worker: `workers` counts them, and a `WorkerWatch` tells the user
  while the tasks wait for one. A scheduler lost mid-run (its connection closed: Dask cancels
  every task) is named as such by `failure`, never as a match's failure on a worker.

Dask is an optional extra: nothing here imports it at module level, and asking for it without it
installed is a one-line usage error naming what to install.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import math
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, nullcontext
from typing import Any

from referee.errors import RefereeError, UsageError
from referee.tournament import pipesync

EXECUTORS = ("local", "dask")
RETRIES = 3  # a match whose task raised is run again, at most this many times
CONNECT_TIMEOUT = "10s"  # to reach a remote scheduler
WAIT_POLL = 2.0  # s without a finished match before the driver asks whether a worker is there
WAIT_REPEAT = 30.0  # s between two "waiting for a worker" lines while none is connected
DASK_MISSING = "--executor dask needs the optional Dask extra: pip install -e '.[dask]' in the referee checkout"


def require(kind: str, scheduler: str | None = None) -> None:
    """Raise UsageError unless executor `kind` exists and can be used here (dask installed), and
    `scheduler`, if given, is an address dask can connect to."""
    if kind not in EXECUTORS:
        raise UsageError(f"unknown executor {kind!r}: expected one of {', '.join(EXECUTORS)}")
    if kind == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError(DASK_MISSING) from None
        if scheduler is not None:
            _check_address(scheduler)


class Backend:
    """A concurrent.futures.Executor, and how tasks run on it (what the driver must adapt to)."""

    #: the executor's name, as in `--executor`
    kind = "local"
    #: workers write replays and bot logs straight into the output directory
    shared_out = True

    def __init__(self, executor: cf.Executor, description: str) -> None:
        self.executor = executor
        #: where matches run, for the user ("4 worker processes", "dask scheduler tcp://...")
        self.description = description

    def submit(self, fn: Callable[..., Any], *args: Any, name: str) -> cf.Future:
        """Run `fn(*args)` as one task; `name` labels it where the executor can show labels."""
        return self.executor.submit(fn, *args)

    def failure(self, exc: BaseException, name: str) -> BaseException:
        """The error to raise when a task failed for good (the executor's own, by default)."""
        return exc

    def workers(self) -> int | None:
        """The workers there are to take tasks now, where there may be none (a Dask scheduler's
        come and go); None where there always are (local worker processes)."""
        return None

    def presence(self, connected: int) -> str:
        """A line for the user: waiting for a worker (`connected` 0), or `connected` joined."""
        return f"{connected} worker{'s' if connected != 1 else ''} connected"

    def broken(self, exc: BaseException) -> bool:
        """Whether a task failed because a worker died under it, breaking the executor: then
        `restart` gives a working one, and the lost tasks can run again."""
        return False

    def restart(self) -> None:
        """Replace a broken executor (see `broken`) by a new one."""
        raise NotImplementedError

    def close(self) -> None:
        """Shut down after every task finished."""
        self.executor.shutdown(wait=True)

    def stop(self) -> None:
        """Shut down now (Ctrl-C, an error): drop queued tasks, stop running ones if possible."""
        self.executor.shutdown(wait=False, cancel_futures=True)


#: the longest path of a Unix socket (sun_path, its final NUL aside)
SOCKET_PATH_MAX = 107


def _check_socket_dir() -> None:
    """UsageError where the forkserver's Unix socket, which multiprocessing makes in a folder of
    its own in the temporary directory, cannot be bound for the length of its path (a long
    TMPDIR): one line, not a worker pool's traceback."""
    import tempfile

    longest = os.path.join(tempfile.gettempdir(), "pymp-" + "x" * 8, "listener-" + "x" * 8)
    if len(os.fsencode(longest)) > SOCKET_PATH_MAX:
        raise UsageError(f"the temporary directory {tempfile.gettempdir()!r} is too long a path for the worker "
                         f"pool's Unix socket (at most {SOCKET_PATH_MAX - len(longest) + len(tempfile.gettempdir())} "
                         "bytes): set TMPDIR to a shorter one")


class LocalBackend(Backend):
    """Worker processes on this machine: a ProcessPoolExecutor with an initializer."""

    def __init__(self, workers: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        _check_socket_dir()
        ctx = pipesync.context()  # forkserver, with no named semaphore to leak (pipesync.py)

        def pool() -> cf.ProcessPoolExecutor:
            return cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=initializer,
                                          initargs=initargs)

        self._pool = pool
        super().__init__(pool(), f"{workers} worker process{'es' if workers != 1 else ''}")

    def broken(self, exc: BaseException) -> bool:
        return isinstance(exc, BrokenProcessPool)

    def restart(self) -> None:
        """End the broken pool's workers, then start new ones. The pool terminates them (SIGTERM;
        from Python 3.12 it sends them no sentinel besides), so each exits once SIGTERM has
        stopped its match (the worker's `_on_term` in referee/tournament/workers.py); one that
        does not within `stop`'s wait is killed, so a stuck worker cannot hang the run."""
        self.stop()
        self.executor = self._pool()

    def stop(self) -> None:
        """Stop every worker so that each kills its own bots (SIGTERM runs their cleanup); one
        still running 5 s later is killed. A broken pool's own thread (from Python 3.12) holds
        the pool's lock while it waits for its workers to end, so those are ended first."""
        pool = self.executor
        processes = list((getattr(pool, "_processes", None) or {}).values())
        if getattr(pool, "_broken", False):
            _end(processes)
        pool.shutdown(wait=False, cancel_futures=True)
        _end(processes)


def _end(processes: list[Any]) -> None:
    """SIGTERM to each worker process, then SIGKILL to one not gone within 5 s."""
    for proc in processes:
        try:
            proc.terminate()
        except (OSError, ValueError):
            pass
    for proc in processes:
        try:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=1)
        except ValueError:  # closed already (the pool's own thread joined it)
            pass


class DaskBackend(Backend):
    """A Dask cluster: a remote scheduler's workers, or a LocalCluster started for this run."""

    kind = "dask"

    def __init__(self, scheduler: str | None, workers: int, shared_out: bool) -> None:
        require("dask", scheduler)
        from distributed import Client, LocalCluster

        self.cluster = None
        if scheduler is None:
            # The processes of a LocalCluster share our file system: they write replays directly.
            # Its worker processes inherit SIGINT ignored: Ctrl-C is the driver's to handle (as in
            # local workers); stopping the cluster stops them.
            with _sigint_ignored():
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None, silence_logs=logging.ERROR)
            self.shared_out = True
            where = f"a local dask cluster of {workers} worker process{'es' if workers != 1 else ''}"
        else:
            self.shared_out = shared_out
            where = f"dask scheduler {scheduler}"
        before = set(Client._instances)
        try:
            self.client = Client(self.cluster if self.cluster is not None else scheduler,
                                 timeout=CONNECT_TIMEOUT, set_as_default=False)
        except Exception as exc:  # unreachable host, bad address, timeout: one line for the user
            _forget(set(Client._instances) - before)
            if self.cluster is not None:
                self.cluster.close()
            detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise RefereeError(f"cannot connect to the dask scheduler at {scheduler}: {detail}") from None
        #: the scheduler's address, for the user
        self.address = scheduler if scheduler is not None else self.cluster.scheduler_address
        if scheduler is not None:
            n = self.workers()
            where += f" ({n} worker{'s' if n != 1 else ''} connected now)"
        self._run = uuid.uuid4().hex[:8]  # task keys are unique per run on a shared cluster
        super().__init__(self.client.get_executor(retries=RETRIES, pure=False), where)

    def submit(self, fn: Callable[..., Any], *args: Any, name: str) -> cf.Future:
        # ClientExecutor passes `key` on to Client.submit: the match's key shows in the dashboard.
        return self.executor.submit(fn, *args, key=f"match-{name}-{self._run}")

    def failure(self, exc: BaseException, name: str) -> BaseException:
        """One line: a remote traceback helps nobody at the driver (the match replays locally).
        A task cancelled under us is the scheduler lost (Dask cancels every task of a client whose
        connection to it closed): `lost` says so."""
        after = "the journal holds every finished match: --resume plays the rest"
        if self.client.status != "running" or isinstance(exc, cf.CancelledError):
            return self.lost()
        if type(exc).__name__ == "KilledWorker":
            return RefereeError(f"match {name} was lost with every worker that ran it ({exc}); {after}")
        hint = " (is referee installed on every worker, with the same plugins?)" \
            if isinstance(exc, ImportError) else ""
        detail = str(exc).splitlines()[0] if str(exc) else ""
        return RefereeError(f"match {name} failed on a dask worker{hint}: {type(exc).__name__}: {detail}; {after}")

    def workers(self) -> int:
        """The workers connected to the scheduler now (RefereeError `lost` if it is gone)."""
        if self.client.status != "running":  # the connection closed: reconnecting or given up
            raise self.lost()
        try:
            try:
                info = self.client.scheduler_info(n_workers=0)  # the count, not every worker's details
            except TypeError:  # an older distributed, without n_workers: every worker's details
                info = self.client.scheduler_info()
        except (OSError, TimeoutError):  # bounded by Dask's connect timeout
            raise self.lost() from None
        count = info.get("n_workers")
        return count if isinstance(count, int) else len(info.get("workers", {}))

    def presence(self, connected: int) -> str:
        if not connected:
            return f"waiting for a Dask worker at {self.address}: 0 connected"
        return (f"a Dask worker joined at {self.address}: {connected} connected, "
                f"the matches run")

    def lost(self) -> RefereeError:
        """The error that ends a run whose scheduler is gone (stopped, or cut off by the network)."""
        return RefereeError(
            f"lost the Dask scheduler at {self.address}: its connection closed (it stopped, or the network "
            "failed), no worker failed; the journal holds every finished match: --resume plays the rest "
            "once a scheduler is up (--scheduler ADDRESS for another one)")

    def close(self) -> None:
        try:
            self.executor.shutdown(wait=True)
        finally:
            self._disconnect()

    def stop(self) -> None:
        """Cancel every task. On a LocalCluster its workers are stopped (their bots die with them);
        on a remote cluster a match already running finishes there and its result is dropped."""
        try:
            self.executor.shutdown(wait=False)  # cancels what is queued or running
        except Exception:
            pass
        self._disconnect()

    def _disconnect(self) -> None:
        # Once the scheduler is lost the client is still trying to reconnect; closing it cancels
        # that, which Dask logs as an error with a traceback: the user was told in one line.
        with _muted("distributed.client") if self.client.status != "running" else nullcontext():
            try:
                self.client.close(timeout=10)
            except Exception:
                pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=10)
            except Exception:
                pass


@contextmanager
def _muted(name: str) -> Iterator[None]:
    """Logger `name` silent for the block (restored after)."""
    logger = logging.getLogger(name)
    previous = logger.disabled
    logger.disabled = True
    try:
        yield
    finally:
        logger.disabled = previous


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored in this process (and so in the processes it starts) for the block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _check_address(address: str) -> None:
    """Raise UsageError unless `address` is one dask can connect to (scheme, host and port)."""
    from distributed.comm import parse_address
    from distributed.comm.addressing import get_address_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, _ = parse_address(address)
        get_backend(scheme)
        if scheme in ("tcp", "tls", "ws", "wss"):
            host, _ = get_address_host_port(address)
            if not host.strip() or any(c.isspace() for c in host):
                raise ValueError(f"no valid host in {address!r}")
    except ValueError as exc:
        raise UsageError(f"dask scheduler address {address!r}: {exc} (expected one like tcp://HOST:8786)") from None


def _forget(clients: set[Any]) -> None:
    """Mark clients whose constructor failed as closed: else each, when collected, spends 20 s
    trying to close a connection it never had."""
    for client in clients:
        try:
            client._loop_runner.stop()
        except Exception:
            pass
        client.status = "closed"


class WorkerWatch:
    """Tells the user (`say`, a line) while a backend's tasks wait for a worker: at once when none
    is connected ("waiting for a Dask worker at ADDRESS: 0 connected"), again every WAIT_REPEAT
    seconds while none is, and once one joins ("... 1 connected"). A no-op on a backend whose
    workers are always there (`Backend.workers` None).

    The driver waits for results at most `timeout` seconds at a time (None: as long as it
    takes) and calls `check` after each wait; the backend is asked only while no match
    finishes (at most every WAIT_POLL seconds), and at the first result after a wait."""

    def __init__(self, backend: Backend, say: Callable[[str], None] | None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.backend, self.say, self.clock = backend, say, clock
        connected = backend.workers()
        #: how long the driver may wait for results before calling `check`
        self.timeout = WAIT_POLL if connected is not None else None
        self._waiting: float | None = None  # since when no worker is connected (None: some are)
        self._said = -math.inf
        self._asked = clock()
        if connected == 0:
            self._note(0, self._asked)

    def check(self, finished: bool) -> None:
        """After a wait for results (`finished`: some came): ask the backend and tell the user,
        if it is time to (RefereeError if the backend is lost, from `Backend.workers`)."""
        if self.timeout is None or finished and self._waiting is None:
            return
        now = self.clock()
        if now - self._asked < WAIT_POLL and not finished:  # a result while waiting: ask at once
            return
        self._asked = now
        self._note(self.backend.workers() or 0, now)

    def _note(self, connected: int, now: float) -> None:
        if connected == 0:
            if self._waiting is None:
                self._waiting = now
            elif now - self._said < WAIT_REPEAT:
                return
            self._said = now
            waited = now - self._waiting
            self._tell(self.backend.presence(0) + (f" (for {waited:.0f} s)" if waited >= 1 else ""))
        elif self._waiting is not None:
            self._waiting = None
            self._tell(self.backend.presence(connected))

    def _tell(self, line: str) -> None:
        if self.say is not None:
            self.say(line)


@contextmanager
def open_backend(kind: str, workers: int, *, scheduler: str | None = None, shared_out: bool = False,
                 initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
                 ) -> Iterator[Backend]:
    """The backend for `kind`, closed on exit (stopped at once if the block raised).

    `workers` is the number of local worker processes (local, or a dask LocalCluster);
    `initializer`/`initargs` run once in each local worker process.
    """
    require(kind)
    backend: Backend
    if kind == "local":
        backend = LocalBackend(workers, initializer, initargs)
    else:
        backend = DaskBackend(scheduler, workers, shared_out)
    try:
        yield backend
    except BaseException:
        backend.stop()
        raise
    backend.close()
