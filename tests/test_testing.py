"""The conformance kit (`referee.testing.check_game`): it passes a sound game and names each
contract a broken one breaks, as one AssertionError saying where."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.game import EVERYONE, Event, Game, GameState, Outcome, Record, Shuffle
from referee.testing import check_game

CARDS = ("2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C")


class HighCardState(GameState):
    """Two cards each from eight; seats play them in turn; a deal's score is the pips played.

    `flaw` breaks one part of the contract (see the tests)."""

    def __init__(self, players: int, flaw: str | None = None) -> None:
        self.n, self.flaw = players, flaw
        self.deal = 1
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.stock, self.table, self.scores = list(CARDS), [], [0] * players
        self.turn: int | None = None
        self.pending = True  # the deal's shuffle is asked for
        self._out: list[Any] = []

    def chance(self):
        if not self.pending:
            return None
        return Shuffle(list(CARDS)) if self.flaw == "bad_request" else Shuffle(CARDS)  # type: ignore[arg-type]

    def apply_chance(self, deck):
        self.pending = False
        if self.flaw == "global_rng":
            random.shuffle(deck)
        players = self.n
        self.hands = [sorted(deck[2 * s:2 * s + 2]) for s in range(players)]
        self.stock = deck[2 * players:]
        self.table: list[str] = []
        self.scores = [0] * players
        self.turn: int | None = 0
        self._out: list[Any] = [Record({"type": "deal", "deal": 1, "hands": [list(h) for h in self.hands],
                                        "stock": list(self.stock)})]
        for seat in range(players):
            self._out.append(Event("deal", {"hand": list(self.hands[seat])}, (seat,)))

    def to_act(self):
        return self.turn

    def legal_actions(self):
        if self.flaw == "legal_while_pending" and self.pending:
            return [{"play": CARDS[0]}]
        if self.flaw == "empty_legal" and len(self.table) == 1:
            return []
        return [{"play": c} for c in self.hands[self.turn]] if self.turn is not None else []

    def apply(self, action):
        seat = self.turn
        card = action["play"]
        self.hands[seat].remove(card)
        self.table.append(card)
        self.scores[seat] += int(card[0])
        to = None if self.flaw == "no_audience" else EVERYONE
        self._out.append(Event("played", {"seat": seat, "card": card}, to))
        if self.flaw == "leak" and seat == 0:
            self._out.append(Event("peek", {"hand": list(self.hands[1])}, (0,)))
        if any(self.hands):
            self.turn = (seat + 1) % self.n
            return
        self.turn = None
        scores = self.scores[:-1] if self.flaw == "short_scores" else list(self.scores)
        self._out.append(Record({"type": "deal_end", "deal": 1, "scores": scores}))

    def observe(self, seat):
        return {"seat": seat, "hand": list(self.hands[seat]), "table": list(self.table)}

    def drain(self):
        out, self._out = self._out, []
        return out

    def outcome(self):
        measure = [float(s) for s in self.scores]
        return Outcome(list(self.scores), measure[:1] if self.flaw == "short_measure" else measure)

    def zones(self):
        zones = {f"hand {s}": list(h) for s, h in enumerate(self.hands)}
        zones["stock"], zones["table"] = list(self.stock), list(self.table)
        if self.flaw == "lost_card" and self.table:
            zones["table"] = self.table[1:]
        return zones

    def hidden_from(self, seat):
        return set(self.stock) | {c for s, h in enumerate(self.hands) if s != seat for c in h}


class HighCard(Game):
    name = "highcard"
    title = "High card"
    min_players = 2
    max_players = 2

    def __init__(self, flaw: str | None = None) -> None:
        self.flaw = flaw

    def new_state(self, config, players):
        return HighCardState(players, flaw=self.flaw)


def test_a_sound_game_passes_and_the_report_says_what_was_played():
    report = check_game(HighCard(), seeds=range(5))
    assert report.matches == 5 and report.verified == 3 and report.deals == 5 and report.decisions == 20
    assert report.action_shapes == {("play",)} and report.event_kinds == {"deal", "played"}
    assert report.described == 0
    assert "5 matches" in str(report)


@pytest.mark.parametrize("flaw, message", [
    ("no_audience", "event 'played': the audience None is not a tuple of seats or EVERYONE (there is no default"),
    ("leak", "seat 0 was sent hidden cards"),
    ("short_scores", "'scores' must be a list of 2 numbers, one per seat"),
    ("short_measure", "Outcome.measure must be a list of 2 numbers"),
    ("empty_legal", "seat 1 asked to act with an empty legal list"),
    ("lost_card", "cards not conserved by zones()"),
    ("global_rng", "the same seed wrote different replays"),
    ("bad_request", "PluginError: game 'highcard' (test_testing): Shuffle.cards must be a tuple"),
    ("legal_while_pending", "a state waiting for a deal offers actions"),
])
def test_each_broken_contract_is_one_assertion_saying_where(flaw, message):
    with pytest.raises(AssertionError) as caught:
        check_game(HighCard(flaw), seeds=range(3))
    text = str(caught.value)
    assert text.startswith("highcard, 2 players, config default, seed 0: "), text
    assert message in text, text


def test_the_core_names_the_plugin_of_a_broken_record():
    with pytest.raises(AssertionError, match=r"PluginError: game 'highcard' \(test_testing\): deal_end record"):
        check_game(HighCard("short_scores"), seeds=[0])


def test_replayed_zero_skips_the_replays():
    assert check_game(HighCard(), seeds=range(2), replayed=0).verified == 0


class Describer:
    """A describer as referee.describe's (duck-typed): words for actions, events, deal_end rows."""

    blank = False

    def action(self, action):
        return f"plays {action['play']}"

    def event(self, event, names):
        return "" if event.kind == "played" and self.blank else f"{event.kind} {names(event.to[0])}"

    def deal_summary(self, record, players):
        return str(record["deal"]), [str(s) for s in record["scores"]]


class DescribedHighCard(HighCard):
    def __init__(self, describer):
        super().__init__()
        self.told = describer

    def describer(self):
        return self.told


def test_a_describer_tells_every_action_shape_event_kind_and_deal_end_met():
    describer = Describer()
    # one action shape, the deal event (to each seat: one kind and fields), played, one deal_end
    assert check_game(DescribedHighCard(describer), seeds=range(2)).described == 4
    describer.blank = True
    with pytest.raises(AssertionError,
                       match=r"highcard's describer Describer: event\(Event\(kind='played'.*\) gave ''"):
        check_game(DescribedHighCard(describer), seeds=range(2))
