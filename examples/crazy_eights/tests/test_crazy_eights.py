"""Crazy Eights: the referee's conformance kit, then one scenario test per rule."""

from __future__ import annotations

import random

import pytest

from referee.config import resolve_config
from referee.errors import RulesError
from referee.game import EVERYONE, Event, Record, Shuffle
from referee.testing import check_game, play, seeded_state

from referee_crazy_eights.game import DECK, CrazyEights

GAME = CrazyEights()


def test_the_conformance_kit_passes():
    """Seeded random matches of every variant at 2 and 5 players: every invariant, determinism,
    no hidden card sent, every event with an audience, and `referee verify` on the replays."""
    report = check_game(GAME, seeds=range(30))
    assert report.verified == 3 * len(GAME.variants()) * 2
    assert report.action_shapes == {("play",), ("play", "suit"), ("draw",), ("pass",)}


def test_every_message_of_a_match_is_true_to_the_games_schema():
    """The schema the game declares (`referee schema --game crazy_eights`): the messages of a
    match at 2 and at 5 seats validate (up to 20 of each type, event kind and set of fields, so
    that the test stays quick), an eight played without a suit does not."""
    jsonschema = pytest.importorskip("jsonschema")
    from referee import schema
    from referee.testing import ConformanceMonitor, random_playout

    to_bot = jsonschema.Draft202012Validator(schema.rooted("crazy_eights", "to_bot"))
    seen: dict[tuple, int] = {}
    for players in (2, 5):
        monitor = ConformanceMonitor(players, transcript=True)
        random_playout(GAME, {"deals": 2}, seed=1, players=players, monitor=monitor)
        for _, message in monitor.transcript:
            event = message.get("event", {})
            shape = (message["type"], event.get("kind"), *sorted(event), *sorted(message.get("obs", {})))
            seen[shape] = seen.get(shape, 0) + 1
            if seen[shape] <= 20:
                error = jsonschema.exceptions.best_match(to_bot.iter_errors(message))
                assert error is None, f"{message}: {error.message}"
    assert {("event", kind) for kind in ("deal", "played", "drew", "deal_end")} <= {s[:2] for s in seen}
    to_referee = jsonschema.Draft202012Validator(schema.rooted("crazy_eights", "to_referee"))
    assert to_referee.is_valid({"type": "action", "id": 1, "action": {"play": "8H", "suit": "S"}})
    assert not to_referee.is_valid({"type": "action", "id": 1, "action": {"play": "8H"}})


def position(hands, top, stock=(), suit=None, turn=0, **config):
    """A constructed position: the hands, the top card of the discard pile, the stock (next card
    first), the suit to match (default: the top card's) and the seat to act."""
    state = seeded_state(GAME, resolve_config(GAME, config, len(hands)), len(hands), random.Random(0))
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
    play(state, {"play": "8H", "suit": "S"})
    assert state.suit == "S" and state.discard[-1] == "8H" and state.to_act() == 1
    assert told(state.drain(), 1) == [{"kind": "played", "seat": 0, "card": "8H", "suit": "S"}]
    assert state.legal_actions() == [{"draw": True}]  # 4C: neither a spade nor an 8


def test_with_nothing_to_play_draw_until_you_can_play_or_up_to_the_limit_then_pass():
    state = position([["3C", "4C"], ["5C"]], top="KD", stock=["6S", "7S", "9D", "TS"], draw_limit=3)
    play(state, {"draw": True})
    play(state, {"draw": True})
    assert state.to_act() == 0 and state.legal_actions() == [{"draw": True}]
    play(state, {"draw": True})  # 9D: a diamond, playable at once
    assert state.legal_actions() == [{"play": "9D"}]
    state = position([["3C"], ["5C"]], top="KD", stock=["6S", "7S", "TS"], draw_limit=2)
    play(state, {"draw": True})
    play(state, {"draw": True})
    assert state.legal_actions() == [{"pass": True}]
    play(state, {"pass": True})
    assert state.to_act() == 1 and state.legal_actions() == [{"draw": True}] and state.observe(1)["drawn"] == 0


def test_the_drawer_alone_learns_the_card():
    state = position([["3C"], ["5C"], ["6C"]], top="KD", stock=["7S"])
    play(state, {"draw": True})
    out = state.drain()
    assert told(out, 0) == [{"kind": "drew", "seat": 0, "card": "7S"}]
    assert told(out, 1) == told(out, 2) == [{"kind": "drew", "seat": 0}]


def test_an_empty_stock_is_the_discard_pile_under_its_top_card_reshuffled():
    state = position([["3C"], ["5C"]], top="KD")
    state.discard = ["2H", "9H", "KD"]
    state.apply({"draw": True})
    # the draw waits for the reshuffle: no seat acts, no card has moved
    assert state.to_act() is None and state.legal_actions() == [] and state.drain() == []
    assert state.chance() == Shuffle(("2H", "9H"), "reshuffle")
    state.apply_chance(["9H", "2H"])  # what the runner samples, or verify reads from the replay
    out = state.drain()
    assert state.discard == ["KD"] and state.to_act() == 0 and state.chance() is None
    assert {"kind": "reshuffle", "stock": 2} in told(out, 1)
    assert state.hands[0] == ["3C", "9H"] and state.stock == ["2H"]


def test_the_first_out_scores_the_cards_left_in_the_other_hands():
    state = position([["KD"], ["8S", "AC"], ["TS", "2H"]], top="3D", deals=2)
    play(state, {"play": "KD"})
    out = state.drain()
    end = next(o.data for o in out if isinstance(o, Record) and o.data["type"] == "deal_end")
    assert end == {"type": "deal_end", "deal": 1, "scores": [50 + 1 + 10 + 2, 0, 0], "totals": [63, 0, 0],
                   "winner": 0, "reason": "out"}
    deal = next(o.data for o in out if isinstance(o, Record) and o.data["type"] == "deal")
    assert deal["deal"] == 2 and deal["dealer"] == 1 and state.to_act() == 2  # the deal passes left


def test_every_player_passing_in_a_row_blocks_the_deal_and_nobody_scores():
    state = position([["3C"], ["5C"]], top="KD", deals=1)
    play(state, {"pass": True})
    play(state, {"pass": True})
    end = [o for o in state.drain() if isinstance(o, Event) and o.kind == "deal_end"]
    assert end[0].to is EVERYONE and end[0].data["reason"] == "blocked" and end[0].data["scores"] == [0, 0]
    assert state.to_act() is None and state.outcome().scores == [0, 0]


def test_the_highest_total_wins():
    state = position([["3C"], ["5C"]], top="KD", deals=1)
    state.totals = [10, 40]
    assert state.outcome().measure == [10, 40]


def test_a_deal_is_the_shuffle_asked_for_dealt_one_at_a_time_from_the_dealers_left():
    state = GAME.new_state(resolve_config(GAME, {}, 2), 2)
    request = state.chance()
    assert request == Shuffle(DECK, "deal") and state.to_act() is None and state.legal_actions() == []
    state.apply_chance(list(reversed(DECK)))
    deal = next(o.data for o in state.drain() if isinstance(o, Record))
    deck = list(reversed(DECK))
    assert deal["hands"] == [deck[1:14:2], deck[0:14:2]] and deal["up"] == deck[14] and deal["stock"] == deck[15:]
    assert state.to_act() == 1  # the dealer's left
    # an old replay's deal record stands for the very same shuffle (Game.old_outcome)
    assert GAME.old_outcome(deal, request) == deck


def test_an_illegal_action_is_a_rules_error():
    state = position([["3C"], ["5C"]], top="KD")
    with pytest.raises(RulesError):
        play(state, {"play": "3C"})
    with pytest.raises(RulesError):
        play(state, {"draw": 1})  # not the JSON literal true
