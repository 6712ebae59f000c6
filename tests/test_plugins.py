"""The plugin manager: entry points, a plugins directory, the autoload switch, duplicates."""

import pytest

from referee.errors import PluginError, UsageError
from referee.hookspecs import hookimpl
from referee.plugins import build_registry, get_plugin_manager
from referee_strategies.basic import FirstLegal


class StrategyPlugin:
    @hookimpl
    def register_strategies(self, register):
        register("first", FirstLegal, help="a second 'first'")


def test_builtin_plugins_load_from_entry_points():
    registry = build_registry(get_plugin_manager())
    assert {"random", "first"} <= set(registry.strategies)
    assert registry.strategies["random"].plugin == "strategies"


def test_duplicate_strategy_names_both_plugins():
    pm = get_plugin_manager(extra=[StrategyPlugin()])
    with pytest.raises(PluginError, match="'first' is registered by both 'strategies' and"):
        build_registry(pm)


def test_autoload_switch_limits_entry_points(monkeypatch):
    monkeypatch.setenv("REFEREE_LOAD_PLUGINS", "")
    assert build_registry(get_plugin_manager()).strategies == {}
    monkeypatch.setenv("REFEREE_LOAD_PLUGINS", "strategies")
    assert "random" in build_registry(get_plugin_manager()).strategies
    monkeypatch.setenv("REFEREE_LOAD_PLUGINS", "strategies,nosuch")  # a typo loads nothing silently no more
    with pytest.raises(UsageError, match="'nosuch', which is no installed plugin"):
        get_plugin_manager()


def test_plugins_directory_is_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv("REFEREE_LOAD_PLUGINS", "strategies")
    (tmp_path / "mine.py").write_text(
        "from referee.hookspecs import hookimpl\n"
        "from referee_strategies.basic import FirstLegal\n"
        "@hookimpl\n"
        "def register_strategies(register):\n"
        "    register('mine', FirstLegal, help='mine')\n"
    )
    registry = build_registry(get_plugin_manager(tmp_path))
    assert registry.strategies["mine"].plugin == "mine"


def test_missing_plugins_directory_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        get_plugin_manager(tmp_path / "nope", autoload=False)


@pytest.mark.parametrize("code, message", [("raise ValueError('boom')", "failed to import: boom"),
                                           ("import sys; sys.exit(3)", r"called sys.exit\(3\) while loading")])
def test_a_plugin_file_that_fails_or_exits_is_a_plugin_error(tmp_path, code, message):
    # sys.exit() is no Exception: it used to end every command, --help too, silently with code 3
    (tmp_path / "bad.py").write_text(code + "\n")
    with pytest.raises(PluginError, match=message):
        get_plugin_manager(tmp_path, autoload=False)


def test_misspelt_hook_is_caught():
    class Typo:
        @hookimpl
        def register_game(self, register):  # missing "s"
            pass

    with pytest.raises(PluginError, match="register_game"):
        get_plugin_manager(extra=[Typo()], autoload=False)


def test_referee_exports_hookimpl():
    import referee
    from referee import hookspecs

    assert referee.hookimpl is hookspecs.hookimpl


LIFECYCLE = (  # the log's path is written into the plugin: workers may predate any env change
    "import json, referee\n"
    "LOG = {log!r}\n"
    "@referee.hookimpl\n"
    "def match_started(header):\n"
    "    open(LOG, 'a').write(json.dumps(['started', header['match']]) + '\\n')\n"
    "@referee.hookimpl\n"
    "def match_finished(header, result):\n"
    "    open(LOG, 'a').write(json.dumps(['finished', header['match']]) + '\\n')\n"
)


def test_lifecycle_hooks_fire_for_every_match_of_a_tournament_and_of_validate(tmp_path, monkeypatch):
    # issue 17: match_finished never fired in tournaments (their workers ran matches without hooks)
    import json
    import sys
    from pathlib import Path

    from referee.tournament import run as tour
    from referee.plugins import load_registry
    from referee.runner import Limits
    from referee.tournament.config import load_tournament
    from referee.validate import run_validation

    plugins = tmp_path / "plugins"
    plugins.mkdir()
    log = tmp_path / "lifecycle.log"
    (plugins / "lifecycle.py").write_text(LIFECYCLE.format(log=str(log)))
    path = tmp_path / "t.toml"
    path.write_text('name = "t"\nconcurrency = 2\n[[entrants]]\nstrategy = "random"\n[[entrants]]\nstrategy = "first"\n'
                    '[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 3\n')
    registry = load_registry(plugins)
    config = load_tournament(path, registry, out=tmp_path / "out")
    records = tour.run(config, plugins_dir=str(plugins))
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(records) == 3 and sorted(e[0] for e in events) == ["finished"] * 3 + ["started"] * 3
    assert {e[1] for e in events if e[0] == "started"} == {e[1] for e in events if e[0] == "finished"}
    log.unlink()
    bot = [sys.executable, str(Path(__file__).resolve().parent.parent / "bots" / "python" / "random_bot.py")]
    report = run_validation(registry.games["presidente"], registry, bot, Limits())
    lines = log.read_text().splitlines()
    assert len(lines) == 2 * report["matches"]["played"]
