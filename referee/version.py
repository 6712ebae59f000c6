"""The referee's version and its bot protocol's: a leaf module, so that the modules needing them
(the runner, the CLI) do not import the package, whose lazy API (referee.api) imports them."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
