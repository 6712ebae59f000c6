"""The replay viewer on a phone, with each seat's conduct penalties and resources (issue 29).

At 390 px the viewer's controls, table, move log and scores are reachable and readable without
scrolling the whole page sideways (the log and the scores behind tabs); 1400 px keeps its two
columns. The scores area counts each seat's conduct penalties (referee.game.penalty: Mau Mau's
missing announcement, MM-7) by reason and rule, the log marks the move of each, and the result's
per-seat `resources` (when a replay has them) are shown. Checked in headless Chromium by DOM
measurements; the screenshots go to tests/artifacts/ (not tracked) for a human to look at.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee.config import resolve_config
from referee.game import PENALTY
from referee.players import Strategy, StrategyPlayer
from referee.plugins import load_registry
from referee.replay.html import page_data, viewer_data, write_viewer
from referee.replay.verify import load_replay, simulate
from referee.runner import Limits, Seat, run_match
from referee.testing import random_playout
from referee_strategies.basic import RandomLegal

from chromium import DevTools

REGISTRY = load_registry()
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
WIDTHS = (390, 1400)


class NoSay(Strategy):
    """The first legal action, its announcement left out (as tests/test_penalties.py's)."""

    def choose(self, obs, legal):
        action = dict(legal[0])
        action.pop("say", None)
        return action


def penalised_match(tmp_path: Path, seed: int = 3) -> tuple[Path, list[dict]]:
    """A two-seat Mau Mau match in which seat 0 never announces, and the runner's count of its
    conduct penalties."""
    game = REGISTRY.game("maumau")
    config = resolve_config(game, {}, 2)
    players = [StrategyPlayer(s("maumau", i, config, random.Random(i))) for i, s in enumerate((NoSay, RandomLegal))]
    path = tmp_path / f"nosay-{seed}.jsonl"
    result = run_match(game, config, seed, [Seat(f"s{i}", "strategy", "x") for i in range(2)], players, Limits(),
                       replay=path)
    assert result.penalties and all(p["seat"] == 0 and p["ruling"] == "MM-7" for p in result.penalties)
    # as a replay written before the runner measured resources: the tests add their own (with_resources)
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    assert "resources" in recs[-1]
    del recs[-1]["resources"]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path, result.penalties


def mayor_match(tmp_path: Path) -> Path:
    path = tmp_path / "mayor.jsonl"
    random_playout(REGISTRY.game("mayor"), {}, 4, 4, replay=path)
    return path


RESOURCES = [{"decisions": 41, "ms_p50": 3.2, "ms_p90": 7.9, "ms_max": 51.4, "cpu_s": 0.21, "peak_mb": 14.5,
              "measured": "cgroup"},
             {"decisions": 40, "ms_p50": 0.1, "ms_p90": 0.2, "ms_max": 0.9, "cpu_s": None, "peak_mb": None,
              "measured": "approximate"}]


def with_resources(path: Path, resources: list) -> Path:
    """The replay with `resources` in its result record (as the runner writes it, issue 29)."""
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    assert recs[-1]["type"] == "result"
    recs[-1]["resources"] = resources
    out = path.with_name(path.stem + "-res.jsonl")
    out.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return out


# -- the data -------------------------------------------------------------------------------------


def test_frames_carry_each_conduct_penalty_at_its_step_in_every_view(tmp_path):
    path, counted = penalised_match(tmp_path)
    replay, game = load_replay(path), REGISTRY.game("maumau")
    told = [[e.data["seat"], e.data["why"], e.data["ruling"]] for step in simulate(replay, game)
            for e in step.outputs if getattr(e, "kind", None) == PENALTY and "ruling" in e.data]
    assert len(told) == sum(p["times"] for p in counted)
    for seat in (None, 0, 1):  # a penalty is told to everyone: every view has them all
        frames = viewer_data(replay, game, seat)["frames"]
        assert [p for f in frames for p in f.get("pen", [])] == told, seat
    # each at the move that lacked the announcement: seat 0's
    assert all(f.get("who") == 0 for f in viewer_data(replay, game)["frames"] if "pen" in f)
    # a 7's draw is an event "penalty" without a ruling: no conduct penalty
    fair = tmp_path / "fair.jsonl"
    random_playout(game, {}, 3, 2, replay=fair)
    assert not any("pen" in f for f in viewer_data(load_replay(fair), game)["frames"])


def test_the_results_resources_are_kept_and_a_seat_page_holds_its_own_only(tmp_path):
    path, _ = penalised_match(tmp_path)
    game = REGISTRY.game("maumau")
    assert "resources" not in viewer_data(load_replay(path), game)["result"]  # an older replay: none
    replay = load_replay(with_resources(path, RESOURCES))
    assert viewer_data(replay, game)["result"]["resources"] == RESOURCES
    for seat in (0, 1):
        own = viewer_data(replay, game, seat)["result"]["resources"]
        assert own == [RESOURCES[s] if s == seat else None for s in range(2)]
    # what a hand-written replay may hold instead is dropped, never shown raw
    odd = load_replay(with_resources(path, [{"decisions": "<b>x</b>", "ms_p50": float("nan"), "cpu_s": True,
                                             "measured": ["cgroup"], "extra": 1}, 7]))
    assert viewer_data(odd, game)["result"]["resources"] == [
        {"decisions": None, "ms_p50": None, "ms_p90": None, "ms_max": None, "cpu_s": None, "peak_mb": None,
         "measured": None}, None]
    short = load_replay(with_resources(path, RESOURCES[:1]))  # not one per seat
    assert "resources" not in viewer_data(short, game)["result"]


# -- in Chromium ---------------------------------------------------------------------------------


def at_width(tools: DevTools, width: int) -> None:
    tools.call("Emulation.setDeviceMetricsOverride", width=width, height=844 if width < 500 else 900,
               deviceScaleFactor=1, mobile=False)


def choose(tools: DevTools, tab: str) -> None:
    """Choose a tab by a real click (a phone's; a wide window shows every part without tabs)."""
    if tools.js("getComputedStyle(document.getElementById('tabs')).display") != "none":
        tools.click(f"#t{tab}")
        assert tools.js("document.body.dataset.tab") == tab


#: the DOM measures a test reads: on screen (laid out, inside the window's width), the smallest
#: font of the element's text, the document's width against the window's
MEASURE = """
window.shown = (sel) => { const e = document.querySelector(sel); if (!e) return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= -0.5 && r.right <= innerWidth + 0.5; };
window.onscreen = (sel) => { const e = document.querySelector(sel), r = e.getBoundingClientRect();
  const t = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.top >= 0 && r.bottom <= innerHeight && t !== null && (t === e || e.contains(t)); };
window.smallest = (sel) => Math.min(...[...document.querySelectorAll(sel)].filter((e) => e.getClientRects().length
  && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .map((e) => parseFloat(getComputedStyle(e).fontSize)));
window.fits = () => document.documentElement.scrollWidth <= innerWidth;
window.first = (sel) => document.querySelector(sel).getBoundingClientRect().top
  < document.querySelector('footer').getBoundingClientRect().top - 40;
"""
CONTROLS = ("#bfirst", "#bprev", "#bplay", "#bnext", "#blast", "#slider")


def check_page(tools: DevTools, width: int, name: str) -> None:
    """The viewer at `width`: everything reachable, readable, in the width, the seats' boxes apart
    (as dealt, every hand full), the scores' result row at the last step."""
    # text of 12 px or more on a phone; a wide window keeps its small tags (11 px) as before
    least = 12 if width < 500 else 11
    tools.js(MEASURE)
    tools.js("show(1)")
    assert tools.js("fits()"), (width, tools.js("[document.documentElement.scrollWidth, innerWidth]"))
    # the seats and what is in play lie inside the table, side by side, none over another
    boxes = tools.js("""[...document.querySelectorAll('#table .seat, #center')].map((e) => {
      const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })""")
    table = tools.js("(() => { const r = document.getElementById('table').getBoundingClientRect();"
                     " return [r.left, r.top, r.right, r.bottom]; })()")
    for k, a in enumerate(boxes):
        assert table[0] - 0.5 <= a[0] and a[2] <= table[2] + 0.5 and a[3] <= table[3] + 0.5, (width, k, a, table)
        for b in boxes[k + 1:]:
            overlap = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
            assert overlap[0] <= 0.5 or overlap[1] <= 0.5, (width, a, b)
    tools.key("End", 35)
    assert tools.js("fits()"), width
    # the step controls on screen, at the top of the page and scrolled to its end
    for scroll in (0, 10 ** 6):
        tools.js(f"window.scrollTo(0, {scroll})")
        for control in CONTROLS:
            assert tools.js(f"onscreen('{control}')"), (width, scroll, control)
    tools.js("window.scrollTo(0, 0)")
    if tools.js("document.getElementById('viewsl').style.display") != "none":
        assert tools.js("shown('#viewsel')"), width
    assert tools.js("smallest('.seat .who span, #now div, footer span, #tabs button')") >= least, width
    tools.screenshot(ARTIFACTS / f"viewer-{name}-{width}.png")
    # the log and the scores: each on the first screen (no scrolling down to it) and readable
    # when its tab is chosen (a wide window: always), within the window's width, the page still
    # not wider than the window
    for tab, box, text in (("log", "#log", "#log li"), ("scores", "#scores", "#scores th, #scores td, #pens li")):
        choose(tools, tab)
        tools.js("window.scrollTo(0, 0)")
        assert tools.js(f"first('{box}')"), (width, tab)
        tools.js(f"document.querySelector('{box}').scrollIntoView()")
        assert tools.js(f"shown('{box}')") and tools.js(f"document.querySelectorAll('{text}').length") > 1, (width, tab)
        assert tools.js(f"smallest('{text}')") >= least, (width, tab, tools.js(f"smallest('{text}')"))
        assert tools.js("fits()"), (width, tab)
        tools.js("window.scrollTo(0, 0)")
        if width < 500:
            tools.screenshot(ARTIFACTS / f"viewer-{name}-{width}-{tab}.png")
    choose(tools, "table")
    assert tools.js("shown('#table')"), width


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", ["maumau-penalties", "mayor"])
def test_the_viewer_is_usable_on_a_phone_and_on_a_wide_screen(browser, tmp_path, case, width):
    path = penalised_match(tmp_path)[0] if case == "maumau-penalties" else mayor_match(tmp_path)
    replay = load_replay(path)
    page = write_viewer(replay, REGISTRY.game(replay.game), tmp_path / f"{case}.html")
    at_width(browser, width)
    try:
        browser.open(page)
        check_page(browser, width, case)
        # tabs on a phone only; a wide window shows the table, the log and the scores side by side
        tabs = browser.js("getComputedStyle(document.getElementById('tabs')).display") != "none"
        assert tabs == (width < 500)
        if not tabs:
            browser.js(MEASURE)
            assert browser.js("shown('#table') && shown('#log') && shown('#scores')")
            assert browser.js("document.getElementById('log').getBoundingClientRect().left"
                              " > document.getElementById('table').getBoundingClientRect().right")
    finally:
        at_width(browser, 1400)


def test_the_scores_count_each_seats_penalties_and_the_log_marks_their_moves(browser, tmp_path):
    path, counted = penalised_match(tmp_path)
    replay, game = load_replay(path), REGISTRY.game("maumau")
    names = replay.names()
    times = sum(p["times"] for p in counted)
    for seat in (None, 1):  # the whole match, and the other seat's own page (a public event)
        page = write_viewer(replay, game, tmp_path / f"pen-{seat}.html", seat=seat)
        frames = page_data(page.read_text())["frames"]
        marked = [k for k, f in enumerate(frames) if "pen" in f]
        assert len(marked) == times
        browser.open(page)
        assert browser.js("document.querySelectorAll('#ticks i.p').length") == times
        browser.js(f"show({marked[0] - 1})")
        assert browser.js("getComputedStyle(document.getElementById('pens')).display") == "none"
        browser.js(f"show({marked[0]})")
        assert browser.js("document.querySelector('#log li.cur.pen') !== null"), seat
        assert "MM-7" in browser.js("document.querySelector('#log li.cur.pen .penb').textContent")
        assert "penalty [0]" in browser.js("document.querySelector('#now .pen').textContent")
        browser.key("End", 35)
        line = browser.js("document.getElementById('pens').textContent")
        assert f"[0] {names[0]}: announcement (MM-7) \u00d7{times}" in line, line
        assert f"[1] {names[1]}" not in line
        # the last deal's log marks each penalised move of it
        last = frames[-1]["d"]
        assert browser.js("document.querySelectorAll('#log li.pen').length") == sum(
            1 for f in frames if "pen" in f and f["d"] == last)


def test_the_scores_show_each_seats_resources_when_the_replay_has_them(browser, tmp_path):
    path, _ = penalised_match(tmp_path)
    game = REGISTRY.game("maumau")
    rows = """[...document.querySelectorAll('#res tr')].map((tr) => [...tr.cells].map((c) => c.textContent))"""
    for width in WIDTHS:
        at_width(browser, width)
        try:
            browser.open(write_viewer(load_replay(path), game, tmp_path / "old.html"))
            assert browser.js("getComputedStyle(document.getElementById('resp')).display") == "none"
            browser.open(write_viewer(load_replay(with_resources(path, RESOURCES)), game, tmp_path / "res.html"))
            choose(browser, "scores")
            browser.js(MEASURE)
            browser.js("document.getElementById('res').scrollIntoView()")
            assert browser.js("shown('#res')") and browser.js("fits()")
            assert browser.js("smallest('#res td')") >= 12
            table = browser.js(rows)
            assert table[1:] == [["moves", "41", "40"], ["p50 ms", "3.2", "0.1"], ["p90 ms", "7.9", "0.2"],
                                 ["max ms", "51.4", "0.9"], ["CPU s", "0.21", "\u2013"], ["peak MB", "14.5", "\u2013"],
                                 ["measured", "cgroup", "approx."]], (width, table)
            browser.screenshot(ARTIFACTS / f"viewer-resources-{width}.png")
            browser.js("setView(2)")  # seat 1's view: its own figures only
            assert [r[1:] for r in browser.js(rows)[1:]] == [["", v] for v in
                                                             ("40", "0.1", "0.2", "0.9", "\u2013", "\u2013", "approx.")]
        finally:
            at_width(browser, 1400)
    seat_page = write_viewer(load_replay(with_resources(path, RESOURCES)), game, tmp_path / "seat0.html", seat=0)
    assert page_data(seat_page.read_text())["result"]["resources"][1] is None


def test_a_time_below_its_rounding_reads_as_play_shows_it(browser, tmp_path):
    # a strategy's decisions take microseconds: rounded to 0.1 ms in the record, "<0.1", not "0"
    path, _ = penalised_match(tmp_path)
    fast = [{**RESOURCES[0], "ms_p50": 0.0, "ms_p90": 0.0, "ms_max": 0.1}, RESOURCES[1]]
    browser.open(write_viewer(load_replay(with_resources(path, fast)), REGISTRY.game("maumau"), tmp_path / "f.html"))
    rows = browser.js("[...document.querySelectorAll('#res tr')].map((tr) => [...tr.cells].map((c) => c.textContent))")
    assert rows[2][1] == rows[3][1] == "<0.1" and rows[4][1] == "0.1", rows
