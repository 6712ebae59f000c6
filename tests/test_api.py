"""The Python API (referee.play, referee.load_replay) and the one match path under it and the CLI.

docs/python-api.md's examples are run as they are written; a replay's notebook view is rendered
in headless Chromium (the `browser` fixture, tests/chromium.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import referee
from referee import sealing
from referee.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "python-api.md"
KEY = "api-test-key-0123456789abcdef"


def blocks() -> list[str]:
    """The fenced python blocks of docs/python-api.md's match and replay sections (its Tournaments
    section, which needs a tournament file, is run by tests/test_events.py)."""
    text = DOC.read_text()
    return re.findall(r"^```python\n(.*?)^```", text[:text.index("\n## Tournaments\n")], re.S | re.M)


def test_the_doc_has_examples():
    assert len(blocks()) >= 4


@pytest.mark.parametrize("number", range(len(blocks())))
def test_each_example_of_the_doc_runs(number, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bots").symlink_to(ROOT / "bots")  # the examples run from the repository's root
    exec(compile(blocks()[number], f"{DOC.name} block {number + 1}", "exec"), {"__name__": "__doc_example__"})


def _normalised(path: Path) -> list[dict]:
    """A replay's records, the moves' thinking time aside (and the result's resources, issue 29)."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for r in records:
        if r.get("type") == "move":
            r.pop("ms", None)
        r.pop("resources", None)
    return records


def test_the_api_and_referee_play_write_the_same_replay(tmp_path, monkeypatch):
    # one path: the same seed, players and key give the same replay, moves' ms aside
    monkeypatch.setenv(sealing.KEY_ENV, KEY)
    bot = f"{sys.executable} {ROOT / 'bots/python/random_bot.py'}"
    api = referee.play("maumau", ["random", bot], seed=11, out=tmp_path / "api.jsonl", move_ms=5000)
    cli = subprocess.run([sys.executable, "-m", "referee", "play", "maumau", "-p", "random", "-p", bot, "--seed",
                          "11", "--move-ms", "5000", "--out", str(tmp_path / "cli.jsonl")],
                         capture_output=True, text=True, env={**os.environ, sealing.KEY_ENV: KEY}, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert _normalised(api.replay) == _normalised(tmp_path / "cli.jsonl")
    assert api.match == _normalised(api.replay)[0]["match"]
    assert (tmp_path / "api.seat1.log").exists() or not (tmp_path / "cli.seat1.log").exists()


def test_a_callable_seat_is_asked_with_the_observation_and_the_legal_actions(tmp_path):
    seen = []

    def last(obs, legal):
        seen.append((obs, legal))
        return len(legal) - 1

    result = referee.play("maumau", [last, "first"], seed=4, out=tmp_path)
    assert seen and all(isinstance(obs, dict) and legal for obs, legal in seen)
    assert result.faults == (0, 0) and result.names == ("last", "first")
    header = _normalised(result.replay)[0]
    assert header["players"][0]["kind"] == "strategy" and header["players"][0]["spec"].startswith("python:")
    assert result.replay == tmp_path / f"{result.match}.jsonl"


def test_a_callable_that_raises_is_a_crash_fault_of_its_seat(tmp_path):
    def broken(obs, legal):
        raise RuntimeError("oops")

    result = referee.play("maumau", ["random", broken], seed=4, out=tmp_path / "m.jsonl")
    assert result.faults == (0, 1) and result.disqualified == (1,)
    assert result.fault_log[0]["kind"] == "crash" and "oops" in result.fault_log[0]["detail"]


def test_the_same_seed_repeats_the_match_in_a_process(tmp_path):
    first = referee.play("mayor", ["random"] * 4, seed=9, out=tmp_path / "a.jsonl")
    again = referee.play("mayor", ["random"] * 4, seed=9, out=tmp_path / "b.jsonl")
    assert first.match == again.match and _normalised(first.replay) == _normalised(again.replay)


@pytest.mark.parametrize("kwargs, message", [
    ({"move_msec": 5}, "unknown limit 'move_msec'"),
    ({"sandbox": "docker"}, "sandbox must be one of"),
    ({"config": {"no_such_option": 1}}, "no option 'no_such_option'"),
])
def test_a_request_that_cannot_run_is_a_one_line_error(tmp_path, kwargs, message):
    from referee.errors import RefereeError

    with pytest.raises(RefereeError, match=re.escape(message)):
        referee.play("maumau", ["random", "first"], out=tmp_path, **kwargs)


def test_a_player_that_is_nothing_playable_is_refused(tmp_path):
    with pytest.raises(UsageError, match="no strategy name, command line or callable"):
        referee.play("maumau", ["random", 42], out=tmp_path)  # type: ignore[list-item]


def test_import_referee_loads_no_dependency():
    code = ("import sys, referee; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pluggy', 'rich', 'typer', 'referee')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['referee', 'referee.version']"


def test_a_replays_html_is_the_viewer_escaped_in_an_iframe(tmp_path):
    result = referee.play("maumau", ["random", "first"], seed=3, out=tmp_path / "m.jsonl")
    replay = referee.load_replay(result.replay)
    html = replay._repr_html_()
    assert re.fullmatch(r'<iframe srcdoc="[^"<>]*"[^<>]*></iframe>', html, re.S)
    assert "&lt;script" in html and replay.viewer() in __import__("html").unescape(html)


def test_a_replay_renders_in_a_notebook_page_in_chromium(browser, tmp_path):
    # as a notebook shows it: the _repr_html_ output put into an output cell of a page
    result = referee.play("maumau", ["random", "maumau-greedy"], seed=6, out=tmp_path / "m.jsonl")
    cell = referee.load_replay(result.replay)._repr_html_()
    page = tmp_path / "notebook.html"
    page.write_text(f'<!DOCTYPE html><html><body><div class="output_html">{cell}</div></body></html>')
    browser.call("Page.navigate", url=page.resolve().as_uri())
    frame = "(document.querySelector('iframe') || {}).contentDocument"  # none until the page is there
    for _ in range(600):
        if browser.js(f"!!({frame} && {frame}.body && {frame}.body.dataset.ready === '1')"):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the viewer did not start in the notebook's iframe")
    text = browser.js(f"{frame}.body.innerText")
    assert "maumau-greedy" in text
    assert browser.js(f"{frame}.querySelectorAll('script').length") == 2  # the viewer's data and script


def test_nothing_but_the_match_path_sets_a_match_up():
    # `referee play`, `validate` and the tournament's workers go through referee.match.play_match
    for path in [ROOT / "referee/cli/play.py", ROOT / "referee/validate.py", ROOT / "referee/tournament/play.py",
                 ROOT / "referee/api.py"]:
        text = path.read_text()
        assert "play_match(" in text, path
        assert not re.search(r"\b(make_players|run_match|match_id)\(", text), path


def test_play_computes_the_match_id_once(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from referee.cli import app

    calls = []
    real = sealing.DealKey.match_id
    monkeypatch.setattr(sealing.DealKey, "match_id", lambda self, *a: calls.append(a) or real(self, *a))
    run = CliRunner().invoke(app, ["play", "maumau", "-p", "random", "-p", "first", "--seed", "2",
                                   "--out", str(tmp_path / "m.jsonl")])
    assert run.exit_code == 0, run.output
    assert len(calls) == 1
