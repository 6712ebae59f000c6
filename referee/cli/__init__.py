"""The `referee` command line (typer). `app` is built in referee.cli.common, with what every
command shares; it is the only module that turns exceptions into messages and exit codes. Each
other module adds the commands of one feature to `app`, in the order `referee --help` lists them."""

from referee.cli.common import app, main
from referee.cli import info, play, tournament, replay, keys, schema, validate, intake, export, ladder  # noqa: F401,E402  (their commands)

__all__ = ["app", "main"]
