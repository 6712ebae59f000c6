"""A submission's build in its own sandbox (issue 28, referee.intake.build): a C bot built with
make and cached by content; a failing build, a slow one, one that escapes to the network or the
host's files, one that fills its disk (really, or with a sparse file) or leaves a link: each
refused with its reason, nothing of the host touched, no process left behind."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.bots import sandbox
from referee.intake.build import BuildLimits, build, content_key

sys.path.insert(0, str(Path(__file__).resolve().parent))
from botpython import open_folder  # noqa: E402

pytestmark = pytest.mark.skipif(not sandbox.available(), reason="bubblewrap cannot build a sandbox here")
ROOT = Path(__file__).resolve().parent.parent
FAST = BuildLimits(time_s=60, disk_mb=16, tmp_mb=16)


@pytest.fixture
def work():
    folder = open_folder("build-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _submission(work: Path, files: dict[str, str]) -> Path:
    src = work / "src"
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(text)
    os.system(f"chmod -R a+rX {src}")
    return src


def test_a_c_bot_is_built_with_make_and_cached(work: Path):
    src = work / "src"
    shutil.copytree(ROOT / "bots" / "c", src, ignore=shutil.ignore_patterns("bot", "*.o"))
    os.system(f"chmod -R a+rX {src}")
    built = build(src, ("make",), work / "cache", FAST)
    assert built.ok, (built.reason, built.log.read_text())
    bot = built.folder / "bot"
    assert os.access(bot, os.X_OK) and not (src / "bot").exists()  # built in its copy, not the source
    assert b"cc " in built.log.read_bytes()
    proc = subprocess.run([str(bot)], input=b"", capture_output=True, timeout=30)
    assert proc.returncode is not None
    again = build(src, ("make",), work / "cache", FAST)
    assert again.cached and again.folder == built.folder
    (src / "bot.c").write_text((src / "bot.c").read_text() + "\n/* changed */\n")
    assert content_key(src, ("make",)) != built.key


def test_a_failing_build_says_so_and_keeps_its_log(work: Path):
    src = _submission(work, {"Makefile": "all:\n\techo compiling; no_such_compiler bot.c\n"})
    built = build(src, ("make",), work / "cache", FAST)
    assert not built.ok and "exit status" in built.reason and built.folder is None
    assert b"no_such_compiler" in built.log.read_bytes()
    assert not (work / "cache" / built.key / "ok").exists()  # a failure is not cached


def test_a_build_reaches_neither_the_network_nor_the_hosts_files(work: Path):
    marker = work / "escaped"
    script = ("import socket, pathlib\n"
              f"for p in ['/src/x', '{marker}', '/tmp/../{marker.name}']:\n"
              "    try:\n        pathlib.Path(p).write_text('x'); print('WROTE', p)\n"
              "    except OSError as e: print('refused', p, e.errno)\n"
              "try:\n    socket.create_connection(('1.1.1.1', 80), timeout=3); print('NET')\n"
              "except OSError as e: print('no network', e.errno)\n")
    src = _submission(work, {"probe.py": script})
    built = build(src, ("python3", "probe.py"), work / "cache", FAST)
    log = built.log.read_text()
    assert built.ok, log
    assert "WROTE /src" not in log and "NET" not in log and "no network" in log
    assert not marker.exists() and not (src / "x").exists()


def test_a_slow_build_is_stopped(work: Path):
    src = _submission(work, {"slow.sh": "sleep 600\n"})
    built = build(src, ("sh", "slow.sh"), work / "cache", BuildLimits(time_s=2, disk_mb=8, tmp_mb=8))
    assert not built.ok and "past its 2 s" in built.reason


@pytest.mark.parametrize("fill", ["head -c 40000000 /dev/zero > big", "truncate -s 20G big"])
def test_a_build_that_fills_its_disk_is_refused(work: Path, fill: str):
    """A real 40 MB file meets the tmpfs's cap; a 20 GB sparse one (few blocks: the cap lets it
    be) is cut off as its tar streams out."""
    src = _submission(work, {"fill.sh": fill + "\n"})
    built = build(src, ("sh", "fill.sh"), work / "cache", FAST)
    assert not built.ok
    assert "exit status" in built.reason or "more than 16 MB" in built.reason


def test_a_build_that_leaves_a_link_is_refused(work: Path):
    src = _submission(work, {"link.sh": "ln -s /etc/passwd peek\n"})
    built = build(src, ("sh", "link.sh"), work / "cache", FAST)
    assert not built.ok and "link" in built.reason


def test_a_build_leaves_no_process_behind(work: Path):
    tag = f"referee-build-test-{os.getpid()}"
    src = _submission(work, {"bg.sh": f"(exec -a {tag} sleep 600) & echo started\n"})
    built = build(src, ("bash", "bg.sh"), work / "cache", FAST)
    assert built.ok, built.log.read_text()
    left = subprocess.run(["pgrep", "-f", tag], capture_output=True, text=True).stdout.split()
    assert not left
