"""Config resolution: defaults, coercion of --set strings, and clear errors."""


import pytest

from referee.config import parse_assignments, resolve_config
from referee.errors import ConfigError
from referee.game import Game, Option


class Toy(Game):
    name = "toy"
    title = "Toy"
    min_players = 2
    max_players = 4
    options = (
        Option("flag", bool, False, "a switch"),
        Option("size", int, 5, "a size", min=1, max=9),
        Option("mode", str, "a", "a mode", choices=("a", "b")),
    )

    def new_state(self, config, players):
        raise NotImplementedError


def test_defaults_are_resolved():
    assert resolve_config(Toy(), {}, 2) == {"flag": False, "size": 5, "mode": "a"}


def test_strings_are_coerced():
    got = resolve_config(Toy(), parse_assignments(["flag=true", "size=7", "mode=b"]), 3)
    assert got == {"flag": True, "size": 7, "mode": "b"}


@pytest.mark.parametrize(
    "items, message",
    [
        (["nope=1"], "no option 'nope'"),
        (["size=x"], "whole number"),
        (["size=0"], "at least 1"),
        (["flag=maybe"], "true or false"),
        (["mode=c"], "one of"),
        (["novalue"], "KEY=VALUE"),
    ],
)
def test_bad_settings_are_config_errors(items, message):
    with pytest.raises(ConfigError, match=message):
        resolve_config(Toy(), parse_assignments(items), 2)


def test_typed_values_from_toml_are_checked():
    with pytest.raises(ConfigError, match="expects int"):
        resolve_config(Toy(), {"size": True}, 2)
    with pytest.raises(ConfigError, match="expects bool"):
        resolve_config(Toy(), {"flag": 1}, 2)
    import datetime

    # shown as written in the TOML file, not as a Python repr (datetime.date(1979, 5, 27))
    with pytest.raises(ConfigError, match=r"expects int, got 1979-05-27$"):
        resolve_config(Toy(), {"size": datetime.date(1979, 5, 27)}, 2)
    with pytest.raises(ConfigError, match=r'expects int, got \["a", 1\]$'):
        resolve_config(Toy(), {"size": ["a", 1]}, 2)


def test_player_count_is_checked():
    with pytest.raises(ConfigError, match="2 to 4 players, got 5"):
        resolve_config(Toy(), {}, 5)
