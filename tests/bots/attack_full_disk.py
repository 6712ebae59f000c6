"""Attack: fill the disk the referee writes its outputs to, to stop the contest for good.

`attack_full_disk.py DIR MARKER`: at hello, unless MARKER exists (it creates it: one attempt in
all), writes files of 256 KB into DIR until the disk is full (ENOSPC or EDQUOT), then plays on.
WON: the disk is full (the referee's next write of a replay, a log or the journal fails); HELD:
it could not fill it (its writes were capped first). Whether the contest stopped for good is the
test's to judge: the run must stop with one line, its journal whole, and `--resume` finish it.
"""

import errno
import os
import sys

from _attack import play, report

CHUNK = b"x" * (256 * 1024)


def on_hello(msg):
    target, marker = sys.argv[1], sys.argv[2]
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    os.close(fd)
    written = 0
    try:
        for k in range(100000):
            with open(os.path.join(target, f"fill-{k:05d}"), "wb") as f:
                f.write(CHUNK)
            written += len(CHUNK)
    except OSError as exc:
        full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
        report("full-disk", full, f"{written // 1024} KB written, then {exc.strerror}")
        return
    report("full-disk", False, f"{written // 1024} KB written, the disk still not full")


play(on_hello=on_hello)
