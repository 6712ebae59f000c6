"""Mayor's words and pictures (referee/describe.py): its actions, events and deals in words, its
cards' colours and faces (suit cards, Buildings, Specials), and its part of the protocol schema
(schema.json here)."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from rich.text import Text

from referee.describe import Describer, Names, ObservedZone, Zone, hand_zone, join
from referee.game import Event

_SUIT_CARD = re.compile(r"([RYBG])(10|[1-9PFDM])")
_BUILDING = re.compile(r"T(1[0-9]|[1-9])")
SPECIALS = ("THIEF", "CASINO", "CRANE")
SUIT_NAMES = {"R": "red", "Y": "yellow", "B": "blue", "G": "green"}
_COLOURS = {"R": "red", "Y": "yellow", "B": "bright_blue", "G": "green"}
#: the figures' names on their cards in the HTML viewer
FIGURES = {"P": "police", "F": "fire", "D": "doctor", "M": "mayor"}
TITLES = {"T19": "T19 Town Hall", "T1": "T1 Prison"}
#: the Buildings' and Specials' symbols in the HTML viewer
SYMBOLS: dict[str, dict[str, Any]] = {
    "i-bld": {"v": "0 0 100 100", "s": [
        ["path", {"d": "M15 95V45L50 15l35 30v50H60V70H40v25z"}],
        ["rect", {"x": "28", "y": "50", "width": "10", "height": "10", "fill": "#fff", "opacity": ".5"}],
        ["rect", {"x": "62", "y": "50", "width": "10", "height": "10", "fill": "#fff", "opacity": ".5"}]]},
    "i-hall": {"v": "0 0 100 100", "s": [
        ["path", {"d": "M10 40 50 8l40 32zM16 46h68v6H16zM20 56h10v30H20zM45 56h10v30H45z"
                       "M70 56h10v30H70zM12 88h76v8H12z"}]]},
    "i-thief": {"v": "0 0 100 100", "s": [
        ["path", {"d": "M5 45c10-12 28-16 45-16s35 4 45 16c-4 14-18 22-30 22-8 0-11-6-15-6s-7 6-15 6C23 67 9 59 5 45z"
                       "m22 0c-5 0-9 3-9 6 5 3 13 3 18 0 0-3-4-6-9-6zm46 0c-5 0-9 3-9 6 5 3 13 3 18 0 0-3-4-6-9-6z"}]]},
    "i-casino": {"v": "0 0 100 100", "s": [
        ["rect", {"x": "10", "y": "10", "width": "80", "height": "80", "rx": "16"}],
        ["g", {"fill": "#3f0f5e"}, [["circle", {"cx": "30", "cy": "30", "r": "8"}],
                                    ["circle", {"cx": "70", "cy": "30", "r": "8"}],
                                    ["circle", {"cx": "50", "cy": "50", "r": "8"}],
                                    ["circle", {"cx": "30", "cy": "70", "r": "8"}],
                                    ["circle", {"cx": "70", "cy": "70", "r": "8"}]]]]},
    "i-crane": {"v": "0 0 100 100", "s": [
        ["path", {"d": "M10 92h40v-6H38V20h50v-8H30v74H10zM80 20h6v30a12 12 0 1 1-18 10h6a6 6 0 1 0 6-10z"}]]},
}
#: the suit cards', Buildings' and Specials' looks in the HTML viewer
CSS = """
.card.my { border-width: 2px; }
.card.my .rk { font-family: inherit; font-size: 16px; }
.card.my .big { right: 5px; bottom: 6px; width: 22px; height: 22px; border-radius: 50%; background: currentColor;
  opacity: .8; }
.card.my .fig { position: absolute; left: 3px; bottom: 3px; font-size: 8px; letter-spacing: .3px;
  text-transform: uppercase; font-weight: 700; opacity: .85; }
.card.mR { color: #b71c1c; border-color: #d32f2f; background: #fff5f5; }
.card.mY { color: #8a6d00; border-color: #e0b000; background: #fffbea; }
.card.mB { color: #0d47a1; border-color: #1e66d0; background: #f2f7ff; }
.card.mG { color: #1b5e20; border-color: #2e7d32; background: #f2fbf3; }
.card.bld { background: linear-gradient(#4a5563, #2f3742); color: #fff; border-color: #1f252d; }
.card.bld .rk { font-family: inherit; font-size: 13px; }
.card.bld.hall { background: linear-gradient(#d4a514, #8d6a00); color: #fff; }
.card.spc { background: linear-gradient(#6a1b9a, #3f0f5e); color: #fff; border-color: #2b0a40; }
.card.spc .rk { font-family: inherit; font-size: 8.5px; letter-spacing: .4px; top: 4px; }
.card.sm.spc .rk { font-size: 6.5px; letter-spacing: 0; top: 3px; }
.card.sm.bld .rk { font-size: 9px; }
.card.sm.my .rk { font-size: 10px; }
.chip.mR { color: #b71c1c; border-color: #d32f2f; background: #fff5f5; }
.chip.mY { color: #8a6d00; border-color: #e0b000; background: #fffbea; }
.chip.mB { color: #0d47a1; border-color: #1e66d0; background: #f2f7ff; }
.chip.mG { color: #1b5e20; border-color: #2e7d32; background: #f2fbf3; }
.chip.cbld { background: #3b4552; color: #fff; border-color: #1f252d; }
.chip.ch { background: #b8900f; color: #fff; border-color: #8d6a00; }
.chip.cspc { background: #5a1785; color: #fff; border-color: #2b0a40; font-size: 10.5px; }
"""


def suit_text(suit: Any) -> str:
    """A suit with its name: `G (green)`."""
    name = SUIT_NAMES.get(suit) if isinstance(suit, str) else None
    return f"{suit} ({name})" if name else str(suit)


class MayorDescriber(Describer):
    """Mayor as the viewers and `play` tell it."""

    seat_keys = frozenset({"seat", "winner", "leader", "candidate", "ally"})

    def is_card(self, value: Any) -> bool:
        return isinstance(value, str) and (bool(_SUIT_CARD.fullmatch(value)) or bool(_BUILDING.fullmatch(value))
                                           or value in SPECIALS)

    def card_style(self, code: str) -> str:
        if code in SPECIALS:
            return "bold magenta"
        m = _SUIT_CARD.fullmatch(code)
        if m:
            return "bold " + _COLOURS[m.group(1)]
        if _BUILDING.fullmatch(code):
            return "bold reverse"
        return "bold"

    def action(self, action: Any) -> Text:
        if not isinstance(action, dict):
            return Text(repr(action))
        parts: list[Text] = []
        rest = dict(action)
        if "play" in rest:
            parts.append(join("plays ", self.cards(rest.pop("play"))))
            if "name" in rest:
                parts.append(join("naming ", self.cards(rest.pop("name"))))
        if rest.get("pass") is True:
            rest.pop("pass")
            parts.append(Text("passes"))
        if "call" in rest:
            parts.append(Text(f"calls {suit_text(rest.pop('call'))}"))
        if "discard" in rest:
            parts.append(join("puts back ", self.cards(rest.pop("discard"))))
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
            if "name" in d:
                text.append(" naming ")
                text.append(self.cards(d["name"]))
            if d.get("counter"):
                text.append(" (counter)", style="bold magenta")
            return text
        if kind == "called":
            return join(who, f" calls {suit_text(d.get('suit'))}")
        if kind == "role":
            seat = event.to[0] if event.to and len(event.to) == 1 else None
            return join(names(seat) if seat is not None else Text("?"),
                        Text(" holds the called Mayor: the secret ally", style="magenta"))
        if kind == "reserve":
            return join(who, " takes the reserve: ", self.cards(d.get("cards", [])))
        if kind == "reserve_taken":
            return join(who, " takes the reserve")
        if kind == "discarded":
            if "card" in d:
                return join(who, " puts back ", self.cards(d["card"]))
            return join(who, " puts back a card")
        if kind == "ally_revealed":
            if d.get("alone"):
                return join(Text("revealed: ", style="bold magenta"), names(d.get("candidate")), " plays alone")
            return join(Text("ally revealed: ", style="bold magenta"), who)
        if kind == "crane":
            text = join(who, Text("'s CRANE", style="bold magenta"), f" takes {d.get('moved')} cards")
            if d.get("cards"):
                text.append(": ")
                text.append(self.cards(d["cards"]))
            return text
        if kind == "casino":
            hit = d.get("hit")
            text = join(who, Text("'s CASINO", style="bold magenta"), " names ", self.cards(str(d.get("name"))))
            text.append(": hit" if hit else ": miss" if hit is False else ": no effect" if "moved" not in d else "")
            if d.get("cards"):
                text.append(f", takes {d.get('moved')} cards: ")
                text.append(self.cards(d["cards"]))
            return text
        if kind == "casino_swap":
            return join(who, Text(" swaps by CASINO: ", style="magenta"), "gets ", self.cards(str(d.get("name"))),
                        ", gives ", self.cards(str(d.get("gave"))))
        if kind == "trick":
            text = Text(f"trick {d.get('trick')}: ", style="bold")
            for i, (seat, card) in enumerate(zip(d.get("seats", []), d.get("cards", []))):
                if i:
                    text.append(", ")
                text.append(self.cards(card))
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
                    text.append(self.cards(thief["stolen"]))
            return text
        if kind == "deal_end":
            text = Text(f"deal {d.get('deal', '')} ends", style="bold")
            if "won" in d:
                measure = d.get("count", d.get("votes"))
                text.append(f": the candidate's team {'wins' if d['won'] else 'loses'} with {measure} of "
                            f"{d.get('threshold')}")
            return text
        return super().event(event, names)

    def echoes(self, event: Event, move: dict[str, Any]) -> bool:
        return event.kind in ("played", "called", "discarded")

    def redundant(self, event: Event, events: list[Event]) -> bool:
        # the candidate's own reserve event tells everything the others' reserve_taken does
        return event.kind == "reserve_taken" and any(e.kind == "reserve" for e in events)

    def played(self, event: Event) -> list[str]:
        if event.kind != "played":
            return []
        cards = event.data.get("cards", event.data.get("card"))
        return [cards] if isinstance(cards, str) else [c for c in cards or [] if isinstance(c, str)]

    def deal_summary(self, record: dict[str, Any], players: int) -> tuple[str, list[str]]:
        label, cells = super().deal_summary(record, players)
        if "won" in record:  # the candidate's result
            measure = record.get("count", record.get("votes"))
            label += f" {'won' if record['won'] else 'lost'} {measure}/{record.get('threshold')}"
        candidate, ally = record.get("candidate"), record.get("ally")
        rows = []
        for seat, cell in enumerate(cells):
            notes = []
            if candidate == seat:
                notes.append("candidate" + (" alone" if ally is None else ""))
            if ally == seat and candidate != seat:
                notes.append("ally")
            rows.append(cell + (f" ({', '.join(notes)})" if notes else ""))
        return label, rows

    def score_prefix(self, key: str) -> str:
        return "total " if key == "totals" else ""

    def zone(self, name: str) -> Zone:
        if name == "trick":
            return Zone("trick", center=True)
        if name == "pile_candidate":
            return Zone("candidate team's pile")
        if name == "pile_opposition":
            return Zone("opposition's pile")
        if name == "discards":
            return Zone("put-back cards")
        if name == "taken":
            return Zone("reserve as taken")
        if name == "tricks":
            return Zone("cards of the finished tricks")
        return Zone(name)

    def observation_zones(self, obs: Any, seat: int) -> dict[str, ObservedZone]:
        # the seat's hand, the others' sizes, the trick; the candidate's reserve and put-back
        # cards; the finished tricks' cards, by team pile once the teams are revealed
        zones: dict[str, ObservedZone] = {hand_zone(seat): list(obs.get("hand") or [])}
        for other, count in enumerate(obs.get("hand_sizes") or []):
            if other != seat:
                zones[hand_zone(other)] = count
        zones["trick"] = list(obs.get("trick_cards") or [])
        if "reserve" in obs:
            zones["taken"] = list(obs["reserve"])
        if "discards" in obs:
            zones["discards"] = list(obs["discards"])
        piles = obs.get("piles")
        if isinstance(piles, dict):
            zones["pile_candidate"] = list(piles.get("candidate") or [])
            zones["pile_opposition"] = list(piles.get("opposition") or [])
        elif obs.get("played_cards"):
            zones["tricks"] = list(obs["played_cards"])
        return zones

    def observation_roles(self, obs: Any, seat: int) -> dict[int, list[str]]:
        roles = super().observation_roles(obs, seat)
        candidate, ally = obs.get("candidate"), obs.get("ally")
        if isinstance(candidate, int):
            words = roles.setdefault(candidate, [])
            words.append("candidate alone" if obs.get("alone") else "candidate")
            if obs.get("called") in SUIT_NAMES:
                words.append(f"called {SUIT_NAMES[obs['called']]}")
        if isinstance(ally, int) and ally != candidate:
            roles.setdefault(ally, []).append("ally")
        teams = obs.get("teams")  # once revealed: every seat's team (1: the opposition)
        for other in [s for s, team in enumerate(teams) if team == 1] if isinstance(teams, list) else \
                [seat] if obs.get("role") == "opposition" else []:
            roles.setdefault(other, []).append("opposition")
        return roles

    def face(self, code: str) -> dict[str, Any]:
        m = _SUIT_CARD.fullmatch(code)
        if m:
            suit, rank = m.group(1), m.group(2)
            face: dict[str, Any] = {"c": ["my", "m" + suit], "r": rank, "m": True, "h": {"c": ["m" + suit], "r": code}}
            if rank in FIGURES:
                face["f"] = FIGURES[rank]
            return face
        m = _BUILDING.fullmatch(code)
        if m:
            hall = m.group(1) == "19"
            face = {"c": ["bld", "hall"] if hall else ["bld"], "r": code, "b": "i-hall" if hall else "i-bld",
                    "h": {"c": ["ch" if hall else "cbld"], "r": code}}
            if code in TITLES:
                face["t"] = TITLES[code]
            return face
        if code in SPECIALS:
            return {"c": ["spc"], "r": code, "b": "i-" + code.lower(), "h": {"c": ["cspc"], "r": code}}
        return super().face(code)

    def viewer_css(self) -> str:
        return CSS

    def viewer_symbols(self) -> dict[str, dict[str, Any]]:
        return SYMBOLS

    def result_note(self) -> str | None:
        return "total points"

    def schema(self) -> dict[str, Any]:
        return json.loads(resources.files("referee_mayor").joinpath("schema.json").read_text(encoding="utf-8"))
