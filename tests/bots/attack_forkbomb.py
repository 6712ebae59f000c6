"""Attack: a fork bomb (issue 25: "a fork bomb prevented, not only ended").

`attack_forkbomb.py N`: forks children that sleep, until it has N processes alive or a fork
fails. Reaching N is a win: nothing capped its processes during the match (each child is then
killed, and the bot plays on).
"""

import os
import signal
import sys
import time

from _attack import play, report


def on_hello(msg):
    target = int(sys.argv[1])
    children = []
    error = ""
    try:
        while len(children) < target:
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            children.append(pid)
    except OSError as exc:
        error = exc.strerror or str(exc)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    report("forkbomb", len(children) >= target,
           f"{len(children)} processes alive at once" + (f", then: {error}" if error else ""))


play(on_hello=on_hello)
