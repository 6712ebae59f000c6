#!/usr/bin/env python3
"""A bot with simple game knowledge for Mau Mau, Presidente and Mayor (protocol v1, stdlib only).

It decides from each `act` alone (the observation and the legal list), like a stateless bot:
- Mau Mau: always announces (the legal actions carry the due "say"), keeps its Jacks for when
  nothing else fits, sheds its most expensive card, passes a 7 on, plays an 8 or a 7 against a
  next player about to go out, names the suit it holds most of.
- Presidente: goes out when it can, leads its lowest whole set, follows with the lowest set that
  beats the table without breaking a bigger one, keeps 8s, 2s, jokers and the 3 of clubs for when
  an opponent is about to go out, gives away its weakest cards as a Citizen.
- Mayor: calls the Mayor of its longest suit it does not hold, puts back its shortest suits,
  follows cheaply, wins with the cheapest winning card (low trumps), fattens a trick its partner
  is winning, throws its least valuable card otherwise, steals a rich trick with the Thief when
  it plays last, uses the Crane and a sure basic Casino once the piles are known, always counters.

It says why beside each action (`"debug"`: a short reason, kept in the replay and shown by the
viewers next to the move). It declares "reuse" in its ready: a tournament may play several
matches with one process, each starting with its own hello (the game and the PRNG are set up
again there); EOF ends it.

Run it: `referee play presidente -p "python3 bots/python/smart_bot.py" -p random -p random -p random`.
"""

import json
import random
import sys
import traceback

NAME = "smart_bot"
VERSION = "1.0"


def send(message):
    """Write one message as one line and flush it."""
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


# -- Mau Mau --------------------------------------------------------------------------------------

MAUMAU_POINTS = {r: (10 if r in "TJQKA" else int(r)) for r in "23456789TJQKA"}


def maumau(obs, legal, rng):
    hand = obs["hand"]
    suits = [c[1] for c in hand if c[0] != "J"]
    favourite = max("CDHS", key=lambda s: (suits.count(s), s == "H"))  # the suit we hold most of

    def with_suit(indices):
        """Of some plays, the one naming our favourite suit (for a Jack), else the first."""
        for i in indices:
            if legal[i].get("suit", favourite) == favourite:
                return i
        return indices[0]

    if "play" not in legal[0] and "suit" in legal[0]:  # the dealer names the suit of a Jack up-card
        return with_suit(range(len(legal))), f"name {favourite}: the suit I hold most of"
    plays = [i for i, a in enumerate(legal) if "play" in a]
    if not plays:
        return 0, "no card to play"  # draw, take the penalty, or pass: the only choice
    if obs["phase"] == "drawn" or obs["penalty"]:
        return with_suit(plays), "pass the 7 on" if obs["penalty"] else "play the card drawn"
    others = [i for i in plays if legal[i]["play"][0] != "J"]
    if not others:
        draw = next((i for i, a in enumerate(legal) if a.get("draw")), None)
        if draw is not None and len(hand) > 2:
            return draw, "draw: keep the Jack for an emergency"  # voluntary draw allowed
        return with_suit(plays), f"only a Jack fits: name {favourite}"
    threat = _next_player_cards(obs) <= 2

    def score(i):
        card = legal[i]["play"]
        value = 10 * MAUMAU_POINTS[card[0]] + 3 * sum(1 for c in hand if c[1] == card[1] and c != card)
        if card[0] in "87" and threat:
            value += 1000 if card[0] == "8" else 500  # skip or punish a player about to go out
        return value

    best = max(others, key=score)
    card = legal[best]["play"]
    if card[0] in "87" and threat:
        return best, f"{card} against the next player, {_next_player_cards(obs)} cards left"
    return best, f"shed {card}, worth {MAUMAU_POINTS[card[0]]} points"


def _next_player_cards(obs):
    active, seat = obs["active"], obs["seat"]
    if seat not in active or len(active) < 2:
        return 99
    nxt = active[(active.index(seat) + 1) % len(active)]
    return obs["counts"][nxt]


# -- Presidente -----------------------------------------------------------------------------------

PRESIDENTE_ORDER = "3456789TJQKA2X"  # normal strength, low to high (the 8 only clears)


def _presidente_power(card, revolution):
    """A card worth saving: an 8, a joker, the 3 of clubs, the top ordinary rank."""
    rank = card[0]
    return rank in "8X" or card == "3C" or rank == ("3" if revolution else "2")


def presidente(obs, legal, rng):
    hand = obs["hand"]
    if len(legal) == 1:
        return 0, "the only legal action"
    if obs["phase"] == "exchange":  # a Citizen's gift: the weakest card, not breaking a set if we can
        def badness(i):
            card = legal[i]["give"]
            if _presidente_power(card, False):
                return (1, -PRESIDENTE_ORDER.index(card[0]))
            return (0, PRESIDENTE_ORDER.index(card[0]) + (1.5 if sum(c[0] == card[0] for c in hand) > 1 else 0))

        return min(range(len(legal)), key=badness), "give my weakest card"

    revolution = obs["revolution"]
    plays = [i for i, a in enumerate(legal) if "play" in a]
    for i in plays:
        if len(legal[i]["play"]) == len(hand):
            return i, "go out"
    held = {}
    for c in hand:
        held[c[0]] = held.get(c[0], 0) + 1
    ordinary = [i for i in plays if not any(_presidente_power(c, revolution) for c in legal[i]["play"])]
    danger = any(n <= 2 for s, n in enumerate(obs["cards_left"]) if s != obs["seat"] and obs["places"][s] is None)
    if not obs["table"]:  # our lead: the weakest rank, all of it (legal lists weakest first)
        if ordinary:
            rank = legal[ordinary[0]]["play"][0][0]
            whole = [i for i in ordinary if legal[i]["play"][0][0] == rank]
            return max(whole, key=lambda i: len(legal[i]["play"])), "lead my weakest rank, all of it"
        return plays[0], "lead: only strong cards left"
    # following: the weakest play that breaks no bigger set, else any weakest ordinary one
    whole = [i for i in ordinary if held[legal[i]["play"][0][0]] == len(legal[i]["play"])]
    if whole:
        return whole[0], "the weakest play that breaks no set"
    if ordinary and (len(hand) <= 6 or danger):
        return ordinary[0], "few cards left, or someone is about to go out"
    if danger or len(hand) <= 3:
        power = [i for i in plays if i not in ordinary]
        if power:
            return power[0], "a strong card: someone is about to go out"
    return next(i for i, a in enumerate(legal) if a.get("pass")), "pass: keep my cards"


# -- Mayor ----------------------------------------------------------------------------------------

MAYOR_RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "P", "F", "D", "M")
MAYOR_VOTES = {"P": 2, "F": 3, "D": 4, "M": 5}
SPECIALS = ("THIEF", "CASINO", "CRANE")
STOPPERS = ("RP", "YP", "BP", "GP", "T1")


def mayor_suit(card):
    """"R".."G" for suit cards, "T" for Buildings, "" for Specials."""
    return "" if card in SPECIALS else card[0]


def mayor_rank(card):
    if card in SPECIALS:
        return 0
    if card[0] == "T":
        return int(card[1:])
    return MAYOR_RANKS.index(card[1:]) + 1


def mayor_votes(card):
    if card in SPECIALS or card[0] == "T":
        return 1
    return MAYOR_VOTES.get(card[1:], 1)


def _power(card, led):
    """How strongly a card contends for the trick: Buildings above the suit led; -1: cannot win."""
    s = mayor_suit(card)
    if s == "T":
        return 100 + mayor_rank(card)
    if s and s == led:
        return mayor_rank(card)
    return -1


def mayor(obs, legal, rng):
    phase = obs["phase"]
    hand = obs["hand"]
    if phase == "counter":
        return 0, "counter the Thief"  # a Policeman or T1 stops the Thief: always counter (the pass is last)
    if phase == "call":
        def call_value(i):
            s = legal[i]["call"]
            return (s + "M" not in hand, sum(1 for c in hand if mayor_suit(c) == s))

        return max(range(len(legal)), key=call_value), "call the Mayor of my longest suit I lack"
    if phase == "discard":
        length = {s: sum(1 for c in hand if mayor_suit(c) == s) for s in "RYBGT"}
        advanced = obs["mode"] == "advanced"

        def keep(i):  # lower: put back first (short suits, to trump later; then valuable cards)
            card = legal[i]["discard"]
            s = mayor_suit(card)
            return (s == "T", length[s], -mayor_votes(card) if advanced else mayor_rank(card))

        return min(range(len(legal)), key=keep), "put back a short suit"
    return _mayor_play(obs, legal)


def _mayor_play(obs, legal):
    seat, advanced = obs["seat"], obs["mode"] == "advanced"
    trick, seats, led = obs["trick_cards"], obs["trick_seats"], obs["led"]
    partners = _partners(obs)
    cards = [a["play"] for a in legal]
    best, winner = -1, None
    for s, c in zip(seats, trick):
        if _power(c, led) > best:
            best, winner = _power(c, led), s
    last = len(trick) == 3
    special = {c: i for i, c in enumerate(cards) if c in SPECIALS}
    piles = obs.get("piles")
    if piles is not None and "teams" in obs:
        theirs = piles["opposition" if obs["teams"][seat] == 0 else "candidate"]
        if "CRANE" in special and theirs:
            return special["CRANE"], "the Crane: take from their pile"
        if not advanced and theirs and "CASINO" in cards:
            sure = next((i for i, a in enumerate(legal) if a.get("name") == theirs[-1]), None)
            if sure is not None:
                return sure, "a sure Casino: their top card"
    if "THIEF" in special and last and winner is not None and winner not in partners \
            and not any(c in STOPPERS for c in trick) and (partners or obs["revealed"]):
        return special["THIEF"], "steal the trick, playing last"
    options = [i for i, c in enumerate(cards) if c not in SPECIALS]
    if not options:
        return 0
    keep_mayor = obs["called"] and obs["called"] + "M"  # the ally's Mayor: keep it for a safe trick

    def cost(i):
        c = cards[i]
        return (c == keep_mayor, mayor_votes(c) if advanced else 0, mayor_suit(c) == "T", mayor_rank(c))

    if not trick:
        return _mayor_lead(obs, cards, options, keep_mayor)
    if winner is not None and winner in partners and (last or best >= 115):
        # our side takes this trick: fatten it (advanced: votes count) without wasting trumps
        fat = [i for i in options if mayor_suit(cards[i]) != "T" and cards[i] != keep_mayor and _power(cards[i], led) <= best]
        if fat and advanced:
            richest = max(fat, key=lambda i: (mayor_votes(cards[i]), -mayor_rank(cards[i])))
            return richest, "fatten my side's trick"
        return min(options, key=cost), "my side takes it: play cheap"
    winning = [i for i in options if _power(cards[i], led) > best]
    if winning:
        return min(winning, key=lambda i: (cards[i] == keep_mayor, _power(cards[i], led))), "the cheapest winning card"
    return min(options, key=cost), "cannot win it: throw my cheapest"


def _mayor_lead(obs, cards, options, keep_mayor):
    """Lead the highest Building if none higher is still out (a sure winner that draws trumps),
    else a low card of our longest suit."""
    gone = set(obs["played_cards"]) | set(obs["hand"])
    buildings = [i for i in options if mayor_suit(cards[i]) == "T"]
    if buildings:
        top = max(buildings, key=lambda i: mayor_rank(cards[i]))
        if all(f"T{n}" in gone for n in range(mayor_rank(cards[top]) + 1, 20)):
            return top, "lead the highest Building still out"
    length = {s: sum(1 for c in obs["hand"] if mayor_suit(c) == s) for s in "RYBG"}
    suited = [i for i in options if mayor_suit(cards[i]) in length and cards[i] != keep_mayor]
    if suited:
        lead = min(suited, key=lambda i: (-length[mayor_suit(cards[i])], mayor_votes(cards[i]), mayor_rank(cards[i])))
        return lead, "lead low from my longest suit"
    return min(options, key=lambda i: mayor_rank(cards[i])), "lead my lowest card"


def _partners(obs):
    """The seats this seat knows to be on its side."""
    seat = obs["seat"]
    if "teams" in obs:
        return {s for s, t in enumerate(obs["teams"]) if t == obs["teams"][seat] and s != seat}
    if obs["role"] == "ally":
        return {obs["candidate"]}
    if obs["role"] == "candidate" and obs["ally"] is not None:
        return {obs["ally"]}
    return set()


GAMES = {"maumau": maumau, "presidente": presidente, "mayor": mayor}


def choose(game, obs, legal, rng):
    """The index of our action in `legal` (see `decide`)."""
    return decide(game, obs, legal, rng)[0]


def decide(game, obs, legal, rng):
    """The index of our action in `legal` and why (shown beside the move in the replay): the
    game's heuristic (an index, or an index and its reason), or a random one if we know no
    better (an unknown game, or a bug of ours: logged to stderr, never a fault)."""
    play = GAMES.get(game)
    if play is not None:
        try:
            chosen = play(obs, legal, rng)
            index, why = chosen if isinstance(chosen, tuple) else (chosen, "")
            if 0 <= index < len(legal):
                return index, why
        except Exception:
            traceback.print_exc(file=sys.stderr)
    return rng.randrange(len(legal)), "at random"


def main():
    rng = random.Random(0)
    game = None
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "hello":
            # a new match (the same process may play several: "reuse"): set up afresh
            game = message.get("game")
            rng = random.Random(f"{message.get('match')}/{message.get('seat')}")
            send({"type": "ready", "name": NAME, "version": VERSION, "reuse": True})
        elif kind == "act":
            index, why = decide(game, message["obs"], message["legal"], rng)
            reply = {"type": "action", "id": message["id"], "index": index}
            if why:
                reply["debug"] = why  # kept in the replay beside the move (docs/protocol.md)
            send(reply)
        # "end": the match is over; the next hello, if any, starts another (EOF: we are done)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
