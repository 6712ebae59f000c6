#!/usr/bin/env python3
"""Attack: learn what other seats hid from what the referee tells this seat anyway (issue 25).

`actids` (Mayor): act ids used to count every seat's decisions, so the gap between two of this
bot's ids, less the decisions it was told of (events), was the number of hidden ones: Mayor's
counter-offer passes (M-12, told to nobody). Each Thief played after the reveal, with no
counter played, is a question: how many of the Thief's opponents still to play hold a
Policeman or T1? The gap answers it; the rest of the deal (every card of a hand is played)
tells the truth. WON when the gaps answered right more often than the best constant guess.

`endlog` (any game): the `end` message's fault log gave every seat the faulting seat's
legal actions (cards of its hand), raw text, stderr and detail. WON when an entry of another
seat holds more than its seat, deal and kind.

Plays random legal moves; reports each attack at `end` (`ATTACK <name> WON|HELD <detail>`).
"""

import json
import random
import sys

STOPPERS = {"RP", "YP", "BP", "GP", "T1"}
DECISIONS = {"called", "discarded", "played"}  # the events that each stand for one decision


def report(name, success, detail):
    sys.stderr.write(f"ATTACK {name} {'WON' if success else 'HELD'} {detail}\n")
    sys.stderr.flush()


class Spy:
    def __init__(self):
        self.seat = None
        self.last_id = None
        self.seen = 0  # other seats' decisions told since the last act
        # each question: [deal, the seats asked, how many passed (the gap's answer), how many held
        # a stopper (the truth, at the deal's end), those of them seen playing one since]
        self.questions = []
        self.window = []  # the questions met since the last act
        self.deal = 0
        self.mayor = None  # the called Mayor of this deal
        self.revealed = False
        self.team = {}  # seat -> 0 (candidate's team) / 1, once revealed
        self.trick = []  # seats that played in this trick
        self.stopped = False  # a stopper is in this trick: no counter offer (M-12)

    def hello(self, msg):
        self.__init__()
        self.seat = msg["seat"]
        self.players = msg["players"]

    def event(self, ev):
        kind = ev.get("kind")
        if kind in DECISIONS and ev.get("seat") != self.seat:
            self.seen += 1
        if kind == "deal":
            self.close_deal()
            self.deal, self.revealed, self.team, self.trick, self.stopped = ev["deal"], False, {}, [], False
        elif kind == "called":
            self.mayor = ev["suit"] + "M"
        elif kind == "ally_revealed":
            self.revealed = True
            ally, cand = ev["seat"], ev["candidate"]
            self.team = {s: 0 if s in (ally, cand) else 1 for s in range(self.players)}
        elif kind == "played":
            seat, card = ev["seat"], ev["card"]
            self.trick.append(seat)
            if card in STOPPERS:
                self.stopped = True
                for q in self.questions:
                    if q[0] == self.deal and seat in q[1]:
                        q[4].add(seat)  # it held one when asked (hands only shrink)
                if ev.get("counter"):
                    for q in self.window:
                        q[1].clear()  # a counter was played: the question is answered in public
            if card == "THIEF" and self.revealed and not self.stopped:
                # the Thief's opponents still to play: each holding a stopper is asked (M-12)
                asked = {s for s in range(self.players) if s not in self.trick and self.team[s] != self.team[seat]}
                if asked and self.seat not in asked:  # (this bot would be asked itself: no question)
                    q = [self.deal, asked, None, None, set()]
                    self.questions.append(q)
                    self.window.append(q)
        elif kind == "trick":
            self.trick, self.stopped = [], False

    def choose(self, msg, rng):
        """A legal index: the called Mayor at once (the reveal), then the Thief while it may be
        countered (more questions), else a random card (a Casino only when nothing else goes)."""
        legal = msg["legal"]
        plays = [a.get("play") for a in legal]
        if self.mayor in plays:
            return plays.index(self.mayor)
        if "THIEF" in plays and self.revealed and not self.stopped and len(self.trick) < self.players - 1:
            return plays.index("THIEF")
        cards = [k for k, a in enumerate(legal) if "name" not in a]
        return rng.choice(cards) if cards else rng.randrange(len(legal))

    def act(self, msg):
        if self.last_id is not None:
            hidden = max(0, msg["id"] - self.last_id - 1 - self.seen)
            for q in self.window:
                q[2] = hidden  # the gap's answer: how many of them passed, holding a stopper
        self.window, self.seen, self.last_id = [], 0, msg["id"]

    def close_deal(self):
        for q in self.questions:
            if q[0] == self.deal and q[3] is None:
                q[3] = len(q[4])

    def end(self, result):
        self.close_deal()
        asked = [q for q in self.questions if q[1] and q[2] is not None and q[3] is not None]
        right = sum(q[2] == q[3] for q in asked)
        truths = [q[3] for q in asked]
        baseline = max((truths.count(t) for t in set(truths)), default=0)
        positives = sum(t > 0 for t in truths)
        detail = f"questions={len(asked)} positives={positives} right={right} baseline={baseline}"
        report("actids", right > baseline, detail)
        leaked = [f for f in result.get("fault_log", []) if f.get("seat") != self.seat
                  and set(f) - {"seat", "deal", "kind"}]
        if leaked:
            f = leaked[0]
            more = {k: f[k] for k in sorted(set(f) - {"seat", "deal", "kind"})}
            report("endlog", True, f"seat {f['seat']}'s fault: {json.dumps(more)[:300]}")
        else:
            others = sum(f.get("seat") != self.seat for f in result.get("fault_log", []))
            report("endlog", False, f"others' faults={others}: seat, deal and kind only")


def main():
    spy = Spy()
    rng = None
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        kind = msg.get("type")
        if kind == "hello":
            spy.hello(msg)
            rng = random.Random(f"{msg['match']}/{msg['seat']}")
            sys.stdout.write(json.dumps({"type": "ready", "name": "actids"}) + "\n")
        elif kind == "event":
            spy.event(msg["event"])
        elif kind == "act":
            spy.act(msg)
            sys.stdout.write(json.dumps({"type": "action", "id": msg["id"], "index": spy.choose(msg, rng)}) + "\n")
        elif kind == "end":
            spy.end(msg["result"])
            break
        sys.stdout.flush()


main()
