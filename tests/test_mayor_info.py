"""Mayor hidden information (M-9), seeded playouts and the greedy strategy.

The information test: two deals that differ only in which opponent holds the called Mayor
(that Mayor swapped with a card of the same suit from another non-candidate seat) are driven
with the same actions; every message sent to a third seat (the candidate, the remaining
opponent) must be identical until the called Mayor is played.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

import referee_mayor.state as mayor_state
from referee.config import resolve_config
from referee.game import Event
from referee.players import StrategyPlayer
from referee.runner import Limits, Seat, run_match
from referee.testing import random_playout, play, seeded_state
from referee_mayor.cards import DECK, SPECIALS, SUIT
from referee_mayor.game import Mayor
from referee_mayor.state import MayorState
from referee_strategies.basic import RandomLegal
from referee_strategies.mayor_greedy import MayorGreedy

GAME = Mayor()
MODES = ["basic", "advanced"]


def new_state(seed: int, mode: str) -> MayorState:
    return seeded_state(GAME, resolve_config(GAME, {"mode": mode, "deals": 1}, 4), 4, random.Random(seed))


# -- the information test ----------------------------------------------------------------------


def pick_swap(seed: int, mode: str):
    """(called suit, X holding its Mayor, Y, Y's card of that suit) for this seed's deal, or None."""
    state = new_state(seed, mode)
    c = state.candidate
    for suit in "RYBG":
        x = next(s for s in range(4) if suit + "M" in state.hands[s])
        if x == c:
            continue
        for y in range(4):
            if y in (c, x):
                continue
            same = [card for card in state.hands[y] if SUIT[card] == suit]
            if same:
                return suit, x, y, same[0]
    return None


def twin_states(seed: int, mode: str, monkeypatch):
    """Deal A as dealt, and deal B with the called Mayor swapped from X into Y's hand."""
    suit, x, y, card = pick_swap(seed, mode)
    mayor = suit + "M"
    a = new_state(seed, mode)
    real = mayor_state.deal_cards

    def swapped(rng, dealer):
        hands, reserve = real(rng, dealer)
        hands = [list(h) for h in hands]
        hands[x][hands[x].index(mayor)] = card
        hands[y][hands[y].index(card)] = mayor
        return hands, reserve

    monkeypatch.setattr(mayor_state, "deal_cards", swapped)
    b = new_state(seed, mode)
    monkeypatch.setattr(mayor_state, "deal_cards", real)
    return a, b, suit, x, y, card


def messages_to(state: MayorState, seats) -> dict[int, list]:
    out: dict[int, list] = {s: [] for s in seats}
    for o in state.drain():
        if isinstance(o, Event):
            for s in seats:
                if o.to is None or s in o.to:
                    out[s].append(o.message())
    return out


@pytest.mark.parametrize("mode", MODES)
def test_M_9_who_holds_the_called_mayor_is_invisible_to_third_seats_until_it_is_played(mode, monkeypatch):
    seeds = [s for s in range(60) if pick_swap(s, mode) is not None][:30]
    assert len(seeds) == 30
    totals = Counter()
    for seed in seeds:
        a, b, suit, x, y, card = twin_states(seed, mode, monkeypatch)
        mayor = suit + "M"
        third = [s for s in range(4) if s not in (x, y)]  # the candidate and the other opponent
        assert a.candidate in third and b.candidate == a.candidate
        rng = random.Random(seed)
        called = False
        for step in range(400):
            ma, mb = messages_to(a, third), messages_to(b, third)
            assert ma == mb, f"seed {seed} step {step}: events differ for a third seat"
            seat = a.to_act()
            assert seat == b.to_act() and a.phase == b.phase
            la, lb = a.legal_actions(), b.legal_actions()
            if seat in third:
                assert la == lb and a.observe(seat) == b.observe(seat), f"seed {seed} step {step}"
            if a.phase == "call":
                choice = {"call": suit}
                called = True
            else:
                # M-11 makes an advanced Casino's hit public, and whether it hits depends on the
                # teams by rule: there, name only cards in no hand (a sure miss in both deals)
                avoid = {mayor, card}
                if mode == "advanced":
                    avoid |= {h for hand in a.hands + b.hands for h in hand}
                common = [act for act in la if act in lb and act.get("play") not in (mayor, card)
                          and act.get("name") not in avoid]
                if not common:
                    break
                specials = [act for act in common if act.get("play") in SPECIALS]
                choice = rng.choice(specials if specials and rng.random() < 0.5 else common)
                if choice.get("play") in SPECIALS:
                    totals[choice["play"]] += 1
                totals["steps"] += 1
            play(a, choice)
            play(b, choice)
            assert not a.revealed and not b.revealed
        assert called and a.ally == x and b.ally == y
        # the two deals really are different underneath: the piles went to different teams
        assert a.team != b.team
    assert totals["steps"] > 30 * 20
    assert totals["THIEF"] and totals["CRANE"] and totals["CASINO"]


def test_M_9_observations_before_and_after_the_reveal():
    state = MayorState.position([["R1", "Y1"], ["R2", "Y2"], ["GM", "Y3"], ["R4", "Y4"]], 0, "G",
                                piles=(["B1"], []))
    for seat in range(4):
        obs = state.observe(seat)
        assert "piles" not in obs and "teams" not in obs and "team_cards" not in obs
        assert obs["revealed"] is False
        assert obs["ally"] == (2 if seat == 2 else None)
        assert obs["role"] == ("candidate", "opposition", "ally", "opposition")[seat]
    play(state, {"play": "R1"})
    play(state, {"play": "R2"})
    play(state, {"play": "GM"})  # no red, no Building: anything; the ally is revealed
    play(state, {"play": "R4"})
    out = [o for o in state.drain() if isinstance(o, Event)]
    assert [e.data for e in out if e.kind == "ally_revealed"] == [{"seat": 2, "candidate": 0, "alone": False}]
    trick = [e.data for e in out if e.kind == "trick"][0]
    assert trick["pile"] == "opposition" and trick["winner"] == 3
    for seat in range(4):
        obs = state.observe(seat)
        assert obs["ally"] == 2 and obs["alone"] is False and obs["teams"] == [0, 1, 0, 1]
        assert obs["piles"]["candidate"] == ["B1"] and obs["piles"]["opposition"][-4:] == ["R1", "R2", "GM", "R4"]
        assert obs["team_cards"] == [1, 77 - 4]


def test_M_9_a_trick_event_before_the_reveal_does_not_say_which_pile():
    state = MayorState.position([["R1", "Y1"], ["THIEF", "Y2"], ["R3", "GM"], ["R4", "Y4"]], 0, "G")
    for card in ("R1", "THIEF", "R3", "R4"):
        play(state, {"play": card})
    trick = [o.data for o in state.drain() if isinstance(o, Event) and o.kind == "trick"][0]
    assert set(trick) == {"trick", "leader", "winner", "cards", "seats"}


def test_M_3_hidden_from_the_reserve():
    state = new_state(3, "basic")
    reserve = set(state.reserve)
    for seat in range(4):
        assert reserve <= state.hidden_from(seat)  # nobody has seen it before the call
        assert "T19" not in state.hidden_from(seat)  # everyone knows the candidate holds it
    play(state, {"call": "R"})
    c = state.candidate
    assert not reserve & state.hidden_from(c)
    for seat in range(4):
        if seat != c:
            assert reserve <= state.hidden_from(seat)


# -- seeded playouts ---------------------------------------------------------------------------

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def without_casino_names(message):
    """The message less the values of "name" keys: a Casino's named card says nothing of where
    that card is (M-11a lists every code outside the player's hand)."""
    if isinstance(message, dict):
        return {k: without_casino_names(v) for k, v in message.items() if k != "name"}
    if isinstance(message, list):
        return [without_casino_names(v) for v in message]
    return message


def strings_in(message) -> set[str]:
    return set(_STRING.findall(json.dumps(without_casino_names(message))))


class Checker:
    """Runner monitor: cards conserved, legal lists non-empty, no hidden code sent to a seat.

    Events of a move that ends a deal come before the next deal's `deal` record; they are
    checked against what the seat could not see before the move (less the move's own card).
    """

    def __init__(self):
        self.deck = Counter(DECK)
        self.acts = 0
        self.before = None
        self.pending = []
        self.new_deal = False

    def sent(self, seat, message, state):
        if state is None:
            return
        if message["type"] == "act":
            self.acts += 1
            assert message["legal"] and state.to_act() == seat
            assert message["obs"]["seat"] == seat and message["obs"]["to_act"] == seat
            self.check(seat, message, state.hidden_from(seat))
        elif message["type"] == "event" and self.before is not None:
            self.pending.append((seat, message, self.new_deal))
        else:
            self.check(seat, message, state.hidden_from(seat))

    def record(self, record):
        if record["type"] == "deal":
            self.new_deal = True

    def applying(self, state, seat, action):
        shown = strings_in(action)
        self.before = [state.hidden_from(s) - shown for s in range(4)]
        self.pending = []
        self.new_deal = False

    def stepped(self, state):
        for seat, message, after_deal in self.pending:
            ended = self.new_deal and not after_deal
            self.check(seat, message, self.before[seat] if ended else state.hidden_from(seat))
        self.before = None
        assert Counter(c for zone in state.zones().values() for c in zone) == self.deck

    @staticmethod
    def check(seat, message, hidden):
        leaked = strings_in(message) & hidden
        assert not leaked, f"seat {seat} was sent hidden cards {sorted(leaked)} in {message}"


@pytest.mark.parametrize("mode", MODES)
def test_seeded_random_playouts_keep_every_invariant(mode):
    for seed in range(60):
        checker = Checker()
        result = random_playout(GAME, {"mode": mode, "deals": 2}, seed=seed, monitor=checker)
        assert checker.acts == result.decisions >= 2 * (1 + 6 + 72)
        assert sum(result.result["scores"]) == 0 and result.result["faults"] == [0] * 4


def test_observations_are_fresh():
    state = new_state(9, "basic")
    obs = state.observe(state.candidate)
    obs["hand"].clear()
    obs["scores"].append(9)
    assert state.hands[state.candidate] and len(state.observe(state.candidate)["scores"]) == 4


# -- the greedy strategy -----------------------------------------------------------------------


def greedy(seat: int, mode: str = "basic") -> MayorGreedy:
    return MayorGreedy("mayor", seat, {"mode": mode, "deals": 1}, random.Random(seat))


def choose(strategy, state):
    legal = state.legal_actions()
    choice = strategy.choose(state.observe(state.to_act()), legal)
    return legal[choice] if isinstance(choice, int) else choice


@pytest.mark.parametrize("mode", MODES)
def test_greedy_plays_whole_matches_without_faults(mode):
    config = resolve_config(GAME, {"mode": mode, "deals": 2}, 4)
    for seed in range(6):
        players = [StrategyPlayer(MayorGreedy("mayor", i, config, random.Random(seed))) for i in range(4)]
        seats = [Seat(f"g{i}", "strategy", "mayor-greedy") for i in range(4)]
        result = run_match(GAME, config, seed, seats, players, Limits())
        assert result.result["faults"] == [0] * 4


@pytest.mark.parametrize("mode", MODES)
def test_greedy_beats_random(mode):
    config = resolve_config(GAME, {"mode": mode, "deals": 4}, 4)
    points = 0.0
    for match in range(40):
        me = match % 4
        players = [StrategyPlayer(MayorGreedy("mayor", i, config, random.Random(match)) if i == me
                                  else RandomLegal("mayor", i, config, random.Random(f"{match}/{i}")))
                   for i in range(4)]
        seats = [Seat(f"p{i}", "strategy", "x") for i in range(4)]
        points += run_match(GAME, config, 1000 + match, seats, players, Limits()).result["scores"][me]
    assert points / 40 > 0.5


def test_greedy_calls_a_suit_it_does_not_hold():
    state = new_state(5, "basic")
    action = choose(greedy(state.candidate), state)
    assert action["call"] + "M" not in state.hands[state.candidate] or len(
        [c for c in state.hands[state.candidate] if c.startswith("T")]) >= 11


def test_greedy_discards_allowed_cards_and_keeps_buildings():
    state = new_state(5, "advanced")
    play(state, {"call": "R"})
    strategy = greedy(state.candidate, "advanced")
    while state.phase == "discard":
        action = choose(strategy, state)
        assert action in state.legal_actions() and not action["discard"].startswith("T")
        play(state, action)


def test_greedy_counters_a_thief():
    state = MayorState.position([["THIEF", "R1"], ["YP", "R2"], ["Y3", "R3"], ["R4", "Y4"]], 0, "G",
                                ally=2, revealed=True, piles=(["GM"], []))
    play(state, {"play": "THIEF"})
    assert state.phase == "counter"
    assert choose(greedy(1), state) == {"play": "YP"}


def test_greedy_names_the_known_top_card_with_its_casino():
    state = MayorState.position([["R1", "Y1"], ["CASINO", "Y2"], ["R3", "Y3"], ["R4", "Y4"]], 0, "G",
                                ally=2, revealed=True, piles=(["B5", "GM"], []))
    play(state, {"play": "R1"})
    assert choose(greedy(1), state) == {"play": "CASINO", "name": "GM"}


def test_greedy_steals_a_rich_trick_it_is_losing():
    state = MayorState.position([["RD", "Y1"], ["RM", "Y2"], ["R9", "GM"], ["THIEF", "B4"]], 0, "G",
                                mode="advanced")
    for card in ("RD", "RM", "R9"):
        play(state, {"play": card})
    # seat 3 is an opponent of the candidate; seat 1's RM wins, but seat 3 does not know seat 1's side
    assert choose(greedy(3, "advanced"), state) == {"play": "THIEF"}


@pytest.mark.parametrize("mode", MODES)
def test_M_9_a_lone_candidate_looks_like_one_with_an_ally_until_the_reveal(mode, monkeypatch):
    # deal A: the candidate calls a Mayor of its own (alone); deal B: that Mayor swapped into
    # opponent Y's hand (Y is the ally). The two other seats must see the same until it is played.
    runs = 0
    for seed in range(120):
        state = new_state(seed, mode)
        c = state.candidate
        suit = next((s for s in "RYBG" if s + "M" in state.hands[c]), None)
        if suit is None:
            continue
        mayor = suit + "M"
        pick = next(((y, card) for y in range(4) if y != c for card in state.hands[y] if SUIT[card] == suit), None)
        if pick is None:
            continue
        y, card = pick
        real = mayor_state.deal_cards

        def swapped(rng, dealer):
            hands, reserve = real(rng, dealer)
            hands = [list(h) for h in hands]
            hands[c][hands[c].index(mayor)] = card
            hands[y][hands[y].index(card)] = mayor
            return hands, reserve

        a = new_state(seed, mode)
        monkeypatch.setattr(mayor_state, "deal_cards", swapped)
        b = new_state(seed, mode)
        monkeypatch.setattr(mayor_state, "deal_cards", real)
        third = [s for s in range(4) if s not in (c, y)]
        rng = random.Random(seed)
        for step in range(400):
            assert messages_to(a, third) == messages_to(b, third), f"seed {seed} step {step}"
            seat = a.to_act()
            la, lb = a.legal_actions(), b.legal_actions()
            if seat in third:
                assert la == lb and a.observe(seat) == b.observe(seat), f"seed {seed} step {step}"
            if a.phase == "call":
                choice = {"call": suit}
            else:
                avoid = {mayor, card}
                if mode == "advanced":  # an advanced Casino's hit is public by rule (M-11)
                    avoid |= {h for hand in a.hands + b.hands for h in hand}
                common = [act for act in la if act in lb and act.get("play") not in (mayor, card)
                          and act.get("name") not in avoid]
                if not common:
                    break
                specials = [act for act in common if act.get("play") in SPECIALS]
                choice = rng.choice(specials if specials and rng.random() < 0.5 else common)
            play(a, choice)
            play(b, choice)
            assert not a.revealed and not b.revealed
        assert a.ally is None and b.ally == y and a.team != b.team
        runs += 1
        if runs == 15:
            break
    assert runs == 15
