"""referee: a plugin-based referee and match runner for card-game bots."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
