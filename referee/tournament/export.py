"""A tournament's results in the formats other tools read (`referee export`): CSV, one row per
match and seat (spreadsheets, pandas), and PGN, each match as its pairwise games (Ordo,
BayesElo, and other Elo tools of the chess world).

Only the counted matches are exported: those the standings count (an SPRT entry's matches
played past its deciding set are left out, as in the standings), in journal order.

PGN, one game per pair of seats of a match: White is the lower seat, Black the higher; the seat
that finished ahead wins 1-0 (or 0-1), a tie is 1/2-1/2. Tags: Event (the tournament's name),
Site ("referee"), Date ("????.??.??": the journal keeps no calendar date), Round (the match's
index + 1), White, Black, Result, and the referee's own Game, Match (the match's key) and
Table (the seats, as `a/b/c`). The moves are left out: the result alone is what rating tools
read. Those tools take each game as independent: the pairs of one match, and the seatings of
one duplicate set, are not (docs/tournaments.md: "Exporting results"), so their error bars are
too narrow; the standings' intervals (per duplicate set) are the ones to quote.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

FORMATS = ("csv", "pgn")
CSV_COLUMNS = ("index", "key", "game", "seed", "seat", "entrant", "rank", "score", "faults", "disqualified",
               "decisions", "replay")


def export(journal: Path, fmt: str, out: TextIO) -> int:
    """Write the journal's counted matches to `out` as `fmt` (csv or pgn); the number of matches."""
    from referee.tournament.standings import counted_journal, iter_journal

    head = next((r for r in iter_journal(journal) if r["type"] == "tournament"), None) or {}
    matches = counted_journal(journal)
    if fmt == "csv":
        return write_csv(matches, out)
    return write_pgn(matches, out, str(head.get("name") or Path(journal).parent.name))


def write_csv(matches: Iterable[dict[str, Any]], out: TextIO) -> int:
    """One row per match and seat (CSV_COLUMNS)."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    count = 0
    for m in matches:
        count += 1
        for seat, name in enumerate(m["seats"]):
            writer.writerow((m["index"], m.get("key", ""), m.get("game", ""), m.get("seed", ""), seat, name,
                             m["ranks"][seat], m["scores"][seat], m["faults"][seat],
                             "yes" if seat in m.get("disqualified", []) else "no", m.get("decisions", ""),
                             m.get("replay", "")))
    return count


def _tag(name: str, value: Any) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def pairwise_games(m: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """A match's pairwise games: (white, black, result), the lower seat White."""
    seats, ranks = m["seats"], m["ranks"]
    for i in range(len(seats)):
        for j in range(i + 1, len(seats)):
            result = "1-0" if ranks[i] < ranks[j] else "0-1" if ranks[i] > ranks[j] else "1/2-1/2"
            yield seats[i], seats[j], result


def write_pgn(matches: Iterable[dict[str, Any]], out: TextIO, event: str) -> int:
    """Each match as its pairwise games, PGN (see the module's docstring)."""
    count = 0
    for m in matches:
        count += 1
        for white, black, result in pairwise_games(m):
            game = io.StringIO()
            for name, value in (("Event", event), ("Site", "referee"), ("Date", "????.??.??"),
                                ("Round", m["index"] + 1), ("White", white), ("Black", black), ("Result", result),
                                ("Game", m.get("game", "")), ("Match", m.get("key", "")),
                                ("Table", "/".join(m["seats"]))):
                game.write(_tag(name, value) + "\n")
            game.write(f"\n{result}\n\n")
            out.write(game.getvalue())
    return count
