"""`referee replay FILE`: a match told deal by deal in the terminal.

The match is re-simulated from the replay's own records (referee/replay/verify.py), so the story can
use the game's own events, told in the game's own words by its describer (referee/describe.py;
a game without one gets the generic wording): every move with who made it, every event, the
scores after each deal; faults are highlighted. Two views:

- the whole match (default): the hands as dealt, every move, every event the game told anyone
  (a private event is shown once, in its most complete form);
- one seat's view (`--seat N`): only the events that seat was sent, its own hand and its own
  decisions with the hand it held (the game's own `observe`) — nothing hidden from it, never
  guessed from the full records.

Beside a move stands the debug text its bot sent with it (docs/protocol.md), in the whole match
and in that seat's own view; never in another seat's (`debug=False` leaves it out).

When the re-simulation fails (a tampered file, a game that cannot re-simulate) the whole-match
view goes on from the raw records with a warning; a seat's view stops there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from referee.config import shown
from referee.describe import GENERIC, Describer, Names, describer_of, join
from referee.errors import UsageError
from referee.faults import fault_log_for
from referee.game import Event, Game
from referee.replay.verify import CannotVerify, Mismatch, Replay, simulate

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")  # a TOML key that needs no quotes

# -- moves and events ------------------------------------------------------------------------------


def action_text(action: Any, describer: Describer = GENERIC) -> Text:
    """A move's action in the game's words (its describer's)."""
    return describer.action(action)


def event_text(event: Event, names: Names, describer: Describer = GENERIC) -> Text | None:
    """One event in the game's words, or None for events the story shows elsewhere (a seat's
    own deal, shown as the deal's intro) or leaves out."""
    if event.kind == "deal":
        return None
    return describer.event(event, names)


def _covers(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether event data `a` tells everything `b` does."""
    return all(k in a and a[k] == v for k, v in b.items())


def omniscient(events: list[Event], describer: Describer = GENERIC) -> list[Event]:
    """A step's events with each private duplicate dropped: when a seat was told more than the
    others (a drawn card, a discarded card), only the most complete form is kept. An event the
    game's describer calls redundant beside the step's others is dropped too."""
    kept = []
    for i, e in enumerate(events):
        if describer.redundant(e, events):
            continue
        if any(j != i and o.kind == e.kind and _covers(o.data, e.data) and (o.data != e.data or j < i)
               for j, o in enumerate(events)):
            continue
        kept.append(e)
    return kept


def sees(event: Event, seat: int) -> bool:
    """Whether `seat` was sent this event."""
    return event.to is None or seat in event.to


# -- the story -------------------------------------------------------------------------------------


@dataclass
class Section:
    """One deal of the story."""

    deal: int
    intro: list[Any] = field(default_factory=list)  # rich renderables shown before the moves
    lines: list[Text] = field(default_factory=list)
    end: dict[str, Any] | None = None  # the deal_end record, or the seat's round-end event data


@dataclass
class Story:
    """A whole match as told: a header, one section per deal, the result."""

    title: Text
    header: list[Any]
    sections: list[Section]
    result: dict[str, Any] | None
    warning: str | None = None
    names: Names | None = None
    describer: Describer = GENERIC


#: a bot's debug text shown on one line: newlines as ⏎, other control characters (a terminal's
#: escape sequences) as U+FFFD
_UNPRINTABLE = {c: "\ufffd" for c in (*range(0x20), *range(0x7f, 0xa0))} | {0x0a: "⏎", 0x09: " "}


def debug_text(move: dict[str, Any]) -> Text | None:
    """What the bot sent beside this move (its `debug` text), to show after the move line."""
    debug = move.get("debug")
    if not isinstance(debug, str) or not debug:
        return None
    return Text(f"   // {debug.translate(_UNPRINTABLE)}", style="italic cyan")


def _move_line(number: int, move: dict[str, Any], names: Names, d: Describer, width: int,
               fallback: bool, debug: bool = False) -> Text:
    seat = move.get("seat")
    who = names(seat)
    who.pad_right(max(0, width - len(who.plain)))
    text = join(Text(f"{number:>4} ", style="dim"), who, " ", action_text(move.get("action"), d))
    fault = move.get("fault")
    if isinstance(fault, dict):
        text.append(f"   FAULT {fault.get('kind')}: {fault.get('detail', '')}", style="bold white on red")
        if fault.get("raw"):
            text.append(f" (sent {str(fault['raw'])[:60]!r})", style="red")
        text.append(" → the fallback plays", style="red")
    elif fallback:
        text.append("   (fallback: seat disqualified)", style="red")
    if debug and (said := debug_text(move)) is not None:
        text.append_text(said)
    return text


def _hands_table(hands: list[list[str] | None], names: Names, d: Describer, title: str = "hands as dealt") -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None, pad_edge=False)
    table.add_column("seat")
    table.add_column("cards", overflow="fold")
    for seat, hand in enumerate(hands):
        if hand is None:
            continue
        table.add_row(names(seat), d.cards(hand) if hand else Text("(sits out)", style="dim"))
    return table


def _deal_intro(record: dict[str, Any], hands: list[list[str]] | None, names: Names, d: Describer) -> list[Any]:
    intro: list[Any] = []
    info = Text("dealer: ", style="dim")
    info.append(names(record.get("dealer")))
    intro.append(info)
    intro.append(_hands_table(hands if hands is not None else record.get("hands") or [], names, d))
    for key, value in record.items():
        if key in ("type", "deal", "dealer", "hands"):
            continue
        line = Text(f"{key}: ", style="dim")
        line.append(d.value(key, value, names))
        intro.append(line)
    return intro


def config_text(config: Any) -> str:
    """A match's config as TOML writes it (`sevens = true, variant = "short"`), "defaults" when
    empty: the way the options are written in a tournament file and read back by `--set`."""
    if not isinstance(config, dict) or not config:
        return "defaults"
    return ", ".join(f"{k if _BARE_KEY.fullmatch(str(k)) else json.dumps(str(k), ensure_ascii=False)} = {shown(v)}"
                     for k, v in config.items())


def build_story(replay: Replay, game: Game | None, seat: int | None = None, debug: bool = True) -> Story:
    """Tell a replay: the whole match (seat None) or what one seat saw (needs `game`); with
    `debug`, each move with the bot's debug text (a seat's view: its own only)."""
    header = replay.header
    names = Names(replay.names(), seat)
    gname = replay.game
    d = describer_of(game)
    title = Text(f"{game.title if game is not None else gname}", style="bold")
    head: list[Any] = []
    if seat is None:
        title.append(f" · match {header.get('match', '?')} · seed {header.get('seed', '?')}", style="")
    else:
        title.append(f" · match {header.get('match', '?')} · as seen by ", style="")
        title.append(names(seat))
    head.append(Text("config: " + config_text(header.get("config")), style="dim"))
    players = Table(show_header=False, box=None, pad_edge=False)
    for p_seat, p in enumerate(header.get("players") or []):
        extra = f"{p.get('kind', '')}: {p.get('spec', '')}" if seat is None and isinstance(p, dict) else ""
        bot = p.get("bot") if extra else None
        if isinstance(bot, dict):  # what the bot announced in `ready`
            extra += " · " + " ".join(str(bot[k]) for k in ("name", "version") if bot.get(k))
        players.add_row(names(p_seat), Text(extra, style="dim"))
    head.append(players)

    result = replay.result
    if seat is not None and result is not None and isinstance(result.get("fault_log"), list):
        result = {**result, "fault_log": fault_log_for(seat, result["fault_log"])}  # as the seat was told at `end`
    story = Story(title, head, [], result, names=names, describer=d)
    width = names.width()
    sections: dict[int, Section] = {}
    current: Section | None = None

    def section(number: int) -> Section:
        nonlocal current
        if number not in sections:
            sections[number] = Section(number)
            story.sections.append(sections[number])
        current = sections[number]
        return current

    done_line = 0  # the file line up to which the re-simulation told the story
    disqualified: frozenset[int] = frozenset()
    obs_before: dict[str, Any] | None = None
    try:
        if game is None:
            raise CannotVerify(f"the {gname} game is not installed")
        for step in simulate(replay, game):
            move = step.move
            if move is not None:
                done_line = step.line or done_line
                if seat is None:
                    section(step.deal).lines.append(_move_line(step.number, move, names, d, width,
                                                               step.fallback, debug))
                elif move.get("seat") == seat and current is not None:  # the seat's own move only
                    line = _move_line(step.number, move, names, d, width, step.fallback)
                    if obs_before is not None and isinstance(obs_before.get("hand"), list):
                        line.append("   hand: ", style="dim")
                        line.append(d.cards(obs_before["hand"]))
                    if debug and (said := debug_text(move)) is not None:
                        line.append_text(said)
                    current.lines.append(line)
            if step.disqualified != disqualified:
                for s in sorted(step.disqualified - disqualified):
                    if seat is None or s == seat:
                        target = current if current is not None else section(1)
                        target.lines.append(join(Text("     ", style=""), names(s),
                                                  Text(" is disqualified: the fallback plays this seat to the end",
                                                       style="bold white on red")))
                disqualified = step.disqualified
            _tell_outputs(step.outputs, seat, names, d, section, lambda: current, move)
            obs_before = step.state.observe(seat) if seat is not None and step.state.to_act() == seat else None
    except (Mismatch, CannotVerify) as exc:
        if seat is not None:
            raise UsageError(f"cannot show seat {seat}'s view: {exc}") from None
        story.warning = f"the re-simulation stopped ({exc}); the rest is told from the records alone"
        _tell_raw(replay, done_line, names, d, width, section, lambda: current, debug)
    return story


def _tell_outputs(outputs, seat, names: Names, d: Describer, section, current, move) -> None:
    """Add one step's records and events to the story."""
    events = [o for o in outputs if type(o) is Event]
    if seat is None:
        keep = {id(e) for e in omniscient(events, d)}
        for k, o in enumerate(outputs):
            if type(o) is dict:
                kind = o.get("type")
                if kind == "deal":
                    hands = _sorted_hands(outputs[k + 1:], len(names.names)) or o.get("hands")
                    section(o.get("deal")).intro.extend(_deal_intro(o, hands, names, d))
                elif kind == "deal_end":
                    section(o.get("deal")).end = o
                elif kind == "chance" and "outcome" not in o:  # the runner's outcome: the game's records tell it
                    sec = current()
                    if sec is not None:
                        text = d.chance(o)
                        text.pad_left(5)
                        sec.lines.append(text)
                continue
            if id(o) not in keep or _echoes(o, move, d):
                continue
            _event_line(o, names, d, current())
        return
    for o in outputs:
        if type(o) is dict or not sees(o, seat):
            continue
        if o.kind == "deal":
            number = d.deal_of(o.data)
            sec = section(number if isinstance(number, int) else (current().deal + 1 if current() else 1))
            info = Text("dealer: ", style="dim")
            info.append(names(o.data.get("dealer")))
            sec.intro.append(info)
            sec.intro.append(join(Text("your hand: ", style="bold"), d.cards(o.data.get("hand") or [])))
            for key, value in o.data.items():
                if key in ("dealer", "hand") or key in d.deal_keys:
                    continue
                line = Text(f"{key}: ", style="dim")
                line.append(d.value(key, value, names))
                sec.intro.append(line)
            continue
        if o.kind in d.end_kinds and current() is not None:
            current().end = dict(o.data)
        if move is not None and move.get("seat") == seat and _echoes(o, move, d):
            continue
        _event_line(o, names, d, current())


def _echoes(event: Event, move: dict[str, Any] | None, d: Describer) -> bool:
    """Whether an event of the seat that just moved only repeats its move line (the game's
    describer says which do: the move's own play, call...)."""
    if move is None or event.data.get("seat") != move.get("seat"):
        return False
    return d.echoes(event, move)


def _sorted_hands(outputs, n: int) -> list[list[str]] | None:
    """The hands of the deal events that follow a deal record (each in the game's own order)."""
    hands: list[Any] = [None] * n
    for o in outputs:
        if type(o) is dict:
            break
        if o.kind == "deal" and o.to and len(o.to) == 1 and isinstance(o.data.get("hand"), list):
            hands[o.to[0]] = o.data["hand"]
    return hands if all(h is not None for h in hands) else None


def _event_line(event: Event, names: Names, d: Describer, sec: Section | None) -> None:
    text = event_text(event, names, d)
    if text is None or sec is None:
        return
    sec.lines.append(join(Text("       ", style=""), text))


def _tell_raw(replay: Replay, after_line: int, names: Names, d: Describer, width: int, section, current,
              debug: bool) -> None:
    """The rest of a replay from its records alone, after the re-simulation stopped."""
    numbers: dict[Any, int] = {}
    for rec, line in zip(replay.records, replay.lines):
        kind = rec.get("type")
        if kind == "move":
            numbers[rec.get("deal")] = numbers.get(rec.get("deal"), 0) + 1
        if line <= after_line or kind in ("header", "result"):
            continue
        if kind == "deal":
            sec = section(rec.get("deal"))
            if not sec.intro:
                sec.intro.extend(_deal_intro(rec, None, names, d))
        elif kind == "move":
            sec = section(rec.get("deal"))
            sec.lines.append(_move_line(numbers[rec.get("deal")], rec, names, d, width, False, debug))
        elif kind == "deal_end":
            section(rec.get("deal")).end = rec
        elif kind == "chance" and "outcome" not in rec and current() is not None:  # (an older replay's record)
            rest = " ".join(str(v) for k, v in rec.items() if k not in ("type", "deal", "kind"))
            current().lines.append(Text(f"     chance: {rec.get('kind')} {rest}", style="magenta"))


# -- rendering -------------------------------------------------------------------------------------


def scores_table(end: dict[str, Any], names: Names, d: Describer = GENERIC) -> Table:
    """A deal's end: its per-seat fields as columns ("points" for its scores)."""
    n = len(names.names)
    per_seat = {k: v for k, v in end.items() if isinstance(v, list) and len(v) == n and k != "hands"}
    number = d.deal_of(end)
    table = Table(title=f"after deal {'' if number is None else number}", title_justify="left")
    table.add_column("seat")
    for key in per_seat:
        table.add_column("points" if key == "scores" else key, justify="right")
    for seat in range(n):
        row = [names(seat)]
        for key, values in per_seat.items():
            value = values[seat]
            row.append(Text(f"{value:g}" if isinstance(value, float) else str(value)))
        table.add_row(*row)
    return table


def deal_notes(end: dict[str, Any], names: Names, d: Describer = GENERIC) -> Text | None:
    """A deal end's other fields (who won it, a threshold...) as one line, seats by name."""
    n = len(names.names)
    notes = Text(style="dim")
    for key, value in end.items():
        if key == "type" or key in d.deal_keys or (isinstance(value, list) and len(value) == n):
            continue
        if notes:
            notes.append(", ")
        notes.append(f"{key}: ")
        if key in d.seat_keys and isinstance(value, int):
            notes.append(names(value))
        else:
            notes.append("none" if value is None else str(value).lower() if isinstance(value, bool) else str(value))
    return notes or None


def result_table(result: dict[str, Any], names: Names) -> Table:
    table = Table(title="result", title_justify="left")
    for col in ("seat", "score", "rank", "faults"):
        table.add_column(col, justify="left" if col == "seat" else "right")
    dq = set(result.get("disqualified") or [])
    for seat in range(len(names.names)):
        faults = _at(result.get("faults"), seat)
        cell = Text(str(faults))
        if seat in dq:
            cell.append(" disqualified", style="bold red")
        elif faults:
            cell.stylize("bold red")
        table.add_row(names(seat), str(_at(result.get("scores"), seat)), str(_at(result.get("ranks"), seat)), cell)
    return table


def _at(values: Any, i: int) -> Any:
    return values[i] if isinstance(values, list) and i < len(values) else "?"


def render(console: Console, story: Story, deal: int | None = None) -> None:
    """Print a story, or only deal `deal` of it; UsageError if there is no such deal."""
    names = story.names or Names([])
    d = story.describer
    sections = story.sections
    if deal is not None:
        sections = [s for s in sections if s.deal == deal]
        if not sections:
            known = ", ".join(str(s.deal) for s in story.sections) or "none"
            raise UsageError(f"no deal {deal} in this replay (deals: {known})")
    console.print(story.title, highlight=False)
    for item in story.header:
        console.print(item, highlight=False)
    if story.warning:
        console.print(Text(f"warning: {story.warning}", style="bold red"), highlight=False)
    for sec in sections:
        console.print(Rule(Text(f"deal {sec.deal}", style="bold"), align="left"))
        for item in sec.intro:
            console.print(item, highlight=False)
        for line in sec.lines:
            console.print(line, highlight=False, overflow="fold")
        if sec.end is not None:
            console.print(scores_table(sec.end, names, d))
            notes = deal_notes(sec.end, names, d)
            if notes is not None:
                console.print(notes, highlight=False)
    if story.result is not None and (deal is None or sections[-1] is story.sections[-1]):
        console.print(Rule(Text("end", style="bold"), align="left"))
        console.print(result_table(story.result, names))
        for f in story.result.get("fault_log") or []:
            if isinstance(f, dict):
                text = join(Text("fault ", style="bold red"), names(f.get("seat")),
                            f" in deal {f.get('deal')}: {f.get('kind')}: {f.get('detail', '')}")
                if f.get("raw"):
                    text.append(f" (sent {str(f['raw'])[:80]!r})")
                console.print(text, highlight=False)
