"""A test player that breaks the rules on cue, for the tests of faults in replays and viewers."""

from __future__ import annotations

import random

from referee.players import Player, Reply, StrategyPlayer
from referee_strategies.basic import RandomLegal


class Misbehaving(Player):
    """Answers its `bad`-th decision with an action no game accepts (an illegal fault); otherwise
    plays randomly. `bad` 0: never."""

    def __init__(self, game: str, seat: int, config: dict, bad: int) -> None:
        self.inner = StrategyPlayer(RandomLegal(game, seat, config, random.Random(seat)))
        self.bad, self.asked = bad, 0

    def start(self, hello):
        return None

    def event(self, event):
        pass

    def act(self, id, obs, legal, time_ms):
        self.asked += 1
        if self.asked == self.bad:
            return Reply(action={"cheat": True})
        return self.inner.act(id, obs, legal, time_ms)

    def end(self, result):
        pass
