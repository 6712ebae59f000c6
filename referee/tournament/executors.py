"""Where a tournament's matches run: the executor seam.

The tournament driver (referee/tournament/run.py) hands one task per match to a `Backend`, which wraps
a `concurrent.futures.Executor` and tells the driver what it needs to know about where tasks run:

- `local`: the default worker processes, a `ProcessPoolExecutor` (forkserver) whose initializer
  loads the plugins once per worker. Workers share the driver's file system: they write the
  replays into the output directory themselves. A worker killed outright breaks the whole pool
  (every task in it fails with `BrokenProcessPool`): `broken` says so, `restart` starts a new one.
- `dask`: a `distributed.Client` used through `client.get_executor()`, connected to a scheduler
  (`tcp://HOST:8786`) or, without an address, to a `LocalCluster` started for the run (worker
  processes, one thread each). Tasks are retried on failure (`retries=RETRIES`) and rescheduled
  when their worker dies (the scheduler's `allowed-failures`); workers return the replay with the
  record unless the output directory is shared storage (`shared_out`); the bots of a match get a
  parent-death guard (`referee.tournament.run.play_task`), since a dask worker can die mid-match.

Dask is an optional extra: nothing here imports it at module level, and asking for it without it
installed is a one-line usage error naming what to install.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import signal
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from referee.errors import RefereeError, UsageError

EXECUTORS = ("local", "dask")
RETRIES = 3  # a match whose task raised is run again, at most this many times
CONNECT_TIMEOUT = "10s"  # to reach a remote scheduler
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


class LocalBackend(Backend):
    """Worker processes on this machine: a ProcessPoolExecutor with an initializer."""

    def __init__(self, workers: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        ctx = multiprocessing.get_context("forkserver")

        def pool() -> cf.ProcessPoolExecutor:
            return cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=initializer,
                                          initargs=initargs)

        self._pool = pool
        super().__init__(pool(), f"{workers} worker process{'es' if workers != 1 else ''}")

    def broken(self, exc: BaseException) -> bool:
        return isinstance(exc, BrokenProcessPool)

    def restart(self) -> None:
        """Wait for the broken pool's workers to end (it terminates them), then start new ones."""
        self.executor.shutdown(wait=True)
        self.executor = self._pool()

    def stop(self) -> None:
        """Stop every worker so that each kills its own bots (SIGTERM runs their cleanup)."""
        pool = self.executor
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            try:
                proc.terminate()
            except (OSError, ValueError):
                pass
        for proc in processes:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=1)


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
        if scheduler is not None:
            n = len(self.client.scheduler_info().get("workers", {}))
            where += f" ({n} worker{'s' if n != 1 else ''} connected now)"
        self._run = uuid.uuid4().hex[:8]  # task keys are unique per run on a shared cluster
        super().__init__(self.client.get_executor(retries=RETRIES, pure=False), where)

    def submit(self, fn: Callable[..., Any], *args: Any, name: str) -> cf.Future:
        # ClientExecutor passes `key` on to Client.submit: the match's key shows in the dashboard.
        return self.executor.submit(fn, *args, key=f"match-{name}-{self._run}")

    def failure(self, exc: BaseException, name: str) -> BaseException:
        """One line: a remote traceback helps nobody at the driver (the match replays locally)."""
        after = "the journal holds every finished match: --resume plays the rest"
        if type(exc).__name__ == "KilledWorker":
            return RefereeError(f"match {name} was lost with every worker that ran it ({exc}); {after}")
        hint = " (is referee installed on every worker, with the same plugins?)" \
            if isinstance(exc, ImportError) else ""
        detail = str(exc).splitlines()[0] if str(exc) else ""
        return RefereeError(f"match {name} failed on a dask worker{hint}: {type(exc).__name__}: {detail}; {after}")

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
