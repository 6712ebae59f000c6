"""What a tournament tells its organiser as it goes and at its end: a line per finished match
(like cutechess's "Finished game N"), and a table of every entrant's faults by kind, with the
first matches they happened in and the logs to read.

Both read journal records only (`referee.tournament.run.play`'s), so `referee standings` can show
the fault table of any journal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from referee.faults import late_by

FIRST = 3  # matches named per fault row


def duration(seconds: float) -> str:
    """A short human duration: 42s, 3m05s, 1h02m."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def match_line(record: dict[str, Any], done: int, total: int, eta_s: float | None = None) -> str:
    """One finished match: its place, key, the seats by finishing rank, and its faults."""
    seats = record["seats"]
    order = sorted(range(len(seats)), key=lambda s: (record["ranks"][s], s))
    standing = ", ".join(f"{record['ranks'][s]}. {seats[s]}" for s in order)
    line = f"[{done}/{total}{f', ETA {duration(eta_s)}' if eta_s is not None else ''}] {record['key']}: {standing}"
    faults = [f"{seats[f['seat']]} {f['kind']}" for f in record.get("fault_log", [])
              if isinstance(f, dict) and isinstance(f.get("seat"), int) and 0 <= f["seat"] < len(seats)]
    if faults:
        line += f"; faults: {', '.join(faults)}"
    if record.get("disqualified"):
        line += f" (disqualified: {', '.join(seats[s] for s in record['disqualified'])})"
    return line


@dataclass
class FaultRow:
    """One entrant's faults of one kind over a tournament."""

    entrant: str
    kind: str
    count: int = 0
    matches: list[str] = field(default_factory=list)  # the first few, by schedule index
    logs: list[str] = field(default_factory=list)  # their seat logs, relative to the output dir
    example: str = ""  # the first fault's detail and hint
    late: int = 0  # how many of these faults were late replies (a timeout answered after its limit)
    late_max_ms: int = 0  # the latest of them, in ms past the limit

    def record(self) -> dict[str, Any]:
        """The row as standings.json writes it (`late` only for timeouts some of which came late)."""
        out = {"entrant": self.entrant, "kind": self.kind, "count": self.count, "first_matches": self.matches,
               "logs": self.logs, "example": self.example}
        if self.late:
            out["late"] = {"count": self.late, "max_ms": self.late_max_ms}
        return out


def penalty_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every (entrant, why, ruling) of the conduct penalties the match records carry
    (referee.game.penalty): how many times, in how many matches; the same in any order."""
    rows: dict[tuple[str, str, str], list[int]] = {}
    for rec in records:
        seats = rec["seats"]
        for p in rec.get("penalties") or ():
            seat = p.get("seat") if isinstance(p, dict) else None
            if not isinstance(seat, int) or not 0 <= seat < len(seats):
                continue
            counts = rows.setdefault((seats[seat], str(p.get("why")), str(p.get("ruling"))), [0, 0])
            counts[0] += int(p.get("times", 1))
            counts[1] += 1
    return [{"entrant": e, "why": w, "ruling": r, "times": t, "matches": m}
            for (e, w, r), (t, m) in sorted(rows.items())]


def fault_rows(records: Iterable[dict[str, Any]]) -> list[FaultRow]:
    """Every (entrant, kind) with its count, first matches and logs; the same in any order."""
    rows: dict[tuple[str, str], FaultRow] = {}
    firsts: dict[tuple[str, str], list[tuple[int, str, str, str]]] = {}
    for rec in records:
        seats = rec["seats"]
        for f in rec.get("fault_log", []):
            seat = f.get("seat") if isinstance(f, dict) else None
            if not isinstance(seat, int) or not 0 <= seat < len(seats):
                continue
            key = (seats[seat], str(f.get("kind")))
            row = rows.setdefault(key, FaultRow(*key))
            row.count += 1
            late = late_by(str(f.get("detail", "")))
            if late is not None:
                row.late += 1
                row.late_max_ms = max(row.late_max_ms, late)
            folder = rec["replay"].rsplit("/", 1)[0] if isinstance(rec.get("replay"), str) else "replays"
            # beside the replay (replays/NNNN/ if sharded); named by the fault only if the bot's log
            # held something then (a bot silent on stderr has none)
            log = f"{folder}/{f['log']}" if isinstance(f.get("log"), str) and f["log"] else None
            text = str(f.get("detail", "")) + (f" ({f['hint']})" if f.get("hint") else "")
            firsts.setdefault(key, []).append((rec.get("index", 0), rec["key"], log, text))
    for key, found in firsts.items():
        found.sort(key=lambda x: (x[0], x[1]))
        row = rows[key]
        row.matches = list(dict.fromkeys(k for _, k, _, _ in found))[:FIRST]
        row.logs = list(dict.fromkeys(log for _, _, log, _ in found if log is not None))[:FIRST]
        row.example = found[0][3]
        if row.late:  # a slow bot is told it was slow however its first timeout read
            row.example += (f"; {row.late} of {row.count} were replies that came late, by up to "
                            f"{row.late_max_ms} ms")
    return sorted(rows.values(), key=lambda r: (-r.count, r.entrant, r.kind))


def rich_fault_table(rows: list[FaultRow]):
    """The fault rows as a rich table (None when there is no fault)."""
    if not rows:
        return None
    from rich.table import Table

    table = Table(title="Faults", title_justify="left")
    for name in ("entrant", "kind", "count", "first matches", "logs", "first fault"):
        table.add_column(name, overflow="fold", justify="right" if name == "count" else "left")
    for r in rows:
        table.add_row(r.entrant, r.kind, str(r.count), ", ".join(r.matches), ", ".join(r.logs), r.example)
    return table
