"""Bot processes kept alive between matches (docs/protocol.md, "Reusing a bot process").

A bot that declares `"reuse": true` in its `ready` and is leased from a `BotPool` keeps its
stdin open after a clean `end`; the pool then hands the same process to a later match
(`SubprocessPlayer.rebind`: its stderr drain re-pointed to that match's log), whose `start` only
sends hello. Everything per match (ids, stats, the announced name) is reset there; what makes
the process (argv, cwd, env, limits, sandbox, scratch) stays. A kept process that fails its next
hello is replaced by a fresh one, no fault of the match. The fairness rules are `BotPool`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Hashable, Mapping, Sequence

from referee.bots.family import Snapshot
from referee.bots.player import SubprocessPlayer
from referee.players import Player


class BotPool:
    """Bot processes kept alive between matches, so that a bot that declared reuse is not
    started for every match ("Reusing a bot process", docs/protocol.md). One per tournament
    worker process; a key names everything that makes a process (its entrant, command line,
    working directory, environment, limits, sandbox), and only a process of the same key plays
    a seat.

    Fairness: a process never plays the same deal twice (`seat`'s `deal`, (game, seed): the
    seatings of a duplicate set go to different processes), never sits at two seats at once (a
    leased process is out of the pool until its match is closed), and is kept only after a
    clean match (`SubprocessPlayer.keepable`: no fault of its seat, no conduct note; and
    nothing on its stdout after `end`, no other process beside it) for at most `max_matches`
    matches. Every other process ends as without reuse: stdin closed after `end`.

    A key's first item names its entrant; `deals`, where given, holds every deal an entrant
    plays in the run: a process that has played them all could play nothing more, and is ended
    at once instead of waiting idle (its memory, and the check that it runs alone, spared).
    """

    def __init__(self, size: int, max_matches: int, deals: Mapping[str, Collection[Hashable]] | None = None) -> None:
        #: processes kept idle per key (the oldest beyond it is ended)
        self.size = max(1, size)
        #: the most matches one process plays
        self.max_matches = max_matches
        #: per entrant, every deal it plays in the run, where known
        self.deals = dict(deals or {})
        #: seats given a fresh process and seats given a kept one, so far
        self.started = 0
        self.reused = 0
        self._idle: dict[Hashable, list[SubprocessPlayer]] = {}  # per key, the longest idle first
        self._leased: set[SubprocessPlayer] = set()
        self._retiring: list[SubprocessPlayer] = []  # told EOF, given end_grace_ms to exit
        # the seats leased for one match, and whether each runs alone, found for all of them
        # in one pass over /proc when the first is given back (a pass costs milliseconds)
        self._groups: dict[SubprocessPlayer, list[SubprocessPlayer]] = {}
        self._verdicts: dict[SubprocessPlayer, bool] = {}

    def seat(self, players: list[Player], keys: Sequence[Hashable | None], deal: Hashable) -> list[Player]:
        """`players` (none started yet), each subprocess seat whose key is not None played by
        an idle process of that key that has not played `deal` if there is one (it logs into
        the fresh player's log), else by its fresh player; both are leased until closed."""
        self._reap()
        seated = list(players)
        group: list[SubprocessPlayer] = []
        for i, (player, key) in enumerate(zip(players, keys)):
            if key is None or not isinstance(player, SubprocessPlayer):
                continue
            kept = self._take(key, deal, player)
            if kept is not None:
                kept.transcript, kept.hide = player.transcript, player.hide  # this match's
                seated[i] = kept
                self.reused += 1
            else:
                self.started += 1
            chosen = seated[i]
            assert isinstance(chosen, SubprocessPlayer)
            chosen.deal = deal
            chosen.reuse = self.max_matches
            chosen.keeper = functools.partial(self._give_back, key)
            self._leased.add(chosen)
            self._verdicts.pop(chosen, None)
            self._groups[chosen] = group
            group.append(chosen)
        return seated

    def _take(self, key: Hashable, deal: Hashable, fresh: SubprocessPlayer) -> SubprocessPlayer | None:
        """The longest idle process of `key` that has not played `deal`, made ready for the match
        of `fresh`; those found unable to play on the way are ended."""
        idle = self._idle.get(key)
        k = 0
        while idle and k < len(idle):
            candidate = idle[k]
            if deal in candidate.seen:
                k += 1
                continue
            del idle[k]
            if candidate.rebind(fresh.log_path):
                return candidate
            self._retire(candidate)
        return None

    def _give_back(self, key: Hashable, player: SubprocessPlayer) -> bool:
        """A leased player's close: True if the pool keeps it (a kept process running alone)."""
        self._leased.discard(player)
        group = self._groups.pop(player, [player])
        if not player.kept:
            return False  # it closes as usual
        every = self.deals.get(key[0]) if isinstance(key, tuple) and key else None
        if every is not None and player.seen.issuperset(every):
            self._retire(player)  # spent: ended as the oldest idle one is, without waiting for it
            self._reap()
            return True
        if not self._alone(player, group):
            return False
        idle = self._idle.setdefault(key, [])
        idle.append(player)
        while len(idle) > self.size:
            self._retire(idle.pop(0))
        self._reap()
        return True

    def _alone(self, player: SubprocessPlayer, group: list[SubprocessPlayer]) -> bool:
        """Whether a kept `player` runs alone (`SubprocessPlayer.alone`), found with the others
        of its match still leased and kept in one pass over /proc, their verdicts kept for when
        they are given back (right after, as the match closes its seats in turn)."""
        verdict = self._verdicts.pop(player, None)
        if verdict is not None:
            return verdict
        others = [p for p in group if p is not player and p in self._leased and p.kept]
        starts = [s for p in (player, *others) if (s := p.started_at) is not None]
        snapshot = Snapshot(min(starts)) if starts else None
        for other in others:
            self._verdicts[other] = other.alone(snapshot)
        return player.alone(snapshot)

    def _retire(self, player: SubprocessPlayer) -> None:
        player.hang_up()
        self._retiring.append(player)

    def _reap(self, wait: bool = False) -> None:
        """Close the retired processes that exited or whose grace is over (with `wait`: all)."""
        left = []
        for player in self._retiring:
            if wait or player.settled():
                player.close()
            else:
                left.append(player)
        self._retiring = left

    def idle(self) -> int:
        """How many processes are kept idle."""
        return sum(len(v) for v in self._idle.values())

    def close(self, grace: bool = True) -> None:
        """End every process of the pool: EOF to each, then (with `grace`) up to end_grace_ms
        to exit, all at once, before what runs is killed. Never raises."""
        players = [p for idle in self._idle.values() for p in idle] + list(self._leased)
        self._idle.clear()
        self._leased.clear()
        self._groups.clear()
        self._verdicts.clear()
        for player in players:
            try:
                player.hang_up(grace)
            except Exception:
                pass
            self._retiring.append(player)
        for player in self._retiring:
            try:
                player.keeper = None
                player.close()
            except Exception:
                pass
        self._retiring = []
