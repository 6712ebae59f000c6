"""Mayor scenario tests, one or more per ruling (M-1..M-15), on constructed positions.

`MayorState.position` builds a deal at the start of a trick (hands, piles, discards as given;
every other card at the bottom of a pile), then the tests apply actions through the rules.
Information tests (M-9) and seeded playouts live in test_mayor_info.py.
"""

from __future__ import annotations

import random

import pytest

from referee.testing import seeded_state
from referee.testing import play as step

from referee.chance import Streams
from referee.config import resolve_config
from referee.errors import ConfigError, RulesError
from referee.game import EVERYONE, Event, Record
from referee_mayor.cards import DECK, NOT_IN_RESERVE, SPECIALS, STRENGTH, VOTES, strongest, weakest
from referee.chance import Sampler
from referee_mayor.deal import DEAL_SHUFFLE, deal_cards as deal_from_deck
from referee_mayor.game import Mayor
from referee_mayor.scoring import deal_points, score_deal, threshold
from referee_mayor.state import MayorState

GAME = Mayor()


# -- helpers -----------------------------------------------------------------------------------


def pos(hands, candidate=0, called="G", mode="basic", **kw) -> MayorState:
    return MayorState.position(hands, candidate, called, mode, **kw)


def play(state: MayorState, *cards) -> None:
    """Each card (or action dict) is played by the seat to act, in turn (a bare CASINO names R10)."""
    for card in cards:
        if isinstance(card, dict):
            step(state, card)
        else:
            step(state, {"play": card, "name": "R10"} if card == "CASINO" else {"play": card})


def strings(obj) -> set[str]:
    """Every string inside a JSON-ready value."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set(obj).union(*(strings(v) for v in obj.values())) if obj else set()
    if isinstance(obj, (list, tuple)):
        return set().union(*(strings(v) for v in obj)) if obj else set()
    return set()


def cards(state: MayorState) -> list[str]:
    """The distinct cards the seat to act may play (a Casino counted once)."""
    out = []
    for a in state.legal_actions():
        c = a.get("play")
        if c is not None and c not in out:
            out.append(c)
    return sorted(out)


def events(state: MayorState, kind: str | None = None, seat: int | None = None) -> list[Event]:
    """Drained events (optionally of one kind, and those a seat sees)."""
    out = [o for o in state.drain() if isinstance(o, Event)]
    if kind is not None:
        out = [e for e in out if e.kind == kind]
    if seat is not None:
        out = [e for e in out if e.to is None or seat in e.to]
    return out


def top(pile: list[str], n: int) -> list[str]:
    return pile[len(pile) - n:]


def new_match(seed=1, **config):
    resolved = resolve_config(GAME, config, 4)
    return seeded_state(GAME, resolved, 4, random.Random(seed))


# -- options, config ---------------------------------------------------------------------------


def test_options_and_config():
    assert [o.name for o in GAME.options] == ["mode", "deals"]
    assert resolve_config(GAME, {}, 4) == {"mode": "basic", "deals": 4}
    assert GAME.variants() == [{"mode": "basic"}, {"mode": "advanced"}]
    with pytest.raises(ConfigError):
        resolve_config(GAME, {}, 3)
    with pytest.raises(ConfigError):
        resolve_config(GAME, {"mode": "expert"}, 4)
    with pytest.raises(ConfigError):
        resolve_config(GAME, {"deals": 0}, 4)
    assert "Town Hall" in GAME.summary


def test_C_4_strength_order():
    # votes first; Specials < suit cards < Buildings; rank; suit R < Y < B < G
    order = sorted(["GM", "RM", "YD", "T19", "T1", "R1", "G1", "R10", "CRANE", "THIEF", "CASINO", "BP"],
                   key=STRENGTH.__getitem__)
    assert order == ["THIEF", "CASINO", "CRANE", "R1", "G1", "R10", "T1", "T19", "BP", "YD", "RM", "GM"]
    assert strongest(["RD", "YD"]) == "YD" and weakest(["T2", "R3", "Y1"]) == "Y1"
    assert sum(VOTES.values()) == 118


# -- M-1 the deal ------------------------------------------------------------------------------


class _OneStream:
    """Streams whose every deal draws from one PRNG (to sample many deals from one seed)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def deal(self, n: int) -> random.Random:
        return self.rng


def shuffle_until_fit(rng: random.Random) -> list[str]:
    """The deck of a deal drawn from `rng` as the runner draws it: shuffled again until the reserve fits (M-1)."""
    return Sampler(_OneStream(rng)).sample(DEAL_SHUFFLE, 1)


def deal_cards(rng: random.Random, dealer: int) -> tuple[list[list[str]], list[str]]:
    return deal_from_deck(shuffle_until_fit(rng), dealer)


def test_M_1_reserve_never_holds_a_forbidden_card_over_10000_deals():
    rng = random.Random(2024)
    for k in range(10_000):
        hands, reserve = deal_cards(rng, k % 4)
        assert len(reserve) == 6 and NOT_IN_RESERVE.isdisjoint(reserve)
        assert [len(h) for h in hands] == [18, 18, 18, 18]
    assert sorted(reserve + [c for h in hands for c in h]) == sorted(DECK)


def test_M_1_packets_of_three_from_the_dealers_left_and_reshuffles_with_the_same_prng():
    # find a seed whose first shuffle puts a forbidden card in the reserve
    seed = next(s for s in range(1000) if not NOT_IN_RESERVE.isdisjoint(_one_shuffle(s)[-6:]))
    rng = random.Random(seed)
    hands, reserve = deal_cards(rng, dealer=2)
    probe = random.Random(seed)
    deck = list(DECK)
    probe.shuffle(deck)
    assert not NOT_IN_RESERVE.isdisjoint(deck[-6:])  # rejected: shuffled again
    deck = shuffle_until_fit(random.Random(seed))
    assert reserve == deck[72:]
    assert hands[3][:3] == deck[0:3] and hands[0][:3] == deck[3:6]  # seat dealer+1 first
    assert hands[1][:3] == deck[6:9] and hands[2][:3] == deck[9:12]
    assert hands[3][3:6] == deck[12:15]


def _one_shuffle(seed):
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return deck


def test_M_1_deal_record_and_events():
    state = new_match(seed=5)
    out = state.drain()
    record = out[0]
    assert isinstance(record, Record) and record.data["type"] == "deal"
    assert record.data["deal"] == 1 and record.data["dealer"] == 0
    assert len(record.data["reserve"]) == 6 and [len(h) for h in record.data["hands"]] == [18] * 4
    deals = [e for e in out if isinstance(e, Event)]
    assert [e.to for e in deals] == [(0,), (1,), (2,), (3,)]
    for e in deals:
        assert sorted(e.data["hand"]) == sorted(record.data["hands"][e.to[0]])


# -- M-2 / M-3 call, reserve, discards ---------------------------------------------------------


def test_M_2_candidate_is_the_town_hall_holder_and_calls_any_suit():
    state = new_match(seed=7)
    state.drain()
    c = state.candidate
    assert "T19" in state.hands[c] and state.to_act() == c and state.phase == "call"
    assert state.legal_actions() == [{"call": s} for s in "RYBG"]
    obs = state.observe(c)
    assert obs["role"] == "candidate" and "reserve" not in obs  # the reserve comes after the call
    called = "B"
    holder = next(s for s in range(4) if "BM" in state.hands[s])
    step(state, {"call": called})
    out = events(state)
    assert [e.data for e in out if e.kind == "called"] == [{"seat": c, "suit": "B"}]
    roles = [e for e in out if e.kind == "role"]
    if holder == c:
        assert state.ally is None and not roles
    else:
        assert state.ally == holder and [e.to for e in roles] == [(holder,)]
        assert state.observe(holder)["role"] == "ally" and state.observe(holder)["ally"] == holder
    others = [s for s in range(4) if s not in (c, holder)]
    for s in others:
        obs = state.observe(s)
        assert obs["role"] == "opposition" and obs["ally"] is None and obs["alone"] is None


def test_M_2_calling_ones_own_mayor_means_alone():
    for seed in range(100):
        state = new_match(seed=seed)
        c = state.candidate
        own = next((s for s in "RYBG" if s + "M" in state.hands[c]), None)
        if own is not None:
            break
    state.drain()
    step(state, {"call": own})
    assert state.ally is None and state.team == [0 if s == c else 1 for s in range(4)]
    assert not events(state, "role")
    obs = state.observe(c)
    assert obs["alone"] is True and obs["ally"] is None
    assert state.observe((c + 1) % 4)["alone"] is None  # nobody else knows yet


def test_M_3_reserve_seen_by_the_candidate_only_and_six_allowed_discards():
    state = new_match(seed=11)
    record = state.drain()[0].data
    c = state.candidate
    step(state, {"call": "R"})
    out = events(state)
    reserve_events = [e for e in out if e.kind == "reserve"]
    assert [e.to for e in reserve_events] == [(c,)] and reserve_events[0].data["cards"] == record["reserve"]
    taken = [e for e in out if e.kind == "reserve_taken"]
    assert taken[0].to == tuple(s for s in range(4) if s != c) and "cards" not in taken[0].data
    assert len(state.hands[c]) == 24 and state.phase == "discard"
    for k in range(6):
        legal = state.legal_actions()
        assert legal and all(a["discard"] not in NOT_IN_RESERVE for a in legal)
        assert {a["discard"] for a in legal} == {x for x in state.hands[c] if x not in NOT_IN_RESERVE}
        with pytest.raises(RulesError):
            forbidden = next((x for x in state.hands[c] if x in NOT_IN_RESERVE), None)
            step(state, {"discard": forbidden})
        step(state, legal[-1])
        seen = events(state, "discarded")
        assert [e.data.get("card") for e in seen if e.to == (c,)] == [legal[-1]["discard"]]
        assert all("card" not in e.data for e in seen if e.to != (c,))
    assert len(state.hands[c]) == 18 and len(state.discards) == 6
    assert state.phase == "play" and state.to_act() == c  # M-4: the candidate leads
    assert state.observe(c)["discards"] == state.discards
    assert "discards" not in state.observe((c + 1) % 4)
    for s in range(4):
        assert (set(state.discards) <= state.hidden_from(s)) == (s != c)


def test_M_3_discards_count_for_the_candidates_team_and_never_enter_a_pile():
    discards = ["R1", "R2", "R3", "R4", "R5", "R6"]
    state = pos([["T19"], ["Y1"], ["GM"], ["Y2"]], discards=discards)
    play(state, "T19", "Y1", "GM", "Y2")
    assert not set(discards) & set(state.piles[0] + state.piles[1])
    end = [o.data for o in state.drain() if isinstance(o, Record)][0]
    assert end["count"] == 4 + 6  # the last trick plus the discards


# -- M-4 deals ---------------------------------------------------------------------------------


def test_M_4_the_deal_passes_left_and_each_deal_is_shuffled_from_its_own_stream():
    state = new_match(seed=21, deals=3)
    records = [o.data for o in state.drain() if isinstance(o, Record)]
    while state.to_act() is not None:
        step(state, state.legal_actions()[0])
        records += [o.data for o in state.drain() if isinstance(o, Record)]
    deals = [r for r in records if r["type"] == "deal"]
    assert [d["dealer"] for d in deals] == [0, 1, 2]
    streams = Streams(random.Random(21))  # C-2: deal n from the match's stream for deal n
    for d in deals:
        hands, reserve = deal_cards(streams.deal(d["deal"]), d["dealer"])
        assert d["hands"] == hands and d["reserve"] == reserve
    assert [r["deal"] for r in records if r["type"] == "deal_end"] == [1, 2, 3]


# -- M-5 / M-6 / M-7 tricks --------------------------------------------------------------------


def test_M_5_a_special_led_then_the_suit_is_set_by_the_next_card():
    state = pos([["THIEF", "T2"], ["R3", "Y4"], ["R9", "Y5"], ["GM", "R1"]])
    assert cards(state) == ["T2", "THIEF"]
    play(state, "THIEF")
    assert state.led is None and cards(state) == ["R3", "Y4"]  # anything after a lone Special
    play(state, "Y4")
    assert state.led == "Y" and cards(state) == ["Y5"]
    play(state, "Y5")
    assert cards(state) == ["GM", "R1"]  # no yellow, no Building: anything


def test_M_5_a_special_may_be_played_at_any_moment():
    state = pos([["R5", "R1"], ["R3", "CRANE"], ["T4", "CASINO"], ["GM", "THIEF"]])
    play(state, "R5")
    assert cards(state) == ["CRANE", "R3"]  # holding the suit led
    play(state, "CRANE")
    assert cards(state) == ["CASINO", "T4"]  # having to trump
    play(state, "T4")
    assert cards(state) == ["GM", "THIEF"]


def test_M_5_a_building_led_makes_buildings_the_suit_led():
    state = pos([["T8", "R1"], ["T5", "T10", "R2"], ["GM", "T3", "Y4"], ["R4", "Y5"]])
    play(state, "T8")
    assert state.led == "T" and cards(state) == ["T10"]  # overtrump when one can


def test_M_6_follow_suit():
    state = pos([["R5"], ["R3", "Y4", "T6", "THIEF"], ["GM"], ["R1"]])
    play(state, "R5")
    assert cards(state) == ["R3", "THIEF"]


def test_M_6_trump_when_void():
    state = pos([["R5"], ["Y4", "T6", "T2", "CRANE", "G1"], ["GM"], ["R1"]])
    play(state, "R5")
    assert cards(state) == ["CRANE", "T2", "T6"]


def test_M_6_overtrump_when_a_building_is_in_the_trick():
    state = pos([["R5"], ["T8"], ["T5", "T10", "Y1", "GM"], ["R1"]])
    play(state, "R5", "T8")
    assert cards(state) == ["T10"]


def test_M_6_must_still_trump_when_unable_to_overtrump():
    state = pos([["R5"], ["T8"], ["T3", "T5", "Y1", "GM"], ["R1"]])
    play(state, "R5", "T8")
    assert cards(state) == ["T3", "T5"]


def test_M_6_following_the_suit_needs_no_overtrump():
    state = pos([["R5"], ["T8"], ["R7", "T3", "T12", "GM"], ["R1"]])
    play(state, "R5", "T8")
    assert cards(state) == ["R7"]


@pytest.mark.parametrize(
    "hand, legal",
    [
        (["T5", "T10", "R2"], ["T10"]),  # beat the highest Building
        (["T3", "T5", "R2"], ["T3", "T5"]),  # cannot beat it: any Building
        (["R2", "Y2", "CASINO"], ["CASINO", "R2", "Y2"]),  # no Building: anything
        (["T3", "T12", "THIEF"], ["T12", "THIEF"]),
    ],
)
def test_M_6_with_buildings_led(hand, legal):
    state = pos([["T4"], ["T8"], hand, ["GM"]])
    play(state, "T4", "T8")
    assert cards(state) == legal


def test_M_6_illegal_plays_are_refused():
    state = pos([["R5"], ["R3", "Y4"], ["GM"], ["R1"]])
    play(state, "R5")
    assert state.resolve({"play": "Y4"}) is None
    assert state.resolve({"play": "R3"}) == {"play": "R3"}
    assert state.resolve({"play": "R3", "extra": 1}) is None
    with pytest.raises(RulesError):
        step(state, {"play": "Y4"})


@pytest.mark.parametrize(
    "trick, winner",
    [
        (["R5", "R9", "RP", "R1"], 2),  # P beats 10 and below
        (["RF", "RD", "RM", "RP"], 2),  # 1 < ... < 10 < P < F < D < M
        (["R5", "YM", "R6", "GD"], 2),  # off-suit never wins
        (["R5", "T2", "RM", "T1"], 1),  # the highest Building
        (["T7", "T3", "T9", "R1"], 2),
        (["R2", "THIEF", "R3", "CASINO"], 2),  # Specials never win
    ],
)
def test_M_7_winner(trick, winner):
    hands = [[c] for c in trick]
    called = next(s for s in "RYBG" if s + "M" not in trick)
    state = pos(hands, called=called, ally=None, revealed=True, leader=0)
    play(state, *trick)
    tricks = events(state, "trick")
    assert tricks[0].data["winner"] == winner


def test_M_7_the_winner_leads_the_next_trick():
    state = pos([["R5", "Y1"], ["RD", "Y2"], ["R1", "GM"], ["R2", "Y3"]])
    play(state, "R5", "RD", "R1", "R2")
    assert state.to_act() == 1 and state.leader == 1 and state.trick_no == 2


# -- M-8 piles ---------------------------------------------------------------------------------


def test_M_8_a_won_trick_goes_on_the_winners_team_pile_in_play_order_specials_on_top_of_the_other():
    # seat 0 candidate, seat 2 ally (holds GM); seat 1 and 3 opposition
    state = pos([["R5", "Y1"], ["CRANE", "Y2"], ["RD", "GM"], ["R2", "CASINO"]], piles=([], []))
    before = list(state.piles[1])
    play(state, "R5", "CRANE", "RD", {"play": "CASINO", "name": "Y9"})
    # the trick goes to the candidate team (seat 2 wins); CRANE and CASINO were played by the
    # opposition, so both land on the candidate's pile too, after the trick's other cards
    assert state.piles[0] == ["R5", "RD", "CRANE", "CASINO"]
    assert state.piles[1] == before


def test_M_8_specials_land_on_the_opposing_teams_pile():
    # the candidate team (seats 0, 2) plays a missed Casino and a stopped Thief; seat 1 wins
    state = pos([["CASINO", "Y1"], ["RD", "Y2"], ["THIEF", "GM"], ["RP", "Y3"]], piles=(["B1"], []))
    opp = list(state.piles[1])
    play(state, {"play": "CASINO", "name": "B2"}, "RD", "THIEF", "RP")
    assert state.piles[0] == ["B1"]
    assert state.piles[1] == opp + ["RD", "RP", "CASINO", "THIEF"]
    assert state.to_act() == 1


def test_M_8_a_crane_played_by_the_winning_team_still_goes_to_the_other_team():
    state = pos([["R5", "Y1"], ["CRANE", "Y2"], ["RD", "GM"], ["R2", "Y3"]], piles=(["B1", "B2", "B3"], []))
    opp = list(state.piles[1])
    play(state, "R5", "CRANE", "RD", "R2")  # seat 1's Crane takes B2, B3; seat 2 wins the trick
    assert state.piles[1] == opp + ["B2", "B3"]
    assert state.piles[0] == ["B1", "R5", "RD", "R2", "CRANE"]


def test_M_8_specials_of_a_stopped_thief_trick_go_to_the_opposing_team():
    state = pos([["R5", "CRANE"], ["RD", "Y2"], ["THIEF", "GM"], ["RP", "R2"]], piles=([], []))
    before = list(state.piles[1])
    play(state, "CRANE", "RD", "THIEF", "RP")  # seat 3's Policeman stops the Thief
    assert state.piles[0] == top(before, 2)
    assert state.piles[1] == before[:-2] + ["RD", "RP", "CRANE", "THIEF"]


# -- M-10 / M-12 the Thief ---------------------------------------------------------------------

# seats: 0 candidate, 2 ally (GM in hand), 1 and 3 opposition; not revealed (no counter offers)


def test_M_10_basic_thief_takes_the_whole_trick_winner_still_leads():
    state = pos([["R5", "Y1"], ["RD", "Y2"], ["THIEF", "GM"], ["R9", "Y3"]], piles=([], []))
    opp = list(state.piles[1])
    play(state, "R5", "RD", "THIEF", "R9")
    assert state.piles[0] == ["R5", "RD", "THIEF", "R9"] and state.piles[1] == opp
    assert state.to_act() == 1  # RD won the trick and leads


def test_M_10_basic_thief_takes_other_specials_too():
    state = pos([["R5", "Y1"], ["CASINO", "Y2"], ["THIEF", "GM"], ["R9", "Y3"]], piles=([], []))
    play(state, "R5", {"play": "CASINO", "name": "RM"}, "THIEF", "R9")
    assert state.piles[0][-4:] == ["R5", "CASINO", "THIEF", "R9"]


@pytest.mark.parametrize("mode,pile", [("basic", "candidate"), ("advanced", "opposition")])
def test_M_10_M_11_the_trick_event_names_the_pile_that_got_the_trick(mode, pile):
    # After the reveal: the candidate's Thief succeeds and the opposition's R9 wins the trick. In
    # basic the whole trick goes to the Thief's pile (M-10); in advanced the winner's pile gets it,
    # less the card the Thief diverts (M-11).
    state = pos([["THIEF", "R1"], ["R5", "Y1"], ["R6", "Y2"], ["R9", "Y3"]], mode=mode, ally=2, revealed=True,
                piles=(["GM"], []))
    play(state, "THIEF", "R5", "R6", "R9")
    (trick,) = [e.data for e in events(state, "trick")]
    assert trick["winner"] == 3 and trick["thief"]["success"] is True
    assert trick["pile"] == pile
    if mode == "basic":
        assert state.piles[0] == ["GM", "THIEF", "R5", "R6", "R9"]
    else:  # R9 diverted (the most votes, ties by C-4), the Thief stays home
        assert state.piles[0] == ["GM", "R9", "THIEF"] and state.piles[1][-2:] == ["R5", "R6"]


@pytest.mark.parametrize("mode", ["basic", "advanced"])
def test_M_12_policeman_before_the_thief_stops_it(mode):
    state = pos([["R5", "Y1"], ["RP", "Y2"], ["THIEF", "GM"], ["R9", "Y3"]], mode=mode, piles=([], []))
    opp = list(state.piles[1])
    play(state, "R5", "RP", "THIEF", "R9")
    assert state.piles[0] == []
    assert state.piles[1] == opp + ["R5", "RP", "R9", "THIEF"]  # normal trick; Thief to the opponents


@pytest.mark.parametrize("mode", ["basic", "advanced"])
def test_M_12_policeman_after_the_thief_stops_it(mode):
    state = pos([["R5", "Y1"], ["R9", "Y2"], ["THIEF", "GM"], ["RP", "Y3"]], mode=mode, piles=([], []))
    opp = list(state.piles[1])
    play(state, "R5", "R9", "THIEF", "RP")
    assert state.piles[0] == [] and state.piles[1] == opp + ["R5", "R9", "RP", "THIEF"]


@pytest.mark.parametrize("mode", ["basic", "advanced"])
def test_M_12_prison_stops_the_thief(mode):
    state = pos([["R5", "Y1"], ["R9", "Y2"], ["THIEF", "GM"], ["T1", "Y3"]], mode=mode, piles=([], []))
    opp = list(state.piles[1])
    play(state, "R5", "R9", "THIEF", "T1")  # seat 3 trumps with the Prison and wins too
    assert state.piles[0] == [] and state.piles[1] == opp + ["R5", "R9", "T1", "THIEF"]


@pytest.mark.parametrize("mode", ["basic", "advanced"])
def test_M_12_a_teammates_policeman_stops_the_thief_too(mode):
    state = pos([["R5", "Y1"], ["THIEF", "Y2"], ["R9", "GM"], ["RP", "Y3"]], mode=mode, piles=([], []))
    opp = list(state.piles[1])
    play(state, "R5", "THIEF", "R9", "RP")  # seat 3 (opposition, like the Thief) wins with RP
    assert state.piles[1] == opp + ["R5", "R9", "RP"] and state.piles[0] == ["THIEF"]


# revealed positions: the ally's Mayor is already in the candidate's pile


def revealed(hands, mode="basic", **kw):
    return pos(hands, mode=mode, ally=2, revealed=True, piles=(["GM"], []), **kw)


@pytest.mark.parametrize("mode", ["basic", "advanced"])
def test_M_12_counter_by_a_policeman_out_of_turn_and_out_of_suit(mode):
    # seat 0 (candidate) leads the Thief; opponents 1 (YP) and 3 (BP) still to play
    state = revealed([["THIEF", "R1"], ["YP", "R2"], ["Y3", "R3"], ["BP", "R4"]], mode=mode)
    opp = list(state.piles[1])
    play(state, "THIEF")
    state.drain()
    assert state.phase == "counter" and state.to_act() == 1
    assert state.legal_actions() == [{"play": "YP"}, {"pass": True}]
    assert state.observe(1)["counter"] == {"thief": 0} and state.observe(1)["phase"] == "counter"
    step(state, {"pass": True})
    assert not state.drain()  # a pass is told to nobody
    assert state.to_act() == 3 and state.legal_actions() == [{"play": "BP"}, {"pass": True}]
    step(state, {"play": "BP"})
    assert events(state, "played")[0].data == {"seat": 3, "card": "BP", "counter": True}
    # the counter card set the suit led; play resumes with seat 1, then seat 2
    assert state.phase == "play" and state.led == "B" and state.to_act() == 1
    assert cards(state) == ["R2", "YP"]  # no blue, no Building: anything
    play(state, "R2")
    assert state.to_act() == 2
    play(state, "Y3")
    # BP (the only blue card) wins; the cards in play order, then the stopped Thief
    trick = events(state, "trick")[0].data
    assert trick["seats"] == [0, 3, 1, 2] and trick["winner"] == 3
    assert trick["thief"] == {"seat": 0, "success": False} and trick["pile"] == "opposition"
    assert state.piles[1] == opp + ["BP", "R2", "Y3", "THIEF"] and state.piles[0] == ["GM"]
    assert state.to_act() == 3


def test_M_12_offers_go_to_opponents_still_to_play_holding_a_stopper_in_seat_order():
    # seat 1 (opposition) plays the Thief second; opponents are 0 (played), 2 (ally)
    state = revealed([["R1", "Y5"], ["THIEF", "Y1"], ["T1", "R7"], ["RP", "Y3"]])
    play(state, "R1", "THIEF")
    assert state.phase == "counter" and state.to_act() == 2  # seat 3 is the Thief's teammate
    assert state.legal_actions() == [{"play": "T1"}, {"pass": True}]
    step(state, {"play": "T1"})
    assert state.led == "R" and state.to_act() == 3 and state.phase == "play"
    assert cards(state) == ["RP"]


@pytest.mark.parametrize("mode", ["basic", "advanced"])
def test_M_12_prison_counter_after_a_thief_lead_sets_buildings_and_must_be_overtrumped(mode):
    state = revealed([["THIEF", "R1"], ["R5", "T3"], ["R6", "T2"], ["T1", "R4"]], mode=mode)
    play(state, "THIEF")
    assert state.to_act() == 3  # seat 1 holds no stopper; seat 3 holds the Prison
    step(state, {"play": "T1"})
    assert state.led == "T" and state.to_act() == 1
    assert cards(state) == ["T3"]  # must overtrump the Prison
    play(state, "T3")
    assert state.to_act() == 2 and cards(state) == ["T2"]  # cannot beat T3: any Building
    play(state, "T2")
    assert state.piles[1][-4:] == ["T1", "T3", "T2", "THIEF"]


def test_M_12_no_offer_before_the_reveal():
    state = pos([["THIEF", "R1"], ["YP", "R2"], ["Y3", "GM"], ["BP", "R4"]])
    play(state, "THIEF")
    assert state.phase == "play" and state.to_act() == 1
    assert {"pass": True} not in state.legal_actions()


def test_M_12_no_offer_when_the_trick_already_holds_a_stopper():
    state = revealed([["RP", "R1"], ["THIEF", "R2"], ["R3", "T1"], ["R4", "Y4"]])
    play(state, "RP", "THIEF")
    assert state.phase == "play" and state.to_act() == 2


def test_M_12_no_offer_after_a_thief_played_last():
    state = revealed([["R1", "Y1"], ["R2", "Y2"], ["R3", "T1"], ["THIEF", "Y4"]])
    play(state, "R1", "R2", "R3", "THIEF")
    assert state.phase == "play" and state.trick_no == 2
    # the Thief succeeded: basic, the whole trick to seat 3's team (opposition)
    assert state.piles[1][-4:] == ["R1", "R2", "R3", "THIEF"]


def test_M_12_every_offer_passed_resumes_in_turn_and_a_later_policeman_still_stops():
    state = revealed([["THIEF", "R1"], ["RP", "R2"], ["R3", "Y3"], ["R4", "Y4"]])
    play(state, "THIEF")
    assert state.to_act() == 1
    step(state, {"pass": True})
    assert state.phase == "play" and state.to_act() == 1 and "RP" in cards(state)
    play(state, "RP", "R3", "R4")
    assert state.piles[1][-4:] == ["RP", "R3", "R4", "THIEF"]


# -- M-11 advanced Thief ------------------------------------------------------------------------


def test_M_11_advanced_thief_diverts_the_card_with_the_most_votes():
    state = pos([["R5", "Y1"], ["RD", "Y2"], ["THIEF", "GM"], ["R9", "Y3"]], mode="advanced", piles=([], []))
    opp = list(state.piles[1])
    play(state, "R5", "RD", "THIEF", "R9")
    assert state.piles[1] == opp + ["R5", "R9"]  # the winner's cards, less the stolen one
    assert state.piles[0] == ["RD", "THIEF"]  # then the stolen card, then the Thief (stays home)
    assert state.to_act() == 1  # the winner does not change


def test_M_11_advanced_thief_tie_on_votes_by_C_4_suit():
    state = pos([["RD", "Y1"], ["YD", "Y2"], ["THIEF", "GM"], ["T5", "Y3"]], mode="advanced", piles=([], []))
    opp = list(state.piles[1])
    play(state, "RD", "YD", "THIEF", "T5")
    assert state.piles[1] == opp + ["RD", "T5"] and state.piles[0] == ["YD", "THIEF"]
    assert state.to_act() == 3


def test_M_11_advanced_thief_tie_on_votes_a_building_beats_suit_cards_even_the_winning_one():
    state = pos([["R3", "Y1"], ["T4", "Y2"], ["THIEF", "GM"], ["R7", "Y3"]], mode="advanced", piles=([], []))
    opp = list(state.piles[1])
    play(state, "R3", "T4", "THIEF", "R7")
    assert state.piles[1] == opp + ["R3", "R7"] and state.piles[0] == ["T4", "THIEF"]
    assert state.to_act() == 1  # T4's player still won and leads


def test_M_11_advanced_thief_whose_team_wins_anyway_moves_nothing():
    state = pos([["RD", "Y1"], ["R9", "Y2"], ["THIEF", "GM"], ["R1", "Y3"]], mode="advanced",
                leader=3, piles=([], []))
    opp = list(state.piles[1])
    play(state, "R1", "RD", "R9", "THIEF")  # seat 0 (candidate) wins; the Thief is seat 2's, its ally
    assert state.piles[0] == ["R1", "RD", "R9", "THIEF"] and state.piles[1] == opp
    assert state.to_act() == 0


# -- M-10 / M-11 Casino ------------------------------------------------------------------------


def casino_position(cand_pile, mode="basic", revealed_=True):
    # seat 1 (opposition) holds the Casino; the candidate team's pile is as given
    hands = [["R1", "Y1"], ["CASINO", "Y2"], ["R3", "Y3"], ["R4", "Y4"]]
    if revealed_:
        return pos(hands, mode=mode, ally=2, revealed=True, piles=(cand_pile + ["GM"], []))
    hands[2] = ["GM", "Y3"]
    return pos(hands, mode=mode, piles=(cand_pile, []))


def test_M_10_casino_right_moves_the_top_three_as_a_block():
    state = casino_position(["R5", "R6", "R7", "R8"])
    opp = list(state.piles[1])
    play(state, "R1", {"play": "CASINO", "name": "GM"})
    assert state.piles[0] == ["R5", "R6"] and state.piles[1] == opp + ["R7", "R8", "GM"]
    out = events(state, "casino")
    assert out[0].data == {"seat": 1, "name": "GM", "hit": True, "moved": 3, "cards": ["R7", "R8", "GM"]}
    assert state.observe(3)["casino"] == {"seat": 1, "name": "GM", "hit": True}


def test_M_10_casino_wrong_moves_nothing():
    state = casino_position(["R5", "R6", "R7", "R8"])
    piles = (list(state.piles[0]), list(state.piles[1]))
    play(state, "R1", {"play": "CASINO", "name": "R8"})
    assert state.piles == piles
    assert events(state, "casino")[0].data["hit"] is False


def test_M_10_casino_on_a_short_pile():
    state = casino_position(["R5"])  # the candidate's pile: R5, GM
    opp = list(state.piles[1])
    play(state, "R1", {"play": "CASINO", "name": "GM"})
    assert state.piles[0] == [] and state.piles[1] == opp + ["R5", "GM"]
    assert events(state, "casino")[0].data["moved"] == 2


def test_M_10_casino_on_an_empty_pile_misses():
    state = pos([["R1", "Y1"], ["CASINO", "Y2"], ["R3", "Y3"], ["R4", "Y4"]], ally=2, revealed=True,
                piles=([], ["GM"]))
    piles = (list(state.piles[0]), list(state.piles[1]))
    assert piles[0] == []
    play(state, "R1", {"play": "CASINO", "name": "R9"})
    assert state.piles == piles and events(state, "casino")[0].data["hit"] is False


def test_M_10_basic_casino_before_the_reveal_is_told_to_nobody_until_the_reveal():
    state = casino_position(["R5", "R6", "R7"], revealed_=False)
    opp = list(state.piles[1])
    play(state, "R1", {"play": "CASINO", "name": "R7"})
    assert state.piles[0] == [] and state.piles[1] == opp + ["R5", "R6", "R7"]  # it did happen
    out = events(state)
    assert [e.kind for e in out] == ["played", "played"] and out[1].data["name"] == "R7"
    for s in range(4):
        assert state.observe(s)["casino"] == {"seat": 1, "name": "R7", "hit": None}
    assert cards(state) == ["GM", "Y3"]
    play(state, "GM")  # the reveal
    out = events(state)
    assert [e.kind for e in out] == ["played", "ally_revealed", "casino"]
    assert out[2].data["hit"] is True and out[2].data["cards"] == ["R5", "R6", "R7"]
    assert state.observe(3)["casino"]["hit"] is True


def advanced_casino(hand1, others=(["BD", "R1", "Y1"], ["GM", "R3", "Y3"], ["YD", "R4", "Y4"])):
    # seat 1 (opposition) leads its Casino; seat 0 candidate, seat 2 ally, seat 3 opposition
    return pos([others[0], hand1, others[1], others[2]], mode="advanced", leader=1)


def test_M_11_advanced_casino_swaps_the_named_card_for_the_weakest():
    state = advanced_casino(["CASINO", "R2", "T2", "YF"])
    play(state, {"play": "CASINO", "name": "BD"})  # seat 0, the candidate, is an opponent of seat 1
    assert state.hands[1] == ["YF", "BD", "T2"]
    assert state.hands[0] == ["R1", "R2", "Y1"]  # R2 (1 vote, a suit card) < T2
    out = events(state)
    pub = [e for e in out if e.kind == "casino"]
    assert pub[0].to is EVERYONE and pub[0].data == {"seat": 1, "name": "BD", "hit": True}
    swap = [e for e in out if e.kind == "casino_swap"]
    assert swap[0].to == (1, 0) and swap[0].data == {"seat": 1, "name": "BD", "gave": "R2"}
    # hidden_from is exact: BD's new place is public, R2's known to the two involved only
    assert "BD" not in state.hidden_from(2) and "R2" in state.hidden_from(2)
    assert "R2" not in state.hidden_from(1) and "BD" not in state.hidden_from(0)
    assert state.observe(0)["swap"] == {"seat": 1, "name": "BD", "gave": "R2"}
    assert "swap" not in state.observe(2) and "swap" not in state.observe(3)


def test_M_11_advanced_casino_weakest_card_ties_by_C_4():
    state = advanced_casino(["CASINO", "R3", "Y1", "T2"])
    play(state, {"play": "CASINO", "name": "BD"})
    assert "Y1" in state.hands[0]  # all 1 vote: suit cards before Buildings, then rank 1 < 3


def test_M_11_advanced_casino_misses_on_a_teammates_card_or_a_card_in_no_hand():
    state = advanced_casino(["CASINO", "R2", "T2", "YF"])
    hands = [list(h) for h in state.hands]
    play(state, {"play": "CASINO", "name": "YD"})  # seat 3 is seat 1's teammate
    assert events(state, "casino")[0].data["hit"] is False
    assert [sorted(h) for h in state.hands] == [sorted(h) for h in hands[:1]] + [
        sorted(["R2", "T2", "YF"])] + [sorted(h) for h in hands[2:]]
    state = advanced_casino(["CASINO", "R2", "T2", "YF"])
    play(state, {"play": "CASINO", "name": "T18"})  # in a pile
    assert events(state, "casino")[0].data["hit"] is False


def test_M_11_advanced_casino_without_a_non_special_card_has_no_effect():
    state = advanced_casino(["CASINO", "THIEF"], others=(["BD", "R1"], ["GM", "R3"], ["YD", "R4"]))
    play(state, {"play": "CASINO", "name": "BD"})
    assert events(state, "casino")[0].data == {"seat": 1, "name": "BD", "hit": None}
    assert "BD" in state.hands[0]


def test_M_11_advanced_casino_by_the_ally_holding_only_the_called_mayor_has_no_effect():
    hands = [["BD", "R1"], ["CASINO", "GM"], ["R3", "Y3"], ["YD", "R4"]]
    state = pos(hands, mode="advanced", leader=1)
    assert state.ally == 1
    play(state, {"play": "CASINO", "name": "YD"})
    assert events(state, "casino")[0].data["hit"] is None
    assert state.hands[1] == ["GM"] and "YD" in state.hands[3]


# -- M-11a legal Casino names ------------------------------------------------------------------


def test_M_11a_legal_casino_names_basic():
    state = pos([["CASINO", "R1", "T5"], ["Y1"], ["GM"], ["Y2"]])
    names = [a["name"] for a in state.legal_actions() if a["play"] == "CASINO"]
    assert names == [c for c in DECK if c not in ("CASINO", "R1", "T5")]
    assert len(names) == 75 and "GM" in names and "THIEF" in names


def test_M_11a_legal_casino_names_advanced():
    state = pos([["CASINO", "R1", "T5"], ["Y1"], ["GM"], ["Y2"]], mode="advanced")
    names = [a["name"] for a in state.legal_actions() if a["play"] == "CASINO"]
    assert names == [c for c in DECK if c not in SPECIALS and c not in ("R1", "T5", "GM")]
    assert len(names) == 72
    assert state.resolve({"play": "CASINO", "name": "GM"}) is None
    assert state.resolve({"play": "CASINO", "name": "THIEF"}) is None
    assert state.resolve({"play": "CASINO", "name": "R1"}) is None
    assert state.resolve({"play": "CASINO"}) is None
    assert state.resolve({"play": "CASINO", "name": "RM"}) == {"play": "CASINO", "name": "RM"}


# -- Crane -------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode, moved", [("basic", 2), ("advanced", 1)])
def test_M_10_M_11_crane_takes_the_top_of_the_opposing_pile(mode, moved):
    state = revealed([["CRANE", "R1"], ["R2", "Y2"], ["R3", "Y3"], ["R4", "Y4"]], mode=mode)
    opp = list(state.piles[1])
    play(state, "CRANE")
    assert state.piles[0] == ["GM"] + opp[len(opp) - moved:]
    assert state.piles[1] == opp[:len(opp) - moved]
    out = events(state, "crane")
    assert out[0].data == {"seat": 0, "moved": moved, "cards": opp[len(opp) - moved:]}


def test_M_10_crane_on_a_short_or_empty_pile():
    hands = [["R1", "Y1"], ["CRANE", "Y2"], ["R3", "Y3"], ["R4", "Y4"]]
    state = pos(hands, ally=2, revealed=True, piles=(["GM"], []))
    opp = list(state.piles[1])
    play(state, "R1", "CRANE")  # the candidate's pile holds only GM
    assert state.piles[0] == [] and state.piles[1] == opp + ["GM"]
    state = pos(hands, ally=2, revealed=True, piles=([], ["GM"]))
    piles = (list(state.piles[0]), list(state.piles[1]))
    play(state, "R1", "CRANE")
    assert state.piles == piles and events(state, "crane")[0].data["moved"] == 0


def test_M_9_crane_before_the_reveal_is_told_at_the_reveal():
    state = pos([["R1", "Y1"], ["CRANE", "Y2"], ["Y3", "GM"], ["R4", "Y4"]], piles=(["R7", "R8"], []))
    play(state, "R1", "CRANE")
    assert [e.kind for e in events(state)] == ["played", "played"]
    assert cards(state) == ["GM", "Y3"]
    assert state.piles[0] == [] and state.piles[1][-2:] == ["R7", "R8"]
    play(state, "GM")
    out = events(state)
    assert [e.kind for e in out] == ["played", "ally_revealed", "crane"]
    assert out[2].data == {"seat": 1, "moved": 2, "cards": ["R7", "R8"]}


# -- M-13 / M-14 / M-15 scoring ----------------------------------------------------------------


def worth(total: int, specials: int) -> list[str]:
    """Cards worth exactly `total` votes, `specials` of them Specials."""
    out = list(SPECIALS[:specials])
    left = total - specials
    for c in sorted((c for c in DECK if c not in SPECIALS), key=lambda c: -VOTES[c]):
        if VOTES[c] <= left:
            out.append(c)
            left -= VOTES[c]
    assert left == 0
    return out


@pytest.mark.parametrize("specials, with_ally, alone", [(0, 69, 44), (1, 71, 46), (2, 72, 48), (3, 73, 50)])
def test_M_14_thresholds_by_specials_captured(specials, with_ally, alone):
    assert threshold("advanced", specials, False) == with_ally
    assert threshold("advanced", specials, True) == alone
    for need, is_alone in ((with_ally, False), (alone, True)):
        pile = worth(need - 6, specials)
        discards = [c for c in DECK if c not in pile and VOTES[c] == 1 and c not in SPECIALS][:6]
        result = score_deal("advanced", pile, discards, is_alone)
        assert (result.made, result.specials, result.threshold, result.won) == (need, specials, need, True)
        short = score_deal("advanced", worth(need - 7, specials), discards, is_alone)
        assert (short.made, short.won) == (need - 1, False)


@pytest.mark.parametrize("alone, need", [(False, 48), (True, 33)])
def test_M_13_basic_thresholds(alone, need):
    filler = list(DECK)
    assert score_deal("basic", filler[:need - 6], filler[70:76], alone).won is True
    assert score_deal("basic", filler[:need - 7], filler[70:76], alone).won is False
    assert score_deal("basic", filler[:need - 6], filler[70:76], alone).threshold == need


def test_M_15_deal_points():
    assert deal_points(True, 0, 2) == [2, -1.5, 1, -1.5]
    assert deal_points(False, 0, 2) == [-2, 1.5, -1, 1.5]
    assert deal_points(True, 1, None) == [-1, 3, -1, -1]
    assert deal_points(False, 1, None) == [1, -3, 1, 1]
    for args in ((True, 3, 0), (False, 2, None)):
        assert sum(deal_points(*args)) == 0


def final_trick(mode, alone, cand_size, specials=()):
    """The last trick of a deal: seat 0 (candidate) wins it with T19; the candidate pile holds
    `cand_size` cards before it (including `specials`), discards R1..R6 count on top."""
    hands = [["T19"], ["Y1"], ["GM"], ["Y2"]]
    if alone:
        hands = [["T19"], ["Y1"], ["Y3"], ["Y2"]]
    discards = ["R1", "R2", "R3", "R4", "R5", "R6"]
    used = {c for h in hands for c in h} | set(discards) | set(specials)
    free = [c for c in DECK if c not in used]
    cand = list(specials) + free[:cand_size - len(specials)]
    if alone:
        cand = ["GM"] + cand[:-1] if "GM" not in cand else cand
        return pos(hands, called="G", mode=mode, ally=None, revealed=True, piles=(cand, []),
                   discards=discards)
    return pos(hands, called="G", mode=mode, piles=(cand, []), discards=discards)


@pytest.mark.parametrize("alone, before, won", [(False, 38, True), (False, 37, False), (True, 23, True),
                                                (True, 22, False)])
def test_M_13_M_15_deal_end_basic(alone, before, won):
    state = final_trick("basic", alone, before)
    play(state, *[h[0] for h in state.hands])
    out = state.drain()
    end = [o.data for o in out if isinstance(o, Record)][0]
    assert end["type"] == "deal_end" and end["mode"] == "basic"
    assert end["count"] == before + 4 + 6 and "votes" not in end
    assert end["threshold"] == (33 if alone else 48) and end["won"] is won
    assert end["candidate"] == 0 and end["ally"] == (None if alone else 2) and end["called"] == "G"
    expected = deal_points(won, 0, None if alone else 2)
    assert end["scores"] == expected and state.outcome().scores == expected
    assert state.outcome().measure == expected and state.to_act() is None
    ev = [o for o in out if isinstance(o, Event) and o.kind == "deal_end"][0]
    assert ev.to is EVERYONE and ev.data["won"] is won


def test_M_14_M_15_deal_end_advanced_counts_votes_and_specials():
    state = final_trick("advanced", False, 40, specials=("THIEF", "CRANE"))
    play(state, *[h[0] for h in state.hands])
    end = [o.data for o in state.drain() if isinstance(o, Record)][0]
    pile = state.piles[0]
    assert end["votes"] == sum(VOTES[c] for c in pile) + 6 and "count" not in end
    assert end["specials"] == 2 and end["threshold"] == 72
    assert end["won"] == (end["votes"] >= 72)


def test_the_deals_last_card_is_told_in_full_and_deal_end_names_no_cards():
    state = final_trick("basic", False, 38)
    play(state, *[h[0] for h in state.hands])
    out = [o for o in state.drain() if isinstance(o, Event)]
    assert [e.data.get("card") for e in out if e.kind == "played"] == ["T19", "Y1", "GM", "Y2"]
    assert [e.data["cards"] for e in out if e.kind == "trick"] == [["T19", "Y1", "GM", "Y2"]]
    end = [e for e in out if e.kind == "deal_end"]
    assert end[0].to is EVERYONE and not strings(end[0].data) & set(DECK)


def test_match_totals_over_deals_and_outcome():
    state = new_match(seed=4, deals=2)
    ends = []
    while state.to_act() is not None:
        step(state, state.legal_actions()[-1])
        ends += [o.data for o in state.drain() if isinstance(o, Record) and o.data["type"] == "deal_end"]
    assert len(ends) == 2
    totals = [a + b for a, b in zip(ends[0]["scores"], ends[1]["scores"])]
    assert state.outcome().scores == totals and ends[1]["totals"] == totals
    assert sum(totals) == 0


def test_positions_conserve_the_deck():
    state = pos([["R1"], ["R2"], ["GM"], ["R4"]], piles=(["Y1"], ["Y2"]), discards=["B1"])
    zones = state.zones()
    assert sorted(c for z in zones.values() for c in z) == sorted(DECK)


def test_M_12_a_reveal_after_the_thief_in_the_same_trick_makes_no_offer():
    # seat 1 plays the Thief; seat 2 then reveals itself with GM; seat 3 (holding RP) is not asked
    state = pos([["Y1", "R1"], ["THIEF", "R2"], ["GM", "R3"], ["RP", "Y4"]])
    play(state, "Y1", "THIEF", "GM")
    assert state.revealed and state.phase == "play" and state.to_act() == 3
    assert state.legal_actions() == [{"play": "Y4"}]  # an ordinary turn: follow yellow, no offer


@pytest.mark.parametrize("specials, before, won", [((), 34, True), ((), 33, False), (("THIEF", "CRANE"), 37, False),
                                                 (("THIEF", "CRANE"), 38, True)])
def test_M_14_M_15_deal_end_advanced_alone(specials, before, won):
    # seat 0 alone; its pile is worth `before` votes + the last trick (4) + the discards (6);
    # with 2 Specials captured the threshold is 48, not 44
    hands = [["T19"], ["Y1"], ["Y3"], ["Y2"]]
    discards = ["R1", "R2", "R3", "R4", "R5", "R6"]
    used = {c for h in hands for c in h} | set(discards) | {"GM"}
    ones = [c for c in DECK if c not in used and VOTES[c] == 1 and c not in SPECIALS]
    pile = ["GM"] + list(specials) + ones[:before - 5 - len(specials)]
    state = pos(hands, called="G", mode="advanced", ally=None, revealed=True, piles=(pile, []),
                discards=discards)
    play(state, "T19", "Y1", "Y3", "Y2")
    end = [o.data for o in state.drain() if isinstance(o, Record)][0]
    assert end["votes"] == before + 4 + 6 and end["ally"] is None
    assert end["specials"] == len(specials) and end["threshold"] == (44, 46, 48, 50)[len(specials)]
    assert end["won"] is won and end["scores"] == deal_points(won, 0, None)


def test_M_11_hidden_from_when_the_town_hall_moves_by_casino():
    # seat 1 names T19, held by seat 0 (the candidate, an opponent): public, so known to all
    state = pos([["T19", "R1", "Y1"], ["CASINO", "R2", "YF"], ["GM", "R3", "Y3"], ["YD", "R4", "Y4"]],
                mode="advanced", leader=1)
    for s in range(4):
        assert "T19" not in state.hidden_from(s)
    play(state, {"play": "CASINO", "name": "T19"})
    assert "T19" in state.hands[1] and "R2" in state.hands[0]
    assert all("T19" not in state.hidden_from(s) for s in range(4))
    assert "R2" in state.hidden_from(2) and "R2" in state.hidden_from(3) and "R2" not in state.hidden_from(1)
    # the candidate gives T19 away (its only non-Special card): only the two involved know where
    state = pos([["T19", "CASINO"], ["BD", "R2"], ["GM", "R3"], ["YD", "R4"]], mode="advanced")
    play(state, {"play": "CASINO", "name": "BD"})
    assert state.hands[1] == ["R2", "T19"] and state.hands[0] == ["BD"]
    assert "T19" in state.hidden_from(2) and "T19" in state.hidden_from(3)
    assert "T19" not in state.hidden_from(0) and "T19" not in state.hidden_from(1)
    assert "BD" not in state.hidden_from(2)


def test_M_12_a_pass_must_be_the_literal_true():
    state = revealed([["THIEF", "R1"], ["YP", "R2"], ["Y3", "R3"], ["R4", "Y4"]])
    play(state, "THIEF")
    assert state.resolve({"pass": 1}) is None and state.resolve({"pass": False}) is None
    assert state.resolve({"pass": True}) == {"pass": True}
    assert state.resolve({"play": "R2"}) is None  # only the stoppers or the pass


# -- rules audit: scenarios the rulings spell out that had no test of their own -----------------


@pytest.mark.parametrize(
    "first_three, hands",
    [
        # red led; seats 1 and 2 are void in red: T8, then T3 (cannot beat T8: any Building)
        (["R5", "T8", "T3"], [["R5", "Y2"], ["T8", "Y3"], ["T3", "GM"]]),
        # Buildings led: T8, then T3 (cannot beat it), then seat 2 without a Building
        (["T8", "T3", "GM"], [["T8", "Y2"], ["T3", "Y3"], ["GM", "Y4"]]),
    ],
)
@pytest.mark.parametrize(
    "hand, legal",
    [
        (["T5", "T10", "Y1"], ["T10"]),  # T5 beats the last Building (T3), not the highest (T8)
        (["T4", "T6", "Y1"], ["T4", "T6"]),  # cannot beat T8: any Building
    ],
)
def test_M_6_must_beat_the_highest_building_in_the_trick_not_the_last_one(first_three, hands, hand, legal):
    state = pos(hands + [hand])
    play(state, *first_three)
    assert state.to_act() == 3 and cards(state) == legal


def test_M_8_advanced_stolen_card_then_each_special_in_play_order():
    # seat 0 (candidate) wins with RD; seat 1's Thief succeeds and steals RD; seat 2's Crane
    # (advanced: one card) took B3 when played. Onto the opposition pile: the stolen RD, then
    # the Thief (stays with its team), then the Crane (its player's opposing team), in play order
    state = pos([["RD", "Y1"], ["THIEF", "Y2"], ["CRANE", "GM"], ["R9", "Y3"]], mode="advanced",
                piles=(["B1"], ["B2", "B3"]))
    opp = list(state.piles[1])
    play(state, "RD", "THIEF", "CRANE", "R9")
    assert state.piles[0] == ["B1", "B3", "R9"]
    assert state.piles[1] == opp[:-1] + ["RD", "THIEF", "CRANE"]
    assert state.to_act() == 0  # RD's player still won the trick and leads


@pytest.mark.parametrize("mode", ["basic", "advanced"])
@pytest.mark.parametrize(
    "hands, trick, winner",
    [
        # an off-suit Policeman (seat 1 void in yellow, no Building) that does not win
        ([["Y5", "R1"], ["BP", "R2"], ["THIEF", "GM"], ["Y9", "R3"]], ["Y5", "BP", "THIEF", "Y9"], 3),
        # the Prison, overtrumped by a later Building
        ([["R5", "Y1"], ["T1", "Y2"], ["THIEF", "GM"], ["T5", "Y3"]], ["R5", "T1", "THIEF", "T5"], 3),
    ],
)
def test_M_10_a_policeman_or_the_prison_stops_the_thief_whoever_wins_the_trick(mode, hands, trick, winner):
    state = pos(hands, mode=mode, piles=([], []))
    opp = list(state.piles[1])
    play(state, *trick)
    assert state.leader == winner
    assert state.piles[0] == []  # the Thief's team (seat 2, the ally) gets nothing
    assert state.piles[1] == opp + [c for c in trick if c != "THIEF"] + ["THIEF"]


def test_M_11_advanced_casino_gives_a_card_picked_before_the_swap():
    # seat 1's only non-Special card is RD: it goes, although R1 (received) would be weaker
    state = advanced_casino(["CASINO", "RD"], others=(["R1", "Y1"], ["GM", "R3"], ["YD", "R4"]))
    play(state, {"play": "CASINO", "name": "R1"})
    assert state.hands[1] == ["R1"] and state.hands[0] == ["RD", "Y1"]


def test_M_12_the_first_to_counter_ends_the_offers():
    # seat 0 leads the Thief; opponents 1 (YP) and 3 (BP) are both offered; 1 counters first
    state = revealed([["THIEF", "R1"], ["YP", "R2"], ["Y3", "R3"], ["BP", "R4"]])
    play(state, "THIEF")
    assert state.phase == "counter" and state.offers == [1, 3]
    step(state, {"play": "YP"})
    assert state.phase == "play" and state.to_act() == 2 and cards(state) == ["Y3"]
    play(state, "Y3")
    # seat 3 is not asked: an ordinary turn (no yellow, no Building: anything), no pass
    assert state.phase == "play" and state.to_act() == 3
    assert state.legal_actions() == [{"play": "R4"}, {"play": "BP"}]


def test_M_12_offers_wrap_around_in_seat_order_from_the_thief_and_play_resumes_from_it():
    # seat 3 (opposition) leads the Thief: its opponents are 0 then 2 (seat 1 is its teammate)
    state = revealed([["RP", "R1"], ["R2", "Y2"], ["T1", "R3"], ["THIEF", "R4"]], leader=3)
    play(state, "THIEF")
    assert state.phase == "counter" and state.to_act() == 0
    step(state, {"pass": True})
    assert state.to_act() == 2
    step(state, {"play": "T1"})  # the Prison counters and makes Buildings the suit led
    assert state.phase == "play" and state.led == "T"
    assert state.to_act() == 0 and cards(state) == ["R1", "RP"]  # no Building: anything
    play(state, "R1")
    assert state.to_act() == 1
    play(state, "R2")
    trick = events(state, "trick")[0].data
    assert trick["seats"] == [3, 2, 0, 1] and trick["winner"] == 2 and trick["pile"] == "candidate"
    assert state.piles[0] == ["GM", "T1", "R1", "R2", "THIEF"] and state.to_act() == 2


def test_M_12_a_lone_candidates_thief_is_offered_to_all_three_others_in_seat_order():
    hands = [["THIEF", "R1"], ["YP", "R2"], ["T1", "R3"], ["BP", "R4"]]
    state = pos(hands, ally=None, revealed=True, piles=(["GM"], []))
    assert state.team == [0, 1, 1, 1]
    play(state, "THIEF")
    assert state.phase == "counter" and state.offers == [1, 2, 3]
    step(state, {"pass": True})
    step(state, {"pass": True})
    assert state.to_act() == 3
    step(state, {"play": "BP"})
    assert state.to_act() == 1 and state.led == "B"
    play(state, "R2")
    assert state.to_act() == 2 and cards(state) == ["T1"]  # void in blue: the Prison, a Building
    play(state, "T1")
    # the Prison wins; the lone candidate's stopped Thief goes to the opposition too
    assert state.piles[1][-4:] == ["BP", "R2", "T1", "THIEF"] and state.to_act() == 2


def test_M_14_vote_values():
    for s in "RYBG":
        assert [VOTES[s + r] for r in ("M", "D", "F", "P")] == [5, 4, 3, 2]
        assert all(VOTES[f"{s}{n}"] == 1 for n in range(1, 11))
    assert all(VOTES[f"T{n}"] == 1 for n in range(1, 20)) and all(VOTES[c] == 1 for c in SPECIALS)
    assert 4 * (10 + 2 + 3 + 4 + 5) + 19 + 3 == sum(VOTES.values()) == 118


def test_C_5_a_mayor_result_ranks_tied_seats_together():
    from referee.testing import random_playout

    seen = set()
    for seed in range(40):
        result = random_playout(GAME, {"deals": 1}, seed=seed).result
        scores, ranks = result["scores"], result["ranks"]
        # one deal: +2/+1/-1.5/-1.5 (or negated) with an ally, +3/-1/-1/-1 (or negated) alone
        expected = {2: 1, 1: 2, -1.5: 3, -2: 4, -1: 3, 1.5: 1, 3: 1, -3: 4}
        if sorted(scores) == [-1, -1, -1, 3]:
            expected[-1] = 2
        elif sorted(scores) == [-3, 1, 1, 1]:
            expected[1] = 1
        assert ranks == [expected[s] for s in scores], (seed, scores, ranks)
        seen.add(tuple(sorted(scores)))
    assert len(seen) >= 2


def test_M_2_roles_do_not_move_with_the_town_hall():
    # seat 1 takes T19 from the candidate by an advanced Casino: seat 0 stays the candidate
    state = pos([["T19", "R1", "Y1"], ["CASINO", "R2", "YF"], ["GM", "R3", "Y3"], ["YD", "R4", "Y4"]],
                mode="advanced", leader=1)
    play(state, {"play": "CASINO", "name": "T19"})
    assert "T19" in state.hands[1] and state.candidate == 0 and state.team == [0, 1, 0, 1]
    assert state.observe(1)["role"] == "opposition" and state.observe(0)["role"] == "candidate"
    play(state, "R3", "R4", "R2")  # seat 3 wins with R4
    play(state, "Y4", "Y1", "YF", "Y3")  # seat 1 wins with YF
    play(state, "T19", "GM", "YD", "R1")
    end = [o.data for o in state.drain() if isinstance(o, Record)][0]
    assert end["candidate"] == 0 and end["ally"] == 2


def test_M_12_play_resumes_in_turn_order_from_the_thief_not_from_the_counter():
    # the lone candidate leads the Thief; seat 1 passes, seat 2 counters with the Prison: play
    # resumes with seat 1 (the next after the Thief still to play), then seat 3
    hands = [["THIEF", "R1"], ["YP", "R2"], ["T1", "R3"], ["BP", "R4"]]
    state = pos(hands, ally=None, revealed=True, piles=(["GM"], []))
    play(state, "THIEF")
    step(state, {"pass": True})
    assert state.to_act() == 2
    step(state, {"play": "T1"})
    assert state.phase == "play" and state.to_act() == 1
    play(state, "R2")
    assert state.to_act() == 3
    play(state, "R4")
    trick = events(state, "trick")[0].data
    assert trick["seats"] == [0, 2, 1, 3] and trick["winner"] == 2 and state.to_act() == 2
