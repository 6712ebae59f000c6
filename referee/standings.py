"""Standings from a results journal: counts, points, and an OpenSkill rating with a 95% interval.

Ratings are updated in schedule order (each record's `index`), never in completion order, so a
resumed tournament ends with exactly the standings of an uninterrupted one.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

Z95 = 1.959964


@dataclass
class Row:
    """One entrant's line in a standings table."""

    entrant: str
    matches: int = 0
    wins: int = 0
    mean_rank: float = 0.0
    total_points: float = 0.0
    mean_points: float = 0.0
    faults: int = 0
    disqualified: int = 0
    rating: float = 0.0
    sigma: float = 0.0
    low: float = 0.0
    high: float = 0.0


def read_journal(path: str | Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The journal's tournament line and its match records; a torn last line is ignored, and so
    is a second record of the same schedule index (the first wins): a match counts once.
    Anything else that is no journal line is a UsageError naming the line."""
    from referee.errors import UsageError

    head = None
    records: list[dict[str, Any]] = []
    seen: set[int] = set()
    torn: tuple[int, str] | None = None  # a line that is no JSON: an error unless it is the last
    try:
        with open(path, encoding="utf-8") as f:  # streamed: the journal may be long
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                if torn is not None:
                    raise UsageError(f"{path}, line {torn[0]}: not JSON: {torn[1][:60]!r}")
                try:
                    rec = json.loads(line)
                except ValueError:
                    torn = (number, line)  # fine as the last line: cut by a crash, never acknowledged
                    continue
                if type(rec) is not dict:
                    raise UsageError(f"{path}, line {number}: not a journal record (a JSON object)")
                if rec.get("type") == "tournament":
                    head = rec
                elif rec.get("type") == "match":
                    problem = _match_problem(rec)
                    if problem:
                        raise UsageError(f"{path}, line {number}: a match record {problem}")
                    if rec["index"] not in seen:
                        seen.add(rec["index"])
                        records.append(rec)
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a journal: it is not UTF-8 text") from None
    return head, records


def _match_problem(rec: dict[str, Any]) -> str | None:
    """What keeps a match record from being counted (None: nothing)."""
    seats = rec.get("seats")
    if type(rec.get("index")) is not int:
        return "without an integer index"
    if not isinstance(rec.get("game"), str):
        return "without a game"
    if not isinstance(seats, list) or not seats or not all(isinstance(name, str) for name in seats):
        return "without its seats (a list of entrant names)"
    for key in ("ranks", "scores", "faults"):
        values = rec.get(key)
        if (not isinstance(values, list) or len(values) != len(seats)
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)):
            return f"whose {key} are not one number per seat"
    if not isinstance(rec.get("disqualified"), list):
        return "without its disqualified seats"
    return None


class Tally:
    """Standings of one scope, updated one match at a time: memory grows with the entrants only."""

    def __init__(self, points: bool = True) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.points = points
        self.rows: dict[str, Row] = {}
        self.ratings: dict[str, Any] = {}
        self.rank_sum: dict[str, int] = {}

    def add(self, rec: dict[str, Any]) -> None:
        """Count one match record and update the ratings with its ranks."""
        rows, ratings = self.rows, self.ratings
        for seat, name in enumerate(rec["seats"]):
            row = rows.get(name)
            if row is None:
                row = rows[name] = Row(name)
                ratings[name] = self.model.rating(name=name)
            row.matches += 1
            row.wins += rec["ranks"][seat] == 1
            self.rank_sum[name] = self.rank_sum.get(name, 0) + rec["ranks"][seat]
            row.faults += rec["faults"][seat]
            row.disqualified += seat in rec["disqualified"]
            if self.points:
                row.total_points += rec["scores"][seat]
        new = self.model.rate([[ratings[name]] for name in rec["seats"]], ranks=list(rec["ranks"]))
        for name, team in zip(rec["seats"], new):
            ratings[name] = team[0]

    def table(self) -> list[Row]:
        """The rows, finished (means, rating and interval) and sorted by rating."""
        out = []
        for name, r in self.rows.items():
            mu, sigma = self.ratings[name].mu, self.ratings[name].sigma
            total = round(r.total_points, 4)
            out.append(Row(name, r.matches, r.wins, round(self.rank_sum[name] / r.matches, 4), total,
                           round(total / r.matches, 4), r.faults, r.disqualified, round(mu, 4), round(sigma, 4),
                           round(mu - Z95 * sigma, 4), round(mu + Z95 * sigma, 4)))
        return sorted(out, key=lambda r: (-r.rating, r.mean_rank, r.entrant))


def compute(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Standings overall and per game, as {"overall": [Row], "games": {game: [Row]}}.

    Records are taken in schedule order (their `index`), whatever order they finished in.
    """
    overall = Tally(points=False)
    games: dict[str, Tally] = {}
    for rec in sorted(records, key=lambda r: r["index"]):
        overall.add(rec)
        tally = games.get(rec["game"])
        if tally is None:
            tally = games[rec["game"]] = Tally()
        tally.add(rec)
    return {"overall": overall.table(), "games": {g: t.table() for g, t in games.items()}}


def as_dict(standings: dict[str, Any], name: str = "") -> dict[str, Any]:
    """JSON/TOML-ready standings."""
    points = ("total_points", "mean_points")  # each game's own unit: no overall sum
    return {
        "tournament": name,
        "overall": [{k: v for k, v in asdict(r).items() if k not in points} for r in standings["overall"]],
        "games": {g: [asdict(r) for r in rows] for g, rows in standings["games"].items()},
    }


COLUMNS = ("entrant", "matches", "wins", "mean_rank", "total_points", "mean_points", "faults",
           "disqualified", "rating", "sigma", "low", "high")


def write_all(standings: dict[str, Any], out_dir: Path, name: str = "") -> list[Path]:
    """Write standings.json, .csv, .md and .toml into `out_dir`; returns the paths."""
    import tomli_w

    data = as_dict(standings, name)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    p = out_dir / "standings.json"
    p.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    paths.append(p)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("scope",) + COLUMNS)
    for scope, rows in [("overall", data["overall"])] + list(data["games"].items()):
        for r in rows:
            w.writerow((scope,) + tuple(r.get(c, "") for c in COLUMNS))
    p = out_dir / "standings.csv"
    p.write_text(buf.getvalue(), encoding="utf-8")
    paths.append(p)
    p = out_dir / "standings.md"
    p.write_text(markdown(data), encoding="utf-8")
    paths.append(p)
    p = out_dir / "standings.toml"
    p.write_text(tomli_w.dumps(data), encoding="utf-8")
    paths.append(p)
    return paths


def markdown(data: dict[str, Any]) -> str:
    """The standings as Markdown tables, overall first, then per game."""
    lines = [f"# Standings{': ' + data['tournament'] if data['tournament'] else ''}", ""]
    heads = ("#",) + COLUMNS
    for scope, rows in [("Overall", data["overall"])] + [(f"Game: {g}", r) for g, r in data["games"].items()]:
        lines += [f"## {scope}", "", "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        for i, r in enumerate(rows, 1):
            lines.append("| " + " | ".join([str(i)] + [str(r.get(c, "-")) for c in COLUMNS]) + " |")
        lines.append("")
    lines.append("Rating: OpenSkill Plackett-Luce mu; low/high: the 95% interval (mu ± 1.96 sigma). "
                 "Points are each game's own scores (Mau Mau: penalty points, lower is better); "
                 "the overall table has none.")
    return "\n".join(lines) + "\n"


def rich_table(rows: list[Row], title: str, limit: int | None = None, points: bool = True):
    """A rich Table of standings rows (narrow enough for an 80-column terminal)."""
    from rich import box
    from rich.table import Table

    from rich.text import Text

    # names are the user's (a tournament file) or a journal's: shown as they are, never markup
    table = Table(title=Text(title, style="italic"), box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    heads = ["#", "entrant", "played", "wins", "rank", "points", "faults", "DQ", "rating", "95% range"]
    if not points:
        heads.remove("points")
    for col in heads:
        table.add_column(col, justify="left" if col == "entrant" else "right", min_width=len(col),
                         overflow="fold")  # narrow terminals wrap a cell rather than cut it
    for i, r in enumerate(rows[:limit] if limit else rows, 1):
        cells = [str(i), Text(r.entrant), str(r.matches), str(r.wins), f"{r.mean_rank:.2f}", f"{r.total_points:g}",
                 str(r.faults), str(r.disqualified), f"{r.rating:.1f}", f"{r.low:.1f}..{r.high:.1f}"]
        if not points:
            del cells[5]
        table.add_row(*cells)
    return table
