"""The Mayor game: its options, configuration checks and state factory (seeds 000-002, M-1..M-15)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.game import Game, Option, Shuffle

from referee_mayor.deal import PLAYERS, dealt_deck
from referee_mayor.scoring import BASIC, MODES
from referee_mayor.state import MayorState

if TYPE_CHECKING:
    from referee_mayor.describe import MayorDescriber


class Mayor(Game):
    """Mayor, 4 players, 78 cards: the candidate and a secret ally against the opposition."""

    name = "mayor"
    title = "Mayor"
    min_players = 4
    max_players = 4
    options = (
        Option("mode", str, BASIC, "basic: count cards (48 of 78, alone 33); advanced: count votes "
               "(69-73, alone 44-50, by Specials captured) (M-13, M-14).", choices=MODES),
        Option("deals", int, 4, "Deals in a match; the deal passes left after each (M-4).", min=1),
    )
    summary = """\
Mayor (4 players, 78 cards: 4 suits R Y B G of 1-10, Policeman, Fireman, Doctor, Mayor; 19
Buildings T1-T19, the trumps, T19 being the Town Hall; 3 Specials THIEF, CASINO, CRANE).
18 cards each in packets of three, 6 to the reserve (never a Mayor, a Special or T19). The
holder of T19 is the candidate and calls a suit: the holder of that Mayor is the secret ally
(calling one's own Mayor: alone against three), revealed only when the Mayor is played. The
candidate takes the reserve and puts back 6 cards (not a Mayor, Special or T19), which count
for the candidate's team, then leads. Follow suit; else play a Building; a Building must beat
the highest Building in the trick when it can. The highest Building wins, else the highest
card of the suit led (1-10 < P < F < D < M). A Special may be played at any moment and goes
to its player's opposing team. Basic (cards counted): Thief takes the whole trick, Casino
names the top card of the opposing pile to take its top 3, Crane takes its top 2. Advanced
(votes: M 5, D 4, F 3, P 2, others 1): Thief diverts the trick's best card, Casino swaps a
named card from an opponent's hand for your weakest, Crane takes the top card. A Policeman or
T1 (the Prison) in the trick stops the Thief; once the ally is known, opponents still to play
may counter out of turn. The candidate's team needs 48 cards (alone 33) or 69-73 votes
(alone 44-50, by Specials captured). Deal points: +2/+1/-1.5 each (alone +3/-1 each), negated
on a loss; the match ranks seats by total points."""

    def new_state(self, config: dict[str, Any], players: int) -> MayorState:
        """A new match, waiting for its first deal's shuffle (seat 0 deals, M-4)."""
        return MayorState(config["mode"], config["deals"])

    def old_outcome(self, record: dict[str, Any], request: Shuffle) -> list[str] | None:
        """Reading replays written before chance went through the runner: the deck an old deal
        record's hands (as dealt, in packets) and reserve were dealt from."""
        hands, reserve, dealer = record.get("hands"), record.get("reserve"), record.get("dealer")
        if not isinstance(hands, list) or len(hands) != PLAYERS or not all(isinstance(h, list) for h in hands) \
                or not isinstance(reserve, list) or type(dealer) is not int:
            return None
        return dealt_deck(hands, reserve, dealer)

    def variants(self) -> list[dict[str, Any]]:
        """Both modes."""
        return [{"mode": mode} for mode in MODES]

    def describer(self) -> MayorDescriber:
        """The game's words and pictures for the viewers, `play` and the schema (referee_mayor/describe.py)."""
        from referee_mayor.describe import MayorDescriber  # rich only when something is told, not to play

        return MayorDescriber()
