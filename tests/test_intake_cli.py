"""`referee intake` over a folder of strangers' submissions (issue 28's first "Done when"): a
Python bot, a C bot built with make, a Node bot, a build that fails, a bot that crashes in
validation, an archive with a `../` path, one with a link out of it, and a zip bomb. Exactly the
three working bots are accepted, every other one is rejected with its reason, and nothing is
written outside the intake's folder."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from referee.bots import sandbox

sys.path.insert(0, str(Path(__file__).resolve().parent))
from botpython import BOT_PYTHON, open_folder  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REFEREE = [sys.executable, "-m", "referee"]
pytestmark = pytest.mark.skipif(not sandbox.available(), reason="bubblewrap cannot build a sandbox here")


def _manifest(folder: Path, name: str, run: str, build: str | None = None, author: str = "someone") -> None:
    text = f'name = "{name}"\nauthor = "{author}"\nrun = "{run}"\n' + (f'build = "{build}"\n' if build else "")
    (folder / "bot.toml").write_text(text)


def _tar_with(path: Path, name: str, member: tarfile.TarInfo, data: bytes | None = None) -> None:
    manifest = f'name = "{name}"\nauthor = "x"\nrun = "python3 bot.py"\n'.encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("bot.toml")
        info.size = len(manifest)
        tar.addfile(info, io.BytesIO(manifest))
        tar.addfile(member, io.BytesIO(data) if data is not None else None)


@pytest.fixture
def contest():
    folder = open_folder("intake-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("make") is None, reason="needs node and make")
def test_intake_accepts_exactly_the_working_bots(contest: Path):
    subs = contest / "submissions"
    subs.mkdir()
    python = os.path.basename(BOT_PYTHON) if shutil.which(os.path.basename(BOT_PYTHON)) else "python3"
    py = subs / "py-bot"
    py.mkdir()
    shutil.copy(ROOT / "bots" / "python" / "random_bot.py", py / "bot.py")
    _manifest(py, "py-bot", f"{python} bot.py")
    c = subs / "c-bot"
    shutil.copytree(ROOT / "bots" / "c", c, ignore=shutil.ignore_patterns("bot", "*.o"))
    _manifest(c, "c-bot", "./bot", build="make")
    js = subs / "js-bot"
    js.mkdir()
    shutil.copy(ROOT / "bots" / "javascript" / "bot.js", js / "bot.js")
    _manifest(js, "js-bot", "node bot.js")
    broken = subs / "broken-build"
    broken.mkdir()
    (broken / "Makefile").write_text("all:\n\tcc -o bot missing.c\n")
    _manifest(broken, "broken", "./bot", build="make")
    crash = subs / "crasher"
    crash.mkdir()
    (crash / "bot.py").write_text("import sys, json\nprint(json.dumps({'type': 'ready', 'name': 'c'}), flush=True)\n"
                                  "sys.stdin.readline(); sys.stdin.readline()\nraise LookupError('planted')\n")
    _manifest(crash, "crasher", f"{python} bot.py")
    up = tarfile.TarInfo("../../escaped.py")
    up.size = 2
    _tar_with(subs / "dotdot.tar.gz", "dotdot", up, b"x\n")
    link = tarfile.TarInfo("peek")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
    _tar_with(subs / "link.tar.gz", "link", link)
    with zipfile.ZipFile(subs / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot.toml", 'name = "bomb"\nauthor = "x"\nrun = "python3 bot.py"\n')
        zf.writestr("padding.bin", bytes(16 * 1024 * 1024))
    os.system(f"chmod -R a+rX {contest}")
    before = {p for p in contest.rglob("*")}
    out = contest / "out"
    proc = subprocess.run([*REFEREE, "intake", str(subs), "--game", "presidente", "--out", str(out),
                           "--json", str(contest / "summary.json")],
                          capture_output=True, text=True, timeout=600, cwd=contest)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # not all accepted
    summary = json.loads((contest / "summary.json").read_text())
    status = {r["submission"]: (r["status"], r["stage"], r["reason"]) for r in summary["submissions"]}
    accepted = sorted(k for k, v in status.items() if v[0] == "accepted")
    assert accepted == ["c-bot", "js-bot", "py-bot"], status
    assert status["broken-build"][1] == "build" and "exit status" in status["broken-build"][2]
    assert status["crasher"][1] == "validate" and "crash" in status["crasher"][2]
    assert status["dotdot.tar.gz"][1] == "unpack" and "outside" in status["dotdot.tar.gz"][2]
    assert status["link.tar.gz"][1] == "unpack" and "link" in status["link.tar.gz"][2]
    assert status["bomb.zip"][1] == "unpack" and "zip bomb" in status["bomb.zip"][2]
    # nothing outside the intake's folder (and the summary asked for)
    after = {p for p in contest.rglob("*")}
    assert {p for p in after - before if out not in p.parents and p != out} == {contest / "summary.json"}
    assert not (contest.parent / "escaped.py").exists()
    accepted_file = json.loads((out / "accepted.json").read_text())
    assert sorted(accepted_file) == ["c-bot", "js-bot", "py-bot"]
    assert Path(accepted_file["c-bot"]["command"][0]).name == "bot"
    page = (out / "index.html").read_text()
    assert all(name in page for name in status)
    crash_report = json.loads(next((out / "submissions").glob("*-crasher/report.json")).read_text())
    assert crash_report["validation"]["faults"]["by_kind"]["crash"]["count"] >= 1


def test_a_name_belongs_to_its_first_author(contest: Path):
    subs = contest / "subs"
    for folder, author in (("a-first", "ana"), ("b-second", "bo")):
        bot = subs / folder
        bot.mkdir(parents=True)
        (bot / "bot.py").write_text("")
        _manifest(bot, "same-name", "python3 bot.py", build="false", author=author)
    os.system(f"chmod -R a+rX {contest}")
    proc = subprocess.run([*REFEREE, "intake", str(subs), "--game", "presidente", "--out", str(contest / "out"),
                           "--json", "-"], capture_output=True, text=True, timeout=300, cwd=contest)
    summary = json.loads(proc.stdout)
    rows = {r["submission"]: r for r in summary["submissions"]}
    assert rows["a-first"]["stage"] == "build"  # its build fails (false), but the name is ana's
    assert rows["b-second"]["stage"] == "name" and "another author" in rows["b-second"]["reason"]
    assert json.loads((contest / "out" / "names.json").read_text()) == {"same-name": "ana"}


def test_intake_refuses_what_is_no_submission(contest: Path):
    (contest / "notes.txt").write_text("hi")
    proc = subprocess.run([*REFEREE, "intake", str(contest / "notes.txt"), "--game", "presidente",
                           "--out", str(contest / "out")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "neither a folder nor an archive" in proc.stderr
    assert "Traceback" not in proc.stderr
