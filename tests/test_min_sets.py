"""`min_sets` (issue 26): the tournament file's number of duplicate sets below which the standings
give no range, LOS or rank order; read at the top level and per game, kept in the journal's head,
and honoured by `referee standings`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.plugins import load_registry
from referee.tournament.index import write_index
from referee.tournament import standings as st
from referee.tournament.config import load_tournament

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = load_registry()
BASE = '[[entrants]]\nstrategy = "random"\n[[entrants]]\nstrategy = "first"\n'
MAUMAU = '[[games]]\ngame = "maumau"\nplayers = 2\nconfig = { target = 20 }\n'


def load(tmp_path: Path, text: str):
    path = tmp_path / "t.toml"
    path.write_text(text)
    return load_tournament(path, REGISTRY)


def test_min_sets_defaults_to_ten_and_is_read_at_the_top_and_per_game(tmp_path):
    config = load(tmp_path, BASE + MAUMAU)
    assert config.games[0].min_sets == 10 and config.min_sets() == {}
    config = load(tmp_path, "min_sets = 4\n" + BASE + MAUMAU + MAUMAU + "min_sets = 20\n")
    assert [g.min_sets for g in config.games] == [4, 20]
    assert config.min_sets() == {"maumau": 20}  # a game's entries judged alike: by the largest


@pytest.mark.parametrize("text, key", [("min_sets = 0\n" + BASE + MAUMAU, "min_sets"),
                                       (BASE + MAUMAU + "min_sets = -1\n", "games[0].min_sets"),
                                       (BASE + MAUMAU + 'min_sets = "ten"\n', "games[0].min_sets")])
def test_a_bad_min_sets_is_refused_naming_its_key(tmp_path, text, key):
    with pytest.raises(ConfigError, match=re.escape(f"{key}: expected")):
        load(tmp_path, text)


def test_the_journal_keeps_min_sets_and_the_standings_honour_it(tmp_path):
    text = ('seed = 3\nseeds = 2\nduplicate = true\nmin_sets = 2\n[output]\nreplays = "faults"\nviewers = false\n'
            + BASE + MAUMAU)
    path = tmp_path / "t.toml"
    path.write_text(text)
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    head = json.loads((out / "journal.jsonl").read_text().splitlines()[0])
    assert head["min_sets"] == {"maumau": 2}
    data = json.loads((out / "standings.json").read_text())
    assert data["sets"] == {"maumau": 2} and data["min_sets"] == {"maumau": 2}
    assert all(r["low"] is not None for r in data["games"]["maumau"])
    assert data["rank_order"]["maumau"] is not None
    assert "fewer than" not in proc.stdout and "P(best)" in proc.stdout
    assert 'class="matrix rank-order"' in (out / "index.html").read_text()
    # the same journal judged by the default (10 sets): no range, and the pages say why
    table = st.compute(st.counted_journal(out / "journal.jsonl"))
    assert all(r.low is None for r in table["games"]["maumau"])
    page = write_index(out, REGISTRY, table, viewers=False).read_text()
    assert page.count("fewer than 10 duplicate sets (2)") == 2  # under the standings and the head to head
    # one game: no cross-game table (issue 26, per game first), so no note of its own
    assert "Standings: all games" not in page and "fewer duplicate sets than min_sets" not in page
    assert 'class="ci"' not in page and 'class="matrix rank-order"' not in page  # no bar, no rank order
