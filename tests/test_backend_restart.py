"""A broken pool of local workers is replaced even when a worker will not end on SIGTERM
(referee.tournament.executors.LocalBackend.restart once waited on it for ever)."""

from __future__ import annotations

import os
import signal
import threading
import time

from concurrent.futures.process import BrokenProcessPool

from referee.tournament.executors import LocalBackend


def test_restart_kills_a_worker_that_ignores_sigterm():
    # every worker ignores SIGTERM; one is busy, the other dies (abort), which breaks the pool
    backend = LocalBackend(2, initializer=signal.signal, initargs=(signal.SIGTERM, signal.SIG_IGN))
    try:
        # both workers started first (from 3.12 the pool starts them as work comes, and watches a
        # worker started by a submit only from its next wake-up on: one dying before goes unseen)
        warm = [backend.executor.submit(time.sleep, 1) for _ in range(2)]
        assert [f.result(timeout=60) for f in warm] == [None, None]
        backend.executor.submit(time.sleep, 600)  # one is stuck in its work (a match), the other dies
        try:
            backend.executor.submit(os.abort).result(timeout=60)
        except BrokenProcessPool:
            pass
        done = threading.Event()
        thread = threading.Thread(target=lambda: (backend.restart(), done.set()), daemon=True)
        thread.start()
        assert done.wait(60), "restart hung on a worker that ignores SIGTERM"
        assert backend.executor.submit(abs, -4).result(timeout=60) == 4
    finally:
        backend.stop()
