"""Presidente: the seed 004 plus rulings P-1..P-10 (docs/rules/presidente.md), as a plugin: its
options, summary and variants; the match itself is `PresidenteState` (state.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.game import Game, Option, Shuffle
from referee_presidente.state import PLAYERS, PresidenteState

if TYPE_CHECKING:
    from referee_presidente.describe import PresidenteDescriber


class Presidente(Game):
    """The Presidente rules plugin: 4 players, 5 rounds, President of the last round wins."""

    name = "presidente"
    title = "Presidente"
    min_players = PLAYERS
    max_players = PLAYERS
    options = (
        Option("jokers", bool, False, "Add two jokers (X1, X2) above the 2s; the Slave gets 15 cards (P-10)."),
        Option("rounds", int, 5, "Rounds in a match; the President of the last round wins (P-1).", min=1, max=100),
    )
    summary = (
        "Climbing game for 4 players, 52 cards (54 with jokers=true), 13 cards each, 5 rounds.\n"
        "Order, low to high: 3 4 5 6 7 9 T J Q K A 2 (jokers above the 2s). Round 1: seat 1 is the "
        "President and leads. The leader plays one or more cards of one rank; each next player plays "
        "the same number of cards of an equal or higher rank, or passes and is out until the trick "
        "ends. When everyone else has passed, the last player to play leads a new trick.\n"
        "An 8, always alone, goes on anything and clears the table: its player leads again. The 3 of "
        "clubs alone clears a table whose top card is a 2 or a joker. Four cards of one rank in a row "
        "in a trick make a revolution: the order is reversed for the rest of the round (four more "
        "reverse it back).\n"
        "First out is President, last out Slave, the others Citizens. If someone other than the "
        "reigning President goes out first, the President falls: Slave, blocked for the round.\n"
        "Rounds 2-5: the Slave gives the President their 3 highest cards, the President gives back "
        "their 3 lowest, the Citizens swap 3 cards of their choice; the President leads.\n"
        "Points per round 3/2/1/0 by place; the President of the last round wins the match."
    )

    def new_state(self, config: dict[str, Any], players: int) -> PresidenteState:
        """A new match, waiting for its first round's shuffle."""
        state = PresidenteState(config)
        state._deal_round()
        return state

    def old_outcome(self, record: dict[str, Any], request: Shuffle) -> list[str] | None:
        """Reading replays written before chance went through the runner: a deck that deals an
        old deal record's hands (they were recorded sorted, so not the shuffle itself: any deck
        dealing them makes the same round)."""
        hands, dealer = record.get("hands"), record.get("dealer")
        if not isinstance(hands, list) or len(hands) != PLAYERS or not all(isinstance(h, list) for h in hands) \
                or type(dealer) is not int:
            return None
        order = [(dealer + 1 + i) % PLAYERS for i in range(PLAYERS)]
        hands = [list(h) for h in hands]
        extra = [c for h in hands if len(h) > 13 for c in h[13:]]  # P-10: the two past 52
        if any(len(h) < 13 for h in hands):
            return None
        return [hands[order[i % PLAYERS]][i // PLAYERS] for i in range(52)] + extra

    def variants(self) -> list[dict[str, Any]]:
        return [{}, {"jokers": True}]

    def describer(self) -> PresidenteDescriber:
        """The game's words and pictures for the viewers, `play` and the schema (referee_presidente/describe.py)."""
        from referee_presidente.describe import PresidenteDescriber  # rich only when something is told, not to play

        return PresidenteDescriber()
