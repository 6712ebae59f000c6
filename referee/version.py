"""The referee's version and the bot protocol's: a leaf module, so that what needs them (the
runner's hello, `--version`) never imports the package's front door, which may import them."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
