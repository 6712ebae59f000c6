"""`write_index(out_dir)`: a tournament's index.html, linking every match's viewer page (written
beside its replay by `referee.replay.html.write_viewer`) and showing the standings, the
head-to-head tables and the fault table.
"""

from __future__ import annotations

import html
import urllib.parse
from pathlib import Path
from typing import Any

from referee.errors import UsageError
from referee.replay.html import write_viewer, write_whole
from referee.replay.verify import load_replay

_INDEX_CSS = """
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: #1d2430; background: #eef1f4; }
header { background: #17212b; color: #fff; padding: 14px 22px; }
header h1 { margin: 0; font-size: 20px; } header p { margin: 4px 0 0; color: #a9b4c0; }
main { padding: 16px 22px; display: grid; gap: 16px; }
section { background: #fff; border-radius: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.08); padding: 12px 16px; overflow-x: auto; }
h2 { font-size: 14px; text-transform: uppercase; letter-spacing: .6px; color: #6b7280; margin: 0 0 8px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 4px 8px; text-align: right; white-space: nowrap; }
th { color: #6b7280; font-weight: 600; }
th.l, td.l { text-align: left; }
tr:hover td { background: #fafbfc; }
a { color: #1e66d0; text-decoration: none; } a:hover { text-decoration: underline; }
.bad { color: #b00020; font-weight: 600; }
td.wrap { white-space: normal; overflow-wrap: anywhere; min-width: 240px; }
.muted { color: #6b7280; }
"""

_STANDING_COLUMNS = (("entrant", "entrant"), ("matches", "matches"), ("wins", "wins"), ("mean_rank", "mean rank"),
                     ("total_points", "points"), ("faults", "faults"), ("disqualified", "disq."),
                     ("rating", "rating"), ("low", "95% low"), ("high", "95% high"))


def _href(rel: str) -> str:
    """A relative link to a file of the output directory, as an attribute value: percent-encoded
    (no ":" in it can be read as a scheme) and escaped."""
    return html.escape(urllib.parse.quote(rel), quote=True)


def _cell(value: Any, cls: str = "") -> str:
    text = f"{value:.2f}" if isinstance(value, float) else "" if value is None else str(value)
    return f'<td class="{cls}">{html.escape(text)}</td>' if cls else f"<td>{html.escape(text)}</td>"


def _standings_html(title: str, rows: list[dict[str, Any]]) -> str:
    columns = [(k, label) for k, label in _STANDING_COLUMNS if any(k in r for r in rows)]
    head = "".join(f'<th class="{"l" if k == "entrant" else ""}">{html.escape(label)}</th>' for k, label in columns)
    body = "".join("<tr>" + "".join(_cell(r.get(k), "l" if k == "entrant" else "") for k, _ in columns) + "</tr>"
                   for r in rows)
    return f"<section><h2>{html.escape(title)}</h2><table><tr>{head}</tr>{body}</table></section>"


def _stem(name: str) -> str:
    """A replay file's name without .jsonl / .jsonl.gz."""
    for suffix in (".jsonl.gz", ".json.gz", ".gz", ".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def write_index(out_dir: str | Path, registry: Any = None, standings: dict[str, Any] | None = None) -> Path:
    """Write `index.html` into a tournament's output directory: the standings, and every match
    with a link to its replay and to its viewer page (written beside the replay, `.html`, when
    missing or older than the replay). Returns the index's path; UsageError without a journal.

    `standings`: the tournament's computed standings (`referee.tournament.standings.compute`), if the caller
    has them already; else they are computed from the journal, as `referee standings` does (an
    SPRT entry's matches beyond its deciding set not counted)."""
    from referee.tournament import sprt
    from referee.tournament import standings as st
    from referee.tournament.reporting import fault_rows
    from referee.plugins import load_registry

    out = Path(out_dir)
    journal = out / "journal.jsonl"
    if not journal.is_file():
        raise UsageError(f"{out}: no journal.jsonl here, not a tournament's output directory")
    head, records = st.read_journal(journal)
    name = (head or {}).get("name", "") or out.name
    registry = registry if registry is not None else load_registry()
    parts = [f"<header><h1>{html.escape(name)}</h1><p>{len(records)} matches · "
             f"{html.escape(str(out))}</p></header><main>"]
    rows, viewers = _match_rows(out, records, registry)
    if records:
        if standings is None or "faults" not in standings:
            counted = sprt.counted(records, sprt.read_decisions(journal))
            standings = dict(standings if standings is not None else st.compute(counted))
            standings["faults"] = fault_rows(counted)  # as the terminal and standings.json count them
        table = st.as_dict(standings, name)
        parts.append(_standings_html("Standings: all games", table["overall"]))
        for game, game_rows in table["games"].items():
            parts.append(_standings_html(f"Standings: {game}", game_rows))
        parts.append(_head_to_head_html(table.get("head_to_head", {})))
        parts.append(_faults_html(table.get("faults", []), out, viewers))
    parts.append('<section><h2>Matches</h2><table><tr><th>#</th><th class="l">game</th><th>seed</th>'
                 '<th class="l">seats (in seat order)</th><th>scores</th><th>ranks</th><th>faults</th>'
                 '<th class="l">viewer</th><th class="l">file</th></tr>' + "".join(rows) + "</table></section>")
    parts.append("</main>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{html.escape(name)}"
            f"</title><style>{_INDEX_CSS}</style></head><body>" + "".join(parts) + "</body></html>\n")
    index = out / "index.html"
    write_whole(index, page)
    return index


def _match_rows(out: Path, records: list[dict[str, Any]], registry: Any) -> tuple[list[str], dict[str, str]]:
    """The index's row of each match, writing its viewer page when missing or older than its
    replay; and the viewer page of each match that has one (by match key, relative to `out`)."""
    rows: list[str] = []
    viewers: dict[str, str] = {}
    for rec in sorted(records, key=lambda r: r.get("index", 0)):
        replay_rel = str(rec.get("replay") or "")
        replay_path = out / replay_rel if replay_rel else None
        viewer = ""
        if replay_path is not None and replay_path.is_file():
            page = replay_path.with_name(_stem(replay_path.name) + ".html")
            try:
                if not page.is_file() or page.stat().st_mtime < replay_path.stat().st_mtime:
                    rep = load_replay(replay_path)
                    write_viewer(rep, registry.games.get(rep.game), page, assets=out / "viewer", index=out / "index.html")
                rel = page.relative_to(out).as_posix()
                viewer = f'<a href="{_href(rel)}">view</a>'
                viewers[str(rec.get("key"))] = rel
            except UsageError as exc:
                viewer = f'<span class="bad" title="{html.escape(str(exc))}">no viewer</span>'
            replay_link = f'<a href="{_href(Path(replay_rel).as_posix())}">replay</a>'
        else:
            replay_link = '<span class="muted">missing</span>'
        seats = rec.get("seats") or []
        faults = rec.get("faults") or []
        dq = set(rec.get("disqualified") or [])

        def seat_cell(values):
            return ", ".join(html.escape(str(v)) for v in values)

        flagged = sum(f for f in faults if isinstance(f, int))
        rows.append(
            "<tr>" + _cell(rec.get("index")) + _cell(rec.get("game"), "l") + _cell(rec.get("seed"))
            + f'<td class="l">{seat_cell(seats)}</td><td>{seat_cell(rec.get("scores") or [])}</td>'
            + f'<td>{seat_cell(rec.get("ranks") or [])}</td>'
            + f'<td class="{"bad" if flagged else ""}">{seat_cell(faults)}'
            + (f" (disq. {seat_cell(sorted(dq))})" if dq else "") + "</td>"
            + f'<td class="l">{viewer}</td><td class="l">{replay_link}</td></tr>')
    return rows, viewers


#: the characters of a fault's text the index shows (standings.json holds it whole)
_EXAMPLE = 300


def _faults_html(faults: list[dict[str, Any]], out: Path, viewers: dict[str, str]) -> str:
    """The fault table of the index (standings.json's rows: `referee.tournament.reporting.fault_rows`):
    each entrant's faults of each kind, their first matches linked to their viewer pages and their
    seat logs linked, where those exist, and the first fault's text (a bot's own words, escaped)."""
    if not faults:
        return ""

    def link(target: str | None, text: str) -> str:
        return (f'<a href="{_href(target)}">{html.escape(text)}</a>' if target is not None
                else f'<span class="muted">{html.escape(text)}</span>')

    def example(row) -> str:
        text = str(row.get("example") or "")
        return text if len(text) <= _EXAMPLE else text[:_EXAMPLE] + "…"

    def logs(row) -> list[str]:
        return [str(log) for log in row.get("logs") or []]

    head = ('<tr><th class="l">entrant</th><th class="l">kind</th><th>count</th><th class="l">first matches</th>'
            '<th class="l">logs</th><th class="l">first fault</th></tr>')
    body = "".join(
        "<tr>" + _cell(r.get("entrant"), "l") + _cell(r.get("kind"), "l") + _cell(r.get("count"))
        + '<td class="l">' + ", ".join(link(viewers.get(str(m)), str(m)) for m in r.get("first_matches") or [])
        + '</td><td class="l">' + ", ".join(link(log if _inside(out, log) else None, log) for log in logs(r))
        + "</td>" + _cell(example(r), "l wrap") + "</tr>" for r in faults)
    return f'<section><h2>Faults</h2><table class="faults">{head}{body}</table></section>'


def _inside(out: Path, rel: str) -> bool:
    """Whether `rel` names a file that exists under `out` (a seat log the index may link to)."""
    path = (out / rel).resolve()
    return path.is_file() and path.is_relative_to(out.resolve())


def _head_to_head_html(pairs_by_game: dict[str, list[dict[str, Any]]]) -> str:
    """The head-to-head tables of the index, one per game (columns as in standings.json)."""
    from referee.tournament.head_to_head import COLUMNS

    names = ("entrant", "opponent")
    head = "".join(f'<th class="{"l" if k in names else ""}">{html.escape(k)}</th>' for k in COLUMNS)
    sections = []
    for game, pairs in pairs_by_game.items():
        body = "".join("<tr>" + "".join(_cell("-" if p.get(k) is None else p[k], "l" if k in names else "")
                                        for k in COLUMNS) + "</tr>" for p in pairs)
        sections.append(f"<section><h2>{html.escape(f'Head to head: {game}')}</h2><table><tr>{head}</tr>{body}"
                        "</table></section>")
    return "".join(sections)
