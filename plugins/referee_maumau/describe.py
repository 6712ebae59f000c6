"""Mau Mau's words and pictures (referee/describe.py): its actions, events and deals in words,
its French cards' colours and faces, and its part of the protocol schema (schema.json here)."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from rich.text import Text

from referee.describe import Describer, Names, ObservedZone, Zone, hand_zone, join
from referee.game import Event

_CARD = re.compile(r"([2-9TJQKA])([CDHS])")
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
#: why a card was drawn or a turn skipped, as the story says it
_WHY = {"seven": "a 7", "announcement": "a missing announcement", "ace": "an Ace", "eight": "an 8",
        "draw": "no play"}
#: the suits' symbols in the HTML viewer
SUIT_SYMBOLS: dict[str, dict[str, Any]] = {
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
}


def suit_text(suit: Any) -> str:
    """A suit with its name: `S (spades)`."""
    name = SUIT_NAMES.get(suit) if isinstance(suit, str) else None
    return f"{suit} ({name})" if name else str(suit)


class MauMauDescriber(Describer):
    """Mau Mau as the viewers and `play` tell it."""

    def penalty_advice(self, why: str, ruling: str) -> str | None:
        if why == "announcement":
            return 'send "say": "mau" with the play that leaves one card, "say": "mau mau" with the last'
        return None

    seat_keys = frozenset({"seat", "winner"})
    deal_keys = ("deal", "round")
    end_kinds = ("round_end", "deal_end")

    def is_card(self, value: Any) -> bool:
        return isinstance(value, str) and bool(_CARD.fullmatch(value))

    def card_style(self, code: str) -> str:
        m = _CARD.fullmatch(code)
        return ("bold red" if m.group(2) in "DH" else "bold") if m else "bold"

    def action(self, action: Any) -> Text:
        if not isinstance(action, dict):
            return Text(repr(action))
        parts: list[Text] = []
        rest = dict(action)
        if "play" in rest:
            parts.append(join("plays ", self.cards(rest.pop("play"))))
            if "suit" in rest:
                parts.append(Text(f"naming {suit_text(rest.pop('suit'))}"))
        if "say" in rest:
            parts.append(Text(f"says {rest.pop('say')!r}".replace("'", '"'), style="italic"))
        if rest.get("draw") is True:
            rest.pop("draw")
            parts.append(Text("draws"))
        if rest.get("pass") is True:
            rest.pop("pass")
            parts.append(Text("passes"))
        if "suit" in rest:
            parts.append(Text(f"names {suit_text(rest.pop('suit'))}"))
        for key, value in rest.items():
            parts.append(Text(f"{key} {value}"))
        return Text(", ").join(parts) if parts else Text(str(action))

    def event(self, event: Event, names: Names) -> Text | None:
        d = event.data
        kind = event.kind
        who = names(d.get("seat"))
        if kind == "played":
            cards = d.get("cards", d.get("card"))
            text = join(who, " plays ", self.cards(cards if cards is not None else []))
            if "suit" in d:
                text.append(f" naming {suit_text(d['suit'])}")
            if "say" in d:
                text.append(f' says "{d["say"]}"', style="italic")
            return text
        if kind == "suit":
            return join(who, f" names {suit_text(d.get('suit'))}")
        if kind == "penalty":
            return join(who, Text(f" penalty: {d.get('count')} cards for {_WHY.get(d.get('why'), d.get('why'))}",
                                  style="bold yellow"))
        if kind == "drew":
            text = join(who, f" draws {d.get('count')}")
            if d.get("cards"):
                text.append(": ")
                text.append(self.cards(d["cards"]))
            if d.get("why") not in (None, "draw"):
                text.append(f" ({_WHY.get(d['why'], d['why'])})")
            return text
        if kind == "skipped":
            return join(who, Text(f" is skipped ({_WHY.get(d.get('why'), d.get('why'))})", style="yellow"))
        if kind == "passed":
            return join(who, " keeps the drawn card" if d.get("kept") else " passes")
        if kind == "reshuffle":
            return Text(f"the discard pile is reshuffled into a new draw pile of {d.get('stock')} cards",
                        style="magenta")
        if kind == "tiebreak":
            seats = Text(", ").join(names(s) for s in d.get("seats", []))
            return join(Text(f"tie-break round {d.get('tiebreak')}: ", style="bold"), seats)
        if kind in ("round_end", "deal_end"):
            text = Text(f"{'round' if kind == 'round_end' else 'deal'} {d.get('deal', d.get('round', ''))} ends",
                        style="bold")
            if "winner" in d:
                text.append(": ")
                text.append(names(d["winner"]) if d["winner"] is not None else Text("no winner"))
                if d.get("reason"):
                    text.append(f" ({d['reason']})")
            return text
        if kind == "match_end":
            return Text(f"match ends: totals {d.get('totals')}", style="bold")
        return super().event(event, names)

    def echoes(self, event: Event, move: dict[str, Any]) -> bool:
        if event.kind == "passed":
            return not event.data.get("kept")
        return event.kind in ("played", "suit")

    def chance(self, record: dict[str, Any]) -> Text:
        text = Text(f"chance: {record.get('kind')}", style="magenta")
        cards = record.get("stock")
        if isinstance(cards, list):
            text.append(" → new draw pile: ")
            text.append(self.cards(cards))
        return text

    def played(self, event: Event) -> list[str]:
        if event.kind != "played":
            return []
        cards = event.data.get("cards", event.data.get("card"))
        return [cards] if isinstance(cards, str) else [c for c in cards or [] if isinstance(c, str)]

    def deal_summary(self, record: dict[str, Any], players: int) -> tuple[str, list[str]]:
        label, cells = super().deal_summary(record, players)
        return label, [cell + (" (out first)" if record.get("winner") == seat else "")
                       for seat, cell in enumerate(cells)]

    def score_prefix(self, key: str) -> str:
        return "total " if key == "totals" else ""

    def zone(self, name: str) -> Zone:
        if name == "stock":
            return Zone("draw pile (next card first)")
        if name == "discard":
            return Zone("discard pile", center=True, top=6)
        return Zone(name)

    def observation_zones(self, obs: Any, seat: int) -> dict[str, ObservedZone]:
        # the seat's hand, the others' sizes, the draw pile's size, and of the discard pile its
        # top card (the cards under it are face down) and its size
        zones: dict[str, ObservedZone] = {hand_zone(seat): list(obs.get("hand") or [])}
        for other, count in enumerate(obs.get("counts") or []):
            if other != seat:
                zones[hand_zone(other)] = count
        zones["stock"] = obs.get("stock") or 0
        top = obs.get("top")
        if top is not None:
            zones["discard"] = [None] * max(0, (obs.get("discard") or 1) - 1) + [top]
        return zones

    def observation_roles(self, obs: Any, seat: int) -> dict[int, list[str]]:
        roles = super().observation_roles(obs, seat)
        active = obs.get("active")
        if isinstance(active, list):  # a tie-break round: only the tied seats play it (MM-9)
            for other in range(len(obs.get("counts") or [])):
                if other not in active:
                    roles.setdefault(other, []).append("sits out")
        return roles

    def face(self, code: str) -> dict[str, Any]:
        m = _CARD.fullmatch(code)
        if not m:
            return super().face(code)
        rank, suit = ("10" if m.group(1) == "T" else m.group(1)), m.group(2)
        red = ["red"] if suit in "HD" else []
        symbol = f"s-{suit}"
        return {"c": red, "r": rank, "p": symbol, "b": symbol, "h": {"c": red, "r": rank, "p": symbol}}

    def viewer_symbols(self) -> dict[str, dict[str, Any]]:
        return SUIT_SYMBOLS

    def score_note(self) -> str | None:
        return "penalty points, lower is better"

    def result_note(self) -> str | None:
        return "totals, lower is better"

    def schema(self) -> dict[str, Any]:
        return json.loads(resources.files("referee_maumau").joinpath("schema.json").read_text(encoding="utf-8"))
