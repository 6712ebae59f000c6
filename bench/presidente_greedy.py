"""Benchmark: presidente-greedy against three `random` players, 1,000 seeded matches.

The greedy seat rotates (match i: seat i % 4). A match is won by the President of the last
round (P-1). Prints the greedy player's match win rate (a random seat would win 25%) and its
mean points per match. No assertions: run it with `python bench/presidente_greedy.py [N] [--jokers]`.
"""

from __future__ import annotations

import random
import sys
import time

from referee.config import resolve_config
from referee.players import StrategyPlayer
from referee.runner import Limits, Seat, run_match
from referee_presidente.game import Presidente
from referee_strategies.basic import RandomLegal
from referee_strategies.presidente_greedy import PresidenteGreedy


def main(matches: int = 1000, jokers: bool = False) -> None:
    game = Presidente()
    config = resolve_config(game, {"jokers": jokers}, 4)
    wins = points = decisions = 0
    started = time.perf_counter()
    for seed in range(matches):
        greedy = seed % 4
        seats, players = [], []
        for seat in range(4):
            rng = random.Random(f"{seed}/{seat}")
            if seat == greedy:
                seats.append(Seat("presidente-greedy", "strategy", "presidente-greedy"))
                players.append(StrategyPlayer(PresidenteGreedy(game.name, seat, config, rng)))
            else:
                seats.append(Seat(f"random#{seat}", "strategy", "random"))
                players.append(StrategyPlayer(RandomLegal(game.name, seat, config, rng)))
        result = run_match(game, config, seed, seats, players, Limits())
        score = result.result["scores"][greedy]
        wins += score == 3  # the President of the last round
        points += score
        decisions += result.decisions
    elapsed = time.perf_counter() - started
    print(f"presidente-greedy vs 3 random, {matches} matches{' (jokers)' if jokers else ''}, seat rotated")
    print(f"win rate (President of the last round): {wins / matches:.1%}  (a random seat: 25%)")
    print(f"mean points in the last round: {points / matches:.2f}  (a random seat: 1.50)")
    print(f"{decisions} decisions in {elapsed:.1f} s ({elapsed / decisions * 1e6:.1f} us per decision, runner included)")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(int(args[0]) if args else 1000, "--jokers" in sys.argv)
