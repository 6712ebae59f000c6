"""A tournament's local worker processes: their set-up (`_worker_init`), what a SIGTERM means
to them (`_on_term`), how they end with the driver however it ends (`_exit_with`), and the
record of the match each one plays, shared with the driver (`InFlight`), by which a worker
killed outright (SIGKILL, OOM) names its match. The state a worker keeps between its matches
(its registry, its BotPool, whether it is idle) is play.py's, which plays the matches.
"""

from __future__ import annotations

import multiprocessing.util
import os
import select
import signal
import threading
import time



from referee.bots import sandbox

from referee.tournament import pipesync, play


class _Terminated(BaseException):
    """Raised in a worker on SIGTERM, so the match's finally blocks kill its bots."""


class InFlight:
    """The match each local worker is playing, in memory the driver shares with its workers.

    A worker notes a match's schedule index as it starts it and clears it once the match has
    stopped, even when stopped by SIGTERM. So once every worker of a broken pool has ended, an
    index still noted is that of a match whose worker was killed outright (SIGKILL, OOM).
    """

    def __init__(self, workers: int) -> None:
        # per worker: its pid, and 1 + the index of the match it plays (0: none)
        # its lock a pipe, its memory an unlinked file: nothing named to leak (pipesync.py)
        ctx = pipesync.context()
        self._slots = ctx.Array("q", 2 * workers, lock=ctx.Lock())
        self._mine: int | None = None

    def start(self, index: int) -> None:
        """In a worker: it plays match `index` (its slot is taken at its first match)."""
        slots = self._slots
        if self._mine is None:
            with slots.get_lock():  # not reentrant: the array itself, unlocked, inside
                raw = slots.get_obj()
                self._mine = next(k for k in range(0, len(raw), 2) if raw[k] == 0)
                raw[self._mine] = os.getpid()
        slots[self._mine + 1] = index + 1

    def stop(self) -> None:
        """In a worker: its match has stopped."""
        if self._mine is not None:
            self._slots[self._mine + 1] = 0

    def left(self) -> list[int]:
        """In the driver, once every worker has ended: the matches whose worker was killed."""
        return [v - 1 for v in self._slots[1::2] if v]

    def clear(self) -> None:
        """In the driver, before new workers start: every slot free."""
        self._slots[:] = [0] * len(self._slots)


def _end_pool(grace: bool) -> None:
    """End every bot process this worker keeps (at its exit: with their grace after EOF)."""
    pool, play._pool = play._pool, None
    if pool is not None:
        pool.close(grace)


def _on_term(signum, frame):
    """SIGTERM (the pool broken or stopped, the driver gone): stop the match, then exit.

    A worker never goes back to wait for tasks after a SIGTERM: from Python 3.12 a broken pool
    sends its workers no sentinel to stop on, it only terminates them and waits for them to end
    (the driver then waited forever for a worker that had stopped its match and taken the next
    task off the queue). A second SIGTERM while the match stops does nothing more."""
    play._stopping = True
    if play._idle.is_set():
        # between matches: only the kept bots to kill; exit at once (no traceback, and no waiting
        # for a lock on the pool's queues that a worker killed outright may have left held)
        _end_pool(grace=False)
        os._exit(1)
    if play._playing:
        play._playing = False
        raise _Terminated()  # the match's finally blocks kill its bots; play_local exits after


def _worker_init(plugins_dir: str | None, driver: int | None = None, in_flight: InFlight | None = None,
                 scratch: str | None = None, reuse: tuple[int, int, dict[str, frozenset]] | None = None) -> None:
    """A local worker's set-up; with `reuse` (pool size, most matches per process, the deals of
    entrants: `reuse_pool`) it keeps the bot processes that declared reuse between its matches,
    ending them when it exits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides what Ctrl-C means
    if scratch is not None:
        sandbox.use_scratch_root(scratch)  # the run's one scratch root, which the driver removes
    signal.signal(signal.SIGTERM, _on_term)
    if reuse is not None:
        from referee.bots.pool import BotPool

        play._pool = BotPool(*reuse)
        # run when the worker exits (multiprocessing's exit function; atexit is not run there)
        multiprocessing.util.Finalize(None, _end_pool, args=(True,), exitpriority=10)
    if driver is not None:
        _exit_with(driver)
    play._in_flight = in_flight
    from referee.plugins import load_registry

    play._registry = load_registry(plugins_dir)


def _exit_with(driver: int) -> None:
    """End this worker when the driver process ends, however it ended (even SIGKILL).

    A watcher thread waits for the driver; then it stops the match in progress, if any (SIGTERM
    to the main thread: the match's finally blocks kill its bots), and ends the worker once no
    match is in progress. Without it an orphaned worker played on, writing replays that a
    `--resume` run was writing too.
    """
    main = threading.main_thread().ident

    def watch() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # SIGTERM is the main thread's
        _wait_for_exit(driver)
        signal.pthread_kill(main, signal.SIGTERM)
        play._idle.wait()
        _end_pool(grace=False)
        os._exit(1)

    threading.Thread(target=watch, name="referee-driver-watch", daemon=True).start()


def _wait_for_exit(pid: int) -> None:
    """Return once process `pid` has ended: a pidfd where the kernel has them, else polling."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):  # no pidfd_open (kernel < 5.3, not Linux)
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            except PermissionError:
                pass
            time.sleep(0.5)
    try:
        select.select([fd], [], [])  # readable once the process has ended
    finally:
        os.close(fd)
