#!/usr/bin/env python3
"""A bot that plays a random legal action: the template for bot authors (protocol v1).

Copy this file and replace `choose()` with your own logic. Only the standard library is used.
docs/writing-a-bot.md goes from here to a validated bot; bots/python/smart_bot.py shows simple
knowledge of each game.

How a bot talks to the referee (docs/protocol.md has every field, per game):
- The referee writes one JSON object per line to our stdin; we answer with one JSON object per
  line on stdout, flushed at once (otherwise the answer sits in a buffer and we time out).
- Messages we get: "hello" (first), "event" (something we may see happened), "act" (our turn:
  answer within "time_ms" milliseconds), "end" (the match is over).
- We declare "reuse" in our ready: after "end" a tournament may send the next match's "hello"
  to this same process instead of closing our stdin (no start-up cost). So everything about a
  match is set up again at each hello (here: the PRNG), and we stop when stdin closes.
- Anything we print to stderr goes to our log file, so debug output belongs there, never on
  stdout: a stdout line that is not a protocol message is a fault.

Try it: `referee play maumau --player random --player "python3 bots/python/random_bot.py"`,
then `referee validate maumau -- python3 bots/python/random_bot.py`.
"""

import json
import random
import sys

NAME = "random_bot"
VERSION = "1.0"
# The referee writes "type" first in every message (docs/protocol.md), so event lines start so.
EVENT = '{"type":"event"'


def send(message):
    """Write one message as one line and flush it."""
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def choose(obs, legal, rng):
    """Our decision: the position of the chosen action in `legal`.

    `obs` is everything this seat may know right now (own hand, scores, whose turn...), enough
    to decide without remembering anything. `legal` lists every legal action, fully enumerated.
    We could also answer with the action itself: {"type":"action","id":..,"action":legal[k]}.
    """
    return rng.randrange(len(legal))


def main():
    # A fixed seed until hello tells us the match id and our seat.
    rng = random.Random(0)
    for line in sys.stdin:  # one message per line; the loop ends when the referee closes stdin
        if line.startswith(EVENT):
            continue  # we don't use events: skip them unparsed (a bot that tracks the game parses them)
        try:
            message = json.loads(line)
        except ValueError:
            continue  # not ours to judge: skip anything we cannot read
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "hello":
            # Seeding from the match id and our seat makes a replayed match play the same moves.
            rng = random.Random(f"{message.get('match')}/{message.get('seat')}")
            send({"type": "ready", "name": NAME, "version": VERSION, "reuse": True})
        elif kind == "act":
            index = choose(message["obs"], message["legal"], rng)
            # Echo the id: a reply to an old id is ignored by the referee.
            send({"type": "action", "id": message["id"], "index": index})
        elif kind == "end":
            pass  # message["result"] holds scores, ranks and faults; a next hello may follow
        # unknown types are ignored (new message types may appear later)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the referee went away: nothing left to do
