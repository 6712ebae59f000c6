"""Reading a tournament file: every mistake in it is one line naming the file and the key, exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.plugins import load_registry
from referee.tournament.config import LIMIT_MAX, MAX_MATCHES, load_tournament

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = load_registry()

BASE = """
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "first"
"""
MAUMAU = '[[games]]\ngame = "maumau"\nplayers = 2\n'


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(tmp_path: Path, path: Path) -> str:
    """Run `referee tournament PATH`; assert it is refused in one line naming the file; return it."""
    proc = subprocess.run([sys.executable, "-m", "referee", "tournament", str(path), "--out", str(tmp_path / "o")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert len(lines) == 1 and str(path) in lines[0], proc.stderr
    assert not (tmp_path / "o").exists()
    return lines[0]


@pytest.mark.parametrize("text, key, shown", [
    (BASE + '[[games]]\ngame = "maumau"\nplayers = 2\nentrants = [["random"], "first"]\n',
     "games[0].entrants[0]", '["random"]'),
    (BASE + '[[games]]\ngame = "maumau"\nplayers = 2\nentrants = ["random", 7]\n', "games[0].entrants[1]", "7"),
    (BASE + '[[entrants]]\nname = "r2"\nstrategy = "random"\ngames = [{a=1}]\n' + MAUMAU,
     "entrants[2].games[0]", "{ a = 1 }"),
    (BASE + '[[entrants]]\nname = "r2"\nstrategy = "random"\ngames = ["maumau", true]\n' + MAUMAU,
     "entrants[2].games[1]", "true"),
])
def test_every_element_of_an_array_of_names_must_be_a_string(tmp_path, text, key, shown):
    line = refused(tmp_path, write(tmp_path, text))
    assert f": {key}: expected" in line and line.endswith(f"got {shown}"), line


def test_a_binary_file_is_not_valid_toml(tmp_path):
    path = tmp_path / "t.toml"
    path.write_bytes(b"\xff\xfe\x00\x01binary")
    assert "not valid TOML: not UTF-8 text (byte 0xff at offset 0)" in refused(tmp_path, path)


def test_a_file_that_cannot_be_opened_is_refused(tmp_path):
    path = tmp_path / "t.toml"
    path.symlink_to(path)  # ELOOP: fails to open even for root, like EACCES for a user
    assert "cannot be read: Too many levels of symbolic links" in refused(tmp_path, path)


def test_a_file_without_read_permission_is_refused(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from referee.cli import app

    path = write(tmp_path, BASE + MAUMAU)
    read_text = Path.read_text

    def denied(self, *args, **kwargs):  # only the tournament file: plugins are found by reading files too
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", denied)
    result = CliRunner().invoke(app, ["tournament", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"error: tournament file {str(path)!r} cannot be read: Permission denied"


@pytest.mark.parametrize("key", sorted(LIMIT_MAX))
def test_a_limit_above_its_cap_is_refused_at_load_time(tmp_path, key):
    at_cap = write(tmp_path, BASE + f"[limits]\n{key} = {LIMIT_MAX[key]}\n" + MAUMAU, "cap.toml")
    load_tournament(at_cap, REGISTRY)
    above = write(tmp_path, BASE + f"[limits]\n{key} = {LIMIT_MAX[key] + 1}\n" + MAUMAU)
    with pytest.raises(ConfigError, match=rf": limits\.{key}: expected .*at most {LIMIT_MAX[key]}, "):
        load_tournament(above, REGISTRY)


@pytest.mark.parametrize("text, key", [
    (BASE + "[limits]\nmove_ms = 9999999999\n" + MAUMAU, "limits.move_ms"),
    (BASE + "[limits]\ngrace_ms = 9999999999\n" + MAUMAU, "limits.grace_ms"),
    (BASE + '[[entrants]]\nname = "r2"\nstrategy = "random"\nlimits = { start_ms = 9999999999 }\n' + MAUMAU,
     "entrants[2].limits.start_ms"),
])
def test_a_huge_time_limit_is_one_line_not_an_overflow_later(tmp_path, text, key):
    line = refused(tmp_path, write(tmp_path, text))
    assert f": {key}: expected" in line and "at most 86400000" in line and "got 9999999999" in line, line


def test_an_entrant_listed_twice_at_a_game_is_refused(tmp_path):
    line = refused(tmp_path, write(tmp_path, BASE + MAUMAU + 'entrants = ["random", "first", "random"]\n'))
    assert ': games[0].entrants[2]: expected an entrant not listed before' in line and 'got "random"' in line, line


def many_entrants(n: int) -> str:
    return "".join(f'[[entrants]]\nname = "e{i}"\nstrategy = "random"\n' for i in range(n))


def test_a_schedule_too_big_is_refused_before_it_is_built(tmp_path):
    # 24 entrants; games[1]: players = 10, duplicate: C(24, 10) x 360 balanced seatings = 706,052,160 matches
    text = "duplicate = true\n" + many_entrants(24) + MAUMAU + '[[games]]\ngame = "maumau"\nplayers = 10\n'
    line = refused(tmp_path, write(tmp_path, text))
    assert f": games[1]: expected at most {MAX_MATCHES:,} matches in all, got 706,052,712" in line, line
    assert "games[1] (maumau) makes 706,052,160 (1,961,256 tables" in line, line
    assert "x 360 seatings ('balanced' design)" in line, line
    for hint in ("lower seeds or games[1].players", "set duplicate = false", "set seating = 'rotation' (10 seatings)",
                 "fewer entrants in games[1].entrants"):
        assert hint in line, line


@pytest.mark.parametrize("game", [
    'players = 3\nseeds = 2\n', 'players = 3\nduplicate = true\n',
    'players = 4\nschedule = "gauntlet"\nfocus = "e1"\nduplicate = true\nseeds = 3\n'])
def test_the_counted_schedule_is_the_schedule_built(tmp_path, game):
    from referee.tournament.config import _count

    config = load_tournament(write(tmp_path, many_entrants(6) + '[[games]]\ngame = "maumau"\n' + game), REGISTRY)
    assert _count(config.games[0], "games[0]", {})[0] == len(config.matches())


@pytest.mark.parametrize("line, key", [
    ("seeds = -3", "seeds"),
    ('schedule = "swiss"', "schedule"),
    ('schedule = "gauntlet"\nfocus = "nobody"', "focus"),
    ('seating = "latin"', "seating"),
])
def test_a_bad_top_level_default_is_named_as_written(tmp_path, line, key):
    line = refused(tmp_path, write(tmp_path, line + "\n" + BASE + MAUMAU))
    assert f"t.toml: {key}: expected" in line, line


@pytest.mark.parametrize("line, message", [
    ('seating = "latin"', ": games[0].seating: expected 'balanced' or 'all' or 'rotation', got \"latin\""),
    ("seating = true", ": games[0].seating: expected 'balanced' or 'all' or 'rotation', got true"),
    ('duplicate = true\nseating = "Rotation"', ": games[0].seating: expected 'balanced' or 'all' or 'rotation'"),
    ('seating = "all"', ": games[0].seating: expected duplicate = true with it (without duplicate each seed is "
                        "played once, in the table's order), got \"all\""),
    ('duplicate = false\nseating = "rotation"', ": games[0].seating: expected duplicate = true with it"),
])
def test_a_bad_seating_is_one_line(tmp_path, line, message):
    line = refused(tmp_path, write(tmp_path, BASE + MAUMAU + line + "\n"))
    assert message in line, line


def test_seating_defaults_to_balanced_and_a_top_level_seating_is_every_games_default(tmp_path):
    config = load_tournament(write(tmp_path, BASE + MAUMAU + "duplicate = true\n"), REGISTRY)
    assert config.games[0].seating == "balanced"
    text = 'seating = "rotation"\nduplicate = true\n' + BASE + MAUMAU + MAUMAU + 'seating = "all"\n'
    config = load_tournament(write(tmp_path, text), REGISTRY)
    assert [g.seating for g in config.games] == ["rotation", "all"]
    config = load_tournament(write(tmp_path, 'seating = "all"\n' + BASE + MAUMAU), REGISTRY)  # unused: fine
    assert not config.games[0].duplicate and len(config.matches()) == 1


def test_values_are_shown_as_written_in_toml(tmp_path):
    line = refused(tmp_path, write(tmp_path, "name = 1979-05-27\n" + BASE + MAUMAU))
    assert line.endswith(": name: expected a string, got 1979-05-27"), line
    text = BASE + '[[games]]\ngame = "maumau"\nplayers = 2\nschedule = { "odd key" = 1.5, b = [07:32:00, false] }\n'
    with pytest.raises(ConfigError, match=r'schedule: expected a string, got \{ "odd key" = 1\.5, b = \[07:32:00, '
                                          r'false\] \}$'):
        load_tournament(write(tmp_path, text), REGISTRY)


def test_concurrency_is_capped_and_zero_means_one_per_core(tmp_path):
    import os

    line = refused(tmp_path, write(tmp_path, "concurrency = 5000\n" + BASE + MAUMAU))
    assert ": concurrency: expected 0 (one per core) or more, at most 1024, got 5000" in line
    path = write(tmp_path, "concurrency = 1\n" + BASE + MAUMAU)
    assert load_tournament(path, REGISTRY, concurrency=0).concurrency == (os.cpu_count() or 1)  # --concurrency 0


def test_the_model_of_ties_is_davidson_by_default_and_breslow_on_request(tmp_path):
    assert load_tournament(write(tmp_path, BASE + MAUMAU), REGISTRY).ties == "davidson"
    assert load_tournament(write(tmp_path, 'ties = "breslow"\n' + BASE + MAUMAU), REGISTRY).ties == "breslow"
    with pytest.raises(ConfigError, match='ties: expected "davidson" or "breslow"'):
        load_tournament(write(tmp_path, 'ties = "exact"\n' + BASE + MAUMAU), REGISTRY)
