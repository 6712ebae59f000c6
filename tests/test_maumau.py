"""Mau Mau: a scenario test per ruling (MM-1..MM-10) and per variant, plus the game contract
(announcement resolving, events, observation, hidden cards, replay records, seeded playouts)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from referee.chance import Streams
from referee.config import resolve_config
from referee.errors import ConfigError, RulesError
from referee.game import Event, Record
from referee.ranking import competition_ranks
from referee.replay.records import read_replay
from referee.game import Shuffle
from referee.testing import deal_from, play, random_playout, seeded_state
from referee_maumau.cards import SUITS, make_deck
from referee_maumau.game import MauMau
from referee_maumau.state import DRAWN, OVER, SUIT, MauMauState

GAME = MauMau()
STOCK = ["2D", "3D", "4D", "5D", "6D", "9D", "TD", "QD"]


def config(**overrides):
    return resolve_config(GAME, overrides)


def position(hands, discard, stock=STOCK, turn=0, cfg=None, **kw) -> MauMauState:
    return MauMauState.position(config(**(cfg or {})), hands, discard, stock, turn, **kw)


def records(outputs):
    return [o.data for o in outputs if type(o) is Record]


def seen(outputs, seat):
    """The event messages `seat` receives, in order."""
    return [o.message() for o in outputs if type(o) is Event and (o.to is None or seat in o.to)]


def kinds(outputs, seat=0):
    return [m["kind"] for m in seen(outputs, seat)]


def played(state):
    """The cards the seat to act may play, as a set of codes."""
    return {a["play"] for a in state.legal_actions() if "play" in a}


def dealt_state(players=3, want=lambda up: True, **overrides):
    """A freshly dealt match from the first seed whose up-card satisfies `want`."""
    for seed in range(500):
        state = seeded_state(GAME, config(**overrides), players, random.Random(seed))
        if want(state.discard[-1]):
            return state, seed
    raise AssertionError("no seed found")


# -- MM-1 deal -----------------------------------------------------------------------------------


def test_MM_1_deal_one_at_a_time_from_the_dealers_left():
    state, seed = dealt_state(3, lambda up: up[0] != "J")
    out = state.drain()
    deck = make_deck("standard", 1)
    Streams(random.Random(seed)).deal(1).shuffle(deck)  # C-2: deal 1's own stream
    deal = records(out)[0]
    assert deal["type"] == "deal" and deal["deal"] == 1 and deal["dealer"] == 0
    assert deal["hands"] == [deck[2:15:3], deck[0:15:3], deck[1:15:3]]
    assert deal["up"] == deck[15] and deal["stock"] == deck[16:]
    assert state.to_act() == 1 and state.discard == [deck[15]]
    for seat in range(3):
        (mine,) = [m for m in seen(out, seat) if m["kind"] == "deal"]
        assert sorted(mine["hand"]) == sorted(deal["hands"][seat]) and mine["up"] == deck[15]


def test_MM_1_dealer_moves_left_after_each_round():
    state = position([["5H"], ["9C", "KD"], ["2S", "3S"]], ["5C"], turn=0, dealer=2)
    play(state, {"play": "5H", "say": "mau mau"})
    recs = records(state.drain())
    assert [r["type"] for r in recs] == ["deal_end", "deal"]
    assert recs[1]["dealer"] == 0 and recs[1]["deal"] == 2 and state.deal == 2
    assert all(len(h) == 5 for h in recs[1]["hands"])


def test_MM_1_round_2_is_dealt_from_the_new_dealers_left():
    state = deal_from(position([["5H"], ["9C", "KD"], ["2S", "3S"]], ["5C"], turn=0, dealer=0), random.Random(4))
    play(state, {"play": "5H", "say": "mau mau"})
    deal = records(state.drain())[-1]
    deck = make_deck("standard", 1)
    Streams(random.Random(4)).deal(2).shuffle(deck)  # C-2: deal 2's own stream
    assert deal["dealer"] == 1  # round 2: seat 1 deals, seat 2 gets the first card
    assert deal["hands"] == [deck[1:15:3], deck[2:15:3], deck[0:15:3]]
    assert deal["up"] == deck[15] and deal["stock"] == deck[16:]
    assert state.to_act() == (1 if deck[15][0] == "J" else 2)


@pytest.mark.parametrize("players, copies", [(2, 1), (6, 1), (7, 2), (10, 2)])
def test_MM_1_two_decks_for_seven_to_ten_players(players, copies):
    state = seeded_state(GAME, config(), players, random.Random(1))
    cards = Counter(card for zone in state.zones().values() for card in zone)
    assert len(cards) == 52 and set(cards.values()) == {copies}


def test_MM_1_deal_needing_more_cards_than_the_decks_is_rejected():
    with pytest.raises(ConfigError, match="MM-1"):
        resolve_config(GAME, {"deck": "skat32", "hand_size": 7}, 5)  # 36 cards > 32
    with pytest.raises(ConfigError):
        resolve_config(GAME, {"deck": "skat32", "hand_size": 7}, 10)  # 71 > 64
    resolve_config(GAME, {"deck": "skat32", "hand_size": 7}, 4)  # 29 of 32
    resolve_config(GAME, {"deck": "skat32", "hand_size": 7}, 9)  # 64 of 64: the up-card fits
    resolve_config(GAME, {"deck": "skat32"}, 6)  # 31 of 32
    resolve_config(GAME, {"hand_size": 7}, 10)  # 71 of 104


# -- MM-2 special ranks --------------------------------------------------------------------------


@pytest.mark.parametrize("suit", SUITS)
def test_MM_2_every_seven_jack_and_eight_is_special(suit):
    other = "C" if suit != "C" else "D"
    hands = [["7" + suit, "8" + suit, "J" + suit, "2" + other], ["4H", "5H", "6H"], ["9H", "TH", "QH"]]
    state = position(hands, ["K" + suit], turn=0)
    play(state, {"play": "7" + suit})
    assert state.penalty == 2 and state.to_act() == 1

    state = position(hands, ["K" + suit], turn=0)
    play(state, {"play": "8" + suit})
    assert state.to_act() == 2

    state = position(hands, ["9" + other], turn=0)  # a Jack matches neither, yet is playable
    jacks = [a for a in state.legal_actions() if a["play"] == "J" + suit]
    assert [a["suit"] for a in jacks] == list(SUITS)


# -- MM-3 matching -------------------------------------------------------------------------------


def test_MM_3_play_matches_rank_or_suit():
    state = position([["5C", "9H", "KD", "2S", "JS"], ["4H"]], ["5H"], turn=0)
    assert played(state) == {"5C", "9H", "JS"}
    assert {"draw": True} not in state.legal_actions()


def test_MM_3_after_a_jack_the_named_suit_is_matched():
    state = position([["2S", "3H", "JC", "QC"], ["4H"]], ["4C", "JH"], turn=0, suit="S")
    assert played(state) == {"2S", "JC"}


def test_MM_3_jack_not_on_a_pending_seven():
    state = position([["JH", "7C", "3H"], ["4H"]], ["7H"], turn=0, penalty=2)
    assert state.legal_actions() == [{"play": "7C"}, {"draw": True}]
    assert state.resolve({"play": "JH", "suit": "H"}) is None


def test_MM_3_jack_always_names_a_suit_even_as_last_card():
    state = position([["JD"], ["4H", "5H"]], ["4C"], turn=0)
    assert state.legal_actions() == [{"play": "JD", "suit": s, "say": "mau mau"} for s in SUITS]
    assert state.resolve({"play": "JD", "say": "mau mau"}) is None
    assert state.resolve({"play": "JD", "suit": "X", "say": "mau mau"}) is None
    play(state, {"play": "JD", "suit": "D", "say": "mau mau"})
    assert records(state.drain())[0]["winner"] == 0


# -- MM-4 sevens and eights ----------------------------------------------------------------------


def test_MM_4_seven_passes_penalty_on():
    hands = [["7C", "2C", "3C"], ["7D", "4H", "5H"], ["9H", "TH", "QH"]]
    state = position(hands, ["KC"], turn=0)
    play(state, {"play": "7C"})
    assert state.to_act() == 1 and state.legal_actions() == [{"play": "7D"}, {"draw": True}]
    play(state, {"play": "7D"})
    assert state.penalty == 4 and state.to_act() == 2
    assert state.legal_actions() == [{"draw": True}]
    state.drain()
    play(state, {"draw": True})
    out = state.drain()
    assert len(state.hands[2]) == 7 and state.penalty == 0
    assert state.to_act() == 0  # the penalised player lost the turn
    assert {"kind": "penalty", "seat": 2, "why": "seven", "count": 4} in seen(out, 0)


def test_MM_4_taking_the_penalty_is_allowed_when_holding_a_seven():
    state = position([["7D", "4H"], ["2C", "3C"]], ["7C"], turn=0, penalty=2)
    assert {"draw": True} in state.legal_actions() and {"play": "7D", "say": "mau"} in state.legal_actions()
    play(state, {"draw": True})
    assert sorted(state.hands[0]) == sorted(["7D", "4H", "2D", "3D"]) and state.to_act() == 1


def test_MM_4_seven_chain_1_one_player_after_the_first_may_pass_it_on():
    hands = [["7C", "2C", "3C"], ["7D", "4H", "5H"], ["7H", "9H", "TH"], ["7S", "QH", "KH"]]
    state = position(hands, ["KC"], turn=0, cfg={"seven_chain": 1})
    play(state, {"play": "7C"})  # the first
    assert {"play": "7D"} in state.legal_actions()
    play(state, {"play": "7D"})  # one player after the first passes it on
    assert state.to_act() == 2 and state.penalty == 4
    assert state.legal_actions() == [{"draw": True}]  # holding 7H, seat 2 must take it
    play(state, {"draw": True})
    assert len(state.hands[2]) == 7 and state.to_act() == 3  # the penalised seat lost its turn
    assert {"play": "7S"} in state.legal_actions() and state.penalty == 0  # a new 7 starts afresh


def test_MM_4_seven_chain_limits_who_may_pass_it_on():
    hands = [["7D", "4H", "5H"], ["2C", "3C"], ["9H", "TH"]]
    limited = position(hands, ["7S", "7C"], turn=0, penalty=4, chain=1, cfg={"seven_chain": 1})
    assert limited.legal_actions() == [{"draw": True}]
    first = position(hands, ["7C"], turn=0, penalty=2, chain=0, cfg={"seven_chain": 1})
    assert {"play": "7D"} in first.legal_actions()
    unlimited = position(hands, ["7S", "7H", "7C"], turn=0, penalty=6, chain=2)
    assert {"play": "7D"} in unlimited.legal_actions()


def test_MM_4_eight_skips_the_next_player():
    state = position([["8C", "2C", "3C"], ["8D", "4H"], ["9C", "TH"]], ["KC"], turn=0)
    play(state, {"play": "8C"})
    out = state.drain()
    assert state.to_act() == 2
    assert {"kind": "skipped", "seat": 1, "why": "eight"} in seen(out, 2)


def test_MM_4_eight_with_two_players_plays_again():
    state = position([["8C", "2C", "3C"], ["4H", "5H"]], ["KC"], turn=0)
    play(state, {"play": "8C"})
    assert state.to_act() == 0


# -- MM-5 drawing --------------------------------------------------------------------------------


def test_MM_5_no_legal_play_draws_one():
    state = position([["2H", "3H"], ["4C"]], ["KC"], stock=["5H", "6S"], turn=0)
    assert state.legal_actions() == [{"draw": True}]
    play(state, {"draw": True})
    out = state.drain()
    assert seen(out, 0)[-1] == {"kind": "drew", "seat": 0, "count": 1, "cards": ["5H"], "why": "draw"}
    assert seen(out, 1)[-1] == {"kind": "drew", "seat": 0, "count": 1, "why": "draw"}
    assert state.to_act() == 1  # 5H does not match KC: the turn ends


def test_MM_5_drawn_playable_card_is_played_or_kept():
    state = position([["2H", "3H"], ["4C"]], ["KC"], stock=["5C", "6S"], turn=0)
    play(state, {"draw": True})
    assert state.phase == DRAWN and state.to_act() == 0
    assert state.legal_actions() == [{"play": "5C"}, {"pass": True}]
    assert state.observe(0)["drawn"] == "5C" and state.observe(1)["drawn"] is None
    keep = position([["2H", "3H"], ["4C"]], ["KC"], stock=["5C", "6S"], turn=0)
    play(keep, {"draw": True})
    play(keep, {"pass": True})
    assert keep.to_act() == 1 and "5C" in keep.hands[0]
    play(state, {"play": "5C"})
    assert state.discard[-1] == "5C" and state.to_act() == 1


def test_MM_5_only_the_drawn_card_may_be_played():
    state = position([["2H", "QC"], ["4C"]], ["KD"], stock=["5D"], turn=0)
    play(state, {"draw": True})
    assert state.resolve({"play": "QC"}) is None and state.resolve({"play": "5D"}) == {"play": "5D"}


def test_MM_5_keeping_a_drawn_card_looks_like_an_unplayable_draw_to_the_others():
    # At a table, a drawn card kept and a drawn card that cannot be played look the same: the
    # other seats must not learn that the drawn card was playable (it is a hidden card).
    hands = [["2H", "3H"], ["4S", "5S"], ["9D", "TD"]]
    kept = position(hands, ["KC"], stock=["5C", "6S"], turn=0)
    play(kept, {"draw": True})
    play(kept, {"pass": True})
    unplayable = position(hands, ["KC"], stock=["5D", "6S"], turn=0)
    play(unplayable, {"draw": True})
    kept_out, unplayable_out = kept.drain(), unplayable.drain()
    assert kept.to_act() == unplayable.to_act() == 1
    for seat in (1, 2):
        assert seen(kept_out, seat) == seen(unplayable_out, seat)
    assert {"kind": "passed", "seat": 0, "kept": True} in seen(kept_out, 0)  # the drawer is told


def test_MM_5_no_draw_while_holding_a_legal_play():
    state = position([["2C", "3H", "4H"], ["4C"]], ["KC"], turn=0)
    assert state.legal_actions() == [{"play": "2C"}]
    with pytest.raises(RulesError):
        play(state, {"draw": True})


def test_MM_5_nothing_to_draw_passes():
    state = position([["2H", "3H"], ["4C"]], ["KC"], stock=[], turn=0)
    assert state.legal_actions() == [{"pass": True}]
    play(state, {"pass": True})
    assert state.to_act() == 1
    # a discard pile below the top card still counts as something to draw (MM-8 reshuffle)
    state = position([["2H", "3H"], ["4C"]], ["9S", "KC"], stock=[], turn=0)
    assert state.legal_actions() == [{"draw": True}]


# -- MM-6 the first up-card ----------------------------------------------------------------------


def test_MM_6_jack_up_card_lets_the_dealer_name_the_suit():
    state, _ = dealt_state(4, lambda up: up[0] == "J")
    state.drain()
    assert state.phase == SUIT and state.to_act() == 0  # the dealer
    assert state.legal_actions() == [{"suit": s} for s in SUITS]
    play(state, {"suit": "H"})
    out = state.drain()
    assert state.suit == "H" and state.to_act() == 1
    assert {"kind": "suit", "seat": 0, "suit": "H"} in seen(out, 3)
    assert all(a.get("draw") or a["play"][1] == "H" or a["play"][0] == "J" for a in state.legal_actions())


@pytest.mark.parametrize("rank", ["7", "8", "A"])
def test_MM_6_seven_eight_or_ace_up_card_has_no_effect(rank):
    for ace in ("draw1", "skip_all"):
        state, _ = dealt_state(3, lambda up: up[0] == rank, ace=ace)
        assert state.to_act() == 1 and state.penalty == 0 and state.phase == "play"
        assert [len(h) for h in state.hands] == [5, 5, 5]


# -- MM-7 announcements --------------------------------------------------------------------------


def test_MM_7_legal_list_carries_the_due_announcement():
    two = position([["2C", "3H"], ["4C"]], ["KC"], turn=0)
    assert two.legal_actions() == [{"play": "2C", "say": "mau"}]
    one = position([["2C"], ["4C"]], ["KC"], turn=0)
    assert one.legal_actions() == [{"play": "2C", "say": "mau mau"}]
    three = position([["2C", "3H", "4H"], ["4C"]], ["KC"], turn=0)
    assert three.legal_actions() == [{"play": "2C"}]


@pytest.mark.parametrize("card", ["9C", "JD"])
def test_MM_7_a_drawn_card_carries_the_due_announcement(card):
    # one card, none playable: drawing makes two, and playing the drawn card leaves one ("mau").
    # A drawn card is never the last one: a hand is never empty while the round goes on
    # (Settled here 1), so "mau mau" is never due in the "drawn" phase.
    state = position([["2H"], ["4S", "5S"]], ["KC"], stock=[card, "6S"], turn=0)
    play(state, {"draw": True})
    assert state.phase == DRAWN
    plays = [{"play": card, "suit": s, "say": "mau"} for s in SUITS] if card[0] == "J" else \
        [{"play": card, "say": "mau"}]
    assert state.legal_actions() == plays + [{"pass": True}]
    state.drain()
    play(state, plays[0])
    out = state.drain()
    assert kinds(out, 1) == ["played"] and seen(out, 1)[0]["say"] == "mau"  # no penalty
    assert state.hands[0] == ["2H"] and state.to_act() == 1


def test_MM_7_missing_mau_costs_two_cards_before_the_power():
    state = position([["7C", "2H"], ["4H", "5H"], ["9H"]], ["9C"], turn=0)
    action = state.resolve({"play": "7C"})
    assert action == {"play": "7C"}
    play(state, action)
    out = state.drain()
    assert kinds(out, 1) == ["played", "penalty", "drew"]
    assert seen(out, 1)[1] == {"kind": "penalty", "seat": 0, "why": "announcement", "ruling": "MM-7", "count": 2}
    assert sorted(state.hands[0]) == sorted(["2H", "2D", "3D"])
    assert state.penalty == 2 and state.to_act() == 1  # the 7's power, after the penalty


@pytest.mark.parametrize("say", ["Mau", "mau mau", "MAU", "", 7, None])
def test_MM_7_a_wrong_announcement_counts_as_missing(say):
    state = position([["5C", "2H"], ["4H", "5H"]], ["9C"], turn=0)
    action = state.resolve({"play": "5C", "say": say})
    assert action == {"play": "5C"}
    play(state, action)
    assert len(state.hands[0]) == 3


def test_MM_7_missing_mau_mau_means_the_round_goes_on():
    state = position([["5C"], ["4H", "5H"]], ["9C"], turn=0)
    play(state, state.resolve({"play": "5C"}))
    out = state.drain()
    assert "deal_end" not in [r["type"] for r in records(out)]
    assert sorted(state.hands[0]) == ["2D", "3D"] and state.to_act() == 1 and state.deal == 1


def test_MM_7_an_announcement_not_due_is_ignored():
    state = position([["5C", "2H", "3H"], ["4H", "5H"]], ["9C"], turn=0)
    assert state.resolve({"play": "5C", "say": "mau"}) == {"play": "5C"}
    assert state.resolve({"play": "5C", "say": "mau mau"}) == {"play": "5C"}
    play(state, {"play": "5C", "say": "mau"})
    assert len(state.hands[0]) == 2 and state.to_act() == 1
    drawing = position([["2H", "3H"], ["4H"]], ["9C"], turn=0)
    assert drawing.resolve({"draw": True, "say": "mau"}) == {"draw": True}


def test_MM_7_missing_mau_mau_on_a_seven_penalises_then_the_seven_acts():
    state = position([["7C"], ["4H", "5H"], ["9H"]], ["9C"], turn=0)
    play(state, state.resolve({"play": "7C"}))
    out = state.drain()
    assert "deal_end" not in [r["type"] for r in records(out)]  # the round goes on
    assert sorted(state.hands[0]) == ["2D", "3D"]  # the 2 penalty cards come first...
    assert state.penalty == 2 and state.to_act() == 1  # ...then the 7's power
    play(state, {"draw": True})
    assert sorted(state.hands[1]) == ["4D", "4H", "5D", "5H"]


def test_MM_7_penalty_cards_are_drawn_before_an_ace_draw1():
    state = position([["AC", "2H"], ["4H"], ["5H"]], ["KC"], stock=["2D", "3D", "4D", "5D"], turn=0,
                     cfg={"ace": "draw1"})
    play(state, state.resolve({"play": "AC"}))  # "mau" missing
    assert state.hands == [["2D", "2H", "3D"], ["4D", "4H"], ["5D", "5H"]]
    assert state.to_act() == 1


def test_MM_7_missing_mau_on_an_eight_penalises_then_skips():
    state = position([["8C", "2H"], ["4H", "5H"], ["9H"]], ["9C"], turn=0)
    play(state, {"play": "8C"})
    assert len(state.hands[0]) == 3 and state.to_act() == 2


# -- MM-8 round end, reshuffle, safety valve -----------------------------------------------------


@pytest.mark.parametrize("card, cfg", [("7C", {}), ("8C", {}), ("AC", {"ace": "draw1"}), ("AC", {"ace": "skip_all"})],
                         ids=["7C", "8C", "AC-draw1", "AC-skip_all"])
def test_MM_8_going_out_voids_the_pending_power(card, cfg):
    state = position([[card], ["4H", "5H"], ["9H"]], ["9C"], turn=0, dealer=2, cfg=cfg)
    play(state, {"play": card, "say": "mau mau"})
    out = state.drain()
    end = records(out)[0]
    assert end == {"type": "deal_end", "deal": 1, "scores": [0, 9, 9], "winner": 0, "totals": [0, 9, 9],
                   "reason": "mau mau"}  # nobody drew for the Ace (draw1) before the round ended
    assert "drew" not in kinds(out, 1) and "skipped" not in kinds(out, 1)
    assert state.deal == 2 and state.penalty == 0 and all(len(h) == 5 for h in state.hands)


def test_MM_8_going_out_with_a_seven_on_a_pending_penalty_voids_the_penalty():
    # seat 0 passes a penalty of 4 on with its last card: nobody takes 6, the next round starts clean
    state = position([["7D"], ["4H", "5H"], ["9H"]], ["9C", "7S", "7C"], turn=0, dealer=2, penalty=4, chain=1)
    assert state.legal_actions() == [{"play": "7D", "say": "mau mau"}, {"draw": True}]
    play(state, {"play": "7D", "say": "mau mau"})
    out = state.drain()
    end = records(out)[0]
    assert end == {"type": "deal_end", "deal": 1, "scores": [0, 9, 9], "winner": 0, "totals": [0, 9, 9],
                   "reason": "mau mau"}
    assert "drew" not in kinds(out, 1) and "penalty" not in kinds(out, 1)
    assert state.deal == 2 and state.penalty == state.chain == 0 and all(len(h) == 5 for h in state.hands)
    obs = state.observe(0)
    assert obs["penalty"] == obs["chain"] == 0


def test_MM_8_empty_draw_pile_reshuffles_the_discard_pile_less_its_top():
    state = position([["2H", "3H"], ["4C"]], ["2S", "9S", "QS", "KC"], stock=[], turn=0)
    state.apply({"draw": True})
    # the move waits for its reshuffle: no seat acts, nothing has moved yet
    assert state.to_act() is None and state.legal_actions() == [] and state.drain() == []
    assert state.chance() == Shuffle(("2S", "9S", "QS"), "reshuffle") and state.discard == ["2S", "9S", "QS", "KC"]
    state.apply_chance(["QS", "2S", "9S"])
    out = state.drain()
    assert records(out) == [] and state.chance() is None  # the runner records the outcome, not the game
    assert state.discard == ["KC"]
    assert "QS" in state.hands[0] and state.zones()["stock"] == ["2S", "9S"]
    assert {"kind": "reshuffle", "stock": 3} in seen(out, 1)


def test_MM_8_the_chance_record_comes_right_after_the_move_that_caused_it(tmp_path):
    found = 0
    for seed in range(40):
        path = tmp_path / f"r{seed}.jsonl"
        random_playout(GAME, {}, seed=seed, players=2, replay=path)
        recs = list(read_replay(path))
        for i, rec in enumerate(recs):
            if rec["type"] == "chance" and rec["kind"] == "reshuffle":
                found += 1
                j = i - 1
                while recs[j]["type"] == "chance":  # several reshuffles in one move
                    j -= 1
                assert recs[j]["type"] == "move" and recs[j]["deal"] == rec["deal"]
                assert recs[j]["action"].get("draw") or "play" in recs[j]["action"]
    assert found


def test_MM_8_a_player_who_must_draw_more_draws_what_there_is():
    state = position([["2H", "3H"], ["4C"]], ["9S", "7C"], stock=["5S"], turn=0, penalty=4)
    play(state, {"draw": True})
    assert sorted(state.hands[0]) == sorted(["2H", "3H", "5S", "9S"])
    assert state.penalty == 0 and state.to_act() == 1 and state.can_draw() is False


def test_MM_8_nobody_can_play_or_draw_ends_the_round():
    state = position([["2H", "3H"], ["4D"], ["AS"]], ["KC"], stock=[], turn=0)
    for seat in (0, 1):
        assert state.to_act() == seat and state.legal_actions() == [{"pass": True}]
        play(state, {"pass": True})
        assert records(state.drain()) == []
    play(state, {"pass": True})
    end = records(state.drain())[0]
    assert end["winner"] is None and end["reason"] == "blocked" and end["scores"] == [5, 4, 10]


def test_MM_8_taking_a_seven_penalty_restarts_the_blocked_count():
    # Settled here 3: a penalty taken is not a forced pass; after it every seat must be stuck once
    state = position([["2H", "3H"], ["4D", "5D"], ["TH", "QH"]], ["9S", "7C"], stock=[], turn=0, penalty=2)
    play(state, {"draw": True})  # draws 9S (the discard pile below the 7, reshuffled)
    assert state.hands[0] == ["2H", "3H", "9S"] and not state.can_draw()
    state.drain()
    for seat in (1, 2):
        assert state.to_act() == seat and state.legal_actions() == [{"pass": True}]
        play(state, {"pass": True})
        assert records(state.drain()) == []
    play(state, {"pass": True})
    end = records(state.drain())[0]
    assert end["winner"] is None and end["reason"] == "blocked" and end["scores"] == [14, 9, 20]


def test_MM_8_max_decisions_ends_the_round_with_no_winner():
    state = position([["2H", "3H", "9C"], ["4D", "KS", "5C"]], ["KC"], turn=0, cfg={"max_decisions": 3})
    play(state, {"play": "9C"})
    play(state, {"play": "5C"})
    assert records(state.drain()) == []
    play(state, {"draw": True})
    out = state.drain()
    end = records(out)[0]
    assert end["winner"] is None and end["reason"] == "max_decisions"
    assert end["scores"] == [7, 14]
    # what was drawn at the round's end is not named to anyone (the next round may hold it)
    assert all("cards" not in m for m in seen(out, 0))


def test_MM_8_max_decisions_does_not_count_a_drawn_card_kept():
    # Whether a drawn card was playable is hidden (the keep is told to the drawer only): the
    # round ends after the same public decisions whether the card drawn was kept or unplayable.
    for drawn in ("9C", "QD"):  # 9C playable on KC (then kept), QD not
        state = position([["2H", "3H", "9H"], ["4D", "KS", "5C"]], ["KC"], stock=[drawn, "2D"], turn=0,
                         cfg={"max_decisions": 2})
        play(state, {"draw": True})
        if drawn == "9C":
            assert {"pass": True} in state.legal_actions()
            play(state, {"pass": True})
        assert records(state.drain()) == []  # the round goes on: seat 1 acts
        assert state.to_act() == 1
        play(state, {"play": "KS"})
        end = records(state.drain())[0]
        assert end["winner"] is None and end["reason"] == "max_decisions"


# -- MM-9 scoring, match end, tie-breaks ---------------------------------------------------------


def test_MM_9_losers_score_their_cards():
    state = position([["5C"], ["AS", "KD", "QH", "JC"], ["2C", "9D", "TH"]], ["9C"], turn=0)
    play(state, {"play": "5C", "say": "mau mau"})
    end = records(state.drain())[0]
    assert end["scores"] == [0, 40, 21] and end["totals"] == [0, 40, 21] and state.totals == [0, 40, 21]


def test_MM_9_match_ends_when_a_total_reaches_the_target():
    state = position([["5C", "KC"], ["2D"], ["9H", "8H", "3S"]], ["9D"], turn=1, totals=[90, 50, 60])
    play(state, {"play": "2D", "say": "mau mau"})
    out = state.drain()
    assert state.to_act() is None and state.phase == OVER
    assert state.outcome().scores == [105, 50, 80]
    assert competition_ranks(state.outcome().measure) == [3, 1, 2]
    assert "match_end" in kinds(out)


def test_MM_9_a_total_exactly_at_the_target_ends_the_match():
    state = position([["5C", "5H"], ["2D"], ["9H"]], ["9D"], turn=1, totals=[90, 50, 60])
    play(state, {"play": "2D", "say": "mau mau"})  # seat 0 scores 10: exactly 100
    out = state.drain()
    assert state.to_act() is None and state.phase == OVER and state.deal == 1
    assert state.outcome().scores == [100, 50, 69]
    assert [r["type"] for r in records(out)] == ["deal_end"] and "match_end" in kinds(out)


def test_MM_9_tie_for_lowest_is_broken_among_the_tied_only():
    state = position([["5C", "KC"], ["2D"], ["9H", "8H", "3S"]], ["9D"], turn=1, dealer=0,
                     totals=[90, 70, 50])
    play(state, {"play": "2D", "say": "mau mau"})  # totals: 105, 70, 70
    out = state.drain()
    assert {"kind": "tiebreak", "seats": [1, 2], "tiebreak": 1} in seen(out, 0)
    deal = records(out)[-1]
    assert deal["type"] == "deal" and deal["active"] == [1, 2]
    assert deal["dealer"] == 1  # the next tied seat left of the last dealer (0)
    assert deal["hands"][0] == [] and len(deal["hands"][1]) == len(deal["hands"][2]) == 5
    assert state.observe(0)["active"] == [1, 2]
    # play the tie-break out: seat 0 never acts, and only seats 1 and 2 add points
    rng = random.Random(3)
    while state.to_act() is not None and state.deal == 2:
        assert state.to_act() in (1, 2)
        legal = state.legal_actions()
        play(state, legal[rng.randrange(len(legal))])
    assert state.totals[0] == 105 and state.totals[1] + state.totals[2] > 140


def test_MM_9_the_next_tiebreak_is_among_the_seats_tied_then():
    # tie-break 1 among seats 1 and 2 ends blocked, 10 points each: 60, 60, and seat 3 (sat out) 60
    state = position([[], ["TH"], ["TD"], []], ["5C"], stock=[], turn=2, dealer=1, active=[1, 2],
                     tiebreaks=1, totals=[120, 50, 50, 60])
    play(state, {"pass": True})
    play(state, {"pass": True})
    out = state.drain()
    assert state.totals == [120, 60, 60, 60]
    assert {"kind": "tiebreak", "seats": [1, 2, 3], "tiebreak": 2} in seen(out, 0)
    deal = records(out)[-1]
    assert deal["type"] == "deal" and deal["active"] == [1, 2, 3]
    assert deal["dealer"] == 2  # the deal passes left from seat 1 to the next tied seat
    assert deal["hands"][0] == [] and all(len(deal["hands"][s]) == 5 for s in (1, 2, 3))
    assert state.to_act() == (2 if deal["up"][0] == "J" else 3)


def test_MM_9_after_max_tiebreaks_the_tied_seats_share_the_rank():
    state = position([[], ["5C"], ["5D"]], ["9H"], stock=[], turn=1, active=[1, 2], tiebreaks=1,
                     totals=[120, 50, 50], cfg={"max_tiebreaks": 1})
    play(state, {"pass": True})
    play(state, {"pass": True})  # blocked: both score 5
    assert state.to_act() is None and state.totals == [120, 55, 55]
    assert competition_ranks(state.outcome().measure) == [3, 1, 1]
    no_tiebreak = position([["5C", "KC"], ["2D"], ["9H", "8H", "3S"]], ["9D"], turn=1,
                           totals=[90, 70, 50], cfg={"max_tiebreaks": 0})
    play(no_tiebreak, {"play": "2D", "say": "mau mau"})
    assert no_tiebreak.to_act() is None and competition_ranks(no_tiebreak.outcome().measure) == [3, 1, 1]


# -- MM-10 variants ------------------------------------------------------------------------------


def test_MM_10_skat32_deck():
    state = seeded_state(GAME, config(deck="skat32"), 4, random.Random(2))
    cards = [c for zone in state.zones().values() for c in zone]
    assert len(cards) == len(set(cards)) == 32 and {c[0] for c in cards} == set("789TJQKA")


def test_MM_10_ace_draw1_every_other_player_draws_one():
    hands = [["AC", "2H", "3H"], ["4H"], ["5H"], ["6H"]]
    state = position(hands, ["KC"], stock=["2D", "3D", "4D"], turn=0, cfg={"ace": "draw1"})
    play(state, {"play": "AC"})
    out = state.drain()
    assert [m["seat"] for m in seen(out, 0) if m["kind"] == "drew"] == [1, 2, 3]
    assert state.hands[1] == ["2D", "4H"] and state.hands[2] == ["3D", "5H"] and state.hands[3] == ["4D", "6H"]
    assert state.to_act() == 1  # nobody loses a turn


def test_MM_10_ace_draw1_from_the_players_left_round_the_table_active_seats_only():
    hands = [["4H"], [], ["AC", "2H", "3H"], ["6H"]]
    state = position(hands, ["KC"], stock=["2D", "3D", "4D"], turn=2, active=[0, 2, 3], cfg={"ace": "draw1"})
    play(state, {"play": "AC"})
    out = state.drain()
    assert [m["seat"] for m in seen(out, 2) if m["kind"] == "drew"] == [3, 0]  # seat 1 sits out
    assert state.hands[3] == ["2D", "6H"] and state.hands[0] == ["3D", "4H"] and state.hands[1] == []
    assert state.to_act() == 3


def test_MM_10_ace_skip_all_the_player_plays_again():
    state = position([["AC", "2H", "3C"], ["4H"], ["5H"]], ["KC"], turn=0, cfg={"ace": "skip_all"})
    play(state, {"play": "AC"})
    assert state.to_act() == 0 and state.legal_actions() == [{"play": "3C", "say": "mau"}]


def test_MM_10_ace_none_is_an_ordinary_card():
    state = position([["AC", "2H", "3C"], ["4H"], ["5H"]], ["KC"], turn=0)
    play(state, {"play": "AC"})
    assert state.to_act() == 1 and [len(h) for h in state.hands] == [2, 1, 1]


def test_MM_10_seven_chain_n():
    hands = [["7D", "4H"], ["7H", "3C"], ["7S", "5C"], ["9H", "TH"]]
    state = position(hands, ["7C"], turn=0, penalty=2, chain=0, cfg={"seven_chain": 2})
    play(state, {"play": "7D", "say": "mau"})
    play(state, {"play": "7H", "say": "mau"})  # chain 2: the second player after the first
    assert state.chain == 2 and state.legal_actions() == [{"draw": True}]


def test_MM_10_sevens_false_the_seven_draws_nothing():
    state = position([["7C", "2H", "3H"], ["4H", "5C"], ["9H"]], ["KC"], turn=0, cfg={"sevens": False})
    play(state, {"play": "7C"})
    assert state.penalty == 0 and state.to_act() == 1 and state.legal_actions() == [{"play": "5C", "say": "mau"}]


def test_MM_10_hand_size_7():
    state = seeded_state(GAME, config(hand_size=7), 6, random.Random(4))
    assert [len(h) for h in state.hands] == [7] * 6 and len(state.stock) == 52 - 42 - 1


def test_MM_10_voluntary_draw_allows_drawing_with_a_legal_play():
    state = position([["2C", "3H", "4H"], ["4C"]], ["KC"], turn=0, cfg={"voluntary_draw": True})
    assert state.legal_actions() == [{"play": "2C"}, {"draw": True}]
    state = position([["2C", "3H", "4H"], ["4C"]], ["KC"], stock=[], turn=0, cfg={"voluntary_draw": True})
    assert state.legal_actions() == [{"play": "2C"}]


def test_MM_10_voluntary_draw_of_an_unplayable_card_ends_the_turn():
    state = position([["2C", "3H", "4H"], ["4C"]], ["KC"], stock=["5D"], turn=0, cfg={"voluntary_draw": True})
    play(state, {"draw": True})  # 2C was playable; the drawn 5D is not
    assert state.to_act() == 1 and state.phase == "play" and "5D" in state.hands[0]
    state = position([["2C", "3H", "4H"], ["4C"]], ["KC"], stock=["9C"], turn=0, cfg={"voluntary_draw": True})
    play(state, {"draw": True})  # a playable drawn card: only it may be played, or kept
    assert state.phase == DRAWN and state.legal_actions() == [{"play": "9C"}, {"pass": True}]


def test_MM_10_announcements_false():
    state = position([["2C", "3H"], ["4C"]], ["KC"], turn=0, cfg={"announcements": False})
    assert state.legal_actions() == [{"play": "2C"}]
    assert state.resolve({"play": "2C", "say": "mau"}) == {"play": "2C"}
    play(state, {"play": "2C"})
    assert len(state.hands[0]) == 1
    last = position([["2C"], ["4H"]], ["KC"], turn=0, cfg={"announcements": False})
    play(last, {"play": "2C"})
    assert records(last.drain())[0]["winner"] == 0


@pytest.mark.parametrize("players", [7, 8, 10])
def test_MM_10_two_decks_for_seven_or_more_players(players):
    result = random_playout(GAME, {}, seed=players, players=players)
    assert len(result.result["scores"]) == players
    state = seeded_state(GAME, config(), players, random.Random(0))
    assert sum(len(z) for z in state.zones().values()) == 104


def test_MM_10_too_many_players_rejected():
    with pytest.raises(ConfigError, match="2 to 10"):
        resolve_config(GAME, {}, 11)
    with pytest.raises(ConfigError):
        resolve_config(GAME, {}, 1)
    with pytest.raises(ConfigError):
        resolve_config(GAME, {"deck": "skat32", "hand_size": 7}, 6)


def test_MM_10_options_and_defaults():
    assert config() == {"hand_size": 5, "deck": "standard", "ace": "none", "seven_chain": 0, "sevens": True,
                        "voluntary_draw": False, "announcements": True, "target": 100, "max_decisions": 2000,
                        "max_tiebreaks": 5}
    for bad in ({"hand_size": 6}, {"deck": "piquet"}, {"ace": "draw2"}, {"seven_chain": -1}):
        with pytest.raises(ConfigError):
            config(**bad)


# -- the game contract ---------------------------------------------------------------------------


def test_resolve_rejects_what_is_not_legal():
    state = position([["2C", "3H", "4H"], ["4C"]], ["KC"], turn=0)
    for bad in (None, [], "2C", {"play": "3H"}, {"play": "2C", "suit": "H"}, {"draw": True},
                {"draw": 1}, {"play": "2C", "extra": 1}, {"pass": True}, {"suit": "H"}):
        assert state.resolve(bad) is None, bad
        with pytest.raises(RulesError):
            play(state, bad)


def test_observation_is_complete_and_fresh():
    state = position([["2C", "3H", "4H"], ["4C"]], ["9S", "KC"], turn=0, totals=[3, 4])
    obs = state.observe(0)
    assert obs == {"seat": 0, "to_act": 0, "phase": "play", "deal": 1, "dealer": 1, "hand": ["2C", "3H", "4H"],
                   "top": "KC", "suit": "C", "penalty": 0, "chain": 0, "drawn": None, "counts": [3, 1],
                   "stock": len(STOCK), "discard": 2, "active": [0, 1], "totals": [3, 4], "tiebreak": 0,
                   "target": 100}
    obs["hand"].append("XX")
    obs["totals"][0] = 99
    assert state.observe(0)["hand"] == ["2C", "3H", "4H"] and state.totals == [3, 4]
    json.dumps(obs)


def test_hidden_cards_and_zones():
    state = position([["2C", "3H"], ["4C", "3H"]], ["9S", "KC"], stock=["5D", "9S"], turn=0)
    assert state.hidden_from(0) == {"4C", "5D"}  # 3H is in its own hand, 9S in the discard pile
    assert state.hidden_from(1) == {"2C", "5D"}
    assert state.zones() == {"hand 0": ["2C", "3H"], "hand 1": ["3H", "4C"], "stock": ["5D", "9S"],
                             "discard": ["9S", "KC"]}


def test_round_end_tells_the_winning_card_and_no_hand():
    state = position([["5H"], ["9C", "KD"]], ["5C"], turn=0)
    play(state, {"play": "5H", "say": "mau mau"})
    out = state.drain()
    for message in [m for m in seen(out, 1) if m["kind"] == "round_end"]:
        assert "card" not in message and "cards" not in message
    assert seen(out, 1)[0] == {"kind": "played", "seat": 0, "card": "5H", "say": "mau mau"}
    assert {"kind": "round_end", "deal": 1, "winner": 0, "scores": [0, 19], "totals": [0, 19],
            "reason": "mau mau"} in seen(out, 1)


def test_replay_records(tmp_path):
    path = tmp_path / "m.jsonl"
    random_playout(GAME, {}, seed=11, players=4, replay=path)
    recs = list(read_replay(path))
    deals = [r for r in recs if r["type"] == "deal"]
    ends = [r for r in recs if r["type"] == "deal_end"]
    assert len(deals) == len(ends) >= 1
    first = deals[0]
    assert first["dealer"] == 0 and len(first["hands"]) == 4
    assert len(first["stock"]) + sum(map(len, first["hands"])) + 1 == 52
    for end in ends:
        assert set(end) >= {"deal", "scores", "winner", "totals"}
    assert recs[-1]["scores"] == ends[-1]["totals"]
    # some seed reshuffles: the chance record carries the new draw pile
    for seed in range(40):
        path = tmp_path / f"r{seed}.jsonl"
        random_playout(GAME, {}, seed=seed, players=2, replay=path)
        chances = [r for r in read_replay(path) if r["type"] == "chance" and r["kind"] == "reshuffle"]
        if chances:
            assert chances[0]["outcome"]
            break
    else:
        raise AssertionError("no reshuffle in 40 matches")


@pytest.mark.parametrize("variant", GAME.variants(), ids=lambda v: "-".join(f"{k}={v[k]}" for k in v) or "default")
@pytest.mark.parametrize("players", [3, 7])
def test_seeded_playouts_conserve_cards(variant, players):
    class Checker:
        deck = None

        def sent(self, seat, message, state):
            if message["type"] == "act":
                assert message["legal"] and state.to_act() == seat

        def stepped(self, state):
            cards = Counter(c for zone in state.zones().values() for c in zone)
            self.deck = self.deck or cards
            assert cards == self.deck

    for seed in range(15):
        result = random_playout(GAME, variant, seed=seed, players=players, monitor=Checker())
        assert max(result.result["scores"]) >= 100 or variant.get("target")
