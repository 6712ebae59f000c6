"""Presidente: scenario tests per ruling (P-1..P-10), the settled gaps, the greedy strategy.

Positions are built with `PresidenteState.from_position` (play phase) and
`PresidenteState.at_exchange` (a round about to exchange); actions are applied as a bot would
send them, through `resolve`.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from referee.errors import RulesError
from referee.game import Event, Record, audience
from referee.replay.records import read_replay
from referee.testing import random_playout, seeded_state
from referee.testing import play as step
from referee_presidente.cards import DECK, DECK_WITH_JOKERS, highest, lowest
from referee_presidente.game import Presidente
from referee_presidente.state import PresidenteState, plays
from referee_strategies.presidente_greedy import PresidenteGreedy

GAME = Presidente()
FILLER = ["4C", "6C", "7C", "9C", "TC", "JC"]  # spare cards for seats that must not run out


def position(hands, to_act, table=(), **kw) -> PresidenteState:
    state = PresidenteState.from_position(hands, to_act, list(table), **kw)
    state.drain()
    return state


def act(state: PresidenteState, action) -> list:
    """Apply an action as a bot would send it; return what it produced."""
    resolved = state.resolve(action)
    assert resolved is not None, f"{action} is not legal; legal: {state.legal_actions()}"
    step(state, resolved)
    return state.drain()


def play(state: PresidenteState, *cards: str) -> list:
    return act(state, {"play": list(cards)})


def pass_(state: PresidenteState) -> list:
    return act(state, {"pass": True})


def legal_plays(state: PresidenteState) -> list[list[str]]:
    return [a["play"] for a in state.legal_actions() if "play" in a]


def can_pass(state: PresidenteState) -> bool:
    return {"pass": True} in state.legal_actions()


def events(outputs, kind: str) -> list[dict]:
    return [o.data for o in outputs if isinstance(o, Event) and o.kind == kind]


def records(outputs, kind: str) -> list[dict]:
    return [o.data for o in outputs if isinstance(o, Record) and o.data["type"] == kind]


# -- P-1: deal, first President, rounds ---------------------------------------------------------


def test_P_1_deal_of_13_and_seat_1_leads_round_1():
    state = seeded_state(GAME, {"jokers": False, "rounds": 5}, 4, random.Random(7))
    out = state.drain()
    (deal,) = records(out, "deal")
    assert deal["deal"] == 1 and deal["dealer"] == 0
    assert [len(h) for h in deal["hands"]] == [13, 13, 13, 13]
    assert Counter(c for h in deal["hands"] for c in h) == Counter(DECK)
    assert state.to_act() == 1 and state.phase == "play" and state.reigning == 1
    assert all("pass" not in a for a in state.legal_actions())  # leading is compulsory (P-3)
    deal_events = [o for o in out if isinstance(o, Event) and o.kind == "deal"]
    assert [e.to for e in deal_events] == [(0,), (1,), (2,), (3,)]
    assert [e.data["hand"] for e in deal_events] == deal["hands"]


def test_P_1_five_rounds_dealer_passes_left_and_round_5_decides(tmp_path):
    path = tmp_path / "m.jsonl"
    result = random_playout(GAME, {}, seed=11, replay=path)
    recs = list(read_replay(path))
    deals = [r for r in recs if r["type"] == "deal"]
    ends = [r for r in recs if r["type"] == "deal_end"]
    assert [d["dealer"] for d in deals] == [0, 1, 2, 3, 0]
    assert [e["deal"] for e in ends] == [1, 2, 3, 4, 5]
    for end in ends:
        assert sorted(end["places"]) == [1, 2, 3, 4]
        assert end["scores"] == [{1: 3, 2: 2, 3: 1, 4: 0}[p] for p in end["places"]]
        assert end["roles"] == [{1: "president", 2: "citizen", 3: "citizen", 4: "slave"}[p] for p in end["places"]]
        assert end["fallen"] is None or end["places"][end["fallen"]] == 4
    assert result.result["scores"] == ends[-1]["scores"]
    assert result.result["ranks"] == ends[-1]["places"]  # C-5 from the round-5 places


def test_P_1_rounds_option():
    result = random_playout(GAME, {"rounds": 2}, seed=3)
    assert sorted(result.result["ranks"]) == [1, 2, 3, 4]
    state = seeded_state(GAME, {"jokers": False, "rounds": 1}, 4, random.Random(1))
    rng = random.Random(1)
    while state.to_act() is not None:
        legal = state.legal_actions()
        step(state, legal[rng.randrange(len(legal))])
    assert state.deal == 1 and len(state.history) == 1
    assert state.outcome().scores == state.history[0]


# -- P-2 / P-3: order, leads and follows -----------------------------------------------------------


def test_P_2_order_3_lowest_2_highest_8_unranked():
    hand = ["3D", "5C", "9H", "AS", "2C", "8D"]
    on_seven = plays(hand, "7", 1, False)
    assert [a["play"] for a in on_seven if "play" in a] == [["9H"], ["AS"], ["2C"], ["8D"]]
    on_ace = plays(hand, "A", 1, False)
    assert [a["play"] for a in on_ace if "play" in a] == [["AS"], ["2C"], ["8D"]]


def test_P_2_whole_order_and_its_reverse_in_a_revolution():
    # one card of every rank: each rank beats the one below it and not the one above (P-2),
    # the jokers above the 2s (P-10); in a revolution the order is reversed, jokers on top (P-7)
    hand = ["3D", "4D", "5D", "6D", "7D", "9D", "TD", "JD", "QD", "KD", "AD", "2D", "X1", "8D"]
    normal = ["3D", "4D", "5D", "6D", "7D", "9D", "TD", "JD", "QD", "KD", "AD", "2D", "X1"]
    reversed_ = ["2D", "AD", "KD", "QD", "JD", "TD", "9D", "7D", "6D", "5D", "4D", "3D", "X1"]
    for order, revolution in ((normal, False), (reversed_, True)):
        for i, top in enumerate(order):
            legal = [a["play"] for a in plays(hand, top[0], 1, revolution) if "play" in a]
            assert legal == [[c] for c in order[i:]] + [["8D"]], (revolution, top)


def test_P_3_equal_rank_follow():
    state = position([FILLER, ["5S", "4D", "KH"], FILLER, FILLER], 1, [(0, ["5H"])])
    assert legal_plays(state) == [["5S"], ["KH"]]
    assert can_pass(state)
    play(state, "5S")
    assert state.table == [(0, ["5H"]), (1, ["5S"])] and state.to_act() == 2


def test_P_3_count_matching_pairs():
    hand = ["5D", "7C", "7D", "7H", "9S", "QC", "QD"]
    state = position([FILLER, hand, FILLER, FILLER], 1, [(0, ["6H", "6S"])])
    assert legal_plays(state) == [["7C", "7D"], ["7C", "7H"], ["7D", "7H"], ["QC", "QD"]]
    with pytest.raises(RulesError):
        step(state, {"play": ["9S"]})
    with pytest.raises(RulesError):
        step(state, {"play": ["7C", "7D", "7H"]})


def test_P_3_count_matching_triples():
    hand = ["5D", "5H", "5S", "7C", "7D", "9C", "9D", "9H", "9S"]
    state = position([FILLER, hand, FILLER, FILLER], 1, [(0, ["6C", "6D", "6H"])])
    assert legal_plays(state) == [
        ["9C", "9D", "9H"], ["9C", "9D", "9S"], ["9C", "9H", "9S"], ["9D", "9H", "9S"],
    ]


def test_P_3_lead_enumerates_every_set_of_one_rank():
    state = position([FILLER, ["5C", "5D", "5H", "5S", "KD", "8C"], FILLER, FILLER], 1)
    fives = [p for p in legal_plays(state) if p[0][0] == "5"]
    assert len(fives) == 4 + 6 + 4 + 1  # C(4,1)+C(4,2)+C(4,3)+1
    assert fives[:5] == [["5C"], ["5D"], ["5H"], ["5S"], ["5C", "5D"]]
    assert legal_plays(state)[-2:] == [["KD"], ["8C"]]
    assert not can_pass(state)


def test_P_3_passed_player_stays_out_until_the_trick_ends():
    hands = [FILLER, ["QC"] + FILLER, ["5C", "KD"] + FILLER, ["AS"] + FILLER]
    state = position(hands, 0, [])
    play(state, "4C")
    pass_(state)  # seat 1
    play(state, "5C")
    play(state, "AS")
    assert state.to_act() == 0
    assert legal_plays(state) == []  # nothing of seat 0 beats the ace: pass only
    pass_(state)
    assert state.to_act() == 2  # seat 1 skipped: it passed (P-4)
    out = pass_(state)
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 3}]
    assert state.passed == [False] * 4  # everyone is back in for the new trick


def test_P_3_everyone_passes_last_player_leads():
    hands = [FILLER, FILLER, FILLER, FILLER]
    state = position(hands, 0)
    play(state, "4C")
    pass_(state)
    play(state, "6C")  # seat 2
    pass_(state)  # seat 3
    out = pass_(state)  # seat 0: only seat 2, the last to play, is left
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 2}]
    assert state.to_act() == 2 and state.table == [] and state.passed == [False] * 4
    assert not can_pass(state)
    assert "4C" in state.discards and "6C" in state.discards


def test_P_3_last_player_finished_next_active_seat_to_the_left_leads():
    # seat 3 is already out (President, no fall); seat 0 goes out with the top play
    hands = [["KC"], FILLER, FILLER, []]
    state = position(hands, 0, [(2, ["9H"])], places={3: 1}, reigning=3)
    out = play(state, "KC")
    assert events(out, "finished") == [{"seat": 0, "place": 2}]
    assert state.to_act() == 1  # seat 1 may still answer seat 0's king
    pass_(state)
    out = pass_(state)  # seat 2
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 1}]
    assert state.to_act() == 1


def test_P_3_an_unanswered_play_after_a_finish_wins_the_trick_at_once():
    # seat 1 goes out; seat 2 had passed, seat 3 is out; seat 0 beats seat 1's card: nobody is left to answer
    hands = [FILLER + ["AS"], ["QC"], FILLER, []]
    state = position(hands, 1, [(0, ["JD"])], passed=(2,), places={3: 1}, reigning=3)
    play(state, "QC")
    assert state.places[1] == 2 and state.to_act() == 0  # seat 0 did not pass: still in the trick
    out = play(state, "AS")
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 0}]


# -- P-4: turns --------------------------------------------------------------------------------------


def test_P_4_turns_skip_finished_and_blocked_players():
    hands = [FILLER, FILLER, [], FILLER]
    state = position(hands, 0, places={2: 1}, blocked=1, reigning=1)
    play(state, "4C")
    assert state.to_act() == 3  # seat 1 blocked, seat 2 out
    play(state, "6C")
    assert state.to_act() == 0
    out = pass_(state)
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 3}]


# -- P-5: the 8 ----------------------------------------------------------------------------------------


def test_P_5_eight_on_an_empty_table():
    state = position([FILLER, ["8D", "5C", "5D"], FILLER, FILLER], 1)
    out = play(state, "8D")
    assert events(out, "cleared") == [{"why": "eight", "leader": 1}]
    assert state.to_act() == 1 and state.table == [] and "8D" in state.discards
    assert not can_pass(state)


def test_P_5_eight_on_a_pair_any_rank_and_count():
    state = position([FILLER, ["8D", "5C"], FILLER, FILLER], 1, [(0, ["2C", "2H"])])
    assert legal_plays(state) == [["8D"]]
    out = play(state, "8D")
    assert events(out, "cleared") == [{"why": "eight", "leader": 1}]
    assert state.to_act() == 1 and state.top_rank is None
    assert {"2C", "2H", "8D"} <= set(state.discards)


def test_P_5_eight_is_always_played_alone():
    state = position([FILLER, ["8C", "8D", "8S", "3H"], FILLER, FILLER], 1)
    assert legal_plays(state) == [["3H"], ["8C"], ["8D"], ["8S"]]
    state = position([FILLER, ["8C", "8D"], FILLER, FILLER], 1, [(0, ["9C", "9D"])])
    assert legal_plays(state) == [["8C"], ["8D"]]


def test_P_5_eight_as_a_last_card_next_active_seat_leads():
    state = position([FILLER, [], ["8H"], FILLER], 2, [(0, ["KS"])], places={1: 1}, reigning=1)
    out = play(state, "8H")
    assert events(out, "finished") == [{"seat": 2, "place": 2}]
    assert events(out, "cleared") == [{"why": "eight", "leader": 3}]
    assert state.to_act() == 3


# -- P-6: the 3 of clubs -------------------------------------------------------------------------------


def test_P_6_3C_on_a_single_2():
    state = position([FILLER, ["3C", "5D"], FILLER, FILLER], 1, [(0, ["2S"])])
    assert legal_plays(state) == [["3C"]]
    out = play(state, "3C")
    assert events(out, "cleared") == [{"why": "three_of_clubs", "leader": 1}]
    assert state.to_act() == 1 and state.table == []


def test_P_6_3C_on_a_pair_of_2s():
    state = position([FILLER, ["3C", "3D", "AS", "AH"], FILLER, FILLER], 1, [(0, ["2C", "2S"])])
    assert legal_plays(state) == [["3C"]]
    out = play(state, "3C")
    assert events(out, "cleared")[0]["why"] == "three_of_clubs" and state.to_act() == 1


def test_P_6_3C_on_a_joker():
    state = position([FILLER, ["3C", "2D"], FILLER, FILLER], 1, [(0, ["X1"])])
    assert legal_plays(state) == [["3C"]]
    play(state, "3C")
    assert state.to_act() == 1 and state.table == []


def test_P_6_3C_during_a_revolution():
    state = position([FILLER, ["3C", "5D"], FILLER, FILLER], 1, [(0, ["2S", "2D"])], revolution=True)
    assert legal_plays(state) == [["3C"]]
    # on a single 2 in a revolution 3C is also an ordinary 3: listed once, and it clears
    state = position([FILLER, ["3C", "5D"], FILLER, FILLER], 1, [(0, ["2S"])], revolution=True)
    assert legal_plays(state) == [["5D"], ["3C"]]
    out = play(state, "3C")
    assert events(out, "cleared")[0]["why"] == "three_of_clubs"


@pytest.mark.parametrize("top", [["AS"], ["KC", "KD"], ["4H"], ["3D"], ["9C", "9D", "9H"]])
def test_P_6_3C_clears_nothing_else(top):
    state = position([FILLER, ["3C", "7D"], FILLER, FILLER], 1, [(0, top)])
    cleared = [p for p in legal_plays(state) if p == ["3C"]]
    if top == ["3D"]:
        assert cleared == [["3C"]]  # an ordinary 3 on a 3 (equal rank)
        out = play(state, "3C")
        assert not events(out, "cleared") and state.top_rank == "3" and state.to_act() == 2
    else:
        assert cleared == []


def test_P_6_3C_on_an_ace_in_a_revolution_is_an_ordinary_3():
    # in a revolution a single 3 beats a single ace: 3C is legal there, but as an ordinary 3
    hands = [FILLER, ["3C", "5D"], ["3D"] + FILLER, FILLER]
    state = position(hands, 1, [(0, ["AS"])], revolution=True)
    assert legal_plays(state) == [["5D"], ["3C"]]
    out = play(state, "3C")
    assert not events(out, "cleared")
    assert state.table == [(0, ["AS"]), (1, ["3C"])] and state.top_rank == "3" and state.to_act() == 2
    assert state.revolution and legal_plays(state) == [["3D"]]  # only a 3 beats a 3 now


def test_P_6_3C_as_a_last_card_next_active_seat_leads():
    state = position([FILLER, ["3C"], FILLER, FILLER], 1, [(0, ["2S"])], reigning=1)
    out = play(state, "3C")
    assert events(out, "finished") == [{"seat": 1, "place": 1}]
    assert events(out, "cleared") == [{"why": "three_of_clubs", "leader": 2}]


def test_settled_3C_is_an_ordinary_3_in_a_set():
    state = position([FILLER, ["3C", "3D", "3H"], FILLER, FILLER], 1)
    assert ["3C", "3D"] in legal_plays(state) and ["3C", "3D", "3H"] in legal_plays(state)
    state = position([FILLER, ["3C", "3S", "QD"], FILLER, FILLER], 1, [(0, ["3D", "3H"])])
    assert legal_plays(state) == [["3C", "3S"]]
    out = play(state, "3C", "3S")
    assert events(out, "revolution") == [{"seat": 1, "on": True}]  # four 3s in a row (P-7)


# -- P-7: revolutions ------------------------------------------------------------------------------------


def test_P_7_revolution_by_one_play_of_four():
    state = position([["5C", "5D", "5H", "5S", "KD"], ["4C", "4D", "4H", "4S", "AS"], FILLER, FILLER], 0)
    out = play(state, "5C", "5D", "5H", "5S")
    assert events(out, "revolution") == [{"seat": 0, "on": True}]
    assert state.revolution
    assert legal_plays(state) == [["4C", "4D", "4H", "4S"]]  # 4 now beats 5


def test_P_7_revolution_by_consecutive_plays_passes_do_not_break_it():
    hands = [["5C", "5S"] + FILLER, ["QC"] + FILLER, ["5D", "6D", "4S"] + FILLER, ["5H"] + FILLER]
    state = position(hands, 0)
    play(state, "5C")
    pass_(state)  # seat 1
    play(state, "5D")  # seat 2
    play(state, "5H")  # seat 3
    out = play(state, "5S")  # seat 0: the fourth 5 in a row
    assert events(out, "revolution") == [{"seat": 0, "on": True}] and state.revolution
    assert state.to_act() == 2
    assert legal_plays(state) == [["4C"], ["4S"]]  # 6 and up no longer beat a 5; 8 not held


def test_P_7_another_rank_breaks_the_run():
    hands = [["5C"] + FILLER, ["5D"] + FILLER, ["6D"] + FILLER, ["6H", "5H", "5S"] + FILLER]
    state = position(hands, 0)
    play(state, "5C")
    play(state, "5D")
    play(state, "6D")
    assert state.run_rank == "6" and state.run_count == 1
    assert not state.revolution


def test_P_7_a_clear_starts_the_run_over():
    hands = [["5C", "5D"] + FILLER, ["8C"] + FILLER, ["5H"] + FILLER, ["5S"] + FILLER]
    state = position(hands, 0)
    play(state, "5C", "5D")
    play(state, "8C")
    play(state, "9C")  # seat 1 leads again
    assert state.run_count == 1 and state.run_rank == "9"


def test_P_7_an_all_passed_clearing_starts_the_run_over():
    hands = [["5C"] + FILLER, ["5D"] + FILLER, ["5H", "5S"] + FILLER, FILLER]
    state = position(hands, 0)
    play(state, "5C")
    play(state, "5D")
    play(state, "5H")
    pass_(state), pass_(state)
    out = pass_(state)  # seats 3, 0, 1: seat 2 leads a new trick
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 2}]
    out = play(state, "5S")  # the fourth 5, but in a new trick
    assert not events(out, "revolution") and not state.revolution and state.run_count == 1


def test_P_7_a_3C_clearing_starts_the_run_over():
    hands = [["2C"] + FILLER, ["2D"] + FILLER, ["2H"] + FILLER, ["3C", "2S"] + FILLER]
    state = position(hands, 0)
    play(state, "2C")
    play(state, "2D")
    play(state, "2H")
    out = play(state, "3C")
    assert events(out, "cleared") == [{"why": "three_of_clubs", "leader": 3}]
    out = play(state, "2S")
    assert not events(out, "revolution") and not state.revolution and state.run_count == 1


def test_P_7_second_revolution_restores_the_order():
    hands = [["5C", "5D", "5H", "5S", "KD"], ["4C", "4D", "4H", "4S", "AS"], ["JC", "JD", "JH", "JS", "QD"], FILLER]
    state = position(hands, 0)
    play(state, "5C", "5D", "5H", "5S")
    assert state.revolution
    out = play(state, "4C", "4D", "4H", "4S")
    assert events(out, "revolution") == [{"seat": 1, "on": False}] and not state.revolution
    assert legal_plays(state) == [["JC", "JD", "JH", "JS"]]  # normal order again: J beats 4


def test_P_7_revolution_lasts_for_the_round_only():
    hands = [["5C", "5D", "5H", "5S", "KD"], FILLER, FILLER, FILLER]
    state = position(hands, 0)
    play(state, "5C", "5D", "5H", "5S")
    pass_(state), pass_(state), pass_(state)
    assert state.revolution and state.to_act() == 0  # a new trick: still reversed
    state = position([["KD"], ["2C"] + FILLER, FILLER, FILLER], 0, revolution=True, reigning=0)
    state.hands = [["KD"], ["4C", "9D"], ["3D"], ["5D"]]
    play(state, "KD")  # seat 0 out first (the reigning President)
    play(state, "4C")  # a 4 beats a king in a revolution
    pass_(state), pass_(state)
    assert state.revolution and state.to_act() == 1
    play(state, "9D")  # seat 1 out second
    play(state, "3D")  # seat 2 out third, seat 3 is last: the round ends, the next is dealt
    assert state.deal == 2 and not state.revolution


# -- P-8: places, the President's fall ---------------------------------------------------------------------


def test_P_8_president_falls_in_round_1():
    hands = [["9C"], ["2S", "2H", "AS"], ["4C", "5C"], ["6C", "7C"]]
    state = position(hands, 0, reigning=1)
    out = play(state, "9C")
    assert events(out, "finished") == [{"seat": 0, "place": 1}]
    assert events(out, "fell") == [{"seat": 1, "place": 4}]
    assert state.blocked == 1 and state.places[1] == 4
    assert state.to_act() == 2  # the blocked President is skipped (P-4)
    pass_(state)
    out = pass_(state)  # seat 3
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 2}]  # seat 0 is out
    play(state, "4C")
    play(state, "6C")
    assert state.to_act() == 2  # seat 0 out, seat 1 blocked
    pass_(state)
    assert state.to_act() == 3
    out = play(state, "7C")  # seat 3 out second; seat 2 is the only one left: 3rd
    (end,) = records(out, "deal_end")
    assert end == {"type": "deal_end", "deal": 1, "scores": [3, 0, 1, 2], "places": [1, 4, 3, 2],
                   "roles": ["president", "slave", "citizen", "citizen"], "fallen": 1}
    (round_end,) = events(out, "round_end")
    assert round_end["fallen"] == 1 and round_end["places"] == [1, 4, 3, 2]
    assert events(out, "played")[0]["cards"] == ["7C"]  # the round-ending play is told in full
    # round 2 is dealt; the fallen President is its Slave: the exchange begins with the 2nd place
    assert state.deal == 2 and state.phase == "exchange" and state.to_act() == 3
    assert state.reigning == 0


def test_P_8_president_falls_in_a_later_round():
    hands = [FILLER, ["QS"], FILLER, ["2H", "2D"] + FILLER]
    state = position(hands, 1, [(0, ["JD"])], round=3, reigning=3)
    out = play(state, "QS")
    assert events(out, "fell") == [{"seat": 3, "place": 4}]
    assert state.blocked == 3 and not state.active[3]
    assert state.to_act() == 2  # seat 3 skipped, seat 0 played before and is still in


def test_P_8_president_falls_after_passing_in_the_current_trick():
    # the reigning President (seat 1) has passed in this trick; seat 2 goes out first: it falls anyway
    hands = [FILLER, ["2S", "2H"] + FILLER, ["QS"], FILLER]
    state = position(hands, 2, [(0, ["JD"])], passed=(1,), reigning=1)
    out = play(state, "QS")
    assert events(out, "finished") == [{"seat": 2, "place": 1}]
    assert events(out, "fell") == [{"seat": 1, "place": 4}]
    assert state.blocked == 1 and not state.active[1] and state.places[1] == 4
    assert state.to_act() == 3
    pass_(state)  # seat 3
    out = pass_(state)  # seat 0: the trick ends, seat 2 is out, seat 3 leads
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 3}]
    play(state, "4C")
    assert state.to_act() == 0  # the new trick does not bring the fallen President back
    play(state, "6C")
    assert state.to_act() == 3


def test_P_8_fall_on_a_first_out_by_an_8_the_next_active_seat_leads():
    # seat 2 goes out first with an 8: the reigning President (seat 3, to its left) falls at
    # once, so the new trick is led by the next active seat after it
    hands = [FILLER, FILLER, ["8H"], ["2H", "2D"] + FILLER]
    state = position(hands, 2, [(1, ["KS"])], round=2, reigning=3)
    out = play(state, "8H")
    assert events(out, "finished") == [{"seat": 2, "place": 1}]
    assert events(out, "fell") == [{"seat": 3, "place": 4}]
    assert events(out, "cleared") == [{"why": "eight", "leader": 0}]
    assert state.to_act() == 0 and state.n_active == 2


def test_P_8_round_ends_when_one_active_player_is_left_after_a_fall():
    hands = [["9C"], ["4C", "5C"], ["6C"], ["QC", "KC"]]
    state = position(hands, 2, reigning=3)
    play(state, "6C")  # seat 2 out first: seat 3 (the President) falls
    assert state.blocked == 3 and state.to_act() == 0
    out = play(state, "9C")  # seat 0 out second: seat 1 is the only active player left
    (end,) = records(out, "deal_end")
    assert end["places"] == [2, 3, 1, 4] and end["fallen"] == 3
    assert end["roles"] == ["citizen", "citizen", "president", "slave"]


def test_P_8_president_out_first_no_fall():
    hands = [FILLER, ["QS"], FILLER, FILLER]
    state = position(hands, 1, [(0, ["JD"])], reigning=1)
    out = play(state, "QS")
    assert events(out, "finished") == [{"seat": 1, "place": 1}] and not events(out, "fell")
    assert state.blocked is None and state.n_active == 3


def test_P_8_places_without_a_fall():
    hands = [["4D"], ["9D"], ["5D"], ["6D"]]
    state = position(hands, 1, reigning=1)
    play(state, "9D")  # seat 1, the reigning President, out first
    pass_(state), pass_(state)
    out = pass_(state)
    assert events(out, "cleared") == [{"why": "all_passed", "leader": 2}]
    play(state, "5D")  # seat 2 out second
    out = play(state, "6D")  # seat 3 out third; seat 0 is the Slave
    (end,) = records(out, "deal_end")
    assert end["places"] == [4, 1, 2, 3] and end["scores"] == [0, 3, 2, 1] and end["fallen"] is None


# -- P-9: the exchange -------------------------------------------------------------------------------------

# previous places: seat 1 President, seat 0 2nd (first to choose), seat 3 3rd, seat 2 Slave
PREVIOUS = [2, 1, 4, 3]
EXCHANGE_HANDS = [
    ["3S", "4H", "5H", "6H", "7H", "9H", "TH", "JH", "QH", "KH", "AH", "2H", "TD"],  # citizen (2nd)
    ["3C", "3D", "3H", "4C", "5C", "6C", "7C", "9C", "TC", "JC", "QC", "KC", "AC"],  # President
    ["8C", "8H", "2S", "2C", "AS", "KS", "QS", "JS", "TS", "9S", "7S", "6S", "5S"],  # Slave
    ["8D", "8S", "2D", "AD", "KD", "QD", "JD", "9D", "7D", "6D", "5D", "4D", "4S"],  # citizen (3rd)
]


def test_P_9_forced_gift_values_8s_and_3C_on_top():
    assert highest(EXCHANGE_HANDS[2], 3) == ["8H", "8C", "2S"]
    assert lowest(EXCHANGE_HANDS[1], 3) == ["3D", "3H", "4C"]  # 3C is worth more than a 2
    assert highest(["3C", "2S", "2C", "AS"], 3) == ["3C", "2S", "2C"]
    assert highest(["X1", "3C", "2S", "8D", "X2"], 3) == ["8D", "3C", "X2"]
    assert lowest(["8D", "3C", "X1", "2S"], 2) == ["2S", "X1"]


def test_P_9_citizens_choose_before_either_receives_then_all_four_gifts_at_once():
    state = PresidenteState.at_exchange(EXCHANGE_HANDS, PREVIOUS)
    out = state.drain()
    assert records(out, "deal")[0]["hands"] == [sorted_hand(h) for h in EXCHANGE_HANDS]
    assert state.phase == "exchange" and state.to_act() == 0
    assert [a["give"] for a in state.legal_actions()] == sorted_hand(EXCHANGE_HANDS[0])
    act(state, {"give": "3S"})
    assert {"give": "3S"} not in state.legal_actions()
    act(state, {"give": "4H"})
    assert state.observe(0)["exchange"] == {"with": 3, "gave": ["3S", "4H"], "got": [], "done": False}
    out = act(state, {"give": "TD"})
    assert out == [] and state.to_act() == 3  # nothing handed over yet
    assert state.hands == [sorted_hand(h) for h in EXCHANGE_HANDS]
    # the second citizen sees nothing of the first one's choice
    obs = json.dumps(state.observe(3))
    assert not any(card in obs for card in ("3S", "4H", "TD"))
    assert [a["give"] for a in state.legal_actions()] == sorted_hand(EXCHANGE_HANDS[3])
    act(state, {"give": "4D"})
    act(state, {"give": "8S"})
    out = act(state, {"give": "4S"})
    # all four gifts at once: Slave -> President its 3 highest, President -> Slave its 3 lowest
    gifts = {e.to[0]: e.data for e in out if isinstance(e, Event) and e.kind == "exchange"}
    assert gifts == {
        0: {"with": 3, "gave": ["3S", "4H", "TD"], "got": ["4D", "4S", "8S"]},
        1: {"with": 2, "gave": ["3D", "3H", "4C"], "got": ["2S", "8C", "8H"]},
        2: {"with": 1, "gave": ["2S", "8C", "8H"], "got": ["3D", "3H", "4C"]},
        3: {"with": 0, "gave": ["4D", "4S", "8S"], "got": ["3S", "4H", "TD"]},
    }
    assert "8H" in state.hands[1] and "3D" in state.hands[2] and "TD" in state.hands[3] and "8S" in state.hands[0]
    assert [len(h) for h in state.hands] == [13] * 4
    assert state.phase == "play" and state.to_act() == 1  # the President leads
    # a giver knows where its gifts are; nobody else does
    assert not {"2S", "8C", "8H"} & state.hidden_from(2)
    assert {"2S", "8C", "8H"} <= state.hidden_from(0)
    assert not {"4D", "4S", "8S"} & state.hidden_from(3)
    assert state.observe(2)["exchange"] == {"with": 1, "gave": ["2S", "8C", "8H"], "got": ["3D", "3H", "4C"],
                                             "done": True}


def test_P_9_gifts_come_from_the_hands_as_dealt():
    # the President's 3 lowest are picked before the Slave's gift arrives, even if it is lower
    hands = [list(h) for h in EXCHANGE_HANDS]
    hands[1], hands[2] = (
        ["5C", "6C", "7C", "9C", "TC", "JC", "QC", "KC", "AC", "2C", "4C", "4D", "6D"],
        ["3C", "3D", "3H", "3S", "8C", "8H", "2S", "AS", "KS", "QS", "JS", "TS", "9S"],
    )
    hands[0] = ["4H", "5H", "6H", "7H", "9H", "TH", "JH", "QH", "KH", "AH", "2H", "TD", "5S"]
    hands[3] = ["8D", "8S", "2D", "AD", "KD", "QD", "JD", "9D", "7D", "6S", "5D", "4S", "7S"]
    state = PresidenteState.at_exchange(hands, PREVIOUS)
    for card in ("4H", "5H", "6H", "4S", "5D", "6S"):
        act(state, {"give": card})
    assert state.gave[1] == ["4C", "4D", "5C"]  # not the 3s it just got
    assert state.gave[2] == ["3C", "8C", "8H"]
    assert "3C" in state.hands[1] and "4C" in state.hands[2]


# -- P-10: jokers ---------------------------------------------------------------------------------------------


def test_P_10_jokers_deal_15_to_the_dealer_then_to_the_slave():
    state = seeded_state(GAME, {"jokers": True, "rounds": 5}, 4, random.Random(5))
    (deal,) = records(state.drain(), "deal")
    assert [len(h) for h in deal["hands"]] == [15, 13, 13, 13]  # round 1: the dealer, seat 0
    assert Counter(c for h in deal["hands"] for c in h) == Counter(DECK_WITH_JOKERS)
    rng = random.Random(5)
    while state.deal == 1:
        legal = state.legal_actions()
        step(state, legal[rng.randrange(len(legal))])
    out = state.drain()
    (end,) = records(out, "deal_end")
    (deal,) = records(out, "deal")
    slave = end["places"].index(4)
    assert [len(h) for h in deal["hands"]] == [15 if s == slave else 13 for s in range(4)]
    while state.phase == "exchange":
        step(state, state.legal_actions()[0])
    assert [len(h) for h in state.hands] == [15 if s == slave else 13 for s in range(4)]


def test_P_10_extra_cards_go_to_the_slave_even_a_fallen_president():
    hands = [["9C"], ["2S", "2H", "AS"], ["4C", "5C"], ["6C", "7C"]]
    state = position(hands, 0, reigning=1, jokers=True)
    play(state, "9C")  # seat 0 out first: seat 1, the President, falls and is the Slave
    pass_(state)
    pass_(state)  # seats 2, 3
    play(state, "4C")  # seat 2 leads
    play(state, "6C")
    pass_(state)
    out = play(state, "7C")  # seat 3 out second: round 1 ends
    (end,) = records(out, "deal_end")
    (deal,) = records(out, "deal")
    assert end["places"][1] == 4 and deal["dealer"] == 1
    assert [len(h) for h in deal["hands"]] == [13, 15, 13, 13]
    assert Counter(c for h in deal["hands"] for c in h) == Counter(DECK_WITH_JOKERS)


def test_P_10_extra_cards_go_to_the_slave_not_the_dealer():
    # round 1 ends with seat 0 the Slave; round 2 is dealt by seat 1
    hands = [["4D"], ["9D"], ["5D"], ["6D"]]
    state = position(hands, 1, reigning=1, jokers=True)
    play(state, "9D")  # seat 1, the reigning President, out first
    pass_(state), pass_(state), pass_(state)
    play(state, "5D")  # seat 2 out second
    out = play(state, "6D")  # seat 3 out third; seat 0 is the Slave
    (end,) = records(out, "deal_end")
    (deal,) = records(out, "deal")
    assert end["places"] == [4, 1, 2, 3] and deal["dealer"] == 1
    assert [len(h) for h in deal["hands"]] == [15, 13, 13, 13]
    assert Counter(c for h in deal["hands"] for c in h) == Counter(DECK_WITH_JOKERS)


def test_P_10_joker_order_above_2s_a_rank_of_its_own():
    state = position([FILLER, ["X1", "X2", "2D", "AS"], FILLER, FILLER], 1, [(0, ["2S"])])
    assert legal_plays(state) == [["2D"], ["X1"], ["X2"]]
    state = position([FILLER, ["X1", "X2", "2D", "3C"], FILLER, FILLER], 1, [(0, ["X1"])], jokers=True)
    state.hands[1] = ["3C", "2D", "X2"]
    assert legal_plays(state) == [["X2"], ["3C"]]  # joker on joker (equal), 3C clears (P-6)
    state = position([FILLER, ["X1", "X2", "AS"], FILLER, FILLER], 1, [(0, ["2C", "2D"])])
    assert legal_plays(state) == [["X1", "X2"]]  # a pair of jokers; never a wildcard with the ace


def test_P_10_jokers_stay_on_top_in_a_revolution():
    state = position([FILLER, ["X1", "3D", "2D"], FILLER, FILLER], 1, [(0, ["4S"])], revolution=True)
    assert legal_plays(state) == [["3D"], ["X1"]]
    state = position([FILLER, ["X2", "3D", "2D"], FILLER, FILLER], 1, [(0, ["X1"])], revolution=True)
    assert legal_plays(state) == [["X2"]]


# -- observations, events, records, bookkeeping ---------------------------------------------------------------


def strings(message) -> set[str]:
    """Every string value inside a JSON-ready message."""
    if isinstance(message, str):
        return {message}
    if isinstance(message, dict):
        return set().union(*(strings(v) for v in message.values())) if message else set()
    if isinstance(message, list):
        return set().union(*(strings(v) for v in message)) if message else set()
    return set()


def sorted_hand(cards):
    from referee_presidente.cards import sort_hand

    return sort_hand(cards)


def test_observation_is_complete_fresh_and_json_ready():
    state = position([FILLER, ["5S", "KH"], FILLER, FILLER], 1, [(0, ["5H"])], passed=(3,))
    obs = state.observe(1)
    assert json.loads(json.dumps(obs)) == obs
    assert obs["hand"] == ["5S", "KH"] and obs["to_act"] == 1 and obs["seat"] == 1
    assert obs["table"] == [{"seat": 0, "cards": ["5H"]}] and obs["count"] == 1 and obs["last_player"] == 0
    assert obs["passed"] == [False, False, False, True] and obs["cards_left"] == [6, 2, 6, 6]
    assert obs["phase"] == "play" and obs["revolution"] is False and obs["round"] == 1
    assert obs["places"] == [None] * 4 and obs["points"] == [] and obs["president"] == 1
    obs["hand"].append("AS")
    obs["table"][0]["cards"].append("AS")
    assert state.hands[1] == ["5S", "KH"] and state.table == [(0, ["5H"])]


def test_events_say_what_happened():
    state = position([FILLER, ["5S", "KH"], FILLER, FILLER], 1, [(0, ["5H"])])
    assert events(play(state, "5S"), "played") == [{"seat": 1, "count": 1, "cards": ["5S"]}]
    assert events(pass_(state), "passed") == [{"seat": 2}]


def test_resolve_accepts_a_play_in_any_order():
    state = position([FILLER, ["5S", "5H", "KH"], FILLER, FILLER], 1)
    assert state.resolve({"play": ["5S", "5H"]}) == {"play": ["5H", "5S"]}
    assert state.resolve({"play": ["5S", "KH"]}) is None
    assert state.resolve({"give": "5S"}) is None


def test_resolve_a_pass_must_be_the_literal_true():
    # {"pass": 1} compares equal to {"pass": True} in Python, but 1 is not JSON true (PROTOCOL.md)
    state = position([FILLER, ["5S", "KH"], FILLER, FILLER], 1, [(0, ["5H"])])
    assert state.resolve({"pass": True}) == {"pass": True}
    for bad in ({"pass": 1}, {"pass": 1.0}, {"pass": "true"}, {"pass": True, "play": ["KH"]}):
        assert state.resolve(bad) is None, bad
        with pytest.raises(RulesError):
            step(state, bad)


@pytest.mark.parametrize("variant", [{}, {"jokers": True}])
def test_random_playouts_conserve_cards_and_always_offer_an_action(variant):
    deck = Counter(DECK_WITH_JOKERS if variant else DECK)
    for seed in range(60):
        state = seeded_state(GAME, {"jokers": False, "rounds": 5, **variant}, 4, random.Random(seed))
        rng = random.Random(seed)
        while (seat := state.to_act()) is not None:
            legal = state.legal_actions()
            obs = state.observe(seat)
            assert legal and obs["to_act"] == seat
            assert not strings(obs) & state.hidden_from(seat)
            action = legal[rng.randrange(len(legal))]
            # events told before a new round's deal record belong to the round just ended: what a
            # seat could not see then is what it could not see before this move, less the move's cards
            before = [state.hidden_from(s) - strings(action) for s in range(4)]
            step(state, action)
            assert Counter(c for z in state.zones().values() for c in z) == deck
            outputs = state.drain()
            new_deal = any(isinstance(o, Record) and o.data["type"] == "deal" for o in outputs)
            for output in outputs:  # nothing sent to a seat names a card it may not see
                if isinstance(output, Record) and output.data["type"] == "deal":
                    new_deal = False
                if isinstance(output, Event):
                    for to in audience(output.to, 4):
                        hidden = before[to] if new_deal else state.hidden_from(to)
                        assert not strings(output.message()) & hidden, output
        assert len(state.history) == 5 and sorted(state.outcome().scores) == [0, 1, 2, 3]


# -- the greedy strategy -----------------------------------------------------------------------------------------


def greedy_choice(state: PresidenteState) -> dict:
    seat = state.to_act()
    strategy = PresidenteGreedy("presidente", seat, {"jokers": False, "rounds": 5}, random.Random(0))
    legal = state.legal_actions()
    choice = strategy.choose(state.observe(seat), legal)
    return legal[choice] if isinstance(choice, int) else choice


def test_greedy_leads_its_lowest_set_and_saves_power_cards():
    state = position([["4C", "4D", "9H", "2S", "8D", "3C", "KD"], FILLER, FILLER, FILLER], 0)
    assert greedy_choice(state) == {"play": ["4C", "4D"]}


def test_greedy_follows_low_keeps_2s_and_8s_uses_3C_on_a_2():
    state = position([FILLER, ["6D", "9H", "2S", "8D", "KD", "QC"], FILLER, FILLER], 1, [(0, ["5H"])])
    assert greedy_choice(state) == {"play": ["6D"]}
    state = position([FILLER, ["3C", "9H", "KD", "QC", "JC", "5D"], FILLER, FILLER], 1, [(0, ["2H"])])
    assert greedy_choice(state) == {"play": ["3C"]}
    state = position([FILLER, ["4D", "2S", "8D", "KD", "QC", "JC"], FILLER, FILLER], 1, [(0, ["AH"])])
    assert greedy_choice(state) == {"pass": True}


def test_greedy_goes_out_and_chains_an_8():
    state = position([FILLER, ["8D", "5C", "5D"], FILLER, FILLER], 1, [(0, ["KH"])])
    assert greedy_choice(state) == {"play": ["8D"]}
    state = position([FILLER, ["AC", "AD"], FILLER, FILLER], 1, [(0, ["KH", "KS"])])
    assert greedy_choice(state) == {"play": ["AC", "AD"]}


def test_greedy_revolts_with_a_low_hand():
    state = position([["4C", "4D", "4H", "4S", "5C", "6D", "7H", "3D"], FILLER, FILLER, FILLER], 0)
    assert greedy_choice(state) == {"play": ["4C", "4D", "4H", "4S"]}


def test_greedy_gives_its_worst_cards_as_a_citizen():
    state = PresidenteState.at_exchange(EXCHANGE_HANDS, PREVIOUS)
    given = []
    while state.to_act() == 0:
        action = greedy_choice(state)
        given.append(action["give"])
        step(state, action)
    assert given == ["3S", "4H", "5H"]
