"""The ladder's site: a leaderboard and a page per entrant, under `out/site`, written whole and
swapped in atomically (built in a fresh folder, then the `site` symlink replaced by a rename), so
a reader never sees half a site. It opens from file://; `serve` serves the ladder's folder on
localhost, and then the pages reload themselves (refresh.js).

Every stranger's text (names, authors, versions, reasons) is escaped. Replays are linked through
the shared replay viewer (referee.replay.html), its pages written once under `out/viewers`."""

from __future__ import annotations

import html
import os
import shutil
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.ladder.run import Ladder

HERE = Path(__file__).parent
ASSETS = ("site.css", "refresh.js")
RECENT = 20  # matches listed on each page
#: viewer pages made at each writing of the site, newest match first (one costs about 0.2 s for a
#: Mau Mau match: more would cost more than the matches of a fast ladder); older matches listed
#: without one keep their replay, which `referee replay` shows
VIEWERS = 6


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _href(rel: str) -> str:
    return html.escape(urllib.parse.quote(rel), quote=True)


def _num(value: float | None, digits: int = 0) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def write_site(ladder: Ladder) -> Path:
    """Write the whole site and swap it in (see the module's docstring); the `site` path."""
    out = ladder.out
    build = out / f".site-{time.time_ns()}"
    (build / "e").mkdir(parents=True)
    for name in ASSETS:
        shutil.copyfile(HERE / name, build / name)
    data = _gather(ladder)
    made = 0
    for match in data["matches"]:
        if made >= VIEWERS:
            break
        made += _make_viewer(ladder, match)
    (build / "index.html").write_text(_index(ladder, data), encoding="utf-8")
    for e in data["entrants"]:
        (build / "e" / f"{e.id}.html").write_text(_entrant_page(ladder, data, e), encoding="utf-8")
    link = out / "site"
    old = os.readlink(link) if link.is_symlink() else None
    tmp = out / f".site-link-{os.getpid()}"
    tmp.unlink(missing_ok=True)
    os.symlink(build.name, tmp)
    os.replace(tmp, link)
    if old and old != build.name:
        shutil.rmtree(out / old, ignore_errors=True)
    for stale in out.glob(".site-*"):  # left by a killed run
        if stale.name != build.name and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
    return link


def _gather(ladder: Ladder) -> dict[str, Any]:
    state = ladder.state
    entrants = state.entrants()
    latest = state.latest_ratings()
    matches = state.matches()
    subs = {s["id"]: s for s in state.submissions()}
    return {"entrants": entrants, "latest": latest, "matches": matches, "submissions": subs,
            "sets": ladder.set_counts()}


def _page(title: str, body: str, depth: int) -> str:
    up = "../" * depth
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width,initial-scale=1"><title>{_e(title)}</title>'
            f'<link rel="stylesheet" href="{up}site.css"></head><body>{body}'
            f'<script src="{up}refresh.js"></script></body></html>\n')


def _viewer_page(ladder: Ladder, match: dict[str, Any]) -> Path | None:
    if not match.get("replay"):
        return None
    return ladder.out / "viewers" / f"{Path(match['replay']).name.removesuffix('.jsonl')}.html"


def _make_viewer(ladder: Ladder, match: dict[str, Any]) -> bool:
    """Write a match's viewer page if it has none yet; whether one was written."""
    from referee.replay.html import write_viewer
    from referee.replay.verify import load_replay

    page = _viewer_page(ladder, match)
    if page is None or page.exists():
        return False
    try:
        write_viewer(load_replay(ladder.out / match["replay"]), ladder.game, page,
                     assets=ladder.out / "viewers" / "assets")
    except Exception:  # noqa: BLE001  a page that cannot be made is left unlinked
        return False
    return True


def _viewer(ladder: Ladder, match: dict[str, Any]) -> str | None:
    """The match's viewer page under out, if it was made (None: not, or no replay)."""
    page = _viewer_page(ladder, match)
    return page.relative_to(ladder.out).as_posix() if page is not None and page.exists() else None


def _match_rows(ladder: Ladder, matches: list[dict[str, Any]], depth: int, names: dict[str, str]) -> str:
    up = "../" * (depth + 1)  # from the page to out/
    rows = []
    for m in matches[:RECENT]:
        order = sorted(range(len(m["seats"])), key=lambda i: m["ranks"][i])
        result = ", ".join(f"{m['ranks'][i]}. {names.get(m['seats'][i], m['seats'][i])}" for i in order)
        viewer = _viewer(ladder, m)
        link = f'<a href="{_href(up + viewer)}">replay</a>' if viewer else ""
        faults = sum(1 for f in m["faults"] if f)
        rows.append(f"<tr><td class=num>{m['set']}</td><td class=num>{m['seating']}</td><td>{_e(result)}</td>"
                    f"<td class=num>{faults}</td><td>{link}</td></tr>")
    return ("<div class=wrap><table><tr><th class=num>set</th><th class=num>seating</th><th>finish</th>"
            f"<th class=num>faults</th><th></th></tr>{''.join(rows)}</table></div>")


def _label(e: Any) -> str:
    return e.name if e.kind == "strategy" else f"{e.name} v{e.version}"


def _index(ladder: Ladder, data: dict[str, Any]) -> str:
    latest, counts = data["latest"], data["sets"]
    names = {e.key: _label(e) for e in data["entrants"]}
    active = [e for e in data["entrants"] if not e.retired]
    active.sort(key=lambda e: (e.key not in latest, -latest.get(e.key, {}).get("rating", 0.0), e.key))
    rows = []
    for place, e in enumerate(active, 1):
        r = latest.get(e.key)
        interval = f"{_num(r['low'])} to {_num(r['high'])}" if r and r["low"] is not None else ""
        rows.append(f'<tr class=entrant><td class=num>{place}</td><td><a href="e/{e.id}.html">{_e(e.name)}</a></td>'
                    f"<td>{_e(e.version)}</td><td>{_e(e.author)}</td><td class=num>{_num(r['rating']) if r else ''}</td>"
                    f"<td class=num>{_e(interval)}</td><td class=num>{r['sets'] if r else 0}</td></tr>")
    retired = [f'<li class=retired><a href="e/{e.id}.html">{_e(e.name)} v{_e(e.version)}</a> by {_e(e.author)}: '
               f"{counts.get(e.key, 0)} sets</li>" for e in data["entrants"] if e.retired]
    subs = "".join(
        f'<tr><td>{_e(s["path"])}</td><td>{_e(s["name"])}</td><td>{_e(s["version"])}</td><td>{_e(s["author"])}</td>'
        f'<td class="{_e(s["status"])}">{_e(s["status"])}</td><td>{_e(s["reason"])}</td></tr>'
        for s in reversed(list(data["submissions"].values())))
    complete = sum(1 for _ in ladder.rated_sets())
    body = (f"<h1>Ladder: {_e(ladder.game.name)}</h1>"
            f"<p class=note>{len(data['matches'])} matches played; ratings over the {complete} complete duplicate "
            "sets of the active versions (batch Plackett-Luce fit, ties by Davidson-Luce; interval: 95%, "
            "bootstrap over sets; none for an entrant before it sat in min_sets sets, 10 by default). Updated {_e(time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime()))}.</p>"
            "<h2>Leaderboard</h2><div class=wrap><table id=leaderboard><tr><th class=num>#</th><th>entrant</th>"
            "<th>version</th><th>author</th><th class=num>rating</th><th class=num>95% interval</th>"
            f"<th class=num>sets rated</th></tr>{''.join(rows)}</table></div>"
            + (f"<h2>Retired versions</h2><ul>{''.join(retired)}</ul>" if retired else "")
            + "<h2>Newest matches</h2>" + _match_rows(ladder, data["matches"], 0, names)
            + "<h2>Submissions</h2><div class=wrap><table><tr><th>entry</th><th>name</th><th>version</th>"
            f"<th>author</th><th>status</th><th>reason</th></tr>{subs}</table></div>")
    return _page(f"Ladder: {ladder.game.name}", body, 0)


def _chart(history: list[tuple[int, float, float | None, float | None]]) -> str:
    """The rating over the fits, its interval shaded, as an inline SVG."""
    if not history:
        return "<p class=note>Not rated yet.</p>"
    values = [v for _, r, lo, hi in history for v in (r, lo, hi) if v is not None]
    top, bottom = max(values) + 10, min(values) - 10
    width, height = 400, 120
    n = len(history)

    def x(i: int) -> float:
        return 10 + (width - 20) * (i / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return 10 + (height - 20) * (top - v) / (top - bottom)

    line = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, (_, r, _, _) in enumerate(history))
    band = [(i, lo, hi) for i, (_, _, lo, hi) in enumerate(history) if lo is not None]
    shade = ""
    if band:
        pts = [f"{x(i):.1f},{y(hi):.1f}" for i, _, hi in band] + [f"{x(i):.1f},{y(lo):.1f}" for i, lo, _ in reversed(band)]
        shade = f'<polygon points="{" ".join(pts)}" fill="#cfe3f7"/>'
    return (f'<svg class=history viewBox="0 0 {width} {height}" role="img" aria-label="rating history">{shade}'
            f'<polyline points="{line}" fill="none" stroke="#1f5f9f" stroke-width="2"/>'
            f'<text x="4" y="12" font-size="10">{top:.0f}</text><text x="4" y="{height - 4}" font-size="10">'
            f"{bottom:.0f}</text></svg><p class=note>Rating after each refit ({n}); shaded: its 95% interval.</p>")


def _entrant_page(ladder: Ladder, data: dict[str, Any], e: Any) -> str:
    names = {x.key: _label(x) for x in data["entrants"]}
    mine = [m for m in data["matches"] if e.key in m["seats"]]
    duel: dict[str, list[int]] = {}  # opponent: [ahead, behind, level]
    for m in mine:
        me = m["ranks"][m["seats"].index(e.key)]
        for other, rank in zip(m["seats"], m["ranks"]):
            if other != e.key:
                tally = duel.setdefault(other, [0, 0, 0])
                tally[0 if me < rank else 1 if me > rank else 2] += 1
    h2h = "".join(f"<tr><td>{_e(names.get(o, o))}</td><td class=num>{a}</td><td class=num>{b}</td>"
                  f"<td class=num>{t}</td></tr>" for o, (a, b, t) in sorted(duel.items()))
    r = data["latest"].get(e.key)
    status = "retired (its results stay in history, no longer rated among the active)" if e.retired else "on the ladder"
    report = ""
    if e.submission is not None and e.submission in data["submissions"]:
        folder = data["submissions"][e.submission]["report"].get("folder")
        if folder:
            report = f'<p><a href="{_href(f"../../intake/submissions/{folder}/report.html")}">intake report</a></p>'
    body = (f'<p><a href="../index.html">&larr; leaderboard</a></p><h1>{_e(e.name)}</h1>'
            f"<p>version {_e(e.version)} by {_e(e.author)}: {_e(status)}.</p>"
            + (f"<p>Rating {_num(r['rating'])}" + (f", 95% interval {_num(r['low'])} to {_num(r['high'])}"
                                                   if r["low"] is not None else "") + f" over {r['sets']} sets.</p>"
               if r else "") + report
            + "<h2>Rating history</h2>" + _chart(ladder.state.history(e.key))
            + "<h2>Head to head</h2><p class=note>Matches finished ahead of, behind and level with each opponent.</p>"
            "<div class=wrap><table><tr><th>opponent</th><th class=num>ahead</th><th class=num>behind</th>"
            f"<th class=num>level</th></tr>{h2h}</table></div>"
            "<h2>Recent matches</h2>" + _match_rows(ladder, mine, 1, names))
    return _page(f"{e.name} v{e.version}", body, 1)


def _public(path: str) -> bool:
    """Whether a request may be answered: the site, the viewers and the intake reports only (never
    the deal key, the database or the submissions' files)."""
    parts = urllib.parse.unquote(urllib.parse.urlsplit(path).path).split("/")
    if ".." in parts or len(parts) < 3:
        return False
    if parts[1] in ("site", "viewers"):
        return True
    return parts[1:3] == ["intake", "submissions"] and len(parts) == 5 and parts[4] == "report.html"


def serve(out: Path, port: int = 8000, host: str = "127.0.0.1") -> Any:
    """An HTTP server of the ladder's pages on localhost (`/` goes to the leaderboard; only what
`_public` allows); not started."""
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Handler(SimpleHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802  (http.server's name)
            if self.path in ("/", "/index.html"):
                self.send_response(302)
                self.send_header("Location", "/site/index.html")
                self.end_headers()
                return
            if not _public(self.path):
                self.send_error(404)
                return
            super().do_GET()

        def do_HEAD(self) -> None:  # noqa: N802
            if not _public(self.path):
                self.send_error(404)
                return
            super().do_HEAD()

        def end_headers(self) -> None:
            self.send_header("Cache-Control", "no-store")  # the site changes under the same names
            super().end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer((host, port), partial(Handler, directory=str(out)))
