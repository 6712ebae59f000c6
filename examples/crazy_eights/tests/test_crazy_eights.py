"""Crazy Eights: the referee's conformance kit, then one scenario test per rule."""

from __future__ import annotations

import random

import pytest

from referee.config import resolve_config
from referee.errors import RulesError
from referee.game import EVERYONE, Event, Record
from referee.testing import check_game

from referee_crazy_eights.game import CrazyEights

GAME = CrazyEights()


def test_the_conformance_kit_passes():
    """Seeded random matches of every variant at 2 and 5 players: every invariant, determinism,
    no hidden card sent, every event with an audience, and `referee verify` on the replays."""
    report = check_game(GAME, seeds=range(30))
    assert report.verified == 3 * len(GAME.variants()) * 2
    assert report.action_shapes == {("play",), ("play", "suit"), ("draw",), ("pass",)}


def position(hands, top, stock=(), suit=None, turn=0, **config):
    """A constructed position: the hands, the top card of the discard pile, the stock (next card
    first), the suit to match (default: the top card's) and the seat to act."""
    state = GAME.new_state(resolve_config(GAME, config, len(hands)), len(hands), random.Random(0))
    state.drain()
    state.hands = [list(h) for h in hands]
    state.discard, state.stock, state.suit, state.turn = [top], list(stock), suit or top[1], turn
    return state


def told(outputs, seat):
    """The event messages `seat` is sent."""
    return [o.message() for o in outputs if isinstance(o, Event) and seat in o.to]


def test_play_the_suit_or_the_rank_and_an_eight_on_anything_naming_a_suit():
    state = position([["3D", "KC", "8H", "2S"], ["4C"]], top="KD")
    assert state.legal_actions() == [{"play": "3D"}, {"play": "KC"}] + [{"play": "8H", "suit": s} for s in "CDHS"]
    state.apply({"play": "8H", "suit": "S"})
    assert state.suit == "S" and state.discard[-1] == "8H" and state.to_act() == 1
    assert told(state.drain(), 1) == [{"kind": "played", "seat": 0, "card": "8H", "suit": "S"}]
    assert state.legal_actions() == [{"draw": True}]  # 4C: neither a spade nor an 8


def test_with_nothing_to_play_draw_until_you_can_play_or_up_to_the_limit_then_pass():
    state = position([["3C", "4C"], ["5C"]], top="KD", stock=["6S", "7S", "9D", "TS"], draw_limit=3)
    state.apply({"draw": True})
    state.apply({"draw": True})
    assert state.to_act() == 0 and state.legal_actions() == [{"draw": True}]
    state.apply({"draw": True})  # 9D: a diamond, playable at once
    assert state.legal_actions() == [{"play": "9D"}]
    state = position([["3C"], ["5C"]], top="KD", stock=["6S", "7S", "TS"], draw_limit=2)
    state.apply({"draw": True})
    state.apply({"draw": True})
    assert state.legal_actions() == [{"pass": True}]
    state.apply({"pass": True})
    assert state.to_act() == 1 and state.legal_actions() == [{"draw": True}] and state.observe(1)["drawn"] == 0


def test_the_drawer_alone_learns_the_card():
    state = position([["3C"], ["5C"], ["6C"]], top="KD", stock=["7S"])
    state.apply({"draw": True})
    out = state.drain()
    assert told(out, 0) == [{"kind": "drew", "seat": 0, "card": "7S"}]
    assert told(out, 1) == told(out, 2) == [{"kind": "drew", "seat": 0}]


def test_an_empty_stock_is_the_discard_pile_under_its_top_card_reshuffled():
    state = position([["3C"], ["5C"]], top="KD")
    state.discard = ["2H", "9H", "KD"]
    state.apply({"draw": True})
    out = state.drain()
    chance = [o.data for o in out if isinstance(o, Record)]
    assert len(chance) == 1 and chance[0]["type"] == "chance" and chance[0]["kind"] == "reshuffle"
    assert sorted(chance[0]["stock"]) == ["2H", "9H"] and state.discard == ["KD"]
    assert {"kind": "reshuffle", "stock": 2} in told(out, 1)
    assert state.hands[0] == ["3C", chance[0]["stock"][0]] and state.stock == chance[0]["stock"][1:]


def test_the_first_out_scores_the_cards_left_in_the_other_hands():
    state = position([["KD"], ["8S", "AC"], ["TS", "2H"]], top="3D", deals=2)
    state.apply({"play": "KD"})
    out = state.drain()
    end = next(o.data for o in out if isinstance(o, Record) and o.data["type"] == "deal_end")
    assert end == {"type": "deal_end", "deal": 1, "scores": [50 + 1 + 10 + 2, 0, 0], "totals": [63, 0, 0],
                   "winner": 0, "reason": "out"}
    deal = next(o.data for o in out if isinstance(o, Record) and o.data["type"] == "deal")
    assert deal["deal"] == 2 and deal["dealer"] == 1 and state.to_act() == 2  # the deal passes left


def test_every_player_passing_in_a_row_blocks_the_deal_and_nobody_scores():
    state = position([["3C"], ["5C"]], top="KD", deals=1)
    state.apply({"pass": True})
    state.apply({"pass": True})
    end = [o for o in state.drain() if isinstance(o, Event) and o.kind == "deal_end"]
    assert end[0].to is EVERYONE and end[0].data["reason"] == "blocked" and end[0].data["scores"] == [0, 0]
    assert state.to_act() is None and state.outcome().scores == [0, 0]


def test_the_highest_total_wins():
    state = position([["3C"], ["5C"]], top="KD", deals=1)
    state.totals = [10, 40]
    assert state.outcome().measure == [10, 40]


def test_replay_state_refuses_an_impossible_deal():
    state = GAME.new_state(resolve_config(GAME, {}, 2), 2, random.Random(5))
    deal = next(o.data for o in state.drain() if isinstance(o, Record))
    assert GAME.replay_state(resolve_config(GAME, {}, 2), 2, iter([deal])).hands == state.hands
    bad = {**deal, "hands": [deal["hands"][0], deal["hands"][0]]}
    with pytest.raises(RulesError, match="deal 1: the cards: not the cards it must be"):
        GAME.replay_state(resolve_config(GAME, {}, 2), 2, iter([bad]))
    short = {**deal, "hands": [deal["hands"][0][:6], deal["hands"][1] + deal["hands"][0][6:]]}
    with pytest.raises(RulesError, match="hands of \\[6, 8\\] cards, not 7 each"):
        GAME.replay_state(resolve_config(GAME, {}, 2), 2, iter([short]))


def test_an_illegal_action_is_a_rules_error():
    state = position([["3C"], ["5C"]], top="KD")
    with pytest.raises(RulesError):
        state.apply({"play": "3C"})
    with pytest.raises(RulesError):
        state.apply({"draw": 1})  # not the JSON literal true
