"""The HTML replay viewer: self-contained pages, tested in headless Chromium (driven over the
DevTools protocol with a tiny stdlib websocket client), seat views that hold only what the seat
was sent (a tournament's index.html: tests/test_index_html.py).

Screenshots of each game's viewer are written to tests/artifacts/ (not tracked) for a human.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import time
import sys
from pathlib import Path

import pytest

from referee.config import resolve_config
from referee.describe import Describer, Zone, describer_of
from referee.game import EVERYONE, Event, Game, GameState, Outcome, Record
from referee.players import Fault
from referee.plugins import load_registry
from referee.replay.html import page_data, render_viewer, script_json, viewer_data, write_viewer
from referee.testing import random_playout
from referee.runner import Limits, Seat, run_match
from referee.replay.verify import load_replay, simulate

from chromium import DevTools
from misbehaving import Misbehaving

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
REGISTRY = load_registry()
GAMES = {"maumau": 3, "presidente": 4, "mayor": 4}
SEED = 4


def is_card(value) -> bool:
    """Whether a string is a card code of one of the games (their describers say)."""
    return any(describer_of(REGISTRY.game(g)).is_card(value) for g in GAMES)


def play(tmp_path: Path, game: str, seed: int = SEED, monitor=None) -> Path:
    path = tmp_path / f"{game}-{seed}.jsonl"
    random_playout(REGISTRY.game(game), {}, seed, GAMES[game], replay=path, monitor=monitor)
    return path


def referee(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def each_frame(tools: DevTools, expression: str, chunk: int = 40) -> list:
    """`expression` for every frame k of the open viewer, after `show(k)`: a chunk of frames per
    DevTools call (one call over hundreds of frames can outlast the socket's timeout under load)."""
    values: list = []
    for start in range(0, tools.js("F.length"), chunk):
        values += tools.js(f"F.slice({start}, {start + chunk}).map((f, i) => {{ show({start} + i); return {expression}; }})")
    return values


def dom_hand(tools: DevTools, seat: int) -> list[str]:
    return tools.js(f"[...document.querySelectorAll('#hand-{seat} .card[data-code]')].map(c => c.dataset.code)")


def dom_center(tools: DevTools) -> list[str]:
    return tools.js("[...document.querySelectorAll('#center .card[data-code]')].map(c => c.dataset.code)")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_viewer_steps_through_a_match_with_the_keyboard(browser, tmp_path, game):
    path = play(tmp_path, game)
    replay = load_replay(path)
    page = write_viewer(replay, REGISTRY.game(game), tmp_path / f"{game}.html")
    browser.open(page)
    n = GAMES[game]
    deal1 = next(r for r in replay.records if r["type"] == "deal")
    assert browser.js("document.body.dataset.frame") == "0"
    for seat in range(n):
        assert sorted(dom_hand(browser, seat)) == sorted(deal1["hands"][seat])
    # the truth after each move of deal 1 (its last move also deals deal 2), from the game state
    steps = min(16, sum(1 for r in replay.records if r["type"] == "move" and r["deal"] == 1) - 1)
    hands_after, moves = [], []
    for step in simulate(replay, REGISTRY.game(game)):
        if step.index:
            zones = step.state.zones()
            hands_after.append([sorted(v) for k, v in zones.items() if re.fullmatch(r"hand\s*\d+", k)])
            moves.append(step.move)
        if step.index == steps:
            break
    names = replay.names()
    for i in range(1, steps + 1):
        browser.key("ArrowRight", 39)
        assert browser.js("document.body.dataset.frame") == str(i)
        move = moves[i - 1]
        for seat in range(n):
            assert sorted(dom_hand(browser, seat)) == hands_after[i - 1][seat], (i, seat)
        now = browser.js("document.getElementById('now').textContent")
        assert f"[{move['seat']}] {names[move['seat']]}" in now
        played = move["action"].get("play")
        for card in [played] if isinstance(played, str) else played or []:
            assert card in dom_center(browser), (i, card)
            assert browser.js(f"document.querySelector('#now [data-code=\"{card}\"]') !== null")
    log = browser.js("[...document.querySelectorAll('#log li')].map(li => li.textContent)")
    assert len([line for line in log if line.startswith("[")]) >= steps
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"replay-{game}.png"
    browser.screenshot(shot)
    print(f"screenshot: {shot}")
    browser.key("ArrowLeft", 37, times=2)
    assert browser.js("document.body.dataset.frame") == str(steps - 2)
    assert browser.js("document.getElementById('slider').value") == str(steps - 2)
    browser.key("End", 35)
    frames = len(page_data(page.read_text())["frames"])
    assert browser.js("document.body.dataset.frame") == str(frames - 1)
    rows = browser.js("[...document.querySelectorAll('#scores tr')].map(tr => tr.firstChild.textContent)")
    deal_ends = [r["deal"] for r in replay.records if r["type"] == "deal_end"]
    assert rows == ["deal"] + [str(d) for d in deal_ends] + ["result"]
    browser.key("PageUp", 33)
    assert browser.js("document.body.dataset.deal") == str(deal_ends[-1])
    assert browser.js("document.getElementById('scores').rows.length") == len(deal_ends)  # the last deal not over
    ranks = browser.js("document.querySelector('#scores tr.res') === null")
    assert ranks is True


@pytest.mark.parametrize("game", sorted(GAMES))
def test_seat_viewer_shows_the_seats_hand_and_backs_for_the_others(browser, tmp_path, game):
    path = play(tmp_path, game, seed=SEED + 1)
    replay = load_replay(path)
    seat = 1
    page = write_viewer(replay, REGISTRY.game(game), tmp_path / f"{game}-seat.html", seat=seat)
    browser.open(page)
    deal1 = next(r for r in replay.records if r["type"] == "deal")
    assert sorted(dom_hand(browser, seat)) == sorted(deal1["hands"][seat])
    for other in range(GAMES[game]):
        if other != seat:
            assert dom_hand(browser, other) == []
            backs = browser.js(f"document.querySelectorAll('#hand-{other} .card.back').length")
            assert backs == len(deal1["hands"][other])
    assert browser.js("document.getElementById('view').textContent").startswith(f"seen by seat {seat}")
    # each step: the seat's hand, the others' hand sizes and the table, as the seat's observation
    # says (read by the game's describer), drawn
    frames = page_data(page.read_text())["frames"]
    zones = describer_of(REGISTRY.game(game)).observation_zones
    told = [zones(step.state.observe(seat), seat) for step in simulate(replay, REGISTRY.game(game))][:9]
    on_table = []
    for k in range(9):
        if k:
            browser.key("ArrowRight", 39)
        assert browser.js("document.body.dataset.frame") == str(k)
        if frames[k].get("done"):
            continue  # a trick taken: the table as it was before it went (not in the observation)
        assert dom_hand(browser, seat) == told[k][f"hand {seat}"], k
        for other in range(GAMES[game]):
            if other != seat:
                assert dom_hand(browser, other) == []
                backs = browser.js(f"document.querySelectorAll('#hand-{other} .card.back').length")
                assert backs == told[k][f"hand {other}"], (k, other)
        center = dom_center(browser)
        assert set(center) <= {c for z in told[k].values() if isinstance(z, list) for c in z}, (k, center)
        on_table += center
    assert on_table, "no card was ever on the table"
    ARTIFACTS.mkdir(exist_ok=True)
    browser.screenshot(ARTIFACTS / f"replay-{game}-seat{seat}.png")


def test_names_are_text_never_markup(browser, tmp_path):
    path = play(tmp_path, "maumau")
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    evil = '</script><img src=x onerror="document.title=1"><b>bold</b>'
    recs[0]["players"][0]["name"] = evil
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    page = write_viewer(load_replay(path), REGISTRY.game("maumau"), tmp_path / "evil.html")
    assert evil not in page.read_text()
    browser.open(page)
    assert browser.js("document.querySelector('#seat-0 .who span').textContent") == evil
    assert browser.js("document.querySelectorAll('img').length") == 0


BREAKER = "</script><!--<script>"  # what tests/bots/html_breaker.py sends as its name and reply type


def breaker_page(tmp_path: Path) -> tuple[Path, Path]:
    """A match against tests/bots/html_breaker.py and its viewer page, both by the CLI."""
    path, page = tmp_path / "breaker.jsonl", tmp_path / "breaker.html"
    bot = shlex.join([sys.executable, "tests/bots/html_breaker.py"])
    proc = referee("play", "maumau", "-p", bot, "-p", "random", "--seed", "3", "--max-faults", "5", "--move-ms", "20000",
                   "--out", str(path))
    assert proc.returncode == 0, proc.stderr
    (fault,) = load_replay(path).result["fault_log"]
    assert "<!--" in fault["raw"] and "</script>" in fault["raw"] and BREAKER in fault["detail"]
    proc = referee("replay", str(path), "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    return path, page


def test_a_bots_text_cannot_break_out_of_the_viewer_pages_script(tmp_path):
    # issue 15 #8: a "<!--" in a script element can hide the "</script>" that ends it
    path, page = breaker_page(tmp_path)
    text = page.read_text()
    assert text.lower().count("</script>") == len(re.findall(r"<script\b", text, re.I)) == 2
    replay = load_replay(path)
    data = page_data(text)
    assert data == json.loads(json.dumps(viewer_data(replay, REGISTRY.game("maumau"))))
    assert data["result"]["fault_log"] == replay.result["fault_log"]
    assert sum(1 for f in data["frames"] if "act" in f) == sum(1 for r in replay.records if r["type"] == "move")
    (fault,) = [f["fault"] for f in data["frames"] if "fault" in f]
    assert BREAKER in fault


def test_a_bots_text_cannot_break_the_viewer_in_chromium(browser, tmp_path):
    path, page = breaker_page(tmp_path)
    replay = load_replay(path)
    browser.open(page)  # the viewer started: its data parsed
    assert browser.js("document.querySelectorAll('script').length") == 2
    moves = sum(1 for r in replay.records if r["type"] == "move")
    now = each_frame(browser, "[document.querySelector('#now .act') !== null,"
                              " (document.querySelector('#now .fault') || {textContent: null}).textContent]")
    shown = [act for act, _ in now]
    assert shown.count(True) == moves
    faults = [text for _, text in now if text is not None]
    assert len(faults) == 1 and BREAKER in faults[0]
    assert browser.js("document.querySelectorAll('#ticks i.f').length") == 1
    browser.key("End", 35)
    assert browser.js("document.getElementById('pos').textContent") == f"{len(shown) - 1} / {len(shown) - 1}"
    assert browser.js("document.querySelector('#scores tr.res') !== null")


def test_script_json_escapes_everything_that_could_end_or_alter_a_script():
    nasty = "</script><!-- <script> & \u2028 \u2029 \\u003c"
    for data in (nasty, {nasty: [nasty, 1, None]}):
        text = script_json(data)
        assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}, text
        assert json.loads(text) == data


DQ_CASES = {"third fault": {"at": (2, 10, 20)}, "hello": {"hello": Fault("crash", "the bot exited")}}


def disqualified_match(tmp_path: Path, case: str) -> Path:
    """Presidente with max_faults 3, seat 0 disqualified at its third fault or at its hello."""
    g = REGISTRY.game("presidente")
    config = resolve_config(g, {}, 4)
    players = [Misbehaving("presidente", 0, config, **DQ_CASES[case])] + [
        Misbehaving("presidente", s, config, 0) for s in range(1, 4)]
    path = tmp_path / f"dq-{case.replace(' ', '-')}.jsonl"
    # seat 0 stands for a bot (a strategy cannot fail at its hello: verify knows it)
    run_match(g, config, 3, [Seat(f"p{s}", "command" if s == 0 else "strategy", "x") for s in range(4)], players,
              Limits(max_faults=3), replay=path)
    assert load_replay(path).result["disqualified"] == [0]
    return path


def disqualified_from(frames: list[dict], case: str) -> int:
    """The frame of the step that disqualified seat 0: its third fault, or the start."""
    faults = [k for k, f in enumerate(frames) if f.get("who") == 0 and f.get("fault", "").startswith("illegal")]
    return faults[2] if case == "third fault" else 0


@pytest.mark.parametrize("case", sorted(DQ_CASES))
def test_viewer_tags_a_seat_disqualified_from_the_step_that_disqualified_it(browser, tmp_path, case):
    replay = load_replay(disqualified_match(tmp_path, case))
    for seat in (None, 0, 1):
        page = write_viewer(replay, REGISTRY.game("presidente"), tmp_path / f"dq-{seat}.html", seat=seat)
        frames = page_data(page.read_text())["frames"]
        # the whole match and seat 0's own view: from that step on; seat 1 is told by the result
        first = disqualified_from(frames, case) if seat != 1 else len(frames) - 1
        browser.open(page)
        # the frames around that step, the ends, and every n-th (all of them: test_frames_carry_...)
        n = len(frames)
        steps = sorted({k for k in (0, 1, first - 1, first, first + 1, n - 1) if 0 <= k < n}
                       | set(range(0, n, max(1, n // 40))))
        shown = browser.js(f"{json.dumps(steps)}.map(k => {{ show(k); return document.querySelector('#seat-0 .dq') !== null; }})")
        assert shown == [k >= first for k in steps], (seat, first, steps, shown)
        assert browser.js("document.querySelectorAll('.seat .dq').length") == 1


# -- without a browser -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_pages_are_self_contained(tmp_path, game):
    text = render_viewer(load_replay(play(tmp_path, game)), REGISTRY.game(game))
    assert "<link" not in text and "@import" not in text
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text)
    assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", text)
    assert "<script src" not in text
    data = page_data(text)
    assert data["game"] == game and data["frames"] and data["result"]["ranks"]


@pytest.mark.parametrize("case", sorted(DQ_CASES))
def test_frames_carry_the_seats_disqualified_at_each_step(tmp_path, case):
    replay = load_replay(disqualified_match(tmp_path, case))
    game = REGISTRY.game("presidente")
    frames = viewer_data(replay, game)["frames"]
    first = disqualified_from(frames, case)
    assert [f.get("dq", []) for f in frames] == [[0] if k >= first else [] for k in range(len(frames))]
    # the terminal view's steps say the same
    steps = list(simulate(replay, game))
    assert (0 in steps[0].disqualified) == (case == "hello")
    own = viewer_data(replay, game, seat=0)["frames"]
    assert [f.get("dq", []) for f in own] == [f.get("dq", []) for f in frames]
    # another seat is not told until the result
    other = viewer_data(replay, game, seat=1)["frames"]
    assert [f.get("dq", []) for f in other] == [[]] * (len(other) - 1) + [[0]]


class Collect:
    def __init__(self) -> None:
        self.strings: dict[int, set[str]] = {}

    def sent(self, seat, message, state):
        self.strings.setdefault(seat, set()).update(re.findall(r'"([^"\\]*)"', json.dumps(message)))

    def stepped(self, state):
        pass


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_seat_page_holds_no_card_the_seat_was_not_sent(tmp_path, game):
    monitor = Collect()
    replay = load_replay(play(tmp_path, game, monitor=monitor))
    whole_page = render_viewer(replay, REGISTRY.game(game))
    whole = {t for t in re.findall(r"[A-Za-z0-9]+", json.dumps(page_data(whole_page))) if is_card(t)}

    def dealt(data: dict) -> set[str]:
        return {t for t in re.findall(r"[A-Za-z0-9]+", json.dumps(data["frames"][0])) if is_card(t)}

    for seat in range(GAMES[game]):
        text = render_viewer(replay, REGISTRY.game(game), seat)
        data = page_data(text)
        assert data["seed"] is None and data["kinds"] == []
        codes = {t for t in re.findall(r"[A-Za-z0-9]+", json.dumps(data)) if is_card(t)}
        assert not codes - monitor.strings[seat], codes - monitor.strings[seat]
        # the whole-match page shows more: every hand as dealt (over a whole Mayor match a seat
        # may come to see every card once, and the page's script names no card to pad the set)
        assert codes <= whole and dealt(data) < dealt(page_data(whole_page))


# -- a game whose hidden_from forgets a zone -----------------------------------------------------------

KITTY = ["k5", "k6"]


class LeakyState(GameState):
    """Two seats and six cards: k1 k2 and k3 k4 in the hands, k5 k6 face down in the kitty in
    the middle of the table, never shown to a seat; the seats play their cards to the table in
    turn. Its `hidden_from` forgets the kitty: the seat pages of old (the table of `zones()`
    masked by `hidden_from`) showed it face up. No chance: the deal is always the same."""

    def __init__(self) -> None:
        self.hands, self.kitty, self.table = [["k1", "k2"], ["k3", "k4"]], list(KITTY), []
        self.points, self.turn = [0, 0], 0
        self.out: list = [Record({"type": "deal", "deal": 1, "dealer": 1, "hands": [list(h) for h in self.hands],
                                  "kitty": list(self.kitty)})]
        self.out += [Event("deal", {"deal": 1, "dealer": 1, "hand": list(self.hands[s])}, (s,)) for s in (0, 1)]

    def to_act(self):
        return self.turn

    def legal_actions(self):
        return [] if self.turn is None else [{"play": c} for c in self.hands[self.turn]]

    def apply(self, action):
        seat = self.turn
        self.hands[seat].remove(action["play"])
        self.table.append(action["play"])
        self.points[seat] += int(action["play"][1])
        self.out.append(Event("played", {"seat": seat, "card": action["play"]}, EVERYONE))
        self.turn = 1 - seat if self.hands[1 - seat] else None
        if self.turn is None:
            self.out.append(Record({"type": "deal_end", "deal": 1, "scores": list(self.points)}))

    def observe(self, seat):
        return {"seat": seat, "hand": list(self.hands[seat]), "counts": [len(h) for h in self.hands],
                "table": list(self.table)}

    def drain(self):
        out, self.out = self.out, []
        return out

    def outcome(self):
        return Outcome(list(self.points), [float(p) for p in self.points])

    def zones(self):
        return {"hand 0": list(self.hands[0]), "hand 1": list(self.hands[1]), "kitty": list(self.kitty),
                "table": list(self.table)}

    def hidden_from(self, seat):
        return set(self.hands[1 - seat])  # the kitty forgotten


class LeakyDescriber(Describer):
    """Its cards, and the kitty and the table in the middle (no `observation_zones`: the generic one)."""

    def is_card(self, value):
        return isinstance(value, str) and re.fullmatch(r"k\d", value) is not None

    def zone(self, name):
        return Zone(name, center=True) if name in ("kitty", "table") else Zone(name)


class Leaky(Game):
    name, title, min_players, max_players = "leaky", "Leaky", 2, 2

    def new_state(self, config, players, rng=None):  # with or without the rng (the contract is changing)
        return LeakyState()

    def replay_state(self, config, players, script):
        return LeakyState()

    def describer(self):
        return LeakyDescriber()


def test_a_seat_page_shows_nothing_of_a_zone_the_games_hidden_from_forgets(tmp_path):
    # issue 17: a seat's view is built from its observation and events, not from zones() masked
    # by hidden_from, so a zone the game forgets in hidden_from does not leak on the page
    game, monitor, path = Leaky(), Collect(), tmp_path / "leaky.jsonl"
    random_playout(game, {}, 1, 2, replay=path, monitor=monitor)
    replay = load_replay(path)

    def cards(data) -> set[str]:
        return {t for t in re.findall(r"\w+", json.dumps(data["frames"])) if game.describer().is_card(t)}

    whole = viewer_data(replay, game)
    assert set(KITTY) <= cards(whole) and whole["frames"][0]["ctr"][0] == {"l": "kitty", "cards": KITTY, "n": 2,
                                                                          "by": [None, None]}
    state = LeakyState()
    for seat in (0, 1):
        assert not set(KITTY) & state.hidden_from(seat)  # so masking the zones by it shows the kitty
        data = viewer_data(replay, game, seat)
        assert not cards(data) & set(KITTY), seat
        assert cards(data) <= monitor.strings[seat]
        first = data["frames"][0]
        assert first["h"][seat] == state.hands[seat] and first["h"][1 - seat] is None and first["c"] == [2, 2]
        assert [z["l"] for z in first["ctr"]] == ["table"]  # the kitty is not in the observation
        played = [c for f in data["frames"] for z in f["ctr"] for c in z["cards"]]
        assert set(played) == {"k1", "k2", "k3", "k4"}  # the table, as the observation holds it


def mayor_deals(tmp_path: Path) -> tuple[Path, list[dict]]:
    """A Mayor match with a secret ally in some deal (seeds tried in order), its deal_end records."""
    for seed in range(SEED, SEED + 20):
        path = play(tmp_path, "mayor", seed=seed)
        ends = [r for r in load_replay(path).records if r["type"] == "deal_end"]
        if any(e.get("ally") is not None for e in ends):
            return path, ends
    raise AssertionError("no Mayor match with an ally in 20 seeds")


def test_mayor_seat_pages_show_the_candidate_and_the_ally_as_far_as_the_seat_knows(tmp_path):
    # issue 18: the candidate and the ally, from the seat's observation
    path, ends = mayor_deals(tmp_path)
    replay, game = load_replay(path), REGISTRY.game("mayor")
    views = {v["seat"]: v["frames"] for v in viewer_data(replay, game)["views"]}
    for seat in (None, 0, 1, 2, 3):
        frames = viewer_data(replay, game, seat)["frames"]
        # the whole-match page's seat selector shows the seat's parts as its own page does
        assert seat is None or [f.get("parts") for f in views[seat]] == [f.get("parts") for f in frames]
        for end in ends:
            deal = [f for f in frames if f["d"] == end["deal"]]
            candidate, ally = end["candidate"], end["ally"]
            # the candidate is public from the deal on
            assert all(any(r.startswith("candidate") for r in f["parts"][candidate]) for f in deal), (seat, end)
            if ally is None:
                continue
            tagged = [k for k, f in enumerate(deal) if "ally" in f["parts"][ally]]
            # the whole match: from the call; the ally itself: from its role event; any other seat:
            # from the reveal it was told of
            told = [k for k, f in enumerate(deal) if any(
                ("holds the called Mayor" in line if seat in (None, ally) else "ally revealed" in line)
                for line in f["log"])]
            assert tagged == (list(range(told[0], len(deal))) if told else []), (seat, end, tagged, told)
            assert seat not in (None, ally) or tagged, (seat, end)


@pytest.mark.skipif(importlib.util.find_spec("referee_crazy_eights") is None,
                    reason="the example game is not installed (pip install -e examples/crazy_eights)")
def test_the_template_games_seat_page_reads_its_observation_in_generic_words(tmp_path):
    # the template game has no describer: the generic reading of its observation
    game = REGISTRY.game("crazy_eights")
    path = tmp_path / "c8.jsonl"
    monitor = Collect()
    random_playout(game, {}, 2, 3, replay=path, monitor=monitor)
    replay = load_replay(path)
    data = viewer_data(replay, game, 1)
    first = data["frames"][0]
    deal = next(r for r in replay.records if r["type"] == "deal")
    assert sorted(first["h"][1]) == sorted(deal["hands"][1]) and first["h"][0] is None
    assert first["c"] == [len(h) for h in deal["hands"]]
    assert {p["l"]: p["n"] for p in first["piles"]} == {"top": 1, "stock": len(deal["stock"]), "discard": 1}
    shown = set(re.findall(r"\w+", json.dumps(data["frames"])))
    assert not shown & (set(deal["stock"]) - monitor.strings[1])  # no card of the draw pile it was not told


def test_replay_html_command(tmp_path):
    path = play(tmp_path, "presidente")
    out = tmp_path / "out" / "p.html"
    proc = referee("replay", str(path), "--html", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.is_file() and page_data(out.read_text())["title"] == "Presidente"
    proc = referee("replay", str(path), "--html", str(out), "--seat", "2")
    assert proc.returncode == 0 and page_data(out.read_text())["seat"] == 2
    for args in (("--html", str(out), "--deal", "1"), ("--index", str(tmp_path))):
        proc = referee("replay", str(path), *args)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr


# -- issue 18: the viewer's fixes, its seat selector, its shared assets ----------------------------

WIDTHS = (1400, 800)


def at_width(tools: DevTools, width: int) -> None:
    tools.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)


def renamed(path: Path, names: list[str]) -> Path:
    """The replay with its players renamed (the names are only shown, never checked)."""
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    for player, name in zip(recs[0]["players"], names):
        player["name"] = name
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def wait_for(tools: DevTools, expression: str, expected) -> None:
    deadline = time.monotonic() + 30
    while tools.js(expression) != expected:
        assert time.monotonic() < deadline, (expression, tools.js(expression), expected)
        time.sleep(0.05)


LONG_NAMES = ["python-smart-bot-with-a-long-name", "averyveryverylongbotnamewithnobreakinit",
              "javascript-bot (node bots/javascript/bot.js)", "c-bot"]


@pytest.mark.parametrize("game", ["mayor", "presidente"])
def test_every_seats_score_column_lies_inside_the_scores_panel(browser, tmp_path, game):
    # issue 18: the 4th seat's score column was cut off at 1400 px
    path = renamed(play(tmp_path, game), LONG_NAMES)
    page = write_viewer(load_replay(path), REGISTRY.game(game), tmp_path / "scores.html")
    outside = """(() => {
      const box = document.getElementById('scores').closest('.panel').getBoundingClientRect();
      const cells = [...document.querySelectorAll('#scores th, #scores td')];
      return [cells.length, cells.filter((c) => { const r = c.getBoundingClientRect();
        return r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.right > window.innerWidth; })
        .map((c) => c.textContent)];
    })()"""
    for width in WIDTHS:
        at_width(browser, width)
        browser.open(page)
        browser.key("End", 35)
        cells, cut = browser.js(outside)
        assert cells > 5 * (len(LONG_NAMES) + 1) and cut == [], (width, cut)
        browser.screenshot(ARTIFACTS / f"replay-{game}-scores-{width}.png")
    at_width(browser, 1400)


def test_only_a_fault_is_marked_a_fault_and_a_disqualified_seats_moves_are_the_fallbacks(browser, tmp_path):
    # issue 18: after a disqualification every fallback move was marked as a fault
    replay = load_replay(disqualified_match(tmp_path, "third fault"))
    faulted = sum(1 for r in replay.records if r["type"] == "move" and r.get("fault"))
    page = write_viewer(replay, REGISTRY.game("presidente"), tmp_path / "dq.html")
    frames = page_data(page.read_text())["frames"]
    first = disqualified_from(frames, "third fault")
    assert sum(1 for f in frames if "fault" in f) == faulted == 3
    later = [k for k, f in enumerate(frames) if f.get("who") == 0 and k > first]
    assert later and all(frames[k].get("fb") == 1 and "fault" not in frames[k] for k in later)
    browser.open(page)
    assert browser.js("document.querySelectorAll('#ticks i.f').length") == faulted
    shown = browser.js(f"{json.dumps([first, *later[:5]])}.map((k) => {{ show(k); const now = document.getElementById('now');"
                       " return [now.querySelector('.fault') !== null, (now.querySelector('.fb') || {}).textContent || null]; })")
    assert shown[0] == [True, None]
    assert all(fault is False and "fallback" in fb for fault, fb in shown[1:]), shown
    browser.key("End", 35)
    browser.js(f"show({later[-1]})")
    assert browser.js("document.querySelectorAll('#log li.mv.fb').length") >= 1
    assert browser.js("document.querySelectorAll('#log li.flt').length") == sum(
        1 for k, f in enumerate(frames) if "fault" in f and f["d"] == frames[later[-1]]["d"] and k <= later[-1])


def test_the_end_buttons_go_to_the_first_and_last_step_and_the_deal_buttons_step_deals(browser, tmp_path):
    # issue 18: |◀ and ▶| stepped a deal
    page = write_viewer(load_replay(play(tmp_path, "mayor")), REGISTRY.game("mayor"), tmp_path / "ends.html")
    frames = page_data(page.read_text())["frames"]
    starts = [k for k, f in enumerate(frames) if k == 0 or f["d"] != frames[k - 1]["d"]]
    assert len(starts) >= 3

    def click(button: str) -> int:
        browser.click(f"#{button}")
        return int(browser.js("document.body.dataset.frame"))

    for width in WIDTHS:  # the buttons on screen and working at both widths
        at_width(browser, width)
        browser.open(page)
        browser.js(f"show({starts[1] + 3})")
        assert click("blast") == len(frames) - 1
        assert click("bfirst") == 0
        assert click("bndeal") == starts[1] and click("bndeal") == starts[2]
        browser.js(f"show({starts[2] + 2})")
        assert click("bpdeal") == starts[2] and click("bpdeal") == starts[1]
        assert click("bnext") == starts[1] + 1 and click("bprev") == starts[1]
    at_width(browser, 1400)
    browser.key("End", 35)
    assert int(browser.js("document.body.dataset.frame")) == len(frames) - 1
    browser.key("PageUp", 33)
    assert int(browser.js("document.body.dataset.frame")) == starts[-1]
    browser.key("Home", 36)
    assert int(browser.js("document.body.dataset.frame")) == 0
    help_line = browser.js("document.getElementById('help').textContent")
    assert all(k in help_line for k in ("PgUp", "PgDn", "Home", "End")), help_line


def test_the_address_follows_the_step_and_the_view_and_opens_there(browser, tmp_path):
    # issue 18: no link to a moment of a match
    page = write_viewer(load_replay(play(tmp_path, "maumau")), REGISTRY.game("maumau"), tmp_path / "hash.html")
    browser.open(page)
    length = browser.js("history.length")
    browser.key("ArrowRight", 39, times=3)
    wait_for(browser, "location.hash", "#s=3")
    browser.js("show(12)")
    wait_for(browser, "location.hash", "#s=12")
    browser.js("setView(3)")  # seat 2's view: the step kept
    wait_for(browser, "location.hash", "#s=12&v=2")
    assert browser.js("document.body.dataset.frame") == "12" and browser.js("history.length") == length
    browser.call("Page.navigate", url=page.resolve().as_uri() + "#s=7&v=1")  # a link within the open page
    wait_for(browser, "document.body.dataset.frame", "7")
    assert browser.js("document.body.dataset.view") == "1"
    browser.call("Page.navigate", url="about:blank")
    browser.call("Page.navigate", url=page.resolve().as_uri() + "#s=5&v=0")  # a page opened with a hash
    wait_for(browser, "document.readyState === 'complete' && document.body.dataset.ready", "1")
    assert browser.js("document.body.dataset.frame") == "5" and browser.js("document.body.dataset.view") == "0"
    assert browser.js("document.getElementById('view').textContent").startswith("seen by seat 0")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_seat_selector_shows_each_seats_view_as_its_own_page_does(browser, tmp_path, game):
    # issue 18: switching between seats' views without regenerating; the step kept
    replay = load_replay(play(tmp_path, game))
    page = write_viewer(replay, REGISTRY.game(game), tmp_path / "views.html")
    data = page_data(page.read_text())
    assert [v["seat"] for v in data["views"]] == list(range(GAMES[game]))
    browser.open(page)
    options = browser.js("[...document.querySelectorAll('#viewsel option')].map((o) => o.textContent)")
    assert options == ["all hands"] + [f"seat {s}: {n}" for s, n in enumerate(replay.names())]
    browser.js("show(9)")
    for seat in range(GAMES[game]):
        browser.js(f"(() => {{ const s = document.getElementById('viewsel'); s.value = '{seat + 1}';"
                   " s.dispatchEvent(new Event('change')); })()")
        assert browser.js("document.body.dataset.frame") == "9" and browser.js("document.body.dataset.view") == str(seat)
        own = viewer_data(replay, REGISTRY.game(game), seat)
        # the frames the script expands from the page's compact form: the seat's own page's
        # (less the observation panel's `obs`)
        assert browser.js("F") == [{k: v for k, v in f.items() if k != "obs"} for f in own["frames"]], seat
        assert browser.js("V.deals") == own["deals"]
        assert sorted(dom_hand(browser, seat)) == sorted(own["frames"][9]["h"][seat])
        assert all(dom_hand(browser, other) == [] for other in range(GAMES[game]) if other != seat)
    browser.key("v", 86)  # the last seat's view, then the whole match
    assert browser.js("document.body.dataset.view") == ""
    # picked from the focused selector, the view leaves the arrow keys to the steps
    browser.js("(() => { const s = document.getElementById('viewsel'); s.focus(); s.value = '1';"
               " s.dispatchEvent(new Event('change')); })()")
    browser.key("ArrowRight", 39)
    assert browser.js("document.body.dataset.frame") == "10" and browser.js("document.body.dataset.view") == "0"
    browser.key("v", 86, times=GAMES[game])
    assert browser.js("F") == data["frames"]
    for width in WIDTHS:  # the selector on screen at both widths
        at_width(browser, width)
        assert browser.js("(() => { const s = document.getElementById('viewsel'), r = s.getBoundingClientRect();"
                          " return r.width > 40 && r.right <= innerWidth && document.elementFromPoint("
                          "r.left + r.width / 2, r.top + r.height / 2) === s; })()"), width
    browser.js("setView(2)")
    browser.screenshot(ARTIFACTS / f"replay-{game}-view1-800.png")
    at_width(browser, 1400)
    # a seat's own page holds its view only, and no selector
    seat_page = write_viewer(replay, REGISTRY.game(game), tmp_path / "seat1.html", seat=1)
    assert "views" not in page_data(seat_page.read_text())
    browser.open(seat_page)
    assert browser.js("getComputedStyle(document.getElementById('viewsl')).display") == "none"


def with_debug(path: Path) -> tuple[Path, dict[int, str]]:
    """The replay with a debug text on each move of seats 0 and 1 (as the runner keeps a bot's
    `debug`): "<b>seat S move K</b>", markup that must stay text."""
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    texts = {}
    for k, rec in enumerate(recs):
        if rec["type"] == "move" and rec["seat"] in (0, 1):
            rec["debug"] = texts[k] = f"<b>seat {rec['seat']} move {k}</b> thinking"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path, texts


def test_a_moves_debug_text_is_shown_beside_it_in_the_whole_match_and_its_own_seats_view_only(browser, tmp_path):
    # issue 18: a bot's debug text beside its move; another seat never sees it
    path, texts = with_debug(play(tmp_path, "maumau"))
    replay, game = load_replay(path), REGISTRY.game("maumau")
    whole = viewer_data(replay, game)
    shown = [f["dbg"] for f in whole["frames"] if "dbg" in f]
    assert shown == list(texts.values())
    for seat in range(GAMES["maumau"]):
        own = [f["dbg"] for f in viewer_data(replay, game, seat)["frames"] if "dbg" in f]
        assert own == [t for t in texts.values() if t.startswith(f"<b>seat {seat} ")], seat
        (view,) = [v for v in whole["views"] if v["seat"] == seat]
        assert [f["dbg"] for f in view["frames"] if "dbg" in f] == own
    page = write_viewer(replay, game, tmp_path / "debug.html")
    browser.open(page)
    k = next(k for k, f in enumerate(whole["frames"]) if "dbg" in f)
    browser.js(f"show({k})")
    assert browser.js("document.querySelector('#now .dbg .dt').textContent") == whole["frames"][k]["dbg"]
    assert browser.js("document.querySelector('#log li.cur .dbg .dt').textContent") == whole["frames"][k]["dbg"]
    assert browser.js("document.querySelectorAll('b').length") == 0
    browser.js("setView(3)")  # seat 2 never sees the others' debug text
    assert each_frame(browser, "document.querySelectorAll('.dbg').length") == [0] * len(whole["frames"])
    browser.screenshot(ARTIFACTS / "replay-maumau-debug.png")


def test_a_tournaments_pages_link_one_shared_script_and_style_and_the_index(browser, tmp_path):
    # issue 18: one viewer for a whole tournament, each page only its data
    out = tmp_path / "out"
    replays = [play(tmp_path, game) for game in ("maumau", "presidente")]
    pages = [out / "replays" / f"{p.stem}.html" for p in replays]
    for path, page in zip(replays, pages):
        write_viewer(load_replay(path), REGISTRY.game(load_replay(path).game), page, assets=out / "viewer",
                     index=out / "index.html")
    assets = [out / "viewer" / "viewer.js", out / "viewer" / "viewer.css"]
    inline = render_viewer(load_replay(replays[0]), REGISTRY.game("maumau"))
    for asset in assets:
        assert asset.read_text() in inline  # the same script and style a lone page inlines
    before = [a.stat().st_mtime_ns for a in assets]
    assets[1].write_text("stale")
    write_viewer(load_replay(replays[0]), REGISTRY.game("maumau"), pages[0], assets=out / "viewer",
                 index=out / "index.html")
    assert assets[0].stat().st_mtime_ns == before[0] and assets[1].read_text() in inline  # rewritten when it differs
    assert sorted(p.name for p in (out / "viewer").iterdir()) == ["viewer.css", "viewer.js"]  # no temporary left
    text = pages[0].read_text()
    assert '<script src="../viewer/viewer.js"></script>' in text and 'href="../viewer/viewer.css"' in text
    data = re.search(r'<script id="data" type="application/octet-stream">([^<]*)</script>', text).group(1)
    assert "<style>" not in text and len(text) - len(data) < 4000  # the page is its data and a few KB
    assert page_data(text) == page_data(inline)
    (out / "index.html").write_text("<!DOCTYPE html><title>the index</title><body>index</body>")
    browser.open(pages[1])
    assert browser.js("document.querySelectorAll('#seat-3 .card').length") > 0  # drawn by the shared script
    assert browser.js("getComputedStyle(document.getElementById('table')).borderRadius") == "28px"  # the shared style
    assert browser.js("document.getElementById('back').href") == (out / "index.html").resolve().as_uri()
    browser.js("document.getElementById('back').click()")
    wait_for(browser, "document.title", "the index")
    assert 'id="back"' not in inline  # a lone page links no index


def test_presidentes_deal_notes_are_words_not_field_names(browser, tmp_path):
    # issue 18: Presidente showed raw field names ("fallen: none") under the scores
    path = play(tmp_path, "presidente")
    ends = [r for r in load_replay(path).records if r["type"] == "deal_end"]
    assert any(e.get("fallen") is None for e in ends)
    page = write_viewer(load_replay(path), REGISTRY.game("presidente"), tmp_path / "notes.html")
    frames = [d["frame"] for d in page_data(page.read_text())["deals"]]
    browser.open(page)
    notes = browser.js(f"{json.dumps(frames)}.map((k) => {{ show(k); return document.getElementById('notes').textContent; }})")
    for end, note in zip(ends, notes):
        assert "fallen" not in note and "None" not in note, note
        assert ("fell" in note) == (end.get("fallen") is not None), (end, note)


def test_a_browser_without_decompression_stream_is_told_so(browser, tmp_path):
    page = write_viewer(load_replay(play(tmp_path, "maumau")), REGISTRY.game("maumau"), tmp_path / "old.html")
    hook = browser.call("Page.addScriptToEvaluateOnNewDocument", source="delete window.DecompressionStream;")
    try:
        browser.call("Page.navigate", url=page.resolve().as_uri())
        wait_for(browser, "document.readyState === 'complete' && document.body.dataset.ready", "error")
        assert "DecompressionStream" in browser.js("document.getElementById('warning').textContent")
    finally:
        browser.call("Page.removeScriptToEvaluateOnNewDocument", identifier=hook["identifier"])
