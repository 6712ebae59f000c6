"""The `maumau-greedy` strategy: its heuristics on constructed positions, and that it clearly
beats random players over seeded 3-player matches."""

from __future__ import annotations

import random

from referee.config import resolve_config
from referee.players import StrategyPlayer
from referee.runner import Limits, Seat, run_match
from referee_maumau.game import MauMau
from referee_maumau.state import MauMauState
from referee_strategies.basic import RandomLegal
from referee_strategies.maumau_greedy import MauMauGreedy

GAME = MauMau()
STOCK = ["2D", "3D", "4D", "5D", "6D"]


def choice(hands, discard, turn=0, **kw):
    """The action the greedy player picks for the seat to act in a constructed position."""
    cfg = resolve_config(GAME, kw.pop("cfg", {}))
    state = MauMauState.position(cfg, hands, discard, kw.pop("stock", STOCK), turn, **kw)
    legal = state.legal_actions()
    pick = MauMauGreedy("maumau", turn, cfg, random.Random(0)).choose(state.observe(turn), legal)
    return legal[pick]


def test_always_announces():
    assert choice([["2C", "9H"], ["4H", "5H", "6H"]], ["KC"]) == {"play": "2C", "say": "mau"}
    assert choice([["JC"], ["4H", "5H", "6H"]], ["KD"])["say"] == "mau mau"


def test_keeps_a_jack_for_emergencies():
    assert choice([["2C", "JH", "9S"], ["4H", "5H", "6H"]], ["KC"]) == {"play": "2C"}
    # no other play: the Jack, naming the suit the rest of the hand holds most of
    assert choice([["JH", "9S", "4S", "QD"], ["4H", "5H", "6H"]], ["KC"]) == {"play": "JH", "suit": "S"}


def test_passes_seven_penalties_on():
    assert choice([["7D", "4H", "5H"], ["2C", "3C"]], ["7C"], penalty=2) == {"play": "7D"}


def test_eight_against_a_player_close_to_going_out():
    hands = [["8C", "KC", "3H"], ["4H", "5H"], ["6H", "9H", "TH"]]
    assert choice(hands, ["2C"]) == {"play": "8C"}
    hands[1] = ["4H", "5H", "6S"]
    assert choice(hands, ["2C"]) == {"play": "KC"}  # no threat: shed the high card


def test_sheds_high_point_cards_first():
    assert choice([["2C", "KC", "QH", "9S"], ["4H", "5H", "6H"]], ["5C"]) == {"play": "KC"}


def test_plays_a_playable_drawn_card():
    cfg = resolve_config(GAME, {})
    state = MauMauState.position(cfg, [["2H", "3H"], ["4C", "5S"]], ["KC"], ["9C"], 0)
    state.apply({"draw": True})
    legal = state.legal_actions()
    assert legal[MauMauGreedy("maumau", 0, cfg, random.Random(0)).choose(state.observe(0), legal)] == {"play": "9C"}


def test_beats_random_players():
    n, matches = 3, 200
    cfg = resolve_config(GAME, {}, n)
    greedy_ranks, random_ranks = [], []
    for seed in range(matches):
        me = seed % n
        players = [StrategyPlayer((MauMauGreedy if i == me else RandomLegal)("maumau", i, cfg, random.Random(f"{seed}/{i}")))
                   for i in range(n)]
        seats = [Seat("greedy" if i == me else "random", "strategy", "") for i in range(n)]
        result = run_match(GAME, cfg, seed, seats, players, Limits()).result
        assert result["faults"] == [0] * n
        greedy_ranks.append(result["ranks"][me])
        random_ranks += [r for i, r in enumerate(result["ranks"]) if i != me]
    wins = greedy_ranks.count(1) / matches
    greedy_mean = sum(greedy_ranks) / matches
    random_mean = sum(random_ranks) / len(random_ranks)
    print(f"maumau-greedy vs 2 random, {matches} matches: wins {wins:.0%}, "
          f"mean rank {greedy_mean:.2f} (random {random_mean:.2f})")
    assert wins > 0.4
    assert greedy_mean < random_mean - 0.3
