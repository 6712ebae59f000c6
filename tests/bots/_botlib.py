"""Shared plumbing of the misbehaving test bots (stdlib only): read messages, write lines."""

import json
import sys


def messages():
    """Every message the referee sends, parsed, until stdin closes."""
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            yield message


def send(message):
    """One message as one flushed line."""
    write_line(json.dumps(message, separators=(",", ":")))


def write_line(text):
    """One raw line, flushed."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def ready(name):
    send({"type": "ready", "name": name})


def answer(message, index=0):
    send({"type": "action", "id": message["id"], "index": index})
