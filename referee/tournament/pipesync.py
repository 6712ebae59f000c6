"""The multiprocessing context of a tournament's local workers (`context()`): forkserver, with
its locks and semaphores made of pipes instead of named POSIX semaphores (issue 29).

multiprocessing's own locks and semaphores are named (sem_open: /dev/shm/sem.mp-*) so that a
spawned or forkserver child can open them by name: the worker pool's queues hold five, the
record of the matches in flight (workers.InFlight) one. Their name stays until the process that
made them unlinks it on its way out; when that process is SIGKILLed, multiprocessing's resource
tracker unlinks them instead, printing "There appear to be 6 leaked semaphore objects to clean up
at shutdown"; and when the tracker dies as well (a kill of the whole process group), they stay in
/dev/shm for good. A pipe has no name: the kernel frees it with the last process that holds it,
however that process ended. So nothing is left to track, unlink or warn of.

A semaphore (`PipeSemaphore`) is a pipe holding one byte per unit of its value: acquire takes a
byte, release puts one back. The read end is non-blocking, and shared by every process holding
it: a process that loses the race for a byte waits (poll) for the next rather than block for
ever on a read. Passed to a worker as a Process argument (as multiprocessing passes a Connection:
its file descriptors go with the spawn), never pickled otherwise.
"""

from __future__ import annotations

import fcntl
import multiprocessing.context
import os
import select
import termios
import time
import weakref
from multiprocessing import reduction
from typing import Any


MAX_VALUE = 4096  # bytes any pipe holds (PIPE_BUF at least): a release never blocks


class PipeSemaphore:
    """A semaphore (a lock with value 1) shared by processes: a pipe holding its value in bytes.

    It offers what multiprocessing's queues use of a SemLock: acquire(block, timeout), release,
    the context manager, and `_semlock._is_zero()` / `_get_value()` (Queue.full, Queue.qsize)."""

    def __init__(self, value: int = 1) -> None:
        if not 0 <= value <= MAX_VALUE:
            raise ValueError(f"a pipe semaphore's value is from 0 to {MAX_VALUE}, not {value}")
        read, write = os.pipe()
        os.set_blocking(read, False)
        os.write(write, b"\0" * value)
        self._attach(read, write)

    def _attach(self, read: int, write: int) -> None:
        self._read, self._write = read, write
        self._semlock = self  # where multiprocessing.queues looks for _is_zero and _get_value
        weakref.finalize(self, _close, read, write)

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        """Take one unit; False if none came (not `block`, or `timeout` seconds passed)."""
        deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
        while True:
            try:
                if os.read(self._read, 1):
                    return True
            except BlockingIOError:
                pass  # none left, or another process took it first
            left = None if deadline is None else deadline - time.monotonic()
            if not block or (left is not None and left <= 0):
                return False
            waiting = select.poll()  # not select(): no limit on the descriptor's number
            waiting.register(self._read, select.POLLIN)
            waiting.poll(None if left is None else left * 1000)

    def release(self) -> None:
        """Give one unit back."""
        os.write(self._write, b"\0")

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def _get_value(self) -> int:
        """The units left (the bytes in the pipe)."""
        return int.from_bytes(fcntl.ioctl(self._read, termios.FIONREAD, b"\0\0\0\0"), "little", signed=True)

    def _is_zero(self) -> bool:
        return self._get_value() == 0

    def __reduce__(self) -> tuple[Any, ...]:
        multiprocessing.context.assert_spawning(self)  # only as a worker's Process argument
        return _rebuild, (type(self), reduction.DupFd(self._read), reduction.DupFd(self._write))


def _rebuild(cls: type[PipeSemaphore], read: Any, write: Any) -> PipeSemaphore:
    """A semaphore in the worker it was passed to, on the descriptors that came with the spawn."""
    semaphore = cls.__new__(cls)
    semaphore._attach(read.detach(), write.detach())
    return semaphore


def _close(*fds: int) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


class _Pipes:
    """A context's locks and semaphores as pipes (what a pool's queues and InFlight use)."""

    def Lock(self) -> PipeSemaphore:  # noqa: N802 (multiprocessing's names)
        return PipeSemaphore(1)

    def Semaphore(self, value: int = 1) -> PipeSemaphore:  # noqa: N802
        return PipeSemaphore(value)

    def BoundedSemaphore(self, value: int = 1) -> PipeSemaphore:  # noqa: N802
        return PipeSemaphore(value)  # unchecked: a queue never releases more than it took


class _ForkServer(_Pipes, multiprocessing.context.ForkServerContext):
    pass


class _Spawn(_Pipes, multiprocessing.context.SpawnContext):
    pass


_CONTEXTS = {"forkserver": _ForkServer(), "spawn": _Spawn()}


def context(method: str = "forkserver") -> multiprocessing.context.BaseContext:
    """The context of a local worker pool and of what it shares with its workers: the
    tournament's (forkserver) or the index pages' (spawn), its locks pipes either way."""
    return _CONTEXTS[method]
