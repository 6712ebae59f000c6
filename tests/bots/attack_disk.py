"""Attack: fill the referee's disk with many files, each far under fsize_mb (issue 25, finding 6).

`attack_disk.py BYTES`: writes 64 KiB files into its scratch (TMPDIR) until it has written
BYTES or a write fails. Reaching BYTES (more than its scratch may hold) is a win: no cap stopped
it, so with more it would have filled the disk the referee writes to. It removes its files
before it plays on.
"""

import os
import sys
import tempfile

from _attack import play, report

CHUNK = b"x" * 65536


def on_hello(msg):
    target = int(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="attack-disk-")
    written = files = 0
    error = ""
    try:
        while written < target:
            path = os.path.join(folder, f"f{files}")
            files += 1
            with open(path, "wb") as f:
                f.write(CHUNK)
            written += len(CHUNK)
    except OSError as exc:
        error = exc.strerror or str(exc)
    finally:
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)
    report("disk", written >= target, f"wrote {written} bytes in {files} files" + (f", then: {error}" if error else ""))


play(on_hello=on_hello)
