"""MayorGreedy: a sensible Mayor player that decides from its observation alone.

- Call: the Mayor of its weakest long suit (most cards, fewest honours) that it does not
  hold; with a hand full of Buildings and a Mayor of its own it plays alone.
- Discard: points it cannot protect (advanced: Doctors, Firemen... below a Mayor it lacks),
  then cards of its shortest suits (voids let it trump); Buildings last.
- Play: fattens a trick its team surely wins, otherwise wins it as cheaply as it can (lowest
  winning card, low trumps), otherwise throws its least valuable card; uses the Thief on a rich
  trick it is losing (last to play, no Policeman in it), the Crane and a sure Casino once the
  piles are known, an advanced Casino on an unseen Mayor; always counters a Thief.
Only the observation is used (team knowledge as the seat has it: M-9).
"""

from __future__ import annotations

from referee.players import Strategy

SUITS = "RYBG"
_RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "P", "F", "D", "M")
_VOTES = {"P": 2, "F": 3, "D": 4, "M": 5}
SPECIALS = ("THIEF", "CASINO", "CRANE")
STOPPERS = {"RP", "YP", "BP", "GP", "T1"}


def suit(card: str) -> str:
    """"R".."G" for suit cards, "T" for Buildings, "" for Specials."""
    if card in SPECIALS:
        return ""
    return card[0]


def rank(card: str) -> int:
    """1..14 within a suit (1 < ... < 10 < P < F < D < M), 1..19 for Buildings, 0 for Specials."""
    if card in SPECIALS:
        return 0
    if card[0] == "T":
        return int(card[1:])
    return _RANKS.index(card[1:]) + 1


def votes(card: str) -> int:
    """M-14 votes."""
    if card in SPECIALS or card[0] == "T":
        return 1
    return _VOTES.get(card[1:], 1)


def strength(card: str) -> tuple[int, int, int, int]:
    """C-4 strength (votes, kind, rank, suit)."""
    s = suit(card)
    kind = 0 if s == "" else 2 if s == "T" else 1
    return (votes(card), kind, rank(card), SUITS.index(s) if kind == 1 else 0)


def beats(card: str, led: str | None) -> int:
    """How strongly `card` contends for the trick (M-7); -1 if it cannot win it."""
    s = suit(card)
    if s == "T":
        return 100 + rank(card)
    if s and s == led:
        return rank(card)
    return -1


class MayorGreedy(Strategy):
    """A greedy Mayor player (see the module docstring)."""

    def choose(self, obs, legal):
        phase = obs["phase"]
        if phase == "call":
            return self._call(obs, legal)
        if phase == "discard":
            return self._discard(obs, legal)
        if phase == "counter":
            plays = [a for a in legal if "play" in a]
            if plays:
                return min(plays, key=lambda a: strength(a["play"]))  # T1 before a Policeman
            return legal[0]
        return self._play(obs, legal)

    # -- call and discard ----------------------------------------------------------------------

    def _call(self, obs, legal):
        hand = obs["hand"]
        buildings = [c for c in hand if suit(c) == "T"]
        own = [s for s in SUITS if s + "M" in hand]
        if own and len(buildings) >= 11:
            return {"call": own[0]}  # strong enough to play alone (+3)
        best, best_key = None, None
        for s in SUITS:
            if s + "M" in hand:
                continue
            cards = [c for c in hand if suit(c) == s]
            honours = sum(votes(c) for c in cards)
            key = (len(cards), -honours)
            if best_key is None or key > best_key:
                best, best_key = s, key
        return {"call": best if best is not None else own[0]}

    def _discard(self, obs, legal):
        hand = obs["hand"]
        advanced = obs["mode"] == "advanced"
        length = {s: sum(1 for c in hand if suit(c) == s) for s in SUITS}

        def score(action):
            card = action["discard"]
            s = suit(card)
            if s == "T":
                return (-1, -rank(card), 0)  # Buildings win tricks: keep them
            higher = [s + r for r in _RANKS[rank(card):]]
            protected = all(h in hand for h in higher)
            points = votes(card) if advanced and not protected else 0
            return (points, 14 - length[s], -rank(card))

        return max(legal, key=score)

    # -- play ----------------------------------------------------------------------------------

    def _friend(self, obs, seat):
        """True/False if this seat knows whether `seat` is a teammate, None if it does not."""
        me = obs["seat"]
        if seat == me:
            return True
        teams = obs.get("teams")
        if teams is not None:
            return teams[seat] == teams[me]
        role, cand = obs["role"], obs["candidate"]
        if role == "ally":
            return seat == cand
        if role == "candidate":
            return False if obs["alone"] else None
        return False if seat == cand else None

    def _play(self, obs, legal):
        advanced = obs["mode"] == "advanced"
        led = obs["led"]
        trick, seats = obs["trick_cards"], obs["trick_seats"]
        real = [a for a in legal if a["play"] not in SPECIALS]
        specials = {a["play"] for a in legal if a["play"] in SPECIALS}
        to_come = 3 - len(trick)

        # the trick so far
        winner, win_key = None, -1
        for s, c in zip(seats, trick):
            k = beats(c, led)
            if k > win_key:
                winner, win_key = s, k
        friend_wins = winner is not None and self._friend(obs, winner) is True
        stopped = any(c in STOPPERS for c in trick)
        trick_value = sum(votes(c) for c in trick if suit(c))

        special = self._special(obs, legal, specials, winner, friend_wins, stopped, trick_value, to_come, real)
        if special is not None:
            return special
        if not real:
            return legal[0]

        def value(a):
            return strength(a["play"])

        if not trick or led is None:
            return self._lead(obs, real)
        winners = [a for a in real if beats(a["play"], led) > win_key]
        if friend_wins and (to_come == 0 or win_key >= 100 + 15):
            # the trick is ours: fatten it (advanced) or keep strong cards (basic)
            if advanced:
                return max(real, key=lambda a: (votes(a["play"]), suit(a["play"]) != "T", -rank(a["play"])))
            return min(real, key=value)
        if winners:
            return min(winners, key=lambda a: beats(a["play"], led))  # win as cheaply as possible
        return min(real, key=value)  # cannot win: throw the least valuable card

    def _lead(self, obs, real):
        hand = obs["hand"]
        gone = set(obs["played_cards"]) | set(hand)
        # the highest Building still out is a sure winner and draws the others' trumps
        buildings = [a for a in real if suit(a["play"]) == "T"]
        if buildings:
            top = max(buildings, key=lambda a: rank(a["play"]))
            if all(f"T{n}" in gone for n in range(rank(top["play"]) + 1, 20)):
                return top
        # else a low card of the longest suit
        length = {s: sum(1 for c in hand if suit(c) == s) for s in SUITS}
        suited = [a for a in real if suit(a["play"]) in SUITS]
        if suited:
            return min(suited, key=lambda a: (-length[suit(a["play"])], strength(a["play"])))
        return min(real, key=lambda a: rank(a["play"]))

    def _special(self, obs, legal, specials, winner, friend_wins, stopped, trick_value, to_come, real):
        if not specials:
            return None
        advanced = obs["mode"] == "advanced"
        hand_left = len(obs["hand"])
        piles = obs.get("piles")
        teams = obs.get("teams")
        me = obs["seat"]
        if "THIEF" in specials and winner is not None and not friend_wins and not stopped \
                and to_come == 0 and trick_value >= (4 if advanced else 3):
            return {"play": "THIEF"}
        if piles is not None and teams is not None:
            mine = "candidate" if teams[me] == 0 else "opposition"
            theirs = piles["opposition" if mine == "candidate" else "candidate"]
            if "CASINO" in specials and not advanced and theirs and theirs[-1] not in obs["hand"]:
                return {"play": "CASINO", "name": theirs[-1]}
            if "CRANE" in specials and theirs:
                top = theirs[-1:] if advanced else theirs[-2:]
                if sum(votes(c) for c in top) >= (3 if advanced else 2):
                    return {"play": "CRANE"}
        if "CASINO" in specials and advanced:
            own = [c for c in obs["hand"] if suit(c) and c != obs["called"] + "M"]
            if own and min(votes(c) for c in own) == 1:
                seen = set(obs["played_cards"]) | set(obs["trick_cards"]) | set(obs["hand"]) \
                    | set(obs.get("discards", []))
                names = {a["name"] for a in legal if a.get("play") == "CASINO"}
                wanted = [c for c in names if c not in seen and votes(c) >= 4]
                if wanted:
                    return {"play": "CASINO", "name": max(wanted, key=strength)}
        # with nothing better to do, a Special beats giving points to the other team
        if real and not friend_wins and winner is not None:
            worst = min(strength(a["play"]) for a in real)
            if worst[0] >= 3 or hand_left <= len(specials):
                for name in ("CRANE", "THIEF"):
                    if name in specials and (name != "THIEF" or not stopped):
                        return {"play": name}
        if not real:
            if "CASINO" in specials:
                return next(a for a in legal if a["play"] == "CASINO")
            return {"play": sorted(specials)[0]}
        return None
