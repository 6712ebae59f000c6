#!/usr/bin/env python3
"""The real protocol transcripts in docs/protocol.md, one short exchange per game.

Each is produced by the referee itself: `referee play` with `--log-protocol`, the example bot
bots/python/random_bot.py in the seat that acts first, `random` strategies elsewhere, a fixed
seed and a published deal key (`REFEREE_DEAL_KEY=DOC_KEY`: docs need a reproducible deal; a real
organiser keeps theirs private). The excerpt is that seat's lines from `hello` to its first
`action`, then the `end`.

    python tools/transcripts.py           # rewrite the blocks in docs/protocol.md
    python tools/transcripts.py --check   # exit 1 if a block is stale (tests/test_protocol_docs.py)
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"
BOT = "python3 bots/python/random_bot.py"
#: per game: (players, seed)
MATCHES = {"maumau": (3, 7), "presidente": (4, 7), "mayor": (4, 7)}
DOC_KEY = "docs/protocol.md transcripts (a published key)"
BLOCK = re.compile(r"(<!-- transcript: (\w+) -->\n)(.*?)(<!-- /transcript: \2 -->)", re.S)


def first_to_act(game: str, players: int, seed: int) -> int:
    """The seat that makes the match's first decision (the runner deals from the same seed)."""
    from referee.config import resolve_config
    from referee.plugins import load_registry
    from referee.sealing import DealKey

    g = load_registry(None).games[game]
    rng = DealKey(DOC_KEY.encode()).rng("deal", game, seed)
    from referee.testing import seeded_state

    return seeded_state(g, resolve_config(g, {}, players), players, rng).to_act()


def command(game: str) -> list[str]:
    """The `referee play` arguments of a game's transcript (without --out and --log-protocol)."""
    players, seed = MATCHES[game]
    bot_seat = first_to_act(game, players, seed)
    args = ["play", game]
    for seat in range(players):
        args += ["-p", BOT if seat == bot_seat else "random"]
    return args + ["--seed", str(seed)]


def render(game: str) -> str:
    """A game's transcript block: the command, then the bot seat's lines, as markdown."""
    args = command(game)
    seat = [a for a in args if a in (BOT, "random")].index(BOT)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "protocol.log"
        proc = subprocess.run(
            [sys.executable, "-m", "referee", *args, "--out", str(Path(tmp) / "m.jsonl"), "--log-protocol", str(log)],
            cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "REFEREE_DEAL_KEY": DOC_KEY},
        )
        if proc.returncode != 0:
            raise RuntimeError(f"referee play failed: {proc.stderr}")
        lines = [line for line in log.read_text(encoding="utf-8").splitlines() if line.startswith(f"{seat} ")]
    first_reply = next(i for i, line in enumerate(lines) if line.startswith(f"{seat} < ") and '"type":"action"' in line)
    excerpt = lines[: first_reply + 1] + ["..."] + lines[-1:]
    shown = " ".join(shlex.quote(a) for a in args)
    return (
        f"`REFEREE_DEAL_KEY='{DOC_KEY}' referee {shown} --log-protocol {game}.log` writes these lines for seat {seat} (`>` to the bot, "
        f"`<` from it):\n\n```text\n" + "\n".join(excerpt) + "\n```\n"
    )


def blocks(text: str) -> dict[str, str]:
    """The transcript blocks of a document, by game."""
    return {m.group(2): m.group(3) for m in BLOCK.finditer(text)}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    text = DOC.read_text(encoding="utf-8")
    found = blocks(text)
    missing = sorted(set(MATCHES) - set(found))
    if missing:
        print(f"{DOC}: no transcript markers for {', '.join(missing)}", file=sys.stderr)
        return 1
    fresh = {game: render(game) for game in MATCHES}
    if check:
        stale = [game for game in MATCHES if found[game] != fresh[game]]
        if stale:
            print(f"stale transcripts in {DOC}: {', '.join(stale)} (run python tools/transcripts.py)", file=sys.stderr)
            return 1
        return 0
    text = BLOCK.sub(lambda m: m.group(1) + fresh[m.group(2)] + m.group(4) if m.group(2) in fresh else m.group(0), text)
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {len(fresh)} transcripts to {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
