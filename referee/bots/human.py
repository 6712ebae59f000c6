"""A seat played by a person at the terminal (`referee play GAME -p human ...`).

So that a bot's author can play against it: at each decision the seat's observation is shown
(its hand, the table, the scores: every field the game gives the seat, nothing more: a human
sees exactly what a bot in the seat would), in the game's words as the viewers show them (cards
in their styles, seats by name), then the legal actions numbered; the person types a number. A
decision with one legal action is played for them, with a line saying so. Events (what the
others played, the deal, its scores) are printed as they happen; the other seats go by the
names their bots gave in `ready`. No clock: a person takes the time they need (the seat's time
limits do not apply; the replay records how long each decision took).

Words come from the game's describer when it has one (`Game.describer`), else from the JSON.
"""

from __future__ import annotations

import json
from typing import IO, Any

from referee.game import Action
from referee.players import Fault, Player, Reply
from referee.protocol import Hello


class HumanPlayer(Player):
    """A seat played from a terminal: the observation and legal actions shown, a number read."""

    kind = "human"

    def __init__(self, console: Any = None, read: IO[str] | None = None, describer: Any = None) -> None:
        from rich.console import Console

        self.console = console if console is not None else Console(highlight=False)
        self.read = read  # None: the console's own input (a terminal)
        self.describer = describer
        self.seat = 0
        self.names: list[str] = []

    def _text(self, kind: str, value: dict[str, Any]) -> str:
        describe = getattr(self.describer, kind, None)
        if describe is not None:
            try:
                # referee.describe.Describer: action(action), event(Event, Names)
                if kind == "event":
                    from referee.describe import Names
                    from referee.game import EVERYONE, Event

                    data = {k: v for k, v in value.items() if k != "kind"}
                    text = describe(Event(value.get("kind", ""), data, EVERYONE), Names(self.names, self.seat))
                else:
                    text = describe(value)
                if text is not None:
                    return getattr(text, "plain", str(text))
            except Exception:  # a describer's gap must not stop the person's game
                pass
        return json.dumps(value, separators=(", ", ": "))

    def start(self, hello: Hello) -> Fault | None:
        self.seat, self.names = hello.seat, list(hello.names)
        others = ", ".join(f"{i}: {n}" for i, n in enumerate(hello.names) if i != hello.seat)
        self.console.print(f"You play seat {hello.seat} of {hello.players} at {hello.game} (against {others}).",
                           markup=False)
        return None

    def event(self, event: dict[str, Any]) -> None:
        seat = event.get("seat")
        who = "you" if seat == self.seat else self.names[seat] if isinstance(seat, int) and 0 <= seat < len(
            self.names) else ""
        self.console.print(f"  {who + ': ' if who else ''}{self._text('event', event)}", markup=False)

    def rename(self, names: list[str]) -> None:
        """The seats' names once the bots said `ready` (the runner tells every player that has this)."""
        self.names = list(names)

    def _value(self, key: str, value: Any) -> Any:
        """One observation field in the game's words (a rich Text), else as text."""
        if self.describer is not None:
            from referee.describe import Names

            try:
                return self.describer.value(key, value, Names(self.names, self.seat))
            except Exception:  # a describer's gap must not stop the person's game
                pass
        return value if isinstance(value, str) else json.dumps(value)

    def act(self, id: int, obs: dict[str, Any], legal: list[Action], time_ms: int,
            bank_ms: int | None = None) -> Reply:
        from rich.table import Table

        if len(legal) == 1:
            self.console.print(f"  your only move, played for you: {self._text('action', legal[0])}", markup=False,
                               highlight=False)
            return Reply(index=0)
        self.console.print(f"Your turn (seat {self.seat}):", markup=False, highlight=False)
        view = Table(show_header=False, box=None, padding=(0, 1))
        for key, value in obs.items():
            view.add_row(str(key), self._value(str(key), value))
        self.console.print(view)
        for k, action in enumerate(legal, 1):
            self.console.print(f"  [{k}] {self._text('action', action)}", markup=False, highlight=False)
        choice = self._ask(len(legal))
        if choice is None:  # end of input: the person left
            return Reply(fault=Fault("crash", "the human player's input ended"))
        return Reply(index=choice - 1)

    def _ask(self, count: int) -> int | None:
        """A number from 1 to `count`, asked again until one comes; None at end of input."""
        while True:
            if self.read is None:
                from rich.prompt import Prompt

                try:
                    text = Prompt.ask(f"your move (1-{count})", console=self.console)
                except EOFError:
                    return None
            else:
                self.console.print(f"your move (1-{count}): ", end="", markup=False)
                text = self.read.readline()
                if not text:
                    return None
            text = text.strip()
            if text.isdigit() and 1 <= int(text) <= count:
                return int(text)
            self.console.print(f"type a number from 1 to {count}", markup=False)

    def end(self, result: dict[str, Any]) -> None:
        rank = result.get("ranks", [None] * (self.seat + 1))[self.seat]
        self.console.print(f"The match is over: you ranked {rank}; scores {result.get('scores')}.", markup=False)
