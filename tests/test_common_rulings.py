"""The rulings common to all three games: C-1 (seats and "left"), C-3 (card codes) and C-4 (one
strength order), each checked in every game it applies to. C-2 is tests/test_chance.py and the
replay-bytes playouts; C-5 is tests/test_ranking.py."""

from __future__ import annotations

import random
import re

import pytest

from referee.testing import play, seeded_state

from referee.config import resolve_config
from referee.game import Event
from referee.plugins import load_registry
from referee_maumau import cards as mm_cards
from referee_maumau.state import MauMauState
from referee_mayor import cards as my_cards
from referee_mayor.state import MayorState
from referee_presidente import cards as pr_cards
from referee_presidente.state import PresidenteState

REGISTRY = load_registry()
FRENCH = re.compile(r"^[2-9TJQKA][CDHS]$")
MAYOR = re.compile(r"^(?:[RYBG](?:[1-9]|10|P|F|D|M)|T(?:[1-9]|1[0-9])|THIEF|CASINO|CRANE)$")


def playout_strings(game_name: str, players: int, seed: int, **config) -> set[str]:
    """Every string in every observation, legal action and event of a seeded random playout."""
    game = REGISTRY.games[game_name]
    state = seeded_state(game, resolve_config(game, config, players), players, random.Random(seed))
    rng = random.Random(seed)
    seen: set[str] = set()

    def collect(value) -> None:
        if isinstance(value, str):
            seen.add(value)
        elif isinstance(value, dict):
            for v in value.values():
                collect(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                collect(v)

    for out in state.drain():
        if type(out) is Event:
            collect(out.message())
    while (seat := state.to_act()) is not None:
        legal = state.legal_actions()
        collect(state.observe(seat))
        collect(legal)
        play(state, legal[rng.randrange(len(legal))])
        for out in state.drain():
            if type(out) is Event:
                collect(out.message())
    return seen


# -- C-1: seats 0..n-1; "left", "clockwise" and "next" are seat + 1 (mod n) ---------------------


def test_C_1_maumau_the_turn_passes_to_seat_plus_one_and_wraps_to_0():
    config = resolve_config(REGISTRY.games["maumau"], {}, 3)
    for turn, card in ((0, "5H"), (1, "9H"), (2, "KH")):
        hands = [["2S", "3S"], ["2C", "3C"], ["2D", "3D"]]
        hands[turn] = [card, "4S"]
        state = MauMauState.position(config, hands, ["6H"], ["QD", "TD", "4D"], turn)
        play(state, {"play": card})
        assert state.to_act() == (turn + 1) % 3


def test_C_1_presidente_the_turn_passes_to_seat_plus_one_and_wraps_to_0():
    for to_act in range(4):
        hands = [["4C", "5C"], ["4D", "5D"], ["4H", "5H"], ["4S", "5S"]]
        state = PresidenteState.from_position(hands, to_act)
        state.drain()
        play(state, state.resolve({"play": [hands[to_act][0]]}))
        assert state.to_act() == (to_act + 1) % 4


def test_C_1_mayor_a_trick_goes_round_from_the_leader_to_seat_plus_one():
    hands = [["R1", "R2"], ["R3", "R4"], ["R5", "R6"], ["R7", "R8"]]
    for leader in range(4):
        state = MayorState.position([list(h) for h in hands], 0, "G", leader=leader, ally=None)
        order = []
        for _ in range(4):
            seat = state.to_act()
            order.append(seat)
            play(state, next(a for a in state.legal_actions() if "play" in a))
        assert order == [(leader + k) % 4 for k in range(4)]


@pytest.mark.parametrize("seed", range(3))
def test_C_1_mayor_every_trick_of_a_playout_is_played_in_seat_order(seed):
    game = REGISTRY.games["mayor"]
    state = seeded_state(game, resolve_config(game, {}, 4), 4, random.Random(seed))
    rng = random.Random(seed)
    tricks = []
    while state.to_act() is not None:
        legal = state.legal_actions()
        play(state, legal[rng.randrange(len(legal))])
        tricks += [o.message() for o in state.drain() if type(o) is Event and o.kind == "trick"]
    assert tricks
    for trick in tricks:
        assert trick["seats"] == [(trick["leader"] + k) % 4 for k in range(4)], trick


# -- C-3: card codes -------------------------------------------------------------------------------


def test_C_3_french_decks_use_rank_then_suit_codes():
    standard = mm_cards.make_deck("standard", 1)
    assert len(standard) == 52 == len(set(standard)) and all(FRENCH.match(c) for c in standard)
    assert {"7S", "TD", "JH", "AC"} <= set(standard)
    skat = mm_cards.make_deck("skat32", 1)
    assert len(set(skat)) == 32 and {c[0] for c in skat} == set("789TJQKA")
    two = mm_cards.make_deck("standard", 2)  # 7+ players: the same code occurs twice
    assert len(two) == 104 and all(two.count(c) == 2 for c in standard)
    assert set(pr_cards.DECK) == set(standard)
    assert pr_cards.DECK_WITH_JOKERS == pr_cards.DECK + ("X1", "X2")


def test_C_3_mayor_has_78_codes():
    deck = my_cards.DECK
    assert len(deck) == 78 == len(set(deck)) and all(MAYOR.match(c) for c in deck)
    for suit in "RYBG":
        assert [c for c in deck if c[0] == suit] == [suit + r for r in
                                                     ("1 2 3 4 5 6 7 8 9 10 P F D M".split())]
    assert [c for c in deck if c.startswith("T") and c != "THIEF"] == [f"T{n}" for n in range(1, 20)]
    assert my_cards.TOWN_HALL == "T19" and set(my_cards.SPECIALS) == {"THIEF", "CASINO", "CRANE"}


@pytest.mark.parametrize("game,players,config,codes", [
    ("maumau", 3, {}, FRENCH),
    ("maumau", 7, {}, FRENCH),
    ("presidente", 4, {"jokers": True}, re.compile(r"^(?:[2-9TJQKA][CDHS]|X[12])$")),
    ("mayor", 4, {"mode": "advanced"}, MAYOR),
])
def test_C_3_every_card_on_the_wire_is_a_code(game, players, config, codes):
    # A string that looks like a card (2-6 characters, upper case and digits) must be a code.
    looks_like_a_card = re.compile(r"^[0-9A-Z]{2,6}$")
    for seed in range(2):
        strings = playout_strings(game, players, seed, **config)
        cardlike = {s for s in strings if looks_like_a_card.match(s)}
        assert cardlike, "no card seen at all"
        assert all(codes.match(s) for s in cardlike), sorted(s for s in cardlike if not codes.match(s))


# -- C-4: one strength order, weakest to strongest -------------------------------------------------


def test_C_4_mayor_votes_then_specials_suits_buildings_then_rank_then_suit():
    order = sorted(my_cards.DECK, key=my_cards.STRENGTH.__getitem__)
    ones = [c for c in order if my_cards.VOTES[c] == 1]
    assert order[:len(ones)] == ones  # fewer votes are weaker
    assert ones[:3] == ["THIEF", "CASINO", "CRANE"]  # Specials below every other 1-vote card
    suit_ones = [c for c in ones[3:] if not c.startswith("T")]
    assert ones[3:3 + len(suit_ones)] == suit_ones  # then suit cards below Buildings
    assert suit_ones[:4] == ["R1", "Y1", "B1", "G1"]  # by rank, then suit R < Y < B < G
    assert ones[-1] == "T19"
    assert order[-4:] == ["RM", "YM", "BM", "GM"]
    assert my_cards.strongest(["T19", "R10", "YP"]) == "YP"  # 2 votes beat 1
    assert my_cards.weakest(["T1", "G10", "CRANE"]) == "CRANE"
    assert my_cards.strongest(["GD", "RD"]) == "GD" and my_cards.weakest(["GD", "RD"]) == "RD"


def test_C_4_french_deck_rank_then_suit_c_d_h_s():
    order = sorted(mm_cards.make_deck("standard", 1), key=mm_cards.ORDER.__getitem__)
    assert order[:5] == ["2C", "2D", "2H", "2S", "3C"] and order[-1] == "AS"
    # Presidente's picks (P-9's forced gifts) break ties on equal value by suit, C < D < H < S
    hand = ["KS", "KC", "KH", "4D", "4S", "4C"]
    assert pr_cards.highest(hand, 2) == ["KS", "KH"]
    assert pr_cards.lowest(hand, 2) == ["4C", "4D"]
    assert pr_cards.highest(["X1", "X2", "2S"], 1) == ["X2"]  # X1 < X2
