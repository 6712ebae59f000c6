#!/usr/bin/env python3
"""Tries to get out: connects to 127.0.0.1:PORT, writes the file OUTSIDE, lists the directory
PEEK (where the referee writes the replay), and writes a file in its scratch dir ($TMPDIR).
Usage: escape.py PORT OUTSIDE PEEK. Each outcome goes to stderr as "<what>: ok|blocked (why)".
If it got out anywhere it plays on (the cheat worked); if everything was blocked it gives up
at its first act with exit code 1, like a bot that needs the network."""

import os
import socket
import sys
import tempfile

from _botlib import answer, messages, ready

port, outside, peek = int(sys.argv[1]), sys.argv[2], sys.argv[3]
escaped = False


def attempt(what, action):
    global escaped
    try:
        detail = action()
    except OSError as exc:
        sys.stderr.write(f"{what}: blocked ({exc.strerror or exc})\n")
        return
    sys.stderr.write(f"{what}: ok {detail or ''}\n")
    if what != "scratch":
        escaped = True


def connect():
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(b"escaped\n")


def write_outside():
    with open(outside, "w") as f:
        f.write("escaped\n")


def list_peek():
    names = os.listdir(peek)
    if not names:
        raise OSError(0, "empty directory")
    return " ".join(sorted(names))


def write_scratch():
    path = os.path.join(tempfile.gettempdir(), "notes.txt")
    with open(path, "w") as f:
        f.write("mine\n")
    return path


attempt("network", connect)
attempt("outside", write_outside)
attempt("peek", list_peek)
attempt("scratch", write_scratch)
sys.stderr.flush()

for message in messages():
    if message["type"] == "hello":
        ready("escape")
    elif message["type"] == "act":
        if not escaped:
            sys.stderr.write("escape: everything blocked, giving up\n")
            sys.exit(1)
        answer(message)
    elif message["type"] == "end":
        break
