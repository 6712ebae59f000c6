"""A tournament's index.html (referee/replay/index.py): every match linked to its viewer page and
replay, the standings, the head-to-head and the fault tables, a bot's text escaped."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

from referee.errors import UsageError
from referee.replay.index import write_index
from referee.replay.verify import load_replay
from referee.testing import random_playout

from test_replay_html import BREAKER, GAMES, REGISTRY, breaker_page, referee

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

    def __init__(self, table_class: str) -> None:
        super().__init__()
        self.table_class, self.inside, self.rows, self.tables = table_class, False, [], 0
        self.cell: list | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and self.table_class in (attrs.get("class") or "").split():
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
                      "faults": result["faults"], "disqualified": [], "fault_log": result["fault_log"],
                      "decisions": 1, "seconds": 0.1, "replay": f"replays/{key}.jsonl"})
    (out / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (fault,) = result["fault_log"]

    computed = write_index(out, REGISTRY).read_text()
    records = st.read_journal(out / "journal.jsonl")[1]
    table = st.compute(records)
    table["faults"] = fault_rows(records)  # as the CLI passes it (referee/cli/tournament.py)
    passed = write_index(out, REGISTRY, table).read_text()
    assert passed == computed  # the rows the CLI passes are the ones the index computes
    assert BREAKER not in computed and "<script" not in computed and "<b>" not in computed
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
    assert "Standings: all games" in text and "<h2>Faults</h2>" not in text
