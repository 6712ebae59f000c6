"""`referee replay FILE`: a match told deal by deal in the terminal.

The match is re-simulated from the replay's own records (referee/verify.py), so the story can
use the game's own events: every play with who made it, penalties, specials, exchanges, who
won each trick, the scores after each deal; faults are highlighted. Two views:

- the whole match (default): the hands as dealt, every move, every event the game told anyone
  (a private event is shown once, in its most complete form);
- one seat's view (`--seat N`): only the events that seat was sent, its own hand and its own
  decisions with the hand it held (the game's own `observe`) — nothing hidden from it, never
  guessed from the full records.

When the re-simulation fails (a tampered file, a game that cannot re-simulate) the whole-match
view goes on from the raw records with a warning; a seat's view stops there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from referee.errors import UsageError
from referee.game import Event, Game
from referee.verify import CannotVerify, Mismatch, Replay, simulate

# -- cards and names -------------------------------------------------------------------------------

_FRENCH = re.compile(r"[2-9TJQKA][CDHS]")
_MAYOR_SUIT = re.compile(r"([RYBG])(?:10|[1-9PFDM])")
_BUILDING = re.compile(r"T(?:1[0-9]|[1-9])")
MAYOR_SPECIALS = ("THIEF", "CASINO", "CRANE")
_MAYOR_COLOURS = {"R": "red", "Y": "yellow", "B": "bright_blue", "G": "green"}

SUIT_NAMES = {
    "maumau": {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"},
    "presidente": {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"},
    "mayor": {"R": "red", "Y": "yellow", "B": "blue", "G": "green"},
}
#: event and record fields that hold a seat number
SEAT_KEYS = ("seat", "winner", "leader", "candidate", "ally", "fallen", "with", "last_player")


def is_card(value: Any) -> bool:
    """Whether a string looks like a card code of one of the built-in games (C-3)."""
    return isinstance(value, str) and (
        bool(_FRENCH.fullmatch(value)) or value in ("X1", "X2") or bool(_MAYOR_SUIT.fullmatch(value))
        or bool(_BUILDING.fullmatch(value)) or value in MAYOR_SPECIALS
    )


def card_style(code: str) -> str:
    """The rich style a card code is shown in (its suit's colour)."""
    if _FRENCH.fullmatch(code):
        return "bold red" if code[1] in "DH" else "bold"
    if code in ("X1", "X2") or code in MAYOR_SPECIALS:
        return "bold magenta"
    m = _MAYOR_SUIT.fullmatch(code)
    if m:
        return "bold " + _MAYOR_COLOURS[m.group(1)]
    if _BUILDING.fullmatch(code):
        return "bold reverse"
    return "bold"


def cards_text(cards: Iterable[str] | str) -> Text:
    """Card codes, coloured by suit, separated by spaces."""
    if isinstance(cards, str):
        cards = [cards]
    text = Text()
    for i, code in enumerate(cards):
        if i:
            text.append(" ")
        text.append(str(code), style=card_style(str(code)) if isinstance(code, str) else "")
    return text


class Names:
    """How seats are named in the story: `[2] random#2`."""

    def __init__(self, names: list[str], viewer: int | None = None) -> None:
        self.names = names
        self.viewer = viewer

    def __call__(self, seat: Any) -> Text:
        if not isinstance(seat, int) or not 0 <= seat < len(self.names):
            return Text(str(seat))
        text = Text(f"[{seat}] {self.names[seat]}", style="cyan")
        if seat == self.viewer:
            text.append(" (you)", style="cyan")
        return text

    def width(self) -> int:
        """The widest seat name, for aligning move lines."""
        return max((len(self(s).plain) for s in range(len(self.names))), default=0)


def _join(*parts: Text | str) -> Text:
    text = Text()
    for part in parts:
        text.append(part) if isinstance(part, Text) else text.append(part)
    return text


def suit_text(game: str, suit: Any) -> str:
    name = SUIT_NAMES.get(game, {}).get(suit)
    return f"{suit} ({name})" if name else str(suit)


# -- actions and events ----------------------------------------------------------------------------


def action_text(action: Any, game: str = "") -> Text:
    """A move's action in words: `plays JH naming S (spades), says "mau"`."""
    if not isinstance(action, dict):
        return Text(repr(action))
    parts: list[Text] = []
    rest = dict(action)
    if "play" in rest:
        parts.append(_join("plays ", cards_text(rest.pop("play"))))
        if "suit" in rest:
            parts.append(Text(f"naming {suit_text(game, rest.pop('suit'))}"))
        if "name" in rest:
            parts.append(_join("naming ", cards_text(rest.pop("name"))))
    if "say" in rest:
        parts.append(Text(f"says {rest.pop('say')!r}".replace("'", '"'), style="italic"))
    if rest.get("draw") is True:
        rest.pop("draw")
        parts.append(Text("draws"))
    if rest.get("pass") is True:
        rest.pop("pass")
        parts.append(Text("passes"))
    if "call" in rest:
        parts.append(Text(f"calls {suit_text(game, rest.pop('call'))}"))
    if "discard" in rest:
        parts.append(_join("puts back ", cards_text(rest.pop("discard"))))
    if "give" in rest:
        parts.append(_join("gives ", cards_text(rest.pop("give"))))
    if "suit" in rest:
        parts.append(Text(f"names {suit_text(game, rest.pop('suit'))}"))
    for key, value in rest.items():
        parts.append(Text(f"{key} {value}"))
    return Text(", ").join(parts) if parts else Text(str(action))


_WHY = {"seven": "a 7", "announcement": "a missing announcement", "ace": "an Ace", "eight": "an 8",
        "draw": "no play", "three_of_clubs": "3C on a 2", "all_passed": "all passed"}


def event_text(event: Event, names: Names, game: str = "") -> Text | None:
    """One event in words, or None for events the story shows elsewhere (a seat's deal)."""
    d = event.data
    kind = event.kind
    who = names(d.get("seat"))
    if kind == "deal":
        return None
    if kind == "played":
        cards = d.get("cards", d.get("card"))
        text = _join(who, " plays ", cards_text(cards if cards is not None else []))
        if "suit" in d:
            text.append(f" naming {suit_text(game, d['suit'])}")
        if "name" in d:
            text.append(" naming ")
            text.append(cards_text(d["name"]))
        if "say" in d:
            text.append(f' says "{d["say"]}"', style="italic")
        if d.get("counter"):
            text.append(" (counter)", style="bold magenta")
        return text
    if kind == "suit":
        return _join(who, f" names {suit_text(game, d.get('suit'))}")
    if kind == "penalty":
        return _join(who, Text(f" penalty: {d.get('count')} cards for {_WHY.get(d.get('why'), d.get('why'))}",
                               style="bold yellow"))
    if kind == "drew":
        text = _join(who, f" draws {d.get('count')}")
        if d.get("cards"):
            text.append(": ")
            text.append(cards_text(d["cards"]))
        if d.get("why") not in (None, "draw"):
            text.append(f" ({_WHY.get(d['why'], d['why'])})")
        return text
    if kind == "skipped":
        return _join(who, Text(f" is skipped ({_WHY.get(d.get('why'), d.get('why'))})", style="yellow"))
    if kind == "passed":
        return _join(who, " keeps the drawn card" if d.get("kept") else " passes")
    if kind == "reshuffle":
        return Text(f"the discard pile is reshuffled into a new draw pile of {d.get('stock')} cards",
                    style="magenta")
    if kind == "tiebreak":
        seats = Text(", ").join(names(s) for s in d.get("seats", []))
        return _join(Text(f"tie-break round {d.get('tiebreak')}: ", style="bold"), seats)
    if kind == "revolution":
        return _join(who, Text(" makes a revolution: the order is reversed" if d.get("on")
                               else " makes a revolution: the normal order is back", style="bold magenta"))
    if kind == "cleared":
        return _join(Text(f"table cleared ({_WHY.get(d.get('why'), d.get('why'))}); ", style="dim"),
                     names(d.get("leader")), " leads")
    if kind == "finished":
        return _join(who, Text(f" goes out: place {d.get('place')}", style="bold green"))
    if kind == "fell":
        return _join(who, Text(f" falls: the reigning President is Slave (place {d.get('place')})",
                               style="bold red"))
    if kind == "exchange":
        seat = event.to[0] if event.to and len(event.to) == 1 else None
        return _join(names(seat) if seat is not None else Text("exchange"), " gives ", cards_text(d.get("gave", [])),
                     " to ", names(d.get("with")), ", gets ", cards_text(d.get("got", [])))
    if kind == "called":
        return _join(who, f" calls {suit_text(game, d.get('suit'))}")
    if kind == "role":
        seat = event.to[0] if event.to and len(event.to) == 1 else None
        return _join(names(seat) if seat is not None else Text("?"), Text(" holds the called Mayor: the secret ally",
                                                                          style="magenta"))
    if kind == "reserve":
        return _join(who, " takes the reserve: ", cards_text(d.get("cards", [])))
    if kind == "reserve_taken":
        return _join(who, " takes the reserve")
    if kind == "discarded":
        if "card" in d:
            return _join(who, " puts back ", cards_text(d["card"]))
        return _join(who, " puts back a card")
    if kind == "ally_revealed":
        if d.get("alone"):
            return _join(Text("revealed: ", style="bold magenta"), names(d.get("candidate")), " plays alone")
        return _join(Text("ally revealed: ", style="bold magenta"), who)
    if kind == "crane":
        text = _join(who, Text("'s CRANE", style="bold magenta"), f" takes {d.get('moved')} cards")
        if d.get("cards"):
            text.append(": ")
            text.append(cards_text(d["cards"]))
        return text
    if kind == "casino":
        hit = d.get("hit")
        text = _join(who, Text("'s CASINO", style="bold magenta"), " names ", cards_text(str(d.get("name"))))
        text.append(": hit" if hit else ": miss" if hit is False else ": no effect" if "moved" not in d else "")
        if d.get("cards"):
            text.append(f", takes {d.get('moved')} cards: ")
            text.append(cards_text(d["cards"]))
        return text
    if kind == "casino_swap":
        return _join(who, Text(" swaps by CASINO: ", style="magenta"), "gets ", cards_text(str(d.get("name"))),
                     ", gives ", cards_text(str(d.get("gave"))))
    if kind == "trick":
        text = Text(f"trick {d.get('trick')}: ", style="bold")
        for i, (seat, card) in enumerate(zip(d.get("seats", []), d.get("cards", []))):
            if i:
                text.append(", ")
            text.append(cards_text(card))
            text.append(f" [{seat}]", style="cyan")
        text.append(" → won by ")
        text.append(names(d.get("winner")))
        if d.get("pile"):
            text.append(f" ({d['pile']} pile)")
        thief = d.get("thief")
        if isinstance(thief, dict):
            text.append("; THIEF ", style="bold magenta")
            text.append(f"[{thief.get('seat')}] " + ("succeeds" if thief.get("success") else "is stopped"))
            if thief.get("stolen"):
                text.append(", steals ")
                text.append(cards_text(thief["stolen"]))
        return text
    if kind in ("round_end", "deal_end"):
        text = Text(f"{'round' if kind == 'round_end' else 'deal'} {d.get('deal', d.get('round', ''))} ends",
                    style="bold")
        if "winner" in d:
            text.append(": ")
            text.append(names(d["winner"]) if d["winner"] is not None else Text("no winner"))
            if d.get("reason"):
                text.append(f" ({d['reason']})")
        if "won" in d:
            measure = d.get("count", d.get("votes"))
            text.append(f": the candidate's team {'wins' if d['won'] else 'loses'} with {measure} of "
                        f"{d.get('threshold')}")
        return text
    if kind == "match_end":
        return Text(f"match ends: totals {d.get('totals')}", style="bold")
    # a game this viewer does not know: its fields as they are
    text = Text(f"{kind}", style="bold")
    for key, value in d.items():
        text.append(f" {key}=")
        if key in SEAT_KEYS:
            text.append(names(value))
        elif is_card(value) or (isinstance(value, list) and value and all(is_card(v) for v in value)):
            text.append(cards_text(value))
        else:
            text.append(str(value))
    return text


def _covers(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether event data `a` tells everything `b` does."""
    return all(k in a and a[k] == v for k, v in b.items())


def omniscient(events: list[Event]) -> list[Event]:
    """A step's events with each private duplicate dropped: when a seat was told more than the
    others (a drawn card, a discarded card, the reserve), only the most complete form is kept."""
    kinds = {e.kind for e in events}
    kept = []
    for i, e in enumerate(events):
        if e.kind == "reserve_taken" and "reserve" in kinds:
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


def _move_line(number: int, move: dict[str, Any], names: Names, game: str, width: int,
               fallback: bool) -> Text:
    seat = move.get("seat")
    who = names(seat)
    who.pad_right(max(0, width - len(who.plain)))
    text = _join(Text(f"{number:>4} ", style="dim"), who, " ", action_text(move.get("action"), game))
    fault = move.get("fault")
    if isinstance(fault, dict):
        text.append(f"   FAULT {fault.get('kind')}: {fault.get('detail', '')}", style="bold white on red")
        if fault.get("raw"):
            text.append(f" (sent {str(fault['raw'])[:60]!r})", style="red")
        text.append(" → the fallback plays", style="red")
    elif fallback:
        text.append("   (fallback: seat disqualified)", style="red")
    return text


def _hands_table(hands: list[list[str] | None], names: Names, title: str = "hands as dealt") -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None, pad_edge=False)
    table.add_column("seat")
    table.add_column("cards", overflow="fold")
    for seat, hand in enumerate(hands):
        if hand is None:
            continue
        table.add_row(names(seat), cards_text(hand) if hand else Text("(sits out)", style="dim"))
    return table


def _deal_intro(record: dict[str, Any], hands: list[list[str]] | None, names: Names) -> list[Any]:
    intro: list[Any] = []
    info = Text("dealer: ", style="dim")
    info.append(names(record.get("dealer")))
    intro.append(info)
    intro.append(_hands_table(hands if hands is not None else record.get("hands") or [], names))
    for key, value in record.items():
        if key in ("type", "deal", "dealer", "hands"):
            continue
        line = Text(f"{key}: ", style="dim")
        if key in SEAT_KEYS:
            line.append(names(value))
        elif is_card(value) or (isinstance(value, list) and value and all(is_card(v) for v in value)):
            line.append(cards_text(value))
        else:
            line.append(str(value))
        intro.append(line)
    return intro


def build_story(replay: Replay, game: Game | None, seat: int | None = None) -> Story:
    """Tell a replay: the whole match (seat None) or what one seat saw (needs `game`)."""
    header = replay.header
    names = Names(replay.names(), seat)
    gname = replay.game
    title = Text(f"{game.title if game is not None else gname}", style="bold")
    head: list[Any] = []
    if seat is None:
        title.append(f" · match {header.get('match', '?')} · seed {header.get('seed', '?')}", style="")
    else:
        title.append(f" · match {header.get('match', '?')} · as seen by ", style="")
        title.append(names(seat))
    config = header.get("config") or {}
    head.append(Text("config: " + (", ".join(f"{k}={v}" for k, v in config.items()) or "defaults"), style="dim"))
    players = Table(show_header=False, box=None, pad_edge=False)
    for p_seat, p in enumerate(header.get("players") or []):
        extra = f"{p.get('kind', '')}: {p.get('spec', '')}" if seat is None and isinstance(p, dict) else ""
        players.add_row(names(p_seat), Text(extra, style="dim"))
    head.append(players)

    story = Story(title, head, [], replay.result, names=names)
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
                    section(step.deal).lines.append(_move_line(step.number, move, names, gname, width,
                                                               step.fallback))
                elif move.get("seat") == seat and current is not None:
                    line = _move_line(step.number, move, names, gname, width, step.fallback)
                    if obs_before is not None and isinstance(obs_before.get("hand"), list):
                        line.append("   hand: ", style="dim")
                        line.append(cards_text(obs_before["hand"]))
                    current.lines.append(line)
            if step.disqualified != disqualified:
                for s in sorted(step.disqualified - disqualified):
                    if seat is None or s == seat:
                        target = current if current is not None else section(1)
                        target.lines.append(_join(Text("     ", style=""), names(s),
                                                  Text(" is disqualified: the fallback plays this seat to the end",
                                                       style="bold white on red")))
                disqualified = step.disqualified
            _tell_outputs(step.outputs, seat, names, gname, section, lambda: current, move)
            obs_before = step.state.observe(seat) if seat is not None and step.state.to_act() == seat else None
    except (Mismatch, CannotVerify) as exc:
        if seat is not None:
            raise UsageError(f"cannot show seat {seat}'s view: {exc}") from None
        story.warning = f"the re-simulation stopped ({exc}); the rest is told from the records alone"
        _tell_raw(replay, done_line, names, gname, width, section, lambda: current)
    return story


def _tell_outputs(outputs, seat, names: Names, game: str, section, current, move) -> None:
    """Add one step's records and events to the story."""
    events = [o for o in outputs if type(o) is Event]
    if seat is None:
        keep = {id(e) for e in omniscient(events)}
        for k, o in enumerate(outputs):
            if type(o) is dict:
                kind = o.get("type")
                if kind == "deal":
                    hands = _sorted_hands(outputs[k + 1:], len(names.names)) or o.get("hands")
                    section(o.get("deal")).intro.extend(_deal_intro(o, hands, names))
                elif kind == "deal_end":
                    section(o.get("deal")).end = o
                elif kind == "chance":
                    sec = current()
                    if sec is not None:
                        text = Text(f"     chance: {o.get('kind')}", style="magenta")
                        cards = o.get("stock")
                        if isinstance(cards, list):
                            text.append(" → new draw pile: ")
                            text.append(cards_text(cards))
                        sec.lines.append(text)
                continue
            if id(o) not in keep or _echoes(o, move):
                continue
            _event_line(o, names, game, current())
        return
    for o in outputs:
        if type(o) is dict or not sees(o, seat):
            continue
        if o.kind == "deal":
            number = o.data.get("deal", o.data.get("round"))
            sec = section(number if isinstance(number, int) else (current().deal + 1 if current() else 1))
            info = Text("dealer: ", style="dim")
            info.append(names(o.data.get("dealer")))
            sec.intro.append(info)
            sec.intro.append(_join(Text("your hand: ", style="bold"), cards_text(o.data.get("hand") or [])))
            for key, value in o.data.items():
                if key in ("deal", "round", "dealer", "hand"):
                    continue
                line = Text(f"{key}: ", style="dim")
                line.append(names(value) if key in SEAT_KEYS or key == "president" else
                            cards_text(value) if is_card(value) else str(value))
                sec.intro.append(line)
            continue
        if o.kind in ("round_end", "deal_end") and current() is not None:
            current().end = dict(o.data)
        if move is not None and move.get("seat") == seat and _echoes(o, move):
            continue
        _event_line(o, names, game, current())


def _echoes(event: Event, move: dict[str, Any] | None) -> bool:
    """Whether an event only repeats the move line just shown (the move's own play, call...)."""
    if move is None or event.data.get("seat") != move.get("seat"):
        return False
    if event.kind == "passed":
        return not event.data.get("kept")
    return event.kind in ("played", "called", "discarded", "suit")


def _sorted_hands(outputs, n: int) -> list[list[str]] | None:
    """The hands of the deal events that follow a deal record (each in the game's own order)."""
    hands: list[Any] = [None] * n
    for o in outputs:
        if type(o) is dict:
            break
        if o.kind == "deal" and o.to and len(o.to) == 1 and isinstance(o.data.get("hand"), list):
            hands[o.to[0]] = o.data["hand"]
    return hands if all(h is not None for h in hands) else None


def _event_line(event: Event, names: Names, game: str, sec: Section | None) -> None:
    text = event_text(event, names, game)
    if text is None or sec is None:
        return
    sec.lines.append(_join(Text("       ", style=""), text))


def _tell_raw(replay: Replay, after_line: int, names: Names, game: str, width: int, section, current) -> None:
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
                sec.intro.extend(_deal_intro(rec, None, names))
        elif kind == "move":
            sec = section(rec.get("deal"))
            sec.lines.append(_move_line(numbers[rec.get("deal")], rec, names, game, width, False))
        elif kind == "deal_end":
            section(rec.get("deal")).end = rec
        elif kind == "chance" and current() is not None:
            current().lines.append(Text(f"     chance: {rec.get('kind')} {rec.get('stock', '')}", style="magenta"))


# -- rendering -------------------------------------------------------------------------------------


def scores_table(end: dict[str, Any], names: Names) -> Table:
    """A deal's end: per-seat fields as columns (points, totals, places...), the rest as a caption."""
    n = len(names.names)
    per_seat = {k: v for k, v in end.items() if isinstance(v, list) and len(v) == n and k != "hands"}
    table = Table(title=f"after deal {end.get('deal', end.get('round', ''))}", title_justify="left")
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


def deal_notes(end: dict[str, Any], names: Names) -> Text | None:
    """A deal end's other fields (candidate, ally, winner, threshold...) as one line."""
    n = len(names.names)
    notes = Text(style="dim")
    for key, value in end.items():
        if key in ("type", "deal", "round") or (isinstance(value, list) and len(value) == n):
            continue
        if notes:
            notes.append(", ")
        notes.append(f"{key}: ")
        if key in SEAT_KEYS and isinstance(value, int):
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
            console.print(scores_table(sec.end, names))
            notes = deal_notes(sec.end, names)
            if notes is not None:
                console.print(notes, highlight=False)
    if story.result is not None and (deal is None or sections[-1] is story.sections[-1]):
        console.print(Rule(Text("end", style="bold"), align="left"))
        console.print(result_table(story.result, names))
        for f in story.result.get("fault_log") or []:
            if isinstance(f, dict):
                text = _join(Text("fault ", style="bold red"), names(f.get("seat")),
                             f" in deal {f.get('deal')}: {f.get('kind')}: {f.get('detail', '')}")
                if f.get("raw"):
                    text.append(f" (sent {str(f['raw'])[:80]!r})")
                console.print(text, highlight=False)
