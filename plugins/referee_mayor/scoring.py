"""Scoring a Mayor deal: the count or votes of the candidate's team against the threshold
(M-13, M-14), and the deal points for the standings (M-15)."""

from __future__ import annotations

from dataclasses import dataclass

from referee_mayor.cards import SPECIAL_SET, votes

BASIC, ADVANCED = "basic", "advanced"
MODES = (BASIC, ADVANCED)

#: M-13: cards needed by the candidate's team, with an ally / alone
BASIC_THRESHOLD = {False: 48, True: 33}
#: M-14: votes needed, by the number of Specials in the candidate team's pile (0..3)
ADVANCED_THRESHOLD = {False: (69, 71, 72, 73), True: (44, 46, 48, 50)}


def threshold(mode: str, specials: int, alone: bool) -> int:
    """What the candidate's team needs: M-13 (basic) or M-14 (advanced, by Specials captured)."""
    if mode == BASIC:
        return BASIC_THRESHOLD[alone]
    return ADVANCED_THRESHOLD[alone][specials]


def deal_points(won: bool, candidate: int, ally: int | None, players: int = 4) -> list[float]:
    """M-15: with an ally +2 / +1 / -1.5 each opponent; alone +3 / -1 each; a loss negates."""
    sign = 1 if won else -1
    if ally is None:
        points = [-1.0 * sign] * players
        points[candidate] = 3.0 * sign
    else:
        points = [-1.5 * sign] * players
        points[candidate] = 2.0 * sign
        points[ally] = 1.0 * sign
    return points


def number(x: float) -> int | float:
    """A point value as JSON likes it: 2 rather than 2.0, but -1.5 stays."""
    return int(x) if x == int(x) else x


@dataclass(frozen=True, slots=True)
class DealScore:
    """The end of a deal: what the candidate's team made, against what it needed."""

    made: int  # cards (basic) or votes (advanced), reserve discards included
    specials: int  # Specials in the candidate team's pile
    threshold: int
    won: bool


def score_deal(mode: str, pile: list[str], discards: list[str], alone: bool) -> DealScore:
    """Count (basic) or vote (advanced) the candidate team's pile plus the reserve discards."""
    specials = sum(1 for c in pile if c in SPECIAL_SET)
    made = len(pile) + len(discards) if mode == BASIC else votes(pile) + votes(discards)
    need = threshold(mode, specials, alone)
    return DealScore(made, specials, need, made >= need)
