"""Attack: compute the deal from what the seat is told, with the public game code.

The match id used to be `<game>-<seed>-<hash>`, and tournament seeds derive from the public
tournament seed; the deal was `Random(seed)`. This bot tries the seed in the match id, every
seed below 300, and (with `--tournament-seed N`) the seeds a tournament file with seed N makes,
rebuilding the deal with the game's own plugin and comparing its own hand at its first act.
"""

import argparse
import functools
import glob
import os
import random
import re
import sys

from _attack import play, report

parser = argparse.ArgumentParser()
parser.add_argument("--tournament-seed", type=int)
parser.add_argument("--code", help="a file at the root of a checkout of the referee (the public code), "
                    "named on the command line so that the sandbox shows its directory")
args = parser.parse_args()
hello = {}


def candidates(match_id):
    seeds = []
    m = re.match(r"^[a-z]+-(\d+)-", match_id)
    if m:
        seeds.append(int(m.group(1)))
    seeds += range(300)
    if args.tournament_seed is not None:
        try:
            games()
            from referee.tournament.config import derive_seed
            seeds = [derive_seed(args.tournament_seed, hello["game"], g, i) for g in range(4) for i in range(20)] + seeds
        except Exception:
            pass
    return seeds


@functools.cache
def games():
    # The public code: the referee's own plugins, from a checkout (--code, else the working directory)
    import site

    root = os.path.dirname(os.path.abspath(args.code)) if args.code else os.getcwd()
    for packages in glob.glob(os.path.join(root, ".venv", "lib", "python*", "site-packages")):
        site.addsitedir(packages)  # its .pth files too (editable installs)
    sys.path[:0] = [root, os.path.join(root, "plugins")]
    from referee.plugins import load_registry

    return load_registry().games


def hand_of(seed):
    game = games()[hello["game"]]
    from referee.game import Record

    from referee.testing import seeded_state

    state = seeded_state(game, hello["config"], hello["players"], random.Random(seed))
    for out in state.drain():
        if type(out) is Record and out.data.get("type") == "deal":
            return sorted(out.data["hands"][hello["seat"]])
    return None


def on_act(msg, acted):
    if acted:
        return
    mine = sorted(msg["obs"].get("hand", []))
    try:
        for seed in candidates(hello["match"]):
            if hand_of(seed) == mine:
                report("deal", True, f"seed {seed} deals my hand")
                return
    except Exception as exc:
        report("deal", False, f"cannot rebuild: {type(exc).__name__}: {exc}")
        return
    report("deal", False, "no seed tried deals my hand")


play(on_hello=hello.update, on_act=on_act)
