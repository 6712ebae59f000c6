"""The ladder's state in SQLite (Python's sqlite3; WAL): what was seen in the submissions folder,
each version taken in, the duplicate sets and their matches, the ratings over time.

Why SQLite: an embedded database with nothing to install, whose transactions make a kill safe.
Each finished match is one transaction (its row, and the set marked complete with its last
match), so a kill loses at most the match in flight; `UNIQUE(set_id, seating)` makes playing a
match twice impossible, not merely unlikely."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS seen (           -- each entry of the submissions folder, by content
    path TEXT PRIMARY KEY, content TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (    -- every intake of one, accepted or not
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, content TEXT NOT NULL, name TEXT, author TEXT,
    version TEXT, status TEXT NOT NULL, reason TEXT, report TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (       -- the rated versions, and the house strategies
    id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, name TEXT NOT NULL, author TEXT NOT NULL,
    version TEXT NOT NULL, content TEXT NOT NULL, kind TEXT NOT NULL, spec TEXT NOT NULL, dir TEXT,
    submission INTEGER, retired INTEGER NOT NULL DEFAULT 0, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sets (           -- a deal played under every seating of a table
    id INTEGER PRIMARY KEY, seed INTEGER NOT NULL, tables TEXT NOT NULL, seatings INTEGER NOT NULL,
    complete INTEGER NOT NULL DEFAULT 0, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, set_id INTEGER NOT NULL REFERENCES sets(id), seating INTEGER NOT NULL,
    seed INTEGER NOT NULL, seats TEXT NOT NULL, ranks TEXT NOT NULL, scores TEXT NOT NULL,
    faults TEXT NOT NULL, replay TEXT, sha256 TEXT, seconds REAL NOT NULL, at REAL NOT NULL,
    UNIQUE (set_id, seating));
CREATE TABLE IF NOT EXISTS fits (           -- one refit of the ratings
    id INTEGER PRIMARY KEY, sets INTEGER NOT NULL, matches INTEGER NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS ratings (
    fit INTEGER NOT NULL REFERENCES fits(id), entrant TEXT NOT NULL, rating REAL NOT NULL, se REAL,
    low REAL, high REAL, sets INTEGER NOT NULL, PRIMARY KEY (fit, entrant));
"""


@dataclass(frozen=True)
class Entrant:
    """A rated version (or a house strategy): `key` is its name on the ladder ("name@2")."""

    id: int
    key: str
    name: str
    author: str
    version: str
    content: str
    kind: str  # "command" or "strategy"
    spec: str  # the command line, or the strategy's name
    dir: str | None
    submission: int | None
    retired: bool


class State:
    """The ladder's database at `path` (created if missing)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def _tx(self):
        return _Transaction(self.db)

    # the submissions folder

    def seen(self) -> dict[str, str]:
        """The content key last taken in of each entry of the submissions folder."""
        return {r["path"]: r["content"] for r in self.db.execute("SELECT path, content FROM seen")}

    def record_intake(self, path: str, content: str, report: dict[str, Any]) -> Entrant | None:
        """One submission taken in (one transaction): its report, and if accepted a new entrant
        retiring the active version of the same name; the entrant, if any."""
        now = time.time()
        with self._tx():
            self.db.execute("INSERT INTO seen VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE SET content=?, at=?",
                            (path, content, now, content, now))
            cur = self.db.execute(
                "INSERT INTO submissions (path, content, name, author, version, status, reason, report, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (path, content, report.get("name"), report.get("author"), report.get("version"),
                 report.get("status", "rejected"), report.get("reason"), json.dumps(report), now))
            if report.get("status") != "accepted":
                return None
            number = 1 + self.db.execute("SELECT COUNT(*) FROM entrants WHERE name = ?",
                                         (report["name"],)).fetchone()[0]
            self.db.execute("UPDATE entrants SET retired = 1 WHERE name = ? AND retired = 0", (report["name"],))
            key = f"{report['name']}@{number}"
            self.db.execute(
                "INSERT INTO entrants (key, name, author, version, content, kind, spec, dir, submission, at) "
                "VALUES (?, ?, ?, ?, ?, 'command', ?, ?, ?, ?)",
                (key, report["name"], report["author"], str(report.get("version")), content,
                 json.dumps(report["command"]), report["dir"], cur.lastrowid, now))
        return self.entrant(key)

    def add_house(self, strategy: str) -> None:
        """A house strategy on the ladder (once)."""
        with self._tx():
            self.db.execute(
                "INSERT OR IGNORE INTO entrants (key, name, author, version, content, kind, spec, at) "
                "VALUES (?, ?, 'house', '-', ?, 'strategy', ?, ?)", (strategy, strategy, strategy, strategy, time.time()))

    def entrant(self, key: str) -> Entrant:
        """The entrant of that key."""
        return _entrant(self.db.execute("SELECT * FROM entrants WHERE key = ?", (key,)).fetchone())

    def entrants(self, active_only: bool = False) -> list[Entrant]:
        """Every entrant (or the active ones), by key."""
        where = " WHERE retired = 0" if active_only else ""
        return [_entrant(r) for r in self.db.execute(f"SELECT * FROM entrants{where} ORDER BY key")]

    def submissions(self) -> list[dict[str, Any]]:
        """Every intake, oldest first, with its report."""
        return [{**dict(r), "report": json.loads(r["report"])}
                for r in self.db.execute("SELECT * FROM submissions ORDER BY id")]

    # sets and matches

    def open_set(self, seed: int, table: list[str], seatings: int) -> int:
        """A new set (its own transaction); its id."""
        with self._tx():
            cur = self.db.execute("INSERT INTO sets (seed, tables, seatings, at) VALUES (?, ?, ?, ?)",
                                  (seed, json.dumps(table), seatings, time.time()))
        return int(cur.lastrowid)

    def unfinished(self) -> list[dict[str, Any]]:
        """The sets not complete, oldest first, each with the seatings already played."""
        out = []
        for r in self.db.execute("SELECT * FROM sets WHERE complete = 0 ORDER BY id").fetchall():
            done = {m[0] for m in self.db.execute("SELECT seating FROM matches WHERE set_id = ?", (r["id"],))}
            out.append({**_set(r), "done": done})
        return out

    def finish_match(self, set_id: int, seating: int, record: dict[str, Any]) -> None:
        """One finished match, in one transaction; the set marked complete with its last match."""
        with self._tx():
            self.db.execute(
                "INSERT INTO matches (set_id, seating, seed, seats, ranks, scores, faults, replay, sha256, seconds, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (set_id, seating, record["seed"], json.dumps(record["seats"]), json.dumps(record["ranks"]),
                 json.dumps(record["scores"]), json.dumps(record["faults"]), record["replay"], record["sha256"],
                 record["seconds"], time.time()))
            played, wanted = self.db.execute(
                "SELECT COUNT(*), (SELECT seatings FROM sets WHERE id = ?) FROM matches WHERE set_id = ?",
                (set_id, set_id)).fetchone()
            if played == wanted:
                self.db.execute("UPDATE sets SET complete = 1 WHERE id = ?", (set_id,))

    def complete_sets(self) -> list[dict[str, Any]]:
        """Every complete set, by id, with its matches by seating."""
        sets = [_set(r) for r in self.db.execute("SELECT * FROM sets WHERE complete = 1 ORDER BY id")]
        by_set: dict[int, list[dict[str, Any]]] = {s["id"]: [] for s in sets}
        for m in self.db.execute("SELECT * FROM matches ORDER BY set_id, seating"):
            if m["set_id"] in by_set:
                by_set[m["set_id"]].append(_match(m))
        return [{**s, "matches": by_set[s["id"]]} for s in sets]

    def matches(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The matches, newest first."""
        sql = "SELECT * FROM matches ORDER BY id DESC" + (f" LIMIT {int(limit)}" if limit else "")
        return [_match(m) for m in self.db.execute(sql)]

    def count_matches(self) -> int:
        """How many matches were played."""
        return int(self.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    # ratings

    def record_fit(self, sets: int, matches: int, rows: dict[str, dict[str, Any]]) -> int:
        """A refit of the ratings (one transaction); its id."""
        with self._tx():
            fit = self.db.execute("INSERT INTO fits (sets, matches, at) VALUES (?, ?, ?)",
                                  (sets, matches, time.time())).lastrowid
            self.db.executemany("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?)",
                                [(fit, key, r["rating"], r["se"], r["low"], r["high"], r["sets"])
                                 for key, r in sorted(rows.items())])
        return int(fit)

    def latest_ratings(self) -> dict[str, dict[str, Any]]:
        """The ratings of the latest fit, by entrant key (none before the first)."""
        row = self.db.execute("SELECT MAX(id) FROM fits").fetchone()
        if row[0] is None:
            return {}
        return {r["entrant"]: dict(r) for r in self.db.execute("SELECT * FROM ratings WHERE fit = ?", (row[0],))}

    def history(self, key: str) -> list[tuple[int, float, float | None, float | None]]:
        """An entrant's (fit, rating, low, high) over time."""
        return [(r[0], r[1], r[2], r[3]) for r in self.db.execute(
            "SELECT fit, rating, low, high FROM ratings WHERE entrant = ? ORDER BY fit", (key,))]


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on an exception."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, value, tb) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _entrant(r: sqlite3.Row) -> Entrant:
    return Entrant(r["id"], r["key"], r["name"], r["author"], r["version"], r["content"], r["kind"], r["spec"],
                   r["dir"], r["submission"], bool(r["retired"]))


def _set(r: sqlite3.Row) -> dict[str, Any]:
    return {"id": r["id"], "seed": r["seed"], "table": json.loads(r["tables"]), "seatings": r["seatings"],
            "complete": bool(r["complete"])}


def _match(m: sqlite3.Row) -> dict[str, Any]:
    return {"id": m["id"], "set": m["set_id"], "seating": m["seating"], "seed": m["seed"],
            "seats": json.loads(m["seats"]), "ranks": json.loads(m["ranks"]), "scores": json.loads(m["scores"]),
            "faults": json.loads(m["faults"]), "replay": m["replay"], "sha256": m["sha256"],
            "seconds": m["seconds"]}
