"""The referee's own exceptions.

Bot misbehaviour is never an exception: it is a fault, recorded as a result (see
`referee.players.Fault`). These exceptions are for bad input from the user (a bad config, an
unknown game) and for bugs in the referee or a plugin. Only `referee.cli` turns them into
output and exit codes.
"""


class RefereeError(Exception):
    """Base class of every error the referee raises on purpose."""


class UsageError(RefereeError):
    """The user asked for something that cannot be done (exit code 2)."""


class ConfigError(UsageError):
    """A game or match configuration is invalid."""


class PluginError(RefereeError):
    """A plugin is broken: a duplicate name, a bad registration, a misspelt hook."""


class RulesError(RefereeError):
    """A rules plugin was asked to apply an action that is not legal (a referee bug)."""
