"""Mayor's 78 cards: codes (C-3), suits, ranks, votes (M-14) and the one strength order (C-4).

Everything is precomputed into dicts keyed by card code, so the rules look a card's
attributes up instead of parsing strings on every decision.
"""

from __future__ import annotations

SUITS = "RYBG"  # Red, Yellow, Blue, Green; also the C-4 tie order R < Y < B < G
RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "P", "F", "D", "M")  # M-7 order
BUILDING = "T"  # the "suit" of Buildings when they are led (M-5)

THIEF, CASINO, CRANE = "THIEF", "CASINO", "CRANE"
SPECIALS = (THIEF, CASINO, CRANE)  # C-4: THIEF < CASINO < CRANE
TOWN_HALL = "T19"
PRISON = "T1"  # M-12: the Prison is Building 1

SUIT_CARDS = tuple(s + r for s in SUITS for r in RANKS)
BUILDINGS = tuple(f"T{n}" for n in range(1, 20))
#: the canonical deck order (also the order hands are shown in)
DECK = SUIT_CARDS + BUILDINGS + SPECIALS
MAYORS = tuple(s + "M" for s in SUITS)
POLICEMEN = tuple(s + "P" for s in SUITS)

#: M-1: the reserve never holds these; M-3: the candidate may not put them back
NOT_IN_RESERVE = frozenset(MAYORS + SPECIALS + (TOWN_HALL,))
#: M-12: a card of these in the trick stops the Thief
STOPPERS = frozenset(POLICEMEN + (PRISON,))
SPECIAL_SET = frozenset(SPECIALS)

_VOTES_BY_RANK = {"P": 2, "F": 3, "D": 4, "M": 5}

#: the suit of a card: "R"/"Y"/"B"/"G", "T" for a Building, "" for a Special
SUIT: dict[str, str] = {}
#: the rank of a card within its kind: 1..14 for suit cards (1 < ... < 10 < P < F < D < M),
#: 1..19 for Buildings, 0..2 for Specials
RANK: dict[str, int] = {}
#: M-14 votes
VOTES: dict[str, int] = {}
for _s in SUITS:
    for _i, _r in enumerate(RANKS, start=1):
        _c = _s + _r
        SUIT[_c], RANK[_c], VOTES[_c] = _s, _i, _VOTES_BY_RANK.get(_r, 1)
for _i, _c in enumerate(BUILDINGS, start=1):
    SUIT[_c], RANK[_c], VOTES[_c] = BUILDING, _i, 1
for _i, _c in enumerate(SPECIALS):
    SUIT[_c], RANK[_c], VOTES[_c] = "", _i, 1


def _c4_key(card: str) -> tuple[int, int, int, int]:
    # C-4: votes; then Specials < suit cards < Buildings; then number/rank; then suit R<Y<B<G
    suit = SUIT[card]
    kind = 0 if suit == "" else 2 if suit == BUILDING else 1
    return (VOTES[card], kind, RANK[card], SUITS.index(suit) if kind == 1 else 0)


#: C-4 strength as one int per card: higher is stronger
STRENGTH: dict[str, int] = {c: i for i, c in enumerate(sorted(DECK, key=_c4_key))}
#: position in the canonical deck order, for sorting hands
ORDER: dict[str, int] = {c: i for i, c in enumerate(DECK)}

assert len(DECK) == 78 and len(set(DECK)) == 78
assert sum(VOTES.values()) == 118  # M-14


def sort_cards(cards: list[str]) -> list[str]:
    """The cards in canonical deck order (suits R, Y, B, G by rank, Buildings, Specials)."""
    return sorted(cards, key=ORDER.__getitem__)


def strongest(cards: list[str]) -> str:
    """The C-4 strongest card ("the most votes", ties broken by C-4)."""
    return max(cards, key=STRENGTH.__getitem__)


def weakest(cards: list[str]) -> str:
    """The C-4 weakest card ("the fewest votes", ties broken by C-4)."""
    return min(cards, key=STRENGTH.__getitem__)


def votes(cards) -> int:
    """The M-14 votes of some cards."""
    return sum(map(VOTES.__getitem__, cards))
