"""`referee keygen`: a signing key for results (referee/signing.py, docs/replays.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.common import _errors, app


@app.command()
def keygen(
    path: Annotated[Path, typer.Argument(help="Where to write the private key (PATH.pub: the public key).")],
    force: Annotated[bool, typer.Option("--force", help="Replace a key already at PATH.")] = False,
) -> None:
    """Write an Ed25519 signing key: PATH (private, mode 0600) for `--sign-key`, PATH.pub for `verify --key`."""
    from referee import signing

    with _errors():
        signer = signing.generate()
        public = signing.write_key(path, signer, force=force)
    typer.echo(f"written: {path} (private: keep it secret) and {public} (public; key id {signer.id})")
