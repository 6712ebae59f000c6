"""A test player that breaks the rules on cue, for the tests of faults in replays and viewers."""

from __future__ import annotations

import random

from referee.players import Fault, Player, Reply, StrategyPlayer
from referee_strategies.basic import RandomLegal


class Misbehaving(Player):
    """Plays randomly, except: its `bad`-th decision and each decision in `at` (1-based) are
    answered with an action no game accepts (an illegal fault), or with a crash fault when
    `crash` is set; `hello` is the fault it answers the hello with (None: none)."""

    def __init__(self, game: str, seat: int, config: dict, bad: int = 0, *, at=(), crash: bool = False,
                 hello: Fault | None = None) -> None:
        self.inner = StrategyPlayer(RandomLegal(game, seat, config, random.Random(seat)))
        self.at = set(at) | ({bad} if bad else set())
        self.crash, self.hello, self.asked = crash, hello, 0

    def start(self, hello):
        return self.hello

    def event(self, event):
        pass

    def act(self, id, obs, legal, time_ms):
        self.asked += 1
        if self.asked in self.at:
            return Reply(fault=Fault("crash", "the bot exited")) if self.crash else Reply(action={"cheat": True})
        return self.inner.act(id, obs, legal, time_ms)

    def end(self, result):
        pass
