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
