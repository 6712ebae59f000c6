"""A submission's manifest, `bot.toml` at the top of its folder (docs/contests.md):

    name = "sharp-eights"        # required: the entrant's name, safe as a file name
    author = "Ana Pérez"         # required: who submits it
    version = "1.2"              # optional, default "1"
    run = "python3 bot.py"       # required: the bot's command line, run from the submission's folder
    build = "make"               # optional: a command run once, in the sandbox, before validation
    language = "c"               # optional: shown only

`run` and `build` are a command line (split like a shell would, no shell run) or an array of
strings. `name`, `author`, `version` and `language` get the checks of a bot's `ready` fields
(referee.protocol: at most NAME_CAP characters, none unprintable); `name` must also be safe as a
file name everywhere (letters, digits, `.`, `_`, `-`; starting with a letter or digit; at most
64 characters), since it names folders and pages. Any other key, a missing one or a wrong type
is refused with one line naming the field (`SubmissionError`).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import SubmissionError
from referee.protocol import NAME_CAP, printable

FILE = "bot.toml"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
KEYS = ("name", "author", "version", "run", "build", "language")
MAX_BYTES = 64 * 1024  # a manifest is a few lines: a bigger one is refused unread


@dataclass(frozen=True)
class Manifest:
    """A checked manifest."""

    name: str
    author: str
    run: tuple[str, ...]
    version: str = "1"
    build: tuple[str, ...] | None = None
    language: str | None = None


def read(folder: Path) -> Manifest:
    """The manifest of the submission in `folder`; SubmissionError naming what is wrong."""
    path = Path(folder) / FILE
    try:
        if path.is_symlink() or not path.is_file():
            raise SubmissionError(f"no {FILE} at the top of the submission (see docs/contests.md)")
        if path.stat().st_size > MAX_BYTES:
            raise SubmissionError(f"{FILE} is over {MAX_BYTES:,} bytes")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError(f"{FILE} is not UTF-8 text") from None
    except OSError as exc:
        raise SubmissionError(f"{FILE} cannot be read ({exc.strerror or exc})") from None
    return parse(text)


def parse(text: str) -> Manifest:
    """A manifest from its TOML text; SubmissionError naming the field at fault."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SubmissionError(f"{FILE} is not valid TOML: {exc}") from None
    unknown = sorted(k for k in data if k not in KEYS)
    if unknown:
        raise SubmissionError(f"{FILE}: unknown key {_shown(unknown[0])} (the keys: {', '.join(KEYS)})")
    name = _text(data, "name", required=True)
    if not NAME.fullmatch(name):
        raise SubmissionError(f"{FILE}: name {_shown(name)} must be 1-64 letters, digits, '.', '_' or '-', "
                              "starting with a letter or digit (it names files and pages)")
    run = _command(data, "run", required=True)
    assert run is not None
    return Manifest(name, _text(data, "author", required=True), run, _text(data, "version") or "1",
                    _command(data, "build"), _text(data, "language") or None)


def _shown(value: Any) -> str:
    """A stranger's value as a message may quote it: printable, short."""
    text, _ = printable(repr(value))
    return text if len(text) <= 60 else text[:57] + "..."


def _text(data: dict[str, Any], key: str, required: bool = False) -> str:
    """A text field with `ready`'s checks: a non-empty string, printable, at most NAME_CAP characters."""
    if key not in data:
        if required:
            raise SubmissionError(f"{FILE}: {key} is missing")
        return ""
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise SubmissionError(f"{FILE}: {key} must be a non-empty string, not {_shown(value)}")
    _, bad = printable(value)
    if bad:
        raise SubmissionError(f"{FILE}: {key} holds characters that are not printable text ({', '.join(bad[:3])})")
    if len(value) > NAME_CAP:
        raise SubmissionError(f"{FILE}: {key} is over {NAME_CAP} characters")
    return value


def _command(data: dict[str, Any], key: str, required: bool = False) -> tuple[str, ...] | None:
    """A command line: a string split like a shell would (no shell runs it), or an array of strings."""
    if key not in data:
        if required:
            raise SubmissionError(f"{FILE}: {key} is missing (the command that runs the bot, e.g. "
                                  "run = \"python3 bot.py\")")
        return None
    value = data[key]
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise SubmissionError(f"{FILE}: {key} cannot be split into a command line: {exc}") from None
    elif isinstance(value, list) and all(isinstance(a, str) for a in value):
        argv = list(value)
    else:
        raise SubmissionError(f"{FILE}: {key} must be a command line (a string) or an array of strings, "
                              f"not {_shown(value)}")
    if not argv or not argv[0]:
        raise SubmissionError(f"{FILE}: {key} is empty")
    for arg in argv:
        _, bad = printable(arg)
        if bad or "\x00" in arg:
            raise SubmissionError(f"{FILE}: {key} holds characters that are not printable text")
    return tuple(argv)
