"""Presidente's words and pictures (referee/describe.py): its actions, events and deals in words,
its French cards' and jokers' colours and faces, and its part of the protocol schema (schema.json
here)."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from rich.text import Text

from referee.describe import Describer, Names, ObservedZone, Zone, hand_zone, join
from referee.game import Event

_CARD = re.compile(r"([2-9TJQKA])([CDHS])")
JOKERS = ("X1", "X2")
#: why the table was cleared, as the story says it
_WHY = {"eight": "an 8", "three_of_clubs": "3C on a 2", "all_passed": "all passed"}
#: the suits' and the joker's symbols in the HTML viewer
SYMBOLS: dict[str, dict[str, Any]] = {
    "s-H": {"v": "0 0 100 100", "s": [["path", {"d": "M50 90C22 67 5 50 5 30 5 15 16 6 29 6c10 0 17 6 21 14 "
                                                    "4-8 11-14 21-14 13 0 24 9 24 24 0 20-17 37-45 60z"}]]},
    "s-D": {"v": "0 0 100 100", "s": [["path", {"d": "M50 4 88 50 50 96 12 50z"}]]},
    "s-S": {"v": "0 0 100 100", "s": [["path", {"d": "M50 5C22 32 6 46 6 62c0 12 9 20 20 20 8 0 15-4 19-10-1 "
                                                    "9-5 17-11 24h32c-6-7-10-15-11-24 4 6 11 10 19 10 11 0 "
                                                    "20-8 20-20 0-16-16-30-44-57z"}]]},
    "s-C": {"v": "0 0 100 100", "s": [["circle", {"cx": "50", "cy": "27", "r": "20"}],
                                      ["circle", {"cx": "26", "cy": "58", "r": "20"}],
                                      ["circle", {"cx": "74", "cy": "58", "r": "20"}],
                                      ["path", {"d": "M45 50h10c0 20 4 33 12 46H33c8-13 12-26 12-46z"}]]},
    "i-star": {"v": "0 0 100 100", "s": [["path", {"d": "M50 5l13 31 34 3-26 22 8 33-29-18-29 18 8-33L3 39l34-3z"}]]},
}
#: the jokers' looks in the HTML viewer
CSS = """
.card.jk { background: linear-gradient(#fff, #f3e8ff); color: #6a1b9a; }
.card.jk .rk { font-family: inherit; font-size: 9px; }
.card.sm.jk .rk { font-size: 6.5px; letter-spacing: 0; top: 3px; }
.chip.cjk { background: #5a1785; color: #fff; border-color: #2b0a40; font-size: 10.5px; }
"""


class PresidenteDescriber(Describer):
    """Presidente as the viewers and `play` tell it."""

    seat_keys = frozenset({"seat", "leader", "fallen", "with", "last_player", "president"})
    deal_keys = ("deal", "round")
    end_kinds = ("round_end", "deal_end")

    def is_card(self, value: Any) -> bool:
        return isinstance(value, str) and (bool(_CARD.fullmatch(value)) or value in JOKERS)

    def card_style(self, code: str) -> str:
        m = _CARD.fullmatch(code)
        if m:
            return "bold red" if m.group(2) in "DH" else "bold"
        return "bold magenta" if code in JOKERS else "bold"

    def value(self, key: str, value: Any, names: Names) -> Text:
        # as the viewers have always shown Presidente's fields: a list or a null as Python writes it
        if key in self.seat_keys and isinstance(value, int):
            return names(value)
        return self.cards(value) if self.holds_cards(value) else Text(str(value))

    def action(self, action: Any) -> Text:
        if not isinstance(action, dict):
            return Text(repr(action))
        parts: list[Text] = []
        rest = dict(action)
        if "play" in rest:
            parts.append(join("plays ", self.cards(rest.pop("play"))))
        if rest.get("pass") is True:
            rest.pop("pass")
            parts.append(Text("passes"))
        if "give" in rest:
            parts.append(join("gives ", self.cards(rest.pop("give"))))
        for key, value in rest.items():
            parts.append(Text(f"{key} {value}"))
        return Text(", ").join(parts) if parts else Text(str(action))

    def event(self, event: Event, names: Names) -> Text | None:
        d = event.data
        kind = event.kind
        who = names(d.get("seat"))
        if kind == "played":
            cards = d.get("cards", d.get("card"))
            return join(who, " plays ", self.cards(cards if cards is not None else []))
        if kind == "passed":
            return join(who, " passes")
        if kind == "revolution":
            return join(who, Text(" makes a revolution: the order is reversed" if d.get("on")
                                  else " makes a revolution: the normal order is back", style="bold magenta"))
        if kind == "cleared":
            return join(Text(f"table cleared ({_WHY.get(d.get('why'), d.get('why'))}); ", style="dim"),
                        names(d.get("leader")), " leads")
        if kind == "finished":
            return join(who, Text(f" goes out: place {d.get('place')}", style="bold green"))
        if kind == "fell":
            return join(who, Text(f" falls: the reigning President is Slave (place {d.get('place')})",
                                  style="bold red"))
        if kind == "exchange":
            seat = event.to[0] if event.to and len(event.to) == 1 else None
            return join(names(seat) if seat is not None else Text("exchange"), " gives ",
                        self.cards(d.get("gave", [])), " to ", names(d.get("with")), ", gets ",
                        self.cards(d.get("got", [])))
        if kind in ("round_end", "deal_end"):
            return Text(f"{'round' if kind == 'round_end' else 'deal'} {d.get('deal', d.get('round', ''))} ends",
                        style="bold")
        return super().event(event, names)

    def echoes(self, event: Event, move: dict[str, Any]) -> bool:
        return event.kind in ("played", "passed")

    def played(self, event: Event) -> list[str]:
        if event.kind != "played":
            return []
        cards = event.data.get("cards", event.data.get("card"))
        return [cards] if isinstance(cards, str) else [c for c in cards or [] if isinstance(c, str)]

    def deal_summary(self, record: dict[str, Any], players: int) -> tuple[str, list[str]]:
        label, cells = super().deal_summary(record, players)
        places = record.get("places")
        rows = []
        for seat, cell in enumerate(cells):
            notes = []
            if isinstance(places, list) and seat < len(places):
                notes.append(f"place {places[seat]}")
                if record.get("fallen") == seat:
                    notes.append("fallen")
            rows.append(cell + (f" ({', '.join(notes)})" if notes else ""))
        return label, rows

    def score_prefix(self, key: str) -> str:
        return "place " if key == "places" else "total " if key == "totals" else ""

    def deal_note(self, key: str, value: Any, names: Names) -> str | None:
        if key == "fallen":  # P-8: the reigning President who did not finish first
            return None if value is None else f"{names(value).plain} fell: the reigning President is Slave"
        return super().deal_note(key, value, names)

    def zone(self, name: str) -> Zone:
        if name == "table":
            return Zone("table", center=True)
        if name == "discards":
            return Zone("cleared from the table")
        return Zone(name)

    def observation_zones(self, obs: Any, seat: int) -> dict[str, ObservedZone]:
        # the seat's hand, the others' sizes, the table, the cleared cards; and in the hand of the
        # seat it gave cards to, those of its gifts not played since (P-9: the giver knows them)
        table = [c for play in obs.get("table") or [] for c in play.get("cards") or []]
        discards = list(obs.get("discards") or [])
        zones: dict[str, ObservedZone] = {hand_zone(seat): list(obs.get("hand") or [])}
        for other, count in enumerate(obs.get("cards_left") or []):
            if other != seat:
                zones[hand_zone(other)] = count
        exchange = obs.get("exchange")
        partner = hand_zone(exchange.get("with")) if isinstance(exchange, dict) and exchange.get("done") else None
        if isinstance(zones.get(partner), int):
            count = zones[partner]
            held = [c for c in exchange.get("gave") or [] if c not in table and c not in discards][:count]
            zones[partner] = held + [None] * (count - len(held))
        zones["table"] = table
        zones["discards"] = discards
        return zones

    def observation_roles(self, obs: Any, seat: int) -> dict[int, list[str]]:
        roles = super().observation_roles(obs, seat)
        president = obs.get("president")
        if isinstance(president, int):
            roles.setdefault(president, []).append("president")
        for other, role in enumerate(obs.get("roles") or []):
            if role == "slave":  # last round's; the President is the reigning one above (P-8)
                roles.setdefault(other, []).append("slave")
        for other, place in enumerate(obs.get("places") or []):
            if place is not None:
                roles.setdefault(other, []).append(f"out: place {place}")
        return roles

    def face(self, code: str) -> dict[str, Any]:
        if code in JOKERS:
            return {"c": ["jk"], "r": "JOKER", "b": "i-star", "h": {"c": ["cjk"], "r": code}}
        m = _CARD.fullmatch(code)
        if not m:
            return super().face(code)
        rank, suit = ("10" if m.group(1) == "T" else m.group(1)), m.group(2)
        red = ["red"] if suit in "HD" else []
        symbol = f"s-{suit}"
        return {"c": red, "r": rank, "p": symbol, "b": symbol, "h": {"c": red, "r": rank, "p": symbol}}

    def viewer_css(self) -> str:
        return CSS

    def viewer_symbols(self) -> dict[str, dict[str, Any]]:
        return SYMBOLS

    def result_note(self) -> str | None:
        return "the last round's points"

    def schema(self) -> dict[str, Any]:
        return json.loads(resources.files("referee_presidente").joinpath("schema.json").read_text(encoding="utf-8"))
