"""The Player interface: what the match runner talks to, whoever decides for the seat.

Two adapters implement it: `StrategyPlayer` (an in-process strategy from a plugin) and
`referee.bots.player.SubprocessPlayer` (an external program speaking protocol v1).
A bot's misbehaviour is returned as a `Fault`, never raised.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.game import Action
from referee.protocol import RAW_CAP, Hello

FAULT_KINDS = ("timeout", "crash", "invalid", "illegal")


@dataclass(frozen=True, slots=True)
class Fault:
    """A bot's misbehaviour: kind (timeout, crash, invalid, illegal), what happened, the raw text."""

    kind: str
    detail: str
    raw: str = ""
    stderr_tail: str = ""

    def record(self) -> dict[str, str]:
        """The fault as written in a replay's move record."""
        return {"kind": self.kind, "detail": self.detail, "raw": self.raw[:RAW_CAP]}


@dataclass(frozen=True, slots=True)
class Reply:
    """A player's answer to `act`: an action, or a position in the legal list, or a fault; and
    the text a bot sent beside it for the replay (`debug`, capped: docs/protocol.md)."""

    action: Any = None
    index: int | None = None
    fault: Fault | None = None
    ms: float = 0.0
    debug: str | None = None


class Player(ABC):
    """One seat's decision maker for one match."""

    #: "strategy" or "command", as in the replay header
    kind: str = "strategy"

    def spawn(self) -> None:
        """Start what the player runs (a bot's process) without waiting for it: the runner
        spawns every seat's before it greets any, so that their start-up times overlap."""

    @abstractmethod
    def start(self, hello: Hello) -> Fault | None:
        """Introduce the match (hello/ready); a Fault if the player failed to start."""

    def stderr_log(self) -> Path | None:
        """The player's stderr log if something is in it yet (None: none, or nothing written)."""
        return None

    def announced(self) -> dict[str, str] | None:
        """What the player said about itself when it started (a bot's `ready`: name, and
        version and author if given), or None."""
        return None

    @abstractmethod
    def event(self, event: dict[str, Any]) -> None:
        """Tell the player something it may see just happened (never blocks on the player)."""

    @abstractmethod
    def act(self, id: int, obs: dict[str, Any], legal: list[Action], time_ms: int) -> Reply:
        """Ask for a decision; returns within the deadline with an action, an index or a fault.

        In a match with a time bank (Limits.bank_ms) the runner also passes `bank_ms=`: what of
        the bank the seat may draw on, the deadline being `time_ms + bank_ms`."""

    @abstractmethod
    def end(self, result: dict[str, Any]) -> None:
        """Tell the player the match is over."""

    def close(self) -> None:
        """Release every resource (processes, files); safe to call twice."""

    def listens(self) -> bool:
        """Whether `event` does anything; the runner skips events for a player that does not
        listen (asked once per match, before the first event)."""
        return True


class Strategy(ABC):
    """An in-process player's brain, one instance per seat per match.

    Built by a registered factory as `factory(game, seat, config, rng)`.
    """

    def __init__(self, game: str, seat: int, config: dict[str, Any], rng: random.Random) -> None:
        self.game = game
        self.seat = seat
        self.config = config
        self.rng = rng

    def event(self, event: dict[str, Any]) -> None:
        """Called for every event this seat may see; the default ignores them."""

    @abstractmethod
    def choose(self, obs: dict[str, Any], legal: list[Action]) -> int | Action:
        """The chosen action, or its index in `legal`."""


class StrategyPlayer(Player):
    """Adapter: a `Strategy` behind the Player interface. A raising strategy is a crash fault."""

    kind = "strategy"

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    def start(self, hello: Hello) -> Fault | None:
        return None

    def event(self, event: dict[str, Any]) -> None:
        self.strategy.event(event)

    def listens(self) -> bool:
        """False for a strategy that keeps the base no-op `Strategy.event`."""
        return type(self).event is not StrategyPlayer.event or type(self.strategy).event is not Strategy.event

    def act(self, id: int, obs: dict[str, Any], legal: list[Action], time_ms: int,
            bank_ms: int | None = None) -> Reply:
        # referee.runner inlines this for plain StrategyPlayers: keep the two in step
        started = time.perf_counter()
        try:
            choice = self.strategy.choose(obs, legal)
        except Exception as exc:  # a strategy plugin's bug must not stop the match
            return Reply(fault=Fault("crash", f"strategy raised {type(exc).__name__}: {exc}"))
        ms = (time.perf_counter() - started) * 1000.0
        return self.reply(choice, ms)

    @staticmethod
    def reply(choice: int | Action, ms: float) -> Reply:
        """A strategy's choice as a Reply: an int (not a bool) is an index, anything else an action."""
        if isinstance(choice, int) and not isinstance(choice, bool):
            return Reply(index=choice, ms=ms)
        return Reply(action=choice, ms=ms)

    def end(self, result: dict[str, Any]) -> None:
        pass
