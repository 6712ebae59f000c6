"""A tournament's index.html (referee/tournament/index.py): every match linked to its viewer page and
replay, the standings, the head-to-head and the fault tables, a bot's text escaped."""

from __future__ import annotations

import json
import time
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import pytest

from referee.errors import UsageError
from referee.tournament.index import write_index
from referee.replay.verify import load_replay
from referee.testing import random_playout

from test_replay_html import ARTIFACTS, BREAKER, GAMES, REGISTRY, breaker_page, referee

def test_write_index_links_every_match_and_the_standings(tmp_path):
    out = tmp_path / "t"
    (out / "replays").mkdir(parents=True)
    lines = [{"type": "tournament", "name": "Tiny <cup>", "fingerprint": "x"}]
    for index, (game, seed) in enumerate([("maumau", 1), ("presidente", 2), ("mayor", 3)]):
        key = f"{game}.g{index}.s{seed}"
        random_playout(REGISTRY.game(game), {}, seed, GAMES[game], replay=out / "replays" / f"{key}.jsonl")
        result = load_replay(out / "replays" / f"{key}.jsonl").result
        lines.append({"type": "match", "index": index, "key": key, "game": game, "seed": seed,
                      "seats": [f"bot{s}" for s in range(GAMES[game])], "scores": result["scores"],
                      "ranks": result["ranks"], "faults": result["faults"], "disqualified": [],
                      "fault_log": [], "decisions": 1, "seconds": 0.1, "replay": f"replays/{key}.jsonl"})
    lines.append({**lines[-1], "index": 3, "key": "gone", "replay": "replays/gone.jsonl"})
    (out / "replays" / "broken.jsonl").write_text('{"type":"header","game":"nope","players":[]}\n')
    lines.append({**lines[-1], "index": 4, "key": "broken", "replay": "replays/broken.jsonl"})
    (out / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    index = write_index(out, REGISTRY)
    text = index.read_text()
    assert "Tiny &lt;cup&gt;" in text and "<cup>" not in text
    for game, seed, i in (("maumau", 1, 0), ("presidente", 2, 1), ("mayor", 3, 2)):
        assert f'href="replays/{game}.g{i}.s{seed}.html"' in text
        assert f'href="replays/{game}.g{i}.s{seed}.jsonl"' in text
        assert (out / "replays" / f"{game}.g{i}.s{seed}.html").is_file()
    assert "Standings: all games" in text and "bot0" in text and "Standings: maumau" in text
    assert "missing" in text and "no viewer" in text
    viewer = out / "replays" / "maumau.g0.s1.html"
    stamp = viewer.stat().st_mtime_ns
    write_index(out, REGISTRY)
    assert viewer.stat().st_mtime_ns == stamp  # up to date: not rewritten
    with pytest.raises(UsageError, match="no journal.jsonl"):
        write_index(tmp_path, REGISTRY)
    proc = referee("replay", "--index", str(out))
    assert proc.returncode == 0 and "index.html" in proc.stdout


class Cells(HTMLParser):
    """The rows of an index page's table, as lists of (text, href of the cell's first link)."""

    def __init__(self, table_class: str, game: str | None = None) -> None:
        super().__init__()
        self.table_class, self.inside, self.rows, self.tables = table_class, False, [], 0
        self.game = game  # only the table of this data-game
        self.cell: list | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and self.table_class in (attrs.get("class") or "").split() and \
                self.game in (None, attrs.get("data-game")):
            self.inside, self.tables = True, self.tables + 1
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = ["", []]
            self.rows[-1].append(self.cell)
        elif self.inside and tag == "a" and self.cell is not None:
            self.cell[1].append(attrs.get("href"))

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif tag in ("td", "th"):
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[0] += data


def test_the_index_shows_the_fault_table_with_links_and_a_bots_text_escaped(tmp_path):
    # issue 18: the fault table the terminal and standings.json have, in index.html
    from referee.tournament import standings as st
    from referee.tournament.reporting import fault_rows

    path, _ = breaker_page(tmp_path)
    out = tmp_path / "t"
    (out / "replays").mkdir(parents=True)
    result = load_replay(path).result
    entrant = "breaker <b>&"  # an organiser's name, escaped too
    lines = [{"type": "tournament", "name": "faulty", "fingerprint": "x"}]
    for index, key in enumerate(["m0", "m1"]):
        if index == 0:  # m1's replay is gone: its fault's match is named, not linked
            (out / "replays" / f"{key}.jsonl").write_bytes(path.read_bytes())
            (out / "replays" / f"{key}.seat0.log").write_text("stderr\n")
        lines.append({"type": "match", "index": index, "key": key, "game": "maumau", "seed": 3,
                      "seats": [entrant, "random"], "scores": result["scores"], "ranks": result["ranks"],
                      "faults": result["faults"], "disqualified": [],
                      # each fault names its seat's log (the runner's, when the bot wrote to stderr)
                      "fault_log": [{**f, "log": f"{key}.seat{f['seat']}.log"} for f in result["fault_log"]],
                      "decisions": 1, "seconds": 0.1, "replay": f"replays/{key}.jsonl"})
    (out / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (fault,) = result["fault_log"]

    computed = write_index(out, REGISTRY).read_text()
    records = st.read_journal(out / "journal.jsonl")[1]
    table = st.compute(records)
    table["faults"] = fault_rows(records)  # as the CLI passes it (referee/cli/tournament.py)
    passed = write_index(out, REGISTRY, table).read_text()
    assert passed == computed  # the rows the CLI passes are the ones the index computes
    # no script but the page's own, no markup of the bot's or the organiser's
    assert BREAKER not in computed and computed.count("<script") == 1 and "<b>" not in computed
    cells = Cells("faults")
    cells.feed(computed)
    assert cells.tables == 1
    head, *rows = cells.rows
    assert [c[0] for c in head] == ["entrant", "kind", "count", "first matches", "logs", "first fault"]
    (row,) = rows
    assert [c[0] for c in row[:3]] == [entrant, fault["kind"], "2"]
    assert row[3] == ["m0, m1", ["replays/m0.html"]] and (out / "replays" / "m0.html").is_file()  # m1: no page
    assert row[4] == ["replays/m0.seat0.log, replays/m1.seat0.log", ["replays/m0.seat0.log"]]  # m1's: no log
    assert BREAKER in row[5][0] and row[5][0].startswith(fault["detail"][:40])


def test_the_index_has_no_fault_table_without_faults(tmp_path):
    out = tmp_path / "t"
    (out / "replays").mkdir(parents=True)
    random_playout(REGISTRY.game("maumau"), {}, 1, 3, replay=out / "replays" / "m.jsonl")
    result = load_replay(out / "replays" / "m.jsonl").result
    line = {"type": "match", "index": 0, "key": "m", "game": "maumau", "seed": 1, "seats": ["a", "b", "c"],
            "scores": result["scores"], "ranks": result["ranks"], "faults": result["faults"], "disqualified": [],
            "fault_log": [], "decisions": 1, "seconds": 0.1, "replay": "replays/m.jsonl"}
    (out / "journal.jsonl").write_text(json.dumps(line) + "\n")
    text = write_index(out, REGISTRY).read_text()
    assert "Standings: maumau" in text and "<h2>Faults</h2>" not in text
    assert "Standings: all games" not in text  # one game: no cross-game table (issue 26)


# -- a small tournament's index in Chromium ---------------------------------------------------------

ENTRANTS = ("alice", "bob", "carol", "dave <i>&")  # the last one's name is markup: shown as text
GONE = {"type": "match", "index": 28, "key": "m-gone", "game": "maumau", "seed": 9, "seats": ["carol", "alice", "bob"],
        "scores": [30, 12, 55], "ranks": [2, 1, 3], "faults": [0, 0, 2], "disqualified": [2], "fault_log": [],
        "decisions": 1, "seconds": 0.1, "replay": "replays/m-gone.jsonl"}  # its replay is not kept


MIN_SETS = {"maumau": 1, "presidente": 1}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A tournament's output: Mau Mau at every table of 3 of ENTRANTS (2 deals, each under 3
    seatings), Presidente at 4 (1 deal, 4 seatings), each match its own replay; and GONE. Its
    index written."""
    from itertools import combinations

    out = tmp_path_factory.mktemp("index") / "t"
    (out / "replays").mkdir(parents=True)
    deals = tmp_path_factory.mktemp("deals")
    plays = [("maumau", t, table, seed, turn) for t, table in enumerate(combinations(ENTRANTS, 3))
             for seed in (1, 2) for turn in range(3)]
    plays += [("presidente", 0, ENTRANTS, 1, turn) for turn in range(4)]
    records = []
    for index, (game, t, table, seed, turn) in enumerate(plays):
        source = deals / f"{game}-{seed}.jsonl"
        if not source.is_file():
            random_playout(REGISTRY.game(game), {}, seed, len(table), replay=source)
        key = f"{game}.t{t}.s{seed}.r{turn}"
        (out / "replays" / f"{key}.jsonl").write_bytes(source.read_bytes())
        result = load_replay(source).result
        records.append({"type": "match", "index": index, "key": key, "game": game, "seed": seed,
                        "seats": list(table[turn:] + table[:turn]), "scores": result["scores"],
                        "ranks": result["ranks"], "faults": result["faults"], "disqualified": [], "fault_log": [],
                        "decisions": 1, "seconds": 0.1, "replay": f"replays/{key}.jsonl"})
    records.append(GONE)
    # ranges at 1 set, as min_sets = 1 in a tournament file gives (the default, 10, gives none: test_standings.py)
    lines = [{"type": "tournament", "name": "small", "fingerprint": "x", "min_sets": MIN_SETS}] + records
    (out / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    write_index(out, REGISTRY)
    return out, records


def until(browser, expression: str, what: str):
    """Wait for a page's `expression` to be true (the filter waits for typing to pause)."""
    deadline = time.monotonic() + 20
    while not browser.js(expression):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def click(browser, element: str) -> None:
    """A real mouse click in the middle of `element` (a JS expression), scrolled into view."""
    x, y = browser.js(f"(() => {{ const e = {element}; e.scrollIntoView({{block: 'center'}});"
                      " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    for kind in ("mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


def width(browser, pixels: int) -> None:
    browser.call("Emulation.setDeviceMetricsOverride", width=pixels, height=900, deviceScaleFactor=1, mobile=False)


def column(browser, table: str, col: int) -> list[str]:
    """The text of column `col` of `table`'s shown rows, in their order."""
    return browser.js(f"[...{table}.tBodies[0].rows].filter(r => !r.hidden).map(r => r.cells[{col}].textContent)")


def test_every_match_opens_from_the_index(browser, small):
    out, records = small
    browser.open(out / "index.html")
    links = browser.js("[...document.querySelectorAll('table.matches a')].map(a => a.href)")
    files = [Path(urllib.parse.unquote(urllib.parse.urlparse(href).path)) for href in links]
    assert all(f.is_file() and f.is_relative_to(out) for f in files)
    pages = [f for f in files if f.suffix == ".html"]
    kept = [r for r in records if (out / r["replay"]).is_file()]
    assert sorted(p.name for p in pages) == sorted(f"{r['key']}.html" for r in kept)  # every kept match has one
    assert sorted(f.name for f in files if f.suffix == ".jsonl") == sorted(f"{r['key']}.jsonl" for r in kept)
    # nothing from the network: every link and source inside the output directory (or the page itself)
    assert browser.js("performance.getEntriesByType('resource').map(e => e.name)") == []
    targets = browser.js("[...document.querySelectorAll('[href], [src]')]"
                         ".map(e => e.getAttribute('href') ?? e.getAttribute('src'))")
    assert not [t for t in targets if urllib.parse.urlparse(t).scheme]
    for page in (pages[0], next(p for p in pages if p.name.startswith("presidente")), pages[-1]):
        browser.open(page)  # the viewer started: its data decoded


@pytest.mark.parametrize("pixels", [1400, 800])
def test_the_index_sorts_and_filters(browser, small, pixels):
    out, records = small
    width(browser, pixels)
    try:
        browser.open(out / "index.html")
        # the cross-game table comes after each game's (issue 26): every entrant played both games
        overall = "document.querySelector('table.standings[data-game=\"all games\"]')"
        matches = "document.querySelector('table.matches')"
        assert browser.js("getComputedStyle(document.getElementById('bar')).display") != "none"
        for table in (overall, matches):  # no column cut off, at either width
            assert browser.js(f"{table}.scrollWidth <= {table}.parentElement.clientWidth"), (table, pixels)
        # a click on a head sorts by that column, numbers as numbers; again: the other way
        rating = browser.js(f"[...{overall}.tHead.rows[0].cells].findIndex(th => th.textContent === 'rating')")
        ratings = [float(v) for v in column(browser, overall, rating)]
        click(browser, f"{overall}.tHead.rows[0].cells[{rating}]")
        assert [float(v) for v in column(browser, overall, rating)] == sorted(ratings) != ratings
        assert browser.js(f"getComputedStyle({overall}.tHead.rows[0].cells[{rating}], '::after').content") == '" ▲"'
        click(browser, f"{matches}.tHead.rows[0].cells[0]")
        click(browser, f"{matches}.tHead.rows[0].cells[0]")  # descending: 28, 23, ... 10, 9 (as text: 9, 8, ...)
        mau = [r for r in records if r["game"] == "maumau"]  # the first game's table: its matches only
        assert column(browser, matches, 0) == [str(r["index"]) for r in sorted(mau, key=lambda r: -r["index"])]
        assert browser.js(f"getComputedStyle({matches}.tHead.rows[0].cells[0], '::after').content") == '" ▼"'
        # the chart follows its table's order
        click(browser, f"{overall}.tHead.rows[0].cells[1]")
        names = column(browser, overall, 1)
        assert names == sorted(ENTRANTS)
        assert chart_rows(browser, 2) == names
        # the filter box: every word in a row's text (entrant, game, match)
        browser.js("document.getElementById('q').focus()")
        browser.call("Input.insertText", text="presidente bob")
        want = [r for r in records if r["game"] == "presidente" and "bob" in r["seats"]]
        until(browser, f"document.getElementById('count-matches').textContent === '{len(want)} of {len(records)} shown'",
              "the filter did not apply")
        assert column(browser, matches, 1) == []  # Mau Mau's
        presidente = "document.querySelector('table.matches[data-game=\"presidente\"]')"
        assert column(browser, presidente, 1) == [f"{r['key']} replay" for r in want]
        assert column(browser, overall, 1) == []  # no overall row holds "presidente"
        tables = "[...document.querySelectorAll('table.standings')]"
        assert browser.js(f"{tables}.map(t => [t.dataset.game, [...t.tBodies[0].rows].filter(r => !r.hidden).length])") \
            == [["maumau", 0], ["presidente", 1], ["all games", 0]]
        assert chart_rows(browser, 1) == ["bob"]
        browser.js("const q = document.getElementById('q'); q.select()")
        browser.call("Input.insertText", text="dave <i>")
        until(browser, f"{overall}.tBodies[0].querySelectorAll('tr:not([hidden])').length === 1", "no refilter")
        assert column(browser, overall, 1) == [ENTRANTS[3]]
        ARTIFACTS.mkdir(exist_ok=True)
        browser.screenshot(ARTIFACTS / f"index-filter-{pixels}.png")
    finally:
        width(browser, 1400)


def chart_rows(browser, number: int) -> list[str]:
    """The entrants of a rating chart's shown rows, top to bottom."""
    return browser.js(f"[...document.querySelectorAll('#chart-{number} g.row')].filter(g => g.style.display !== 'none')"
                      ".map(g => [g.transform.baseVal[0].matrix.f, g.dataset.e]).sort((a, b) => a[0] - b[0])"
                      ".map(p => p[1])")


def test_clicking_an_entrant_lists_its_matches(browser, small):
    out, records = small
    browser.open(out / "index.html")
    for name in ("alice", ENTRANTS[3]):
        click(browser, f"[...document.querySelectorAll('table.matches span.e')].find(e => e.textContent === {json.dumps(name)})")
        assert browser.js("decodeURIComponent(location.hash)") == f"#entrant={name}"
        theirs = sorted((r for r in records if name in r["seats"]), key=lambda r: (r["game"], r["index"]))  # by game
        until(browser, f"document.getElementById('count-matches').textContent === '{len(theirs)} of {len(records)} shown'",
              "the entrant's matches are not shown")
        marked = browser.js("[...document.querySelectorAll('table.matches tbody tr:not([hidden])')].map(r => "
                            "[...r.querySelectorAll('.p.me')].map(p => p.textContent))")
        ranks = [r["ranks"][r["seats"].index(name)] for r in theirs]
        assert [len(m) for m in marked] == [1] * len(theirs)  # its own place marked, once a match
        assert [m[0].split(" ")[0] for m in marked] == [str(rank) for rank in ranks]
        assert browser.js("document.getElementById('who').value") == name
        click(browser, "document.querySelector('header nav a[href=\"#matches\"]')")  # a section's link keeps it
        assert browser.js("location.hash") == "#matches"
        assert browser.js("document.getElementById('count-matches').textContent") == f"{len(theirs)} of {len(records)} shown"
        counts = ", ".join(f"rank {k}: {ranks.count(k)}" for k in sorted(set(ranks)))
        assert browser.js("document.getElementById('sum').firstChild.data").startswith(
            f"{name}: {len(theirs)} matches shown ({counts})")
        rows = browser.js("[...document.querySelectorAll('tr.me')].map(r => r.closest('table').className)")
        assert rows.count("standings sortable filter") == 2 + (name in ENTRANTS)  # overall, maumau, presidente
    for table in ("table.standings tbody", "table.matrix tbody"):  # the names in the standings and matrices too
        click(browser, f"document.querySelector('{table} tr[data-e=\"carol\"]').cells[{1 if 'standings' in table else 0}]")
        theirs = [r for r in records if "carol" in r["seats"]]
        assert browser.js("location.hash") == "#entrant=carol"
        until(browser, f"document.getElementById('count-matches').textContent === '{len(theirs)} of {len(records)} shown'",
              "a click on a name in the standings did not pick it")
        browser.js("history.back()")
        until(browser, "location.hash !== '#entrant=carol'", "no way back")
    browser.js("const who = document.getElementById('who'); who.value = ''; who.dispatchEvent(new Event('change'))")
    assert column(browser, "document.querySelector('table.matches')", 0) == [str(r["index"]) for r in records
                                                                          if r["game"] == "maumau"]
    assert browser.js("document.querySelectorAll('i').length") == 0  # the name's "<i>" is text


def test_the_rating_chart_draws_each_rating_and_its_interval(browser, small):
    from referee.tournament import standings as st

    out, records = small
    table = st.as_dict(st.compute(records, MIN_SETS))
    browser.open(out / "index.html")
    scopes = list(table["games"].values()) + [st.across_games(table["overall"], table["games"])]
    assert browser.js("document.querySelectorAll('svg.chart').length") == len(scopes)
    for number, rows in enumerate(scopes):
        chart = f"document.getElementById('chart-{number}')"
        assert chart_rows(browser, number) == [r["entrant"] for r in rows] \
            == column(browser, f"document.querySelectorAll('table.standings')[{number}]", 1)
        ticks = browser.js(f"[...{chart}.querySelectorAll('text.tick')]"
                           ".map(t => [+t.textContent, t.x.baseVal[0].value])")
        (v0, x0), (v1, x1) = ticks[0], ticks[-1]
        assert len(ticks) >= 3 and all(abs(x0 + (v - v0) * (x1 - x0) / (v1 - v0) - x) < 0.05 for v, x in ticks)
        assert ticks[0][0] <= min(r["low"] for r in rows) and max(r["high"] for r in rows) <= ticks[-1][0]

        def rating_at(x: float) -> float:
            return v0 + (x - x0) * (v1 - v0) / (x1 - x0)

        drawn = browser.js(f"[...{chart}.querySelectorAll('g.row')].map(g => {{ const b = g.querySelector('rect.ci'); "
                           "return [g.dataset.e, g.querySelector('circle').cx.baseVal.value, b.x.baseVal.value, "
                           "b.x.baseVal.value + b.width.baseVal.value]; })")
        for (name, dot, low, high), row in zip(drawn, rows):
            assert name == row["entrant"]
            for x, value in ((dot, row["rating"]), (low, row["low"]), (high, row["high"])):
                assert abs(rating_at(x) - value) < 0.05, (name, value, rating_at(x))
    caption = browser.js("document.querySelector('figcaption').textContent")  # the first: said in full
    assert "95% interval" in caption and "bootstrap" in caption and "Duplicate sets: maumau 3." in caption
    caption = browser.js("[...document.querySelectorAll('figcaption')].at(-1).textContent")  # across games
    assert "only the entrants that played every game" in caption and "Duplicate sets: maumau 3, presidente 1." in caption


def test_a_rating_without_an_interval_is_a_dot_alone(small):
    from dataclasses import replace

    from referee.tournament import standings as st

    out, records = small
    table = st.compute(records, MIN_SETS)
    table["overall"] = [replace(r, low=None, high=None) if r.entrant == "bob" else r for r in table["overall"]]
    table["faults"] = []
    text = write_index(out, REGISTRY, table).read_text()
    chart = text[text.index('id="chart-2"'):]  # across games, after each game's (issue 26)
    chart = chart[:chart.index("</svg>")]
    bob = chart[chart.index('data-e="bob"'):]
    bob = bob[:bob.index("</g>")]
    assert "<circle" in bob and 'class="ci"' not in bob and "(no interval)" in bob
    assert chart.count('class="ci"') == len(ENTRANTS) - 1
    caption = text[text.rindex("<figcaption>"):text.rindex("</figcaption>")]
    assert "No bar: no interval was computed" in caption
    write_index(out, REGISTRY)


def test_the_head_to_head_matrix_shows_each_pairs_share_in_colour(browser, small):
    from referee.tournament import standings as st

    out, records = small
    table = st.as_dict(st.compute(records, MIN_SETS))
    browser.open(out / "index.html")
    for number, (game, pairs) in enumerate(table["head_to_head"].items()):
        matrix = f"document.querySelector('#h2h-{number} table.matrix')"
        order = [r["entrant"] for r in table["games"][game]]
        assert browser.js(f"[...{matrix}.tBodies[0].rows].map(r => r.dataset.e)") == order
        assert browser.js(f"[...{matrix}.tHead.rows[0].cells].slice(1).map(c => c.textContent)") == order
        cells = browser.js(f"[...{matrix}.tBodies[0].rows].map(r => [...r.cells].slice(1).map(c => "
                           "[c.textContent, c.title, getComputedStyle(c).backgroundColor]))")
        colours = []
        for p in pairs:
            i, j = order.index(p["entrant"]), order.index(p["opponent"])
            share = (p["ahead"] + p["ties"] / 2) / p["matches"]
            for (text, title, colour), value in ((cells[i][j], share), (cells[j][i], 1 - share)):
                assert text == f"{round(value * 100)}%"
                assert f"{p['matches']} matches" in title
                # a LOS over sets needs two of them (Presidente here has one)
                assert ("Likelihood of superiority" if p["los"] is not None else "no likelihood of superiority") \
                    in title
                red, green, _ = (int(c) for c in colour[colour.index("(") + 1:-1].split(","))
                colours.append((value, green - red))
            assert f"ahead in {p['ahead']}, behind in {p['behind']}" in cells[i][j][1]
            assert f"ahead in {p['behind']}, behind in {p['ahead']}" in cells[j][i][1]
            if p["los"] is not None:
                assert f"superiority {p['los']:.3f}" in cells[i][j][1]
                assert f"superiority {1 - p['los']:.3f}" in cells[j][i][1]
        colours.sort()
        assert all(a[1] < b[1] for a, b in zip(colours, colours[1:]) if a[0] < b[0])  # red to green
        assert colours[0][1] < 0 < colours[-1][1] or len({v for v, _ in colours}) == 1
        assert browser.js(f"{matrix}.closest('section').querySelector('details table.pairs').tBodies[0].rows.length") \
            == len(pairs)


def test_the_match_table_gives_each_result_by_name(small):
    out, records = small
    text = (out / "index.html").read_text()
    assert '<div id="bar" hidden>' in text  # the filter needs the script: hidden without it
    assert ENTRANTS[3] not in text and "dave &lt;i&gt;&amp;" in text  # a name is text, never markup
    cells = Cells("matches")
    cells.feed(text)
    head, *rows = cells.rows
    assert cells.tables == 2  # a table per game
    assert [c[0] for c in head] == ["#", "match", "seed", "result", "faults"]
    by_index = {int(row[0][0]): row for row in rows if row[0][0] != "#"}
    gone = by_index[GONE["index"]]
    assert [c[0] for c in gone[1:]] == ["m-gone (replay missing)", "9",
                                        "1 alice 12 · 2 carol 30 · 3 bob 55 (2 faults, disq.)", "2"]
    first = records[0]
    order = sorted(range(3), key=lambda s: (first["ranks"][s], s))
    assert by_index[0][3][0] == " · ".join(f"{first['ranks'][s]} {first['seats'][s]} {first['scores'][s]}"
                                           for s in order)
    assert by_index[0][1] == [f"{first['key']} replay", [f"replays/{first['key']}.html", f"replays/{first['key']}.jsonl"]]


def test_the_index_is_built_with_progress(small):
    import os
    import pty
    import subprocess
    import sys

    out, records = small
    calls = []
    write_index(out, REGISTRY, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 0)]  # every page up to date: none to write
    for name in ("maumau.t0.s1.r0", "maumau.t0.s1.r1"):
        (out / "replays" / f"{name}.jsonl").touch()
    calls = []
    write_index(out, REGISTRY, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 2), (1, 2), (2, 2)]  # the pages it writes, counted
    proc = referee("replay", "--index", str(out))  # not a terminal: the one line only
    assert proc.returncode == 0 and proc.stdout == f"written: {out / 'index.html'}\n"
    (out / "replays" / "maumau.t0.s1.r0.jsonl").touch()  # one page to write again
    leader, follower = pty.openpty()
    run = subprocess.Popen([sys.executable, "-m", "referee", "replay", "--index", str(out)], stdout=follower,
                           stderr=follower, env={**os.environ, "COLUMNS": "120", "TERM": "xterm"})
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the run is over
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert run.wait(timeout=60) == 0
    text = seen.decode(errors="replace")
    assert "index: viewer pages" in text and "1/1" in text and "written:" in text


def test_pages_written_on_several_processes_are_those_written_on_one(small, tmp_path):
    import shutil

    out, records = small
    copy = tmp_path / "t"
    shutil.copytree(out, copy)
    for page in (copy / "replays").glob("*.html"):
        page.unlink()
    calls = []
    write_index(copy, REGISTRY, progress=lambda done, total: calls.append((done, total)), jobs=2)
    pages = sorted(p.name for p in (out / "replays").glob("*.html"))
    assert len(pages) >= 16 and pages == sorted(p.name for p in (copy / "replays").glob("*.html"))
    assert calls == [(k, len(pages)) for k in range(len(pages) + 1)]
    for name in pages:
        assert (copy / "replays" / name).read_bytes() == (out / "replays" / name).read_bytes()
    assert (copy / "index.html").read_text().replace(str(copy), "OUT") == (out / "index.html").read_text().replace(
        str(out), "OUT")


def test_without_viewers_the_index_links_the_replays_and_only_pages_up_to_date(small, tmp_path):
    # [output] viewers = false (a big run): no page written at the end, `referee replay --index` writes them
    import shutil

    out, records = small
    copy = tmp_path / "t"
    shutil.copytree(out, copy)
    kept = copy / "replays" / "maumau.t0.s1.r0.html"  # up to date: still linked
    for page in (copy / "replays").glob("*.html"):
        if page != kept:
            page.unlink()
    text = write_index(copy, REGISTRY, viewers=False).read_text()
    assert sorted(p.name for p in (copy / "replays").glob("*.html")) == [kept.name]
    assert 'href="replays/maumau.t0.s1.r0.html"' in text and 'href="replays/maumau.t0.s1.r1.html"' not in text
    assert 'href="replays/maumau.t0.s1.r1.jsonl"' in text and "no viewer" not in text


# -- on a phone and on a desktop (issue 29) --------------------------------------------------------

def full_screenshot(browser, path: Path, piece: int = 1600) -> None:
    """The whole page (beyond the window) as PNGs of at most `piece` pixels high: path-0.png, path-1.png..."""
    import base64

    w, h = browser.js("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    path.parent.mkdir(parents=True, exist_ok=True)
    for n, top in enumerate(range(0, min(h, 12 * piece), piece)):
        data = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                            clip={"x": 0, "y": top, "width": w, "height": min(piece, h - top), "scale": 1})["data"]
        path.with_name(f"{path.stem}-{n}.png").write_bytes(base64.b64decode(data))


#: the last cell of a row `e` reachable: scrolled into its scroll box (if any), then inside the window
REACHABLE = """(e => { for (let box = e.parentElement; box; box = box.parentElement) {
    if (/auto|scroll/.test(getComputedStyle(box).overflowX)) { box.scrollLeft = box.scrollWidth; break; } }
  const r = e.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= innerWidth + 0.5; })"""


@pytest.mark.parametrize("pixels", [390, 1400])
def test_the_index_fits_a_phone_and_a_desktop(browser, small, pixels):
    out, records = small
    width(browser, pixels)
    try:
        browser.open(out / "index.html")
        ARTIFACTS.mkdir(exist_ok=True)
        full_screenshot(browser, ARTIFACTS / f"index-{pixels}.png")
        # no sideways scroll of the whole page
        assert browser.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), pixels
        # every table's last column (the standings' P(best), the matches' faults) reachable
        for table in ("table.standings", "table.matrix", "table.matches"):
            assert browser.js(f"[...document.querySelectorAll('{table}')].map(t => t.tHead.rows[0].cells)"
                              f".every(cells => ({REACHABLE})(cells[cells.length - 1]))"), (table, pixels)
        # the charts' words at least 11 px as rendered (a chart shrunk to fit shrinks its text)
        sizes = browser.js("[...document.querySelectorAll('svg.chart text')].filter(t => t.getBBox().width > 0)"
                           ".map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)")
        assert sizes and min(sizes) >= 10.9, (pixels, min(sizes))
        # a standings table scrolls in its own box, its names in sight when scrolled to its last column
        assert browser.js("[...document.querySelectorAll('table.standings')].every(t => { const box = t.parentElement; "
                          "if (!/auto|scroll/.test(getComputedStyle(box).overflowX)) return false; "
                          "box.scrollLeft = box.scrollWidth; const b = box.getBoundingClientRect(), "
                          "r = t.tBodies[0].rows[0].cells[1].getBoundingClientRect(); "
                          "return r.left >= b.left - 0.5 && r.right <= b.right + 0.5; })"), pixels
        browser.js("scrollTo(0, document.querySelector('table.standings').getBoundingClientRect().top - 90)")
        browser.screenshot(ARTIFACTS / f"index-{pixels}-scrolled.png")  # the tables scrolled to their ends
        # a name's row still fits its chart: the name, the dot and the bar inside the chart's box
        inside = browser.js("[...document.querySelectorAll('svg.chart')].every(svg => { const b = "
                            "svg.getBoundingClientRect(); return [...svg.querySelectorAll('circle, rect.ci')]"
                            ".every(e => { const r = e.getBoundingClientRect(); return r.left >= b.left - 0.5 && "
                            "r.right <= b.right + 0.5; }); })")
        assert inside, pixels
    finally:
        width(browser, 1400)


LONG = "dave-of-the-longest-name"  # wider than a phone's chart gives a name


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """A tournament's output of 130 Mau Mau and 60 Presidente matches among five entrants, no
    replay kept (no viewer page to write): more than a page of each game."""
    import random

    from referee.tournament import standings as st

    out = tmp_path_factory.mktemp("many") / "t"
    out.mkdir(parents=True)
    rng = random.Random(29)
    names = ["alice", "bob", "carol", LONG, "erin"]
    records = []
    for index in range(190):
        game, seats = ("maumau", 3) if index % 19 < 13 else ("presidente", 4)
        table = rng.sample(names, seats)
        ranks = list(range(1, seats + 1))
        rng.shuffle(ranks)
        records.append({"type": "match", "index": index, "key": f"{game}-m{index}", "game": game, "seed": index // 6,
                        "seats": table, "scores": [10 * r for r in ranks], "ranks": ranks, "faults": [0] * seats,
                        "disqualified": [], "fault_log": [], "decisions": 1, "seconds": 0.1, "replay": None})
        if game == "maumau" and "erin" in table:  # erin never announces: penalised (referee.game.penalty)
            records[-1]["penalties"] = [{"seat": table.index("erin"), "why": "missing announcement <say>",
                                         "ruling": "MM-7", "times": 1 + index % 2}]
    lines = [{"type": "tournament", "name": "many", "fingerprint": "x"}] + records
    (out / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    # the standings as the caller has them (their resources included), without penalties: read from the journal
    standings = st.compute_journal(out / "journal.jsonl")
    standings["resources"] = RESOURCES
    write_index(out, REGISTRY, standings, viewers=False)
    return out, records


#: each entrant's resources, as standings.json has them (issue 29; the last one's CPU and memory not measured)
RESOURCES = [{"entrant": name, "matches": 50, "decisions": 900 + n, "ms_p50": 1.5 + n, "ms_p90": 12.25,
              "ms_max": 80.0, "cpu_s": 0.0234 * n, "cpu_s_max": 0.002, "peak_mb": 12.5,
              "measured": ["approximate", "process"]} for n, name in enumerate(["alice", "bob", "carol", LONG])] + [
    {"entrant": "erin", "matches": 50, "decisions": 950, "ms_p50": 2.0, "ms_p90": 3.0, "ms_max": 4.0, "cpu_s": None,
     "cpu_s_max": None, "peak_mb": None, "measured": ["in-process"]}]


def test_the_index_shows_penalties_and_resources_when_there_are_some(many, small):
    from referee.tournament.reporting import penalty_rows

    out, records = many
    text = (out / "index.html").read_text()
    assert 'href="#penalties"' in text and 'href="#resources"' in text
    cells = Cells("penalties")
    cells.feed(text)
    head, *rows = cells.rows
    assert [c[0] for c in head] == ["entrant", "why", "ruling", "times", "matches"]
    want = penalty_rows(records)
    assert len(want) == 1 and want[0]["matches"] > 10 and want[0]["times"] > want[0]["matches"]
    assert [[c[0] for c in row] for row in rows] == [[str(p[k]) for k in ("entrant", "why", "ruling", "times", "matches")]
                                                     for p in want]
    assert "missing announcement &lt;say&gt;" in text and "<say>" not in text
    cells = Cells("resources")
    cells.feed(text)
    head, *rows = cells.rows
    assert [c[0] for c in head] == ["entrant", "matches", "decisions", "ms p50", "ms p90", "ms max", "CPU s",
                                    "CPU s max", "peak MB", "measured"]
    assert [c[0] for c in rows[1]] == ["bob", "50", "901", "2.5", "12.25", "80", "0.023", "0.002", "12.5",
                                       "approximate, process"]
    assert [c[0] for c in rows[4]] == ["erin", "50", "950", "2", "3", "4", "-", "-", "-", "in-process"]
    # none of either: no table, no link
    text = (small[0] / "index.html").read_text()
    assert "Penalties" not in text and "Resources" not in text and "#penalties" not in text


def test_the_matches_are_grouped_by_game_with_every_row_in_the_page(many):
    # scripting off: every match is there, in its game's table, in schedule order
    out, records = many
    text = (out / "index.html").read_text()
    for game in ("maumau", "presidente"):
        cells = Cells("matches", game)
        cells.feed(text)
        head, *rows = cells.rows
        assert cells.tables == 1 and [c[0] for c in head] == ["#", "match", "seed", "result", "faults"]
        assert [int(r[0][0]) for r in rows] == [r["index"] for r in records if r["game"] == game]
    assert text.index('data-game="maumau"') < text.index('data-game="presidente"', text.index('id="matches"'))


def shown(browser, game: str) -> list[int]:
    """The schedule indexes of a game's match rows shown, in their order."""
    return [int(i) for i in column(browser, f"document.querySelector('table.matches[data-game=\"{game}\"]')", 0)]


def pager(browser, game: str, at: int = 0) -> str:
    """A game's links to its pages: above its matches (`at` 0), below them (-1)."""
    return (f"[...document.querySelector('table.matches[data-game=\"{game}\"]').closest('.group')"
            f".querySelectorAll('nav.pages')].at({at})")


@pytest.mark.parametrize("pixels", [390, 1400])
def test_the_matches_are_paged(browser, many, pixels):
    out, records = many
    width(browser, pixels)
    try:
        browser.open(out / "index.html")
        # the penalties' and resources' tables too: on a phone, their last column reachable
        for table in ("table.penalties", "table.resources"):
            assert browser.js(f"({REACHABLE})([...document.querySelector('{table}').tHead.rows[0].cells].at(-1))")
        # a long name in a chart: cut short to its column on a phone ("…"), whole where there is room
        names = browser.js("[...document.querySelectorAll('svg.chart text.name')].map(t => { const b = "
                           "t.closest('svg').getBoundingClientRect(), r = t.getBoundingClientRect(); "
                           "return [t.textContent, r.left >= b.left - 0.5, r.right <= b.right + 0.5]; })")
        assert all(inside for _, inside, _ in names) and all(inside for _, _, inside in names), names
        cut = [text for text, _, _ in names if text not in ("alice", "bob", "carol", "erin")]
        assert cut and all(LONG.startswith(text[:-1]) and text.endswith("…") if pixels == 390 else text == LONG
                           for text in cut), cut
        if pixels == 390:  # turned sideways: whole again
            width(browser, 1400)
            until(browser, f"[...document.querySelectorAll('svg.chart text.name')].some(t => t.textContent === "
                           f"{json.dumps(LONG)})", "a name cut short on a phone stays cut on a wide screen")
            width(browser, pixels)
            until(browser, "[...document.querySelectorAll('svg.chart text.name')].some(t => t.textContent.endsWith('…'))",
                  "not cut again")
        browser.js("document.getElementById('penalties').scrollIntoView()")
        ARTIFACTS.mkdir(exist_ok=True)
        browser.screenshot(ARTIFACTS / f"index-costs-{pixels}.png")
        mau = [r["index"] for r in records if r["game"] == "maumau"]
        pres = [r["index"] for r in records if r["game"] == "presidente"]
        assert (len(mau), len(pres)) == (130, 60)
        assert shown(browser, "maumau") == mau[:50] and shown(browser, "presidente") == pres[:50]
        assert browser.js(f"{pager(browser, 'maumau')}.textContent").endswith("page 1 of 3")
        button = f"[...{pager(browser, 'maumau')}.querySelectorAll('button')].find(b => b.textContent === %s)"
        click(browser, button % "'2'")  # a real click on page 2: the next 50
        assert shown(browser, "maumau") == mau[50:100] and shown(browser, "presidente") == pres[:50]
        ARTIFACTS.mkdir(exist_ok=True)
        browser.screenshot(ARTIFACTS / f"index-pages-{pixels}.png")
        below = f"[...{pager(browser, 'maumau', -1)}.querySelectorAll('button')].find(b => b.textContent === %s)"
        click(browser, below % "'\u203a'")  # the page after, below the list: the last 30
        assert browser.js("document.querySelector('table.matches').getBoundingClientRect().top > 0")  # back up
        assert shown(browser, "maumau") == mau[100:]
        assert browser.js(f"{pager(browser, 'maumau')}.textContent").endswith("page 3 of 3")
        assert browser.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), pixels
        # an entrant picked: its matches only, paged again from the first
        browser.js("{ const who = document.getElementById('who'); who.value = 'alice'; "
                   "who.dispatchEvent(new Event('change')); }")
        theirs = [r["index"] for r in records if r["game"] == "maumau" and "alice" in r["seats"]]
        assert len(theirs) > 50 and shown(browser, "maumau") == theirs[:50]
        pages = -(-len(theirs) // 50)
        assert browser.js(f"{pager(browser, 'maumau')}.textContent").endswith(f"page 1 of {pages}")
        every = sum("alice" in r["seats"] for r in records)
        assert browser.js("document.getElementById('count-matches').textContent") == f"{every} of {len(records)} shown"
        click(browser, button % f"'{pages}'")
        assert shown(browser, "maumau") == theirs[(pages - 1) * 50:]
        # sorted: the first page of the new order
        click(browser, "document.querySelector('table.matches[data-game=\"maumau\"]').tHead.rows[0].cells[0]")
        click(browser, "document.querySelector('table.matches[data-game=\"maumau\"]').tHead.rows[0].cells[0]")
        assert shown(browser, "maumau") == theirs[::-1][:50]
        browser.js("{ const who = document.getElementById('who'); who.value = ''; who.dispatchEvent(new Event('change')); }")
    finally:
        width(browser, 1400)
