"""`referee replay FILE --html OUT.html`: a page to step through a match (a tournament's index,
which links these pages, is referee/tournament/index.py).

The page needs no network: its script and style (referee/replay/viewer.js, viewer.css, around
the page shell viewer.html) are inlined, or, for a tournament, written once beside its pages and
linked by relative path (`write_viewer(..., assets=DIR)`); the match data is in the page, JSON
gzip-compressed and base64-encoded (`pack`, read back by `page_data`; the page's script reads it
with the browser's DecompressionStream), and cards are drawn with CSS and inline SVG. The data is
one frame per step of the re-simulated match (referee/replay/verify.py): the hands, the cards on
the table, the piles, who acts, the story lines of the step (the same words as the terminal
view), the scores per deal, the step's conduct penalties (referee.game.penalty); the result, with
each seat's resources when the replay has them; and the game's pictures from its describer
(referee/describe.py: each card's face, the symbols and CSS they use, the table's zones), so the
page's script knows no game. A whole-match page holds every seat's view too, for its seat selector.

A seat's view (`--seat N`, and each view of the selector) is built only from what that seat was
told: the game's `observe(seat)` at each step (what the runner sends the seat with each
decision), read as the table's zones by the game's describer (`Describer.observation_zones`: its
hand, the others' hand sizes as face-down cards, the cards in play, the piles it sees) and as the
seats' parts (`observation_roles`); the events sent to it; its own moves (with their debug
text); and the match result at the end. Nothing of it comes from the whole state: `zones()` is
read by the whole-match view only, and `hidden_from` (the conformance kit's oracle) by no view.
A `--seat N` page holds seat N's view and nothing else.
"""
from __future__ import annotations

import base64
import functools
import gzip
import html
import json
import math
import os
import re
import urllib.parse
from importlib import resources
from pathlib import Path
from typing import Any

from referee.describe import Describer, Names, describer_of
from referee.errors import UsageError
from referee.faults import fault_log_for
from referee.game import PENALTY, Event, Game
from referee.replay.terminal import _echoes, action_text, event_text, omniscient, sees
from referee.replay.verify import CannotVerify, Mismatch, Replay, simulate

_HAND_ZONE = re.compile(r"hand\s*_?(\d+)")
#: the most of a move's debug text a page shows (the protocol caps it too)
DEBUG_CAP = 2000
#: the words of a story line, as the page's script splits it to find the cards in it
_WORD = re.compile(r"\w+", re.ASCII)


@functools.lru_cache(maxsize=256)
def _hand_seat(zone: str) -> int | None:
    m = _HAND_ZONE.fullmatch(zone)
    return int(m.group(1)) if m else None


class _Voice:
    """How a seat's view words the whole match's lines: the seat's name followed by " (you)", as
    `Names` writes it for the seat (no describer words a line otherwise for one seat than for
    another: each is told once, with the whole match's names, for every view of a page)."""

    def __init__(self, names: list[str], seat: int | None) -> None:
        self.names = names
        self.plain, self.own = (f"[{seat}] {names[seat]}", f"[{seat}] {names[seat]} (you)") \
            if seat is not None else ("", "")

    def line(self, base: dict[str, Any], k: int) -> str | None:
        """Line k of the base frame's story (-1: its move line), as this view words it."""
        if k == -1:
            if "act" not in base or not isinstance(base.get("who"), int):
                return None
            text = f"[{base['who']}] {self.names[base['who']]} {base['act']}"
        else:
            text = base["log"][k]
        return self.say(text)

    def say(self, text: str) -> str:
        return text.replace(self.plain, self.own) if self.plain else text


class _Told:
    """What each seat is told at one step (its observation, and the parts it reads there), asked
    once for all the views a page builds."""

    def __init__(self, state, d: Describer, names: Names) -> None:
        self.state, self.d, self.names = state, d, names
        self._obs: dict[int, Any] = {}
        self._roles: dict[int, dict[Any, list[str]]] = {}
        self._texts: dict[int, str | None] = {}
        self._act: str | None = None

    def obs(self, seat: int) -> Any:
        if seat not in self._obs:
            self._obs[seat] = self.state.observe(seat)
        return self._obs[seat]

    def roles(self, seat: int) -> dict[Any, list[str]]:
        if seat not in self._roles:
            self._roles[seat] = self.d.observation_roles(self.obs(seat), seat)
        return self._roles[seat]

    def text(self, event: Event) -> str | None:
        """The event's story line, with the whole match's names (None: not told)."""
        if id(event) not in self._texts:
            text = event_text(event, self.names, self.d)
            self._texts[id(event)] = None if text is None else text.plain
        return self._texts[id(event)]

    def act(self, move: dict[str, Any]) -> str:
        """The step's move in words."""
        if self._act is None:
            self._act = action_text(move.get("action"), self.d).plain
        return self._act


class _Frames:
    """Builds the viewer's frames from the re-simulated steps."""

    def __init__(self, replay: Replay, game: Game, seat: int | None) -> None:
        self.replay, self.game, self.seat = replay, game, seat
        self.d = describer_of(game)
        self.n = replay.players
        self.names = Names(replay.names(), seat)
        self.voice = _Voice(replay.names(), seat)
        self.frames: list[dict[str, Any]] = []
        self.deals: list[dict[str, Any]] = []
        self.by: dict[str, int] = {}  # card -> the seat that last played it (this deal)
        self.disqualified: frozenset[int] = frozenset()  # after the last step added
        self.told: _Told | None = None  # what the seats are told at the step being added

    # -- the parts of a frame --------------------------------------------------------------------

    def _lines(self, outputs: list[Any], move: dict[str, Any] | None, told: _Told) -> list[str]:
        events = [o for o in outputs if type(o) is Event]
        if self.seat is None:
            keep = {id(e) for e in omniscient(events, self.d)}
            visible = [e for e in events if id(e) in keep and not _echoes(e, move, self.d)]
        else:
            visible = [e for e in events if sees(e, self.seat)
                       and not (move is not None and move.get("seat") == self.seat and _echoes(e, move, self.d))]
        lines = []
        for o in outputs:
            if self.seat is None and type(o) is dict and o.get("type") == "deal":
                lines.append(f"deal {o.get('deal')} dealt by {self.names(o.get('dealer')).plain}")
            elif self.seat is not None and type(o) is Event and o.kind == "deal" and sees(o, self.seat):
                number = self.d.deal_of(o.data)
                lines.append(f"deal {number} dealt by {self.names(o.data.get('dealer')).plain}; your hand: "
                             + " ".join(str(c) for c in o.data.get("hand") or []))
        for e in visible:
            text = told.text(e)
            if text is not None:
                lines.append(self.voice.say(text))
        return lines

    def _note_played(self, outputs: list[Any]) -> list[tuple[int, list[str]]]:
        """Record who played what in this step (as far as the viewer may see)."""
        plays = []
        for o in outputs:
            if type(o) is dict and o.get("type") == "deal":
                self.by = {}
            if type(o) is Event and (self.seat is None or sees(o, self.seat)):
                seat = o.data.get("seat")
                cards = self.d.played(o)
                if isinstance(seat, int) and cards:
                    for c in cards:
                        self.by[c] = seat
                    plays.append((seat, cards))
        return plays

    def _table(self, state, obs: Any) -> tuple[list[Any], list[Any], list[dict[str, Any]], list[dict[str, Any]]]:
        """Hands, hand sizes, center zones and piles, as this view may show them: the whole match
        from the state's zones, a seat's view from its observation `obs` alone (read as zones by
        the game's describer)."""
        zones = state.zones() if self.seat is None else self.d.observation_zones(obs, self.seat)
        hands: list[Any] = [None] * self.n
        counts: list[Any] = [None] * self.n  # None: a hand size the view is not told
        center, piles = [], []
        for name, value in zones.items():
            if isinstance(value, list):
                cards, n = [c if isinstance(c, str) else None for c in value], len(value)
            elif type(value) is int and value >= 0:
                cards, n = [], value
            else:
                continue
            seat = _hand_seat(name)
            if seat is not None:
                if seat < self.n:
                    counts[seat] = n
                    hands[seat] = cards if isinstance(value, list) else None
                continue
            zone = self.d.zone(name)
            if zone.center:
                # a zone shown by its top: the cards seen at the top (a card not seen is never shown)
                shown = [c for c in cards if c is not None][-zone.top:] if zone.top else cards
                middle = {"l": zone.label, "cards": shown, "n": n, "by": [self.by.get(c) for c in shown]}
                if zone.top:
                    middle["top"] = zone.top
                center.append(middle)
            else:
                piles.append({"l": zone.label, "cards": cards, "n": n})
        return hands, counts, center, piles

    def _parts(self, told: _Told) -> list[list[str]] | None:
        """Each seat's part in the deal (candidate, president...), as this view knows it: a seat's
        view from its observation; the whole match from every seat's, together. None: no part."""
        parts: list[list[str]] = [[] for _ in range(self.n)]
        for seat in [self.seat] if self.seat is not None else range(self.n):
            for who, words in told.roles(seat).items():
                if type(who) is int and 0 <= who < self.n:
                    parts[who].extend(w for w in map(str, words) if w not in parts[who])
        return parts if any(parts) else None

    def _observation(self, state, obs: Any) -> Any:
        """The observation the seat is sent with its decision (seat view, when it is to act)."""
        if self.seat is None or state.to_act() != self.seat:
            return None
        return obs

    def _turn(self, state) -> int | None:
        """Who acts next: anyone in the whole-match view; in a seat's view only the seat itself
        (who else is asked, e.g. for a counter offer, is not always public)."""
        turn = state.to_act()
        return turn if self.seat is None or turn == self.seat else None

    def _disqualified(self) -> list[int]:
        """The seats disqualified so far, as this view may show them: in a seat's view only the seat
        itself (the others are not told until the result)."""
        return sorted(s for s in self.disqualified if self.seat is None or s == self.seat)

    def _penalised(self, outputs: list[Any]) -> list[list[Any]]:
        """The step's conduct penalties (referee.game.penalty: events with a ruling) this view was
        told of, each [seat, why, ruling]."""
        return [[e.data.get("seat"), str(e.data.get("why")), str(e.data["ruling"])] for e in outputs
                if type(e) is Event and e.kind == PENALTY and "ruling" in e.data
                and (self.seat is None or sees(e, self.seat))]

    def _append(self, frame: dict[str, Any], outputs: list[Any]) -> None:
        """Add a frame, with the penalties of the outputs it shows (`pen`, when there are some)."""
        penalties = self._penalised(outputs)
        if penalties:
            frame["pen"] = penalties
        self.frames.append(frame)

    def _frame(self, deal: int, number: int | None, step, move, lines, table, turn, parts, done=False, obs=None,
               end=False) -> dict:
        """One step's frame: deal `deal`, after its move `number` (None: as dealt; `end`: the deal's
        end, shown before the next deal's first step; the page's label says so)."""
        hands, counts, center, piles = table
        frame: dict[str, Any] = {"d": deal, "log": lines, "h": hands, "c": counts,
                                 "ctr": center, "piles": piles, "turn": turn}
        if number is not None:
            frame["m"] = number
        if end:
            frame["e"] = 1
        if parts is not None:
            frame["parts"] = parts
        disqualified = self._disqualified()
        if disqualified:
            frame["dq"] = disqualified
        if move is not None and (self.seat is None or move.get("seat") == self.seat):
            frame["who"] = move.get("seat")
            frame["act"] = self.told.act(move)
            fault = move.get("fault")
            if isinstance(fault, dict):
                frame["fault"] = f"{fault.get('kind')}: {fault.get('detail', '')}" + (
                    f" (sent {str(fault.get('raw'))[:80]!r})" if fault.get("raw") else "")
            elif step is not None and step.fallback:
                frame["fb"] = 1  # a disqualified seat's move, played by the fallback: no fault of its own
            debug = move.get("debug")
            if isinstance(debug, str) and debug:
                frame["dbg"] = debug[:DEBUG_CAP]  # the bot's debug text: its own view and the whole match's only
        elif move is not None:
            frame["who"] = None  # another seat's decision: seen only through its events
        if done:
            frame["done"] = True
        if obs is not None:
            frame["obs"] = obs
        return frame

    def _deal_end(self, data: dict[str, Any], frame: int) -> None:
        per_seat = {k: v for k, v in data.items() if isinstance(v, list) and len(v) == self.n}
        notes = []
        for key, value in data.items():
            if key in per_seat or key == "type" or key in self.d.deal_keys:
                continue
            note = self.d.deal_note(key, value, self.names)  # the game's words, never a raw field
            if note is not None:
                notes.append(note)
        self.deals.append({"deal": self.d.deal_of(data), "frame": frame,
                           "cols": {("points" if k == "scores" else k): v for k, v in per_seat.items()},
                           "notes": ", ".join(notes)})

    def _ends(self, outputs: list[Any], frame: int) -> None:
        for o in outputs:
            if self.seat is None and type(o) is dict and o.get("type") == "deal_end":
                self._deal_end(o, frame)
            elif self.seat is not None and type(o) is Event and o.kind in self.d.end_kinds \
                    and sees(o, self.seat):
                self._deal_end(o.data, frame)

    # -- the steps -------------------------------------------------------------------------------

    def add(self, step, told: _Told) -> None:
        """The frames of one re-simulated step (two when the step ends a deal and deals the next),
        `told`: what each seat is told at this step."""
        outputs, move = step.outputs, step.move
        self.told = told
        self.disqualified = step.disqualified
        # a seat's view: what the seat would be sent now, if asked (the runner's `act` observation)
        obs = told.obs(self.seat) if self.seat is not None else None
        parts = self._parts(told)
        split = next((k for k, o in enumerate(outputs) if type(o) is dict and o.get("type") == "deal"), None)
        if step.index == 0 or split is None:
            plays = self._note_played(outputs)
            table = self._table(step.state, obs)
            done = False
            in_center = [c for z in table[2] for c in z["cards"]]
            if plays and self.frames:
                # a trick taken or a table cleared by this play: show the cards before they go
                played = [c for _, cards in plays for c in cards]
                if any(c not in in_center for c in played):
                    table = self._collected(table, plays)
                    done = True
            elif self.frames and not in_center and not self.frames[-1].get("done") \
                    and any(z["cards"] for z in self.frames[-1]["ctr"]):
                # a table cleared without a play (everyone passed): show what was taken
                table = (table[0], table[1], self.frames[-1]["ctr"], table[3])
                done = True
            number = step.number if move is not None else None
            self._append(self._frame(step.state.deal if move is None else step.deal, number, step, move,
                                     self._lines(outputs, move, told), table, self._turn(step.state), parts, done,
                                     self._observation(step.state, obs)), outputs)
            self._ends(outputs, len(self.frames) - 1)
            return
        # the step ends deal k and deals k+1: first the end of deal k, from the previous frame
        before, after = outputs[:split], outputs[split:]
        plays = self._note_played(before)
        prev = self.frames[-1]
        table = self._collected((prev["h"], prev["c"], prev["ctr"], prev["piles"]), plays, from_hands=True)
        self._append(self._frame(step.deal, step.number, step, move, self._lines(before, move, told), table, None,
                                 prev.get("parts"), True, end=True), before)
        self._ends(before, len(self.frames) - 1)
        self._note_played(after)
        self._append(self._frame(step.state.deal, None, None, None,
                                 self._lines(after, None, told), self._table(step.state, obs), self._turn(step.state),
                                 parts, False, self._observation(step.state, obs)), after)
        self._ends(after, len(self.frames) - 1)

    def finish(self) -> None:
        """The last frame shows the result of the match, which names every disqualified seat."""
        if self.frames and self.disqualified:
            self.frames[-1]["dq"] = sorted(self.disqualified)

    def _collected(self, table, plays, from_hands: bool = False):
        """The previous frame's table with this step's plays added to the middle (and, at a
        deal's end, taken from the hands): what the table looked like just before it was cleared."""
        hands, counts, center, piles = table
        prev = self.frames[-1] if self.frames else None
        base = prev["ctr"] if prev is not None else []
        main = dict(base[0]) if base else {"l": "table", "cards": [], "n": 0, "by": []}
        main["cards"], main["by"] = list(main["cards"]), list(main["by"])
        if prev is not None and prev.get("done") and not main.get("top"):
            main["cards"], main["by"], main["n"] = [], [], 0  # that table was cleared meanwhile
        hands = [list(h) if h is not None else None for h in hands]
        counts = list(counts)
        for seat, cards in plays:
            for c in cards:
                main["cards"].append(c)
                main["by"].append(seat)
                if from_hands and 0 <= seat < self.n:
                    if hands[seat] is not None and c in hands[seat]:
                        hands[seat].remove(c)
                    elif hands[seat] is not None and None in hands[seat]:
                        hands[seat].remove(None)  # a card the view did not see, now shown played
                    if counts[seat] is not None:
                        counts[seat] = max(0, counts[seat] - 1)
        main["n"] = main.get("n", 0) + sum(len(c) for _, c in plays)
        if main.get("top"):  # a pile that keeps its cards, shown by its top
            main["cards"], main["by"] = main["cards"][-main["top"]:], main["by"][-main["top"]:]
        return hands, counts, [main] + [dict(z) for z in base[1:]], piles


def _faces(views: list[list[dict[str, Any]]], d: Describer) -> dict[str, dict[str, Any]]:
    """How to draw each card the frames of the page's views show, in the table or in their story
    lines (the game's describer says which words of a line are cards): only those, so a seat's
    page names no other card."""
    codes: list[str] = []
    for frames in views:
        for f in frames:
            for hand in f["h"]:
                codes.extend(hand or [])
            for zone in f["ctr"] + f["piles"]:
                codes.extend(zone["cards"])
            for line in f["log"] + ([f["act"]] if "act" in f else []):
                codes.extend(_WORD.findall(line))
    return {c: d.face(c) for c in dict.fromkeys(codes) if isinstance(c, str) and d.is_card(c)}


def _symbols(faces: dict[str, dict[str, Any]], d: Describer) -> dict[str, Any]:
    """The describer's symbols the faces draw."""
    used = {f.get(k) for f in faces.values() for k in ("p", "b")} | {f.get("h", {}).get("p") for f in faces.values()}
    return {k: v for k, v in d.viewer_symbols().items() if k in used}


def _build(replay: Replay, game: Game | None, seats: list[int | None]) -> tuple[list[_Frames], str | None]:
    """The frames of each view (None: the whole match; a seat: its view), from one re-simulation;
    and the warning when it stopped early (then only the whole match's view is kept)."""
    if game is None:
        raise UsageError(f"the {replay.game!r} game is not installed: the viewer re-runs the match")
    builders = [_Frames(replay, game, seat) for seat in seats]
    try:
        d, names = builders[0].d, Names(replay.names())
        for step in simulate(replay, game):
            told = _Told(step.state, d, names)
            for builder in builders:
                builder.add(step, told)
    except CannotVerify as exc:
        raise UsageError(f"cannot build the viewer: {exc}") from None
    except Mismatch as exc:
        if seats[0] is not None or not builders[0].frames:
            raise UsageError(f"cannot build the viewer: the replay does not re-simulate: {exc}") from None
        return builders[:1], f"the re-simulation stopped at {exc}: the viewer ends there"
    for builder in builders:
        builder.finish()
    return builders, None


# -- the page's compact form of the frames ------------------------------------------------------
# Each frame is kept as what changes: against its base (a seat's view: the whole match's frame of
# the same step; the whole match, or a seat's page: none) and the view's previous frame. A key
# equal to the base's is left out; one equal to the previous frame's is named in "="; a hand list
# (`h`, `c`) is given by its changed entries {index: value} against the base's list (else the
# previous frame's); a story line (`log`) the base tells too is its index there (-1: the base's
# move line), read with the seat's name as its own view names it; "-" names the base's keys the
# frame lacks. viewer.js `expand` reads it back, as `_expand` does.

_MISSING = object()


def _delta(frame: dict[str, Any], base: dict[str, Any], prev: dict[str, Any], voice: _Voice) -> dict[str, Any]:
    out: dict[str, Any] = {}
    same = []
    for key, value in frame.items():
        old = base.get(key, _MISSING)
        if value == old:
            continue
        if prev.get(key, _MISSING) == value:
            same.append(key)
            continue
        ref = old if old is not _MISSING else prev.get(key)
        if key in ("h", "c") and isinstance(ref, list) and len(ref) == len(value):
            out[key] = {str(k): v for k, (v, w) in enumerate(zip(value, ref)) if v != w}
        elif key == "log" and base.get("log"):
            told = {voice.line(base, k): k for k in range(len(base["log"]) - 1, -2, -1)}
            out[key] = [told.get(line, line) for line in value]
        else:
            out[key] = value
    if same:
        out["="] = same
    gone = [key for key in base if key not in frame]
    if gone:
        out["-"] = gone
    return out


def _undelta(delta: dict[str, Any], base: dict[str, Any], prev: dict[str, Any], voice: _Voice) -> dict[str, Any]:
    frame = {k: v for k, v in base.items() if k not in delta.get("-", ())}
    for key in delta.get("=", ()):
        frame[key] = prev[key]
    for key, value in delta.items():
        if key in ("=", "-"):
            continue
        if key in ("h", "c") and isinstance(value, dict):
            patched = list(base[key] if key in base else prev[key])
            for k, v in value.items():
                patched[int(k)] = v
            value = patched
        elif key == "log":
            value = [voice.line(base, line) if type(line) is int else line for line in value]
        frame[key] = value
    return frame


def _compact(frames: list[dict[str, Any]], bases: list[dict[str, Any]], voice: _Voice) -> list[dict[str, Any]]:
    out, prev = [], {}
    for k, frame in enumerate(frames):
        out.append(_delta(frame, bases[k] if k < len(bases) else {}, prev, voice))
        prev = frame
    return out


def _expand(deltas: list[dict[str, Any]], bases: list[dict[str, Any]], voice: _Voice) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k, delta in enumerate(deltas):
        out.append(_undelta(delta, bases[k] if k < len(bases) else {}, out[-1] if out else {}, voice))
    return out


#: a seat's resources in the result record (docs/replays.md): the figures the page shows, and how measured
_FIGURES = ("decisions", "ms_p50", "ms_p90", "ms_max", "cpu_s", "peak_mb")
_MEASURED = frozenset(("cgroup", "process", "approximate", "in-process"))


def _resources(value: Any, n: int, seat: int | None) -> list[dict[str, Any] | None] | None:
    """The result's per-seat resources as the page shows them (None: the replay has none, as older
    ones): each seat's figures (a number or None) and how they were measured, None for a seat
    without them; a seat's view holds its own seat's only (the others' were never told it)."""
    if not isinstance(value, list) or len(value) != n:
        return None
    out: list[dict[str, Any] | None] = []
    for k, entry in enumerate(value):
        if not isinstance(entry, dict) or (seat is not None and k != seat):
            out.append(None)
            continue
        # a number as it is (no NaN: the page's JSON.parse takes none), anything else as unknown
        figures: dict[str, Any] = {f: v if type(v := entry.get(f)) in (int, float) and math.isfinite(v) else None
                                   for f in _FIGURES}
        measured = entry.get("measured")
        figures["measured"] = measured if isinstance(measured, str) and measured in _MEASURED else None
        out.append(figures)
    return out if any(out) else None


def viewer_data(replay: Replay, game: Game | None, seat: int | None = None) -> dict[str, Any]:
    """Everything the viewer page shows, as JSON-ready data: the frames and the scores, and the
    game's pictures (its describer's card faces, symbols and CSS), so the page knows no game.

    A seat's page (`seat` given) holds that seat's view and nothing else. The whole match's page
    holds the whole match's view and, for its seat selector, every seat's ("views": {seat,
    frames, deals}, the frames without the observation panel's `obs`)."""
    seats = [seat] if seat is not None else [None, *range(replay.players)]
    builders, warning = _build(replay, game, seats)
    main = builders[0]
    header = replay.header
    d = main.d
    faces = _faces([b.frames for b in builders], d)
    result = replay.result if warning is None else None
    if result is not None:
        resources = _resources(result.get("resources"), replay.players, seat)
        result = {k: result.get(k) for k in ("scores", "ranks", "faults", "disqualified", "fault_log")}
        if resources is not None:
            result["resources"] = resources
        if seat is not None and isinstance(result["fault_log"], list):  # as the seat was told at `end`
            result["fault_log"] = fault_log_for(seat, result["fault_log"])
    data = {
        "game": replay.game,
        "title": game.title,
        "match": header.get("match", ""),
        "seed": header.get("seed") if seat is None else None,
        "config": header.get("config") or {},
        "names": replay.names(),
        "kinds": [p.get("kind", "") if isinstance(p, dict) else "" for p in header.get("players") or []]
        if seat is None else [],
        "seat": seat,
        "frames": main.frames,
        "deals": main.deals,
        "result": result,
        "warning": warning,
        "faces": faces,
        "symbols": _symbols(faces, d),
        "css": d.viewer_css(),
        "prefixes": {k: d.score_prefix(k) for b in builders for deal in b.deals for k in deal["cols"]
                     if d.score_prefix(k)},
    }
    if seat is None:
        data["views"] = [{"seat": b.seat, "frames": [{k: v for k, v in f.items() if k != "obs"} for f in b.frames],
                          "deals": b.deals} for b in builders[1:]]
    return data


# -- the page ------------------------------------------------------------------------------------

#: the viewer's shared parts: its script and style, inlined in a lone page, written once beside a
#: tournament's pages (`write_viewer(..., assets=DIR)`) and linked from each
ASSETS = ("viewer.js", "viewer.css")


def _asset(name: str) -> str:
    return resources.files("referee.replay").joinpath(name).read_text(encoding="utf-8")


# In JSON text these characters occur only inside strings, where a \u escape means the same
# character: written so, no string (a bot's reply, name or fault text) can end the <script>
# element ("</script>"), open an HTML comment in it ("<!--") that hides a later "</script>", or
# change a JavaScript reading of the text (U+2028/U+2029). Issue 15 #8.
_SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                 "\u2028": "\\u2028", "\u2029": "\\u2029"})
_SLOTS = re.compile(r"__(TITLE|STYLE|SCRIPT|BACK|DATA)__")
_DATA = re.compile(r'<script id="data" type="application/octet-stream">([A-Za-z0-9+/=\s]*)</script>')


def script_json(data: Any) -> str:
    """`data` as JSON text safe anywhere inside a <script> element; JSON.parse (or json.loads)
    of it gives back exactly `data`."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).translate(_SCRIPT_ESCAPES)


def pack(data: dict[str, Any]) -> str:
    """The viewer data as a page holds it: each view's frames in their compact form (above), as
    JSON, gzip-compressed, base64 (a few KB a match where the JSON is a hundred or more; base64
    holds no character that could end or alter a script)."""
    packed = dict(data, frames=_compact(data["frames"], [], _Voice(data["names"], None)))
    if "views" in data:
        packed["views"] = [dict(v, frames=_compact(v["frames"], data["frames"], _Voice(data["names"], v["seat"])))
                           for v in data["views"]]
    # a lone surrogate (no Unicode text: a replay someone wrote) as its JSON escape (issue 25)
    raw = json.dumps(packed, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def page_data(text: str) -> dict[str, Any]:
    """The viewer data a page holds (the page's text), exactly as `viewer_data` built it."""
    m = _DATA.search(text)
    if m is None:
        raise ValueError("no viewer data in this page")
    data = json.loads(gzip.decompress(base64.b64decode(m.group(1))).decode("utf-8"))
    data["frames"] = _expand(data["frames"], [], _Voice(data["names"], None))
    for view in data.get("views", []):
        view["frames"] = _expand(view["frames"], data["frames"], _Voice(data["names"], view["seat"]))
    return data


def _link(target: Path, page: Path) -> str:
    """A relative link from `page` to `target`, as an attribute value."""
    rel = os.path.relpath(target, page.parent).replace(os.sep, "/")
    return html.escape(urllib.parse.quote(rel), quote=True)


def render_viewer(replay: Replay, game: Game | None, seat: int | None = None, *,
                  page: Path | None = None, assets: Path | None = None, index: Path | None = None) -> str:
    """The viewer page for a replay, as one HTML string: self-contained, or (with `assets`, the
    directory of the shared script and style, and `page`, where the page goes) linking them;
    with `index`, linking back to that page."""
    data = viewer_data(replay, game, seat)
    title = f"{data['title']} · {data['match']}" + (f" · seat {seat}" if seat is not None else "")
    if assets is not None and page is not None:
        style = f'<link rel="stylesheet" href="{_link(assets / "viewer.css", page)}">'
        script = f'<script src="{_link(assets / "viewer.js", page)}"></script>'
    else:
        style = f"<style>\n{_asset('viewer.css')}</style>"
        script = f"<script>\n{_asset('viewer.js')}</script>"
    back = f'<a id="back" href="{_link(index, page)}">&larr; index</a>' if index is not None and page else ""
    # one pass: a title holding "__DATA__" is not filled in again
    slots = {"TITLE": html.escape(title), "STYLE": style, "SCRIPT": script, "BACK": back, "DATA": pack(data)}
    return _SLOTS.sub(lambda m: slots[m.group(1)], _asset("viewer.html"))


def write_viewer(replay: Replay, game: Game | None, out: str | Path, seat: int | None = None, *,
                 assets: str | Path | None = None, index: str | Path | None = None) -> Path:
    """Write the viewer page of a replay to `out`. With `assets`, a directory, the page links the
    viewer's shared script and style kept there (written there when missing or different: once
    for a whole tournament) instead of holding them; with `index`, it links back to that page."""
    out = Path(out)
    assets = Path(assets) if assets is not None else None
    text = render_viewer(replay, game, seat, page=out, assets=assets,
                         index=Path(index) if index is not None else None)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if assets is not None:
            write_assets(assets)
        write_whole(out, text)
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or out}: {exc.strerror or exc}") from None
    return out


def write_assets(directory: Path) -> None:
    """Write the viewer's shared script and style into `directory`, each only when it is missing
    or differs (a tournament's thousand pages rewrite nothing)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        text, path = _asset(name), directory / name
        try:
            if path.read_text(encoding="utf-8") == text:
                continue
        except (OSError, UnicodeDecodeError):
            pass
        write_whole(path, text)


def write_whole(path: Path, text: str) -> None:
    """Write a page under a temporary name and rename it: a kill never leaves a torn page (which
    a later run, seeing it newer than its replay, would keep)."""
    partial = path.with_name(f".{path.name}.part-{os.getpid()}")
    try:
        partial.write_text(text, encoding="utf-8", errors="backslashreplace")  # as `pack` (issue 25)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
