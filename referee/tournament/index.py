"""`write_index(out_dir)`: a tournament's index.html, the page its organiser and bot authors
browse: the standings (overall and per game), each with its ratings and their intervals drawn as a
chart; each game's head-to-head as a coloured matrix; the fault table; each entrant's penalties and
resources, when the standings have them; and every match, in a table per game, with its result by
name, linked to its viewer page (written beside its replay by `referee.replay.html.write_viewer`)
and to its replay.

Why a chart: people compare intervals by eye, not by reading two columns of numbers; why a
matrix: a row of green says at a glance whom an entrant beats.

The page is static HTML first: with scripting off every table, chart and link is there. A small
inline script adds sorting (a click on a column's head), a text filter over the standings, the
faults and the matches, and an entrant's own match list (a click on its name, or `#entrant=NAME`
in the address: its matches only, its place in each marked, its finishes counted), and shows
each game's matches 50 at a time with links to the pages. Nothing is loaded from the network,
so the page works from file:// as it was written. A match is one compact row (about 500 bytes:
4.9 MB at 10,000 matches of four seats, 270 KB gzipped), and only a page of them is laid out,
so the page stays usable at that size. It is made for a phone too: no table or chart wider
than the screen (each table scrolls in its own box; the chart is drawn to the width it has).
"""

from __future__ import annotations

import functools
import html
import math
import urllib.parse
from importlib import resources
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from referee.errors import UsageError
from referee.replay.html import write_viewer, write_whole
from referee.replay.verify import load_replay

@functools.cache
def _asset(name: str) -> str:
    """The text of one of the page's asset files beside this module: index.css, its style, and
    index.js, its script. The script reads the static page (no data of its own), so whatever
    names and text the page shows reach it as DOM text only, never as markup or code."""
    return resources.files("referee.tournament").joinpath(name).read_text(encoding="utf-8")

_STANDING_COLUMNS = (("entrant", "entrant"), ("matches", "matches"), ("wins", "wins"), ("mean_rank", "mean rank"),
                     ("total_points", "points"), ("faults", "faults"), ("disqualified", "disq."),
                     ("rating", "rating"), ("low", "95% range"),  # low..high, as the terminal shows it
                     ("p_best", "P(best)"))


def _href(rel: str) -> str:
    """A relative link to a file of the output directory, as an attribute value: percent-encoded
    (no ":" in it can be read as a scheme) and escaped."""
    return html.escape(urllib.parse.quote(rel), quote=True)


def _attr(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _number(value: Any) -> str:
    """A score or rank as a person reads it: 12, 12.5 (never 12.0)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _fixed(value: float, digits: int = 2) -> str:
    """`value` with `digits` decimals, and no minus sign on a zero ("-0.00" is "0.00")."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not float(text) else text


def _cell(value: Any, cls: str = "") -> str:
    text = _fixed(value) if isinstance(value, float) else "" if value is None else str(value)
    return f'<td class="{cls}">{html.escape(text)}</td>' if cls else f"<td>{html.escape(text)}</td>"


def _stem(name: str) -> str:
    """A replay file's name without .jsonl / .jsonl.gz."""
    for suffix in (".jsonl.gz", ".json.gz", ".gz", ".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def write_index(out_dir: str | Path, registry: Any = None, standings: dict[str, Any] | None = None,
                progress: Callable[[int, int], None] | None = None, jobs: int = 1, viewers: bool = True,
                read: JournalRows | None = None) -> Path:
    """Write `index.html` into a tournament's output directory: the standings, the head-to-head
    matrices, the faults, and every match with a link to its replay and to its viewer page
    (written beside the replay, `.html`, when missing or older than the replay). Returns the
    index's path; UsageError without a journal.

    `standings`: the tournament's computed standings (`referee.tournament.standings.compute`, its
    duplicate-set counts included), if the caller has them already; else they are computed from the journal, as `referee standings` does (an
    SPRT entry's matches beyond its deciding set not counted). `progress(done, total)` is called
    as the viewer pages to write are written (the slow part), from (0, total) to (total, total);
    `jobs`: how many processes write them. Without `viewers` no page is written: a match is
    linked to its page only if one is up to date (`[output] viewers = false`). `read`: what the
    caller's own pass over the journal kept for the page (`JournalRows`), else it is read here."""
    from referee.tournament import standings as st
    from referee.plugins import load_registry

    out = Path(out_dir)
    journal = out / "journal.jsonl"
    if not journal.is_file():
        raise UsageError(f"{out}: no journal.jsonl here, not a tournament's output directory")
    if read is None:  # one streamed pass: of each match only what its row shows is kept (no record)
        read = JournalRows()
        for rec in st.iter_journal(journal):
            read.add(rec)
    head, matches, entrants = read.head, read.matches, read.entrants
    name = (head or {}).get("name", "") or out.name
    registry = registry if registry is not None else load_registry()
    rows, pages = _match_rows(out, matches, registry, progress, jobs, viewers)
    sections, nav = [], []
    if matches:
        # as the terminal and standings.json count them (sprt.counted), streamed again
        if standings is None or "faults" not in standings or "penalties" not in standings:
            standings = _with_conduct(journal, standings)
        if "sprt" not in standings:
            standings = {**standings, "sprt": st.sprt_outcomes(journal)}
        table = st.as_dict(standings, name)
        sets = {game: standings["sets"][game] for game in table["games"]}
        notes = {game: _score_note(registry, game) for game in table["games"]}
        few = st.few_sets(table)
        # each game's standings lead; the cross-game table only for the entrants that played every game
        scopes = [(g, r, {g: sets[g]}) for g, r in table["games"].items()]
        across = st.across_games(table["overall"], table["games"])
        if across is not None:
            scopes.append(("all games", across, sets))
        for number, (scope, scope_rows, scope_sets) in enumerate(scopes):
            sections.append(_standings_html(number, scope, scope_rows, scope_sets, notes,
                                            {scope: few[scope]} if scope in few else
                                            {"all games": st.overall_note(table)} if scope == "all games" and few
                                            else {}, table.get("rank_order", {}).get(scope)))
        nav.append(("standings-0", "standings"))
        # each game's goodness of fit and the model of ties (referee/tournament/fit.py), one line each
        sections.append('<section id="fit"><h2>Fit of the rating scale</h2><ul>' + "".join(
            ('<li style="color:#7a5200;font-weight:bold">' if "does not fit" in line else "<li>")
            + f"{html.escape(line)}</li>" for line in st.fit_lines(table)) + "</ul></section>")
        if table.get("sprt"):
            sections.append(_sprt_html(table["sprt"]))
            nav.append(("sprt", "sprt"))
        for number, (game, pairs) in enumerate(table.get("head_to_head", {}).items()):
            order = [r["entrant"] for r in table["games"].get(game, [])]
            sections.append(_matrix_html(number, game, pairs, order, notes.get(game), few.get(game)))
            nav.append((f"h2h-{number}", f"head to head: {game}"))
        faults = _faults_html(table.get("faults", []), out, pages)
        if faults:
            sections.append(faults)
            nav.append(("faults", "faults"))
        for target, text, section in _costs_html(table.get("penalties"), table.get("resources",
                                                                                   standings.get("resources"))):
            sections.append(section)
            nav.append((target, text))
    sections.append(_matches_html(rows, _notes(registry, {m.game for m in matches})))
    nav.append(("matches", "matches"))
    entrants = sorted(entrants)
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{html.escape(name)}"
            f"</title><style>{_asset('index.css')}</style></head><body>"
            + _header(name, out, len(matches), nav) + _toolbar(entrants) + "<main>" + "".join(sections)
            + f"</main><script>{_asset('index.js')}</script></body></html>\n")
    index = out / "index.html"
    write_whole(index, page)
    return index




def _with_conduct(journal: Path, standings: dict[str, Any] | None) -> dict[str, Any]:
    """The standings (computed from the journal when None) with the fault, penalty and resource
    rows the terminal and standings.json have (`reporting.fault_rows`, `penalty_rows`,
    `standings.ResourceTally`) where they lack them: of the counted matches (sprt.counted), in
    one more streamed pass."""
    from referee.tournament import standings as st
    from referee.tournament.reporting import fault_rows, penalty_rows

    standings = dict(standings if standings is not None else st.compute_journal(journal))
    faulty, penalised = [], []  # of the records with a fault, with a penalty: what the rows read
    resources = st.ResourceTally()  # each entrant's times, CPU and peak memory (as outputs.read_once)
    for rec in st.counted_journal(journal):
        resources.add(rec)
        if rec.get("fault_log"):
            faulty.append({k: rec.get(k) for k in ("index", "key", "seats", "replay", "fault_log")})
        if rec.get("penalties"):
            penalised.append({"seats": rec["seats"], "penalties": rec["penalties"]})
    if "faults" not in standings:
        standings["faults"] = fault_rows(faulty)
    if "penalties" not in standings:
        standings["penalties"] = penalty_rows(penalised)
    if "resources" not in standings:
        standings["resources"] = resources.rows()
    return standings


def _header(name: str, out: Path, matches: int, nav: list[tuple[str, str]]) -> str:
    links = "".join(f'<a href="#{target}">{html.escape(text)}</a>' for target, text in nav)
    # the output folder by its name: a published page shows no path of the organiser's machine
    return (f"<header><h1>{html.escape(name)}</h1><p>{matches} matches · {html.escape(Path(out).name)}</p>"
            f"<nav>{links}</nav></header>")


def _toolbar(entrants: Sequence[str]) -> str:
    """The filter box and the entrant picker: shown by the script (they need it to do anything)."""
    options = "".join(f'<option value="{_attr(e)}">{html.escape(e)}</option>' for e in entrants)
    return ('<div id="bar" hidden><input id="q" type="search" placeholder="filter: entrant, game, match…" '
            'aria-label="filter the standings, faults and matches"><select id="who" aria-label="an entrant\'s '
            f'matches"><option value="">every entrant\'s matches</option>{options}</select>'
            '<span id="sum"></span></div>')


def _score_note(registry: Any, game: str) -> str | None:
    """What a game's points are, where its describer says (Mau Mau: penalty points)."""
    from referee.describe import describer_of

    plugin = registry.games.get(game)
    return describer_of(plugin).score_note() if plugin is not None else None


def _notes(registry: Any, games: Iterable[str]) -> list[str]:
    """What the points of the matches' games are, where their describers say ("<game>: <what>")."""
    games = sorted(games)
    return [f"{game}: {note}" for game, note in zip(games, (_score_note(registry, g) for g in games)) if note]


# -- the standings and their rating chart -------------------------------------------------------

def _standings_html(number: int, scope: str, rows: list[dict[str, Any]], sets: dict[str, int],
                    notes: dict[str, str | None], few: dict[str, str] | None = None,
                    order: dict[str, dict[str, float]] | None = None) -> str:
    """One standings table (sortable, filtered) with its rating chart below it, the note saying why
    a range is "-" (`few`: by scope, "all games" or a game), and a game's rank-order probabilities
    (`order`) in a table."""
    columns = [(k, label) for k, label in _STANDING_COLUMNS if any(k in r for r in rows)]
    head = '<th title="place in the standings">#</th>' + "".join(
        f'<th class="{"l" if k == "entrant" else ""}">{html.escape(label)}</th>' for k, label in columns)
    def cell(r: dict[str, Any], k: str) -> str:
        if k == "entrant":
            return f'<td class="l">{html.escape(r["entrant"])}</td>'  # a click picks it (the script)
        if k == "low":  # sorted by its low end
            low, high = r.get("low"), r.get("high")
            return ("<td>-</td>" if low is None or high is None
                    else f'<td data-v="{low}">{_fixed(low)}..{_fixed(high)}</td>')
        return _cell(r.get(k))

    body = "".join(f'<tr data-e="{_attr(r["entrant"])}">' + _cell(place) + "".join(cell(r, k) for k, _ in columns)
                   + "</tr>" for place, r in enumerate(rows, 1))
    chart = f"chart-{number}"
    title = "Standings: all games" if scope == "all games" else f"Standings: {scope}"
    note = notes.get(scope)
    points = f'<p class="note">{html.escape(f"Points: {note}.")}</p>' if note else ""
    if few and few.get(scope):
        points += f'<p class="note few">{html.escape(few[scope])}</p>'
    return (f'<section id="standings-{number}"><h2>{html.escape(title)}</h2>'
            f'<div class="scroll"><table class="standings sortable filter" data-game="{_attr(scope)}" '
            f'data-chart="{chart}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{points}'
            f"<figure>{_chart(chart, rows)}<figcaption>{html.escape(_chart_caption(scope, rows, sets, number == 0))}"
            f"</figcaption></figure>{_rank_order_html(scope, rows, order)}</section>")


def _rank_order_html(game: str, rows: list[dict[str, Any]], order: dict[str, dict[str, float]] | None) -> str:
    """A game's rank-order probabilities: P(row's entrant rated above the column's) over the
    bootstrap resamples, in the standings' order (nothing without them)."""
    if not order:
        return ""
    names = [r["entrant"] for r in rows if r["entrant"] in order]
    head = '<th class="l">P(row above column)</th>' + "".join(
        f'<th class="v" title="{_attr(o)}"><span>{html.escape(o)}</span></th>' for o in names)
    body = "".join(f'<tr data-e="{_attr(n)}"><th class="l">{html.escape(n)}</th>' + "".join(
        '<td class="self"></td>' if o == n else _cell(order[n][o]) for o in names) + "</tr>" for n in names)
    caption = (f"How often each entrant rated above each other one of {game} over the bootstrap resamples of the "
               "duplicate sets; P(best) in the table above: how often it rated best of all (the P(best) column "
               "sums to 1).")
    return (f'<div class="scroll"><table class="matrix rank-order"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
            '</table></div>'
            f'<p class="note">{html.escape(caption)}</p>')


#: the chart's geometry: across, in SVG user units of a 760-pixel chart, drawn as percentages of the
#: chart's width (so that a narrow chart is not shrunk, its words stay their size: a phone reads
#: them); down, in pixels
_WIDTH, _LABELS, _VALUES, _ROW, _TOP, _PAD = 760, 170, 150, 22, 26, 6


def _pc(units: float) -> str:
    """A position across the chart (in units of the 760-wide chart) as a percentage of its width."""
    return f"{units * 100 / _WIDTH:.4f}".rstrip("0").rstrip(".") + "%"


def _ticks(low: float, high: float) -> list[float]:
    """Round tick values (steps of 1, 2, 2.5 or 5 times a power of ten, 3 to 8 of them) covering
    low..high; the first and last are the axis's ends."""
    if high - low < 1e-9:
        low, high = low - 50, high + 50
    raw = (high - low) / 6
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first, last = math.floor(low / step), math.ceil(high / step)
    return [round(k * step, 6) for k in range(first, last + 1)]


def _chart(chart_id: str, rows: list[dict[str, Any]]) -> str:
    """The rating chart of a standings table, drawn here: a row per entrant in the table's order,
    its rating a dot and its 95% interval a bar (none when there is no interval), on one axis."""
    numbers = [r.get(k) for r in rows for k in ("rating", "low", "high")]
    values = [v for v in numbers if isinstance(v, (int, float))] or [0.0]
    ticks = _ticks(min(values), max(values))
    low, high = ticks[0], ticks[-1]
    span = _WIDTH - _LABELS - _VALUES

    def x(value: float) -> float:
        return _LABELS + (value - low) / (high - low) * span

    height = _TOP + _ROW * len(rows) + _PAD
    parts = [f'<svg id="{chart_id}" class="chart" width="100%" height="{height}" '
             f'data-top="{_TOP}" data-step="{_ROW}" data-pad="{_PAD}" role="img" '
             'aria-label="each entrant\'s rating (dot) and 95% interval (bar)">',
             f'<text x="{_pc(_LABELS - 34)}" y="{_TOP - 10}" text-anchor="end" class="axis">rating</text>']
    for n, tick in enumerate(ticks):
        cls = "zero" if tick == 0 else "grid"
        odd = " odd" if n % 2 else ""  # on a narrow chart every other tick's number only (CSS)
        parts.append(f'<line class="{cls}" x1="{_pc(x(tick))}" x2="{_pc(x(tick))}" y1="{_TOP - 6}" y2="100000"/>'
                     f'<text class="tick{odd}" x="{_pc(x(tick))}" y="{_TOP - 10}" text-anchor="middle">{tick:g}</text>')
    for i, r in enumerate(rows):
        rating, lo, hi = r.get("rating"), r.get("low"), r.get("high")
        name = str(r["entrant"])
        shown = name if len(name) <= 24 else name[:23] + "…"
        middle = _ROW // 2
        rated = isinstance(rating, (int, float))
        interval = rated and isinstance(lo, (int, float)) and isinstance(hi, (int, float))
        said = (f"{_fixed(rating, 1)} [{_fixed(lo, 1)}, {_fixed(hi, 1)}]" if interval
                else f"{_fixed(rating, 1)} (no interval)" if rated else "no rating")
        parts.append(f'<g class="row" data-e="{_attr(name)}" transform="translate(0,{_TOP + i * _ROW})">'
                     f"<title>{html.escape(f'{name}: rating {said}')}</title>"
                     f'<rect class="band" x="0" y="0" width="100%" height="{_ROW}"/>'
                     f'<text class="name" x="{_pc(_LABELS - 10)}" y="{middle + 4}" text-anchor="end">'
                     f"{html.escape(shown)}</text>")
        if interval:
            parts.append(f'<rect class="ci" x="{_pc(x(lo))}" y="{middle - 4}" width="{_pc(x(hi) - x(lo))}" '
                         'height="8" rx="3"/>')
        if rated:
            parts.append(f'<circle class="pt" cx="{_pc(x(rating))}" cy="{middle}" r="4.5"/>')
        # the rating and its interval; on a narrow chart the rating alone (CSS): the table has the interval
        short = _fixed(rating, 1) if rated else "-"
        parts.append(f'<text class="value" x="{_pc(_WIDTH - _VALUES + 12)}" y="{middle + 4}">{html.escape(said)}</text>'
                     f'<text class="value short" x="{_pc(_WIDTH - _VALUES + 12)}" y="{middle + 4}">'
                     f"{html.escape(short)}</text></g>")
    return "".join(parts) + "</svg>"


def _chart_caption(scope: str, rows: list[dict[str, Any]], sets: dict[str, int], first: bool) -> str:
    """What the chart's numbers are (said in full under the `first` chart) and how sure they are."""
    from referee.tournament.ratings import RESAMPLES

    text = "Dot: the rating; bar: its 95% interval; one axis for the whole chart, rows in the table's order. "
    if first:
        text += ("The rating is a Plackett-Luce fit of every match's finishing order on an Elo-like scale, mean 0 "
                 "over the table's entrants: 400 points apart, the stronger finishes ahead of the weaker 10 times "
                 "as often (100 points: about 64% of the time). The interval is the rating plus or minus Student's "
                 f"t times its standard error over {RESAMPLES} bootstrap resamples of the duplicate sets (a deal's "
                 "matches under every seating drawn together, each game's apart): how far the rating could move had "
                 "other deals been dealt; in simulation it holds the true rating for about 95% of entrants at 10 "
                 "sets or more (docs/tournaments.md). Entrants whose bars overlap are not told apart. ")
    else:
        text += "What the numbers are: under the first chart. "
    if scope == "all games":
        text += ("Here only the entrants that played every game are shown, each rated across all of them in one "
                 "fit: it compares fairly only entrants of the same games (each game's chart compares them all). ")
    text += "Duplicate sets: " + ", ".join(f"{game} {count}" for game, count in sets.items()) + "."
    if any(r.get("low") is None or r.get("high") is None for r in rows):
        text += " No bar: no interval was computed for that entrant (too few duplicate sets for one: the note above)."
    return text


# -- the head-to-head matrix ----------------------------------------------------------------------

_RED, _NEUTRAL, _GREEN = (192, 57, 43), (244, 244, 241), (30, 132, 73)


def _colour(share: float) -> str:
    """A cell's background: red at 0, neutral at 0.5, green at 1 (linear between)."""
    share = min(1.0, max(0.0, share))
    start, end, t = (_RED, _NEUTRAL, share * 2) if share < 0.5 else (_NEUTRAL, _GREEN, share * 2 - 1)
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(start, end))


def _seen_from(pair: dict[str, Any], row: str) -> dict[str, Any]:
    """A head-to-head pair seen from `row`'s side (its entrant, or its opponent: then ahead and
    behind swap, the points difference and its interval change sign, LOS becomes 1 - LOS)."""
    if pair["entrant"] == row:
        return pair
    low, high = pair.get("diff_low"), pair.get("diff_high")
    return {**pair, "entrant": pair["opponent"], "opponent": pair["entrant"], "ahead": pair["behind"],
            "behind": pair["ahead"], "mean_diff": -pair["mean_diff"], "diff_low": None if high is None else -high,
            "diff_high": None if low is None else -low, "los": None if pair["los"] is None else round(1 - pair["los"], 4)}


def share_ahead(pair: dict[str, Any]) -> float:
    """The share of a pair's meetings in which its entrant finished ahead of its opponent, a tie
    counting half (so the two sides' shares add up to 1)."""
    return (pair["ahead"] + pair["ties"] / 2) / pair["matches"] if pair["matches"] else 0.5


def _tooltip(game: str, p: dict[str, Any]) -> str:
    sets = f"{p['sets']} duplicate set{'s' if p['sets'] != 1 else ''}"
    interval = (f"no interval: only {sets}" if p.get("diff_low") is None or p.get("diff_high") is None
                else f"95% interval {_fixed(p['diff_low'])} to {_fixed(p['diff_high'])} over {sets}")
    los = (f"no likelihood of superiority: only {sets}" if p.get("los") is None
           else f"Likelihood of superiority {p['los']:.3f}")
    return (f"{p['entrant']} against {p['opponent']} ({game}): {p['matches']} matches, ahead in {p['ahead']}, "
            f"behind in {p['behind']}, level in {p['ties']}. Points difference per match {p['mean_diff']:+.2f} "
            f"({interval}). {los}.")


def _matrix_html(number: int, game: str, pairs: list[dict[str, Any]], order: list[str], note: str | None,
                 few: str | None = None) -> str:
    """A game's head-to-head as a coloured matrix (entrants by rows, opponents by columns, in the
    game's standings order), and every pair's numbers in a table under it."""
    from referee.tournament.head_to_head import COLUMNS

    met = {}
    for p in pairs:
        met[(p["entrant"], p["opponent"])] = met[(p["opponent"], p["entrant"])] = p
    order = order + sorted({n for p in pairs for n in (p["entrant"], p["opponent"])} - set(order))
    head = '<th class="l">entrant \u2193 opponent \u2192</th>' + "".join(
        f'<th class="v" title="{_attr(o)}"><span>{html.escape(o)}</span></th>' for o in order)
    body = []
    for row in order:
        cells = []
        for opponent in order:
            pair = met.get((row, opponent))
            if row == opponent:
                cells.append('<td class="self"></td>')
            elif pair is None:
                cells.append(f'<td class="muted" title="{_attr(f"{row} never met {opponent}")}">·</td>')
            else:
                seen = _seen_from(pair, row)
                share = share_ahead(seen)
                ink = "#fff" if abs(share - 0.5) > 0.3 else "#1d2430"
                cells.append(f'<td data-v="{share:.4f}" style="background:{_colour(share)};color:{ink}" '
                             f'title="{_attr(_tooltip(game, seen))}">{round(share * 100)}%</td>')
        body.append(f'<tr data-e="{_attr(row)}"><th class="l">{html.escape(row)}</th>{"".join(cells)}</tr>')
    names = ("entrant", "opponent")
    detail_head = "".join(f'<th class="{"l" if k in names else ""}">{html.escape(k)}</th>' for k in COLUMNS)
    detail = "".join("<tr>" + "".join(_cell("-" if p.get(k) is None else p[k], "l" if k in names else "")
                                      for k in COLUMNS) + "</tr>" for p in pairs)
    points = f" ({game}'s points: {note})" if note else ""
    caption = (f"Each cell: the share of the two entrants' meetings in which the row's entrant finished ahead of "
               f"the column's, ties counting half, in percent: green above 50%, red below, neutral at 50%. "
               f"Rows and columns in {game}'s standings order; a cell's tooltip gives the matches, the points "
               f"difference per match with its 95% interval{points} and the likelihood of superiority "
               "over the duplicate sets (Student's t of the row's per-set finishes ahead minus behind: a set's "
               "seatings share a deal, so the set is the unit; above 0.95, the row's entrant is very likely the "
               "stronger).") + (f" {few}" if few else "")
    return (f'<section id="h2h-{number}"><h2>{html.escape(f"Head to head: {game}")}</h2>'
            f'<div class="scroll"><table class="matrix"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
            "</table></div>"
            f'<p class="note">{html.escape(caption)}</p>'
            "<details><summary>every pair's numbers</summary>"
            f'<div class="scroll"><table class="pairs sortable"><thead><tr>{detail_head}</tr></thead><tbody>{detail}'
            "</tbody></table></div>"
            "</details></section>")


# -- the matches ----------------------------------------------------------------------------------

def _sprt_html(tests: list[dict[str, Any]]) -> str:
    """The SPRT block: a small table per SPRT game entry (its test, LLR and bounds, sets, verdict)."""
    from referee.tournament.sprt import MIN_SETS

    def signed(value: float | None) -> str:
        return "-" if value is None else f"{value:+g}"

    blocks = []
    for t in tests:
        model = "" if t["model"] == "logistic" else f" ({t['model']} Elo)"
        elo = "-" if t["elo"] is None else \
            f"{signed(t['elo'])} (95%: {signed(t['elo_low'])} to {signed(t['elo_high'])})"
        rows = [("test", f"H0 elo &le; {t['elo0']:g}, H1 elo &ge; {t['elo1']:g}{model}; alpha {t['alpha']:g}, "
                         f"beta {t['beta']:g}"),
                ("LLR", f"{t['llr']:.2f} (bounds {t['lower']:.2f}, {t['upper']:.2f})"),
                ("sets", f"{t['sets']} duplicate sets counted ({t['matches']} matches)"),
                ("verdict", html.escape(t["result"])), ("Elo against the field", elo),
                ("LOS", "-" if t["los"] is None else f"{t['los']:.3f}")]
        body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
        title = f"SPRT: games[{t['game_index']}] {t['game']}, focus {t['focus']}"
        blocks.append(f'<h3>{html.escape(title)}</h3><div class="scroll"><table class="sprt">{body}</table></div>')
    note = (f"A gauntlet's sequential test of its focus against the field: H1 accepted when the LLR reaches "
            f"the upper bound, H0 at the lower one, never before {MIN_SETS} duplicate sets.")
    return f'<section id="sprt"><h2>SPRT</h2>{"".join(blocks)}<p class="muted">{note}</p></section>'


def _matches_html(rows: list[tuple[str, str]], notes: list[str]) -> str:
    """The match list: a table per game (by name), each match a row in schedule order; the script
    shows a table 50 rows at a time, with links to its pages (`PAGE` in index.js)."""
    points = f" Points: {'; '.join(notes)}." if notes else ""
    note = (f"Each match's result in finishing order: rank, entrant, points.{points} A click on an entrant's "
            "name shows its matches only.")
    groups: dict[str, list[str]] = {}
    for game, row in rows:
        groups.setdefault(game, []).append(row)
    def pages(game: str) -> str:  # filled by the script
        return f'<nav class="pages" hidden aria-label="{_attr(game)}: pages of matches"></nav>'

    tables = "".join(
        f'<div class="group" id="matches-{n}"><h3>{html.escape(game)} <span class="muted" id="count-matches-{n}">'
        f'</span></h3>{pages(game)}<div class="scroll"><table class="matches sortable filter paged" '
        f'data-game="{_attr(game)}" data-count="count-matches-{n}"><thead><tr><th>#</th>'
        '<th class="l" title="its viewer page, and its replay">match</th><th>seed</th>'
        '<th class="l n">result</th><th title="the match\'s faults">faults</th></tr>'
        f'</thead><tbody>{"".join(body)}</tbody></table></div>{pages(game)}</div>'
        for n, (game, body) in enumerate(sorted(groups.items())))
    return ('<section id="matches"><h2>Matches <span class="muted" id="count-matches"></span></h2>'
            f'<p class="note">{html.escape(note)}</p>{tables}</section>')


def _result(rec: dict[str, Any]) -> str:
    """A match's result by name: "1 alice 120 · 2 bob 80 (2 faults, disq.)", in finishing order."""
    seats, ranks, scores = rec["seats"], rec["ranks"], rec["scores"]
    faults, dq = rec["faults"], set(rec.get("disqualified") or [])
    parts = []
    order = sorted(range(len(seats)), key=lambda s: (ranks[s], s))
    for s in order:
        marks = ([f"{faults[s]} fault{'s' if faults[s] != 1 else ''}"] if faults[s] else []) + (
            ["disq."] if s in dq else [])
        mark = f' <span class="bad">({", ".join(marks)})</span>' if marks else ""
        dot = " ·" if s != order[-1] else ""  # inside: a line never starts with it
        parts.append(f'<span class="p">{_number(ranks[s])} <span class="e">{html.escape(seats[s])}</span> '
                     f"{_number(scores[s])}{mark}{dot}</span>")
    return " ".join(parts)


class JournalRows:
    """What the index keeps of a journal, fed its records (`iter_journal`'s) one at a time: its
    head (the last), and of each match only what its row shows (memory holds no record)."""

    def __init__(self) -> None:
        self.head: dict[str, Any] | None = None
        self.matches: list[_Match] = []
        self.entrants: set[str] = set()

    def add(self, rec: dict[str, Any]) -> None:
        """Keep what the page shows of one journal record (a failure record: nothing)."""
        if rec["type"] == "tournament":
            self.head = rec
        elif rec["type"] == "match":
            self.matches.append(_Match.of(rec))
            self.entrants.update(rec["seats"])


class _Match:
    """What the index shows of one journal record: its row's fields, its result by name."""

    __slots__ = ("index", "key", "replay", "game", "seed", "faults", "result")

    def __init__(self, index: Any, key: str, replay: str, game: str, seed: Any, faults: int, result: str) -> None:
        self.index, self.key, self.replay, self.game = index, key, replay, game
        self.seed, self.faults, self.result = seed, faults, result

    @classmethod
    def of(cls, rec: dict[str, Any]) -> _Match:
        return cls(rec.get("index"), str(rec.get("key")), str(rec.get("replay") or ""), str(rec["game"]),
                   rec.get("seed"), sum(rec["faults"]), _result(rec))


def _match_rows(out: Path, matches: list[_Match], registry: Any,
                progress: Callable[[int, int], None] | None, jobs: int,
                write: bool = True) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The index's row of each match with its game, writing its viewer page when missing or older than its
    replay (`_write_pages`; not with `write` false: then such a match links its replay only);
    and the viewer page of each match that has one (by match key, relative to `out`)."""
    matches = sorted(matches, key=lambda m: m.index or 0)
    pages: dict[str, Path] = {}  # match key -> its viewer page, for the matches whose replay exists
    stale: list[tuple[str, Path, Path]] = []
    for m in matches:
        replay_path = out / m.replay if m.replay else None
        if replay_path is not None and replay_path.is_file():
            page = replay_path.with_name(_stem(replay_path.name) + ".html")
            pages[m.key] = page
            if not page.is_file() or page.stat().st_mtime < replay_path.stat().st_mtime:
                stale.append((m.key, replay_path, page))
    failed = _write_pages(out, stale, registry, progress, jobs) if write else {}
    unwritten = set() if write else {key for key, _, _ in stale}
    rows: list[tuple[str, str]] = []  # (game, row)
    viewers: dict[str, str] = {}
    for m in matches:
        key = m.key
        match = html.escape(key)
        page = pages.get(key)
        if page is not None:
            if key in failed:
                match += f' <span class="bad" title="{_attr(failed[key])}">no viewer</span>'
            elif key not in unwritten:
                rel = page.relative_to(out).as_posix()
                match = f'<a href="{_href(rel)}">{html.escape(key)}</a>'
                viewers[key] = rel
            match += f' <a class="r" href="{_href(Path(m.replay).as_posix())}">replay</a>'
        else:
            match += ' <span class="muted">(replay missing)</span>'
        seed = "" if m.seed is None else html.escape(_number(m.seed))
        faults = f'<td class="bad">{_number(m.faults)}</td>' if m.faults else "<td></td>"
        rows.append((m.game, f"<tr><td>{_number(m.index)}</td><td>{match}</td><td>{seed}</td><td>{m.result}</td>"
                             f"{faults}</tr>"))
    return rows, viewers


#: the fewest pages to write per process before `_write_pages` uses more than one
_PAGES_PER_JOB = 8


def _write_pages(out: Path, stale: list[tuple[str, Path, Path]], registry: Any,
                 progress: Callable[[int, int], None] | None, jobs: int) -> dict[str, str]:
    """Write the viewer page of each (match key, replay, page) in `stale`, on up to `jobs`
    processes (a page re-simulates its match once per view: about 0.1-0.3 s of CPU each); the
    reason of each match whose page could not be built, by key. `progress(done, total)` counts
    the pages. The processes load the installed games themselves (`load_registry`), so `registry`
    is used only when the pages are written here."""
    total = len(stale)
    if progress is not None:
        progress(0, total)
    failed: dict[str, str] = {}
    jobs = min(jobs, total // _PAGES_PER_JOB)
    if jobs <= 1:
        for done, (key, replay, page) in enumerate(stale, 1):
            problem = _write_page(out, replay, page, registry)
            if problem is not None:
                failed[key] = problem
            if progress is not None:
                progress(done, total)
        return failed
    import concurrent.futures

    from referee.tournament import pipesync

    # spawned, not forked: this process may run threads (the progress bar's); its locks pipes,
    # so that a killed run leaves no named semaphore behind (pipesync.py)
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=pipesync.context("spawn")) as pool:
        futures = {pool.submit(_write_page, out, replay, page): key for key, replay, page in stale}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            problem = future.result()
            if problem is not None:
                failed[futures[future]] = problem
            if progress is not None:
                progress(done, total)
    return failed


@functools.cache
def _installed() -> Any:
    """The installed games, loaded once per page-writing process."""
    from referee.plugins import load_registry

    return load_registry()


def _write_page(out: Path, replay: Path, page: Path, registry: Any = None) -> str | None:
    """Write one match's viewer page, linking the output directory's shared viewer files and
    its index; None, or why it cannot be built."""
    if registry is None:
        registry = _installed()
    try:
        rep = load_replay(replay)
        write_viewer(rep, registry.games.get(rep.game), page, assets=out / "viewer", index=out / "index.html")
    except UsageError as exc:
        return str(exc)
    return None


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

    head = ('<tr><th class="l">entrant</th><th class="l">kind</th><th>count</th><th class="l n">first matches</th>'
            '<th class="l n">logs</th><th class="l">first fault</th></tr>')
    body = "".join(
        f'<tr data-e="{_attr(r.get("entrant"))}">' + _cell(r.get("entrant"), "l") + _cell(r.get("kind"), "l")
        + _cell(r.get("count"))
        + '<td class="l">' + ", ".join(link(viewers.get(str(m)), str(m)) for m in r.get("first_matches") or [])
        + '</td><td class="l">' + ", ".join(link(log if _inside(out, log) else None, log) for log in logs(r))
        + "</td>" + _cell(example(r), "l wrap") + "</tr>" for r in faults)
    return (f'<section id="faults"><h2>Faults</h2><div class="scroll"><table class="faults sortable filter"><thead>'
            f"{head}</thead><tbody>{body}</tbody></table></div></section>")


#: the heads of the resources table, by standings.json's names (others: as they are named)
_RESOURCE_HEADS = {"ms_p50": "ms p50", "ms_p90": "ms p90", "ms_max": "ms max", "cpu_s": "CPU s",
                   "cpu_s_max": "CPU s max", "peak_mb": "peak MB"}


def _records(rows: Any) -> list[dict[str, Any]]:
    """Standings rows as dicts: a list of dicts (or of records with `record()`), or a dict of
    dicts by entrant; nothing else (an unknown shape shows no table rather than a wrong one)."""
    if isinstance(rows, dict):
        rows = [{"entrant": name, **value} for name, value in rows.items() if isinstance(value, dict)]
    if not isinstance(rows, list):
        return []
    rows = [r.record() if hasattr(r, "record") else r for r in rows]
    return [r for r in rows if isinstance(r, dict) and "entrant" in r]


def _costs_html(penalties: Any, resources: Any) -> list[tuple[str, str, str]]:
    """The penalties table and the resources table, each (its id, its link's text, its section),
    when the standings have rows for it: what each entrant lost to the rules' penalties, and
    what its decisions took."""
    import json

    def value(v: Any) -> str:
        text = ("-" if v is None or v == [] else f"{round(v, 3):g}" if isinstance(v, float)
                else ", ".join(map(str, v)) if isinstance(v, list) and all(isinstance(x, str) for x in v)
                else json.dumps(v) if isinstance(v, (dict, list)) else str(v))
        return html.escape(text)

    def table(cls: str, rows: list[dict[str, Any]], heads: dict[str, str]) -> str:
        keys = ["entrant"] + list(dict.fromkeys(k for r in rows for k in r if k != "entrant"))
        left = {k for k in keys if all(not isinstance(r.get(k), (int, float)) or isinstance(r.get(k), bool)
                                       for r in rows)}
        head = "".join(f'<th class="{"l" if k in left else ""}">{html.escape(heads.get(k, k))}</th>' for k in keys)
        body = "".join(f'<tr data-e="{_attr(r["entrant"])}">' + "".join(
            f'<td class="{"l" if k in left else ""}">{value(r.get(k))}</td>' for k in keys) + "</tr>" for r in rows)
        return (f'<div class="scroll"><table class="{cls} sortable filter"><thead><tr>{head}</tr></thead>'
                f"<tbody>{body}</tbody></table></div>")

    out = []
    rows = _records(penalties)
    if rows:
        note = ("What each entrant lost to the game's penalties for a seat's conduct (not faults: the move was "
                "played), by reason and ruling: how many times, in how many matches.")
        out.append(("penalties", "penalties", f'<section id="penalties"><h2>Penalties</h2>'
                    f'{table("penalties", rows, {})}<p class="note">{html.escape(note)}</p></section>'))
    rows = _records(resources)
    if rows:
        note = ("Each entrant's decisions: how many, their time in milliseconds (median, 90th percentile, longest), "
                "its CPU seconds (in all; max: in its costliest match) and peak memory, and how they were measured: "
                "cgroup (the sandbox's own account), process, approximate (a bot process kept between matches: its "
                "figures cover more than its matches), in-process (a built-in strategy). '-': not measured.")
        out.append(("resources", "resources", f'<section id="resources"><h2>Resources</h2>'
                    f'{table("resources", rows, _RESOURCE_HEADS)}<p class="note">{html.escape(note)}</p></section>'))
    return out


def _inside(out: Path, rel: str) -> bool:
    """Whether `rel` names a file that exists under `out` (a seat log the index may link to)."""
    path = (out / rel).resolve()
    return path.is_file() and path.is_relative_to(out.resolve())
