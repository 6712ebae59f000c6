"""`referee intake`'s work: every submission unpacked, checked, built and validated, each with a
report, and a summary (docs/contests.md).

A submission is an archive (`.zip`, `.tar`, `.tar.gz`, `.tgz`) or a folder holding `bot.toml` at
its top; a folder given that holds no `bot.toml` is a folder of submissions (each archive or
folder in it, in name order). Each goes through stages, and stops at the first that refuses it:
1. `unpack`: into its own folder under the output (referee.intake.unpack's rules and caps; a
   folder is copied under the same rules);
2. `manifest`: bot.toml read and checked (referee.intake.manifest);
3. `name`: a name belongs to the first author who submitted it (`names.json` in the output
   remembers, across intakes): another author's submission of it is refused;
4. `build`: the manifest's `build` command in its own sandbox, cached by content
   (referee.intake.build); none: the submission's files are run as they are;
5. `validate`: the `referee validate` battery, the bot in the sandbox, run from its folder.
Unpacking and the name checks run one submission after another, in the order given (so "first"
is well defined); builds and validations run `jobs` at a time. Nothing is written outside the
output folder: `submissions/<n>-<stem>/` per submission (its files, its report as JSON and
HTML, its failing matches), `builds/` (the cache), `names.json`, `accepted.json` (the latest
accepted version of each name: what a tournament's entrants may be taken from), `intake.json`
and `index.html` (the summary).
"""

from __future__ import annotations

import html
import json
import os
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import SubmissionError, UsageError
from referee.intake import manifest as manifests
from referee.intake.build import BuildLimits, build
from referee.intake.unpack import Caps, copy_folder, is_archive, unpack

STAGES = ("unpack", "manifest", "name", "build", "validate")


@dataclass(frozen=True)
class Options:
    """What an intake does to each submission."""

    caps: Caps = Caps()
    build: BuildLimits = BuildLimits()
    seeds: int = 1
    max_failed: int = 3
    jobs: int = 2
    move_ms: int = 1000
    start_ms: int = 5000
    sandbox: str = "bwrap"
    players: int | None = None  # validate at this table size only (a ladder's); None: every size
    variant: dict[str, Any] | None = None  # and under these options only (a ladder's); None: every variant


@dataclass
class Submission:
    """One submission on its way through the stages (`report` is what is written of it)."""

    number: int
    source: Path
    folder: Path
    report: dict[str, Any] = field(default_factory=dict)
    files: Path | None = None
    manifest: manifests.Manifest | None = None

    def refuse(self, stage: str, reason: str) -> None:
        """Mark it rejected at `stage`, saying why."""
        self.report.update(status="rejected", stage=stage, reason=reason)


def find(inputs: Sequence[Path]) -> list[Path]:
    """The submissions the inputs name, in order (see the module's docstring)."""
    found: list[Path] = []
    for given in inputs:
        path = Path(given)
        if not path.exists():
            raise UsageError(f"{str(path)!r} does not exist")
        if path.is_dir() and not (path / manifests.FILE).exists():
            children = [c for c in sorted(path.iterdir()) if c.is_dir() or is_archive(c)]
            if not children:
                raise UsageError(f"{str(path)!r} holds no submission (no {manifests.FILE}, no archive, no folder)")
            found += children
        elif path.is_dir() or is_archive(path):
            found.append(path)
        else:
            raise UsageError(f"{str(path)!r} is neither a folder nor an archive (.zip, .tar, .tar.gz, .tgz)")
    return found


def intake(inputs: Sequence[Path], game: Any, registry: Any, out: Path, options: Options = Options(),
           on_event: Callable[[str, Submission], None] | None = None) -> dict[str, Any]:
    """Take every submission in; the summary (also written as intake.json and index.html)."""
    sources = find(inputs)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for sub in ("submissions", "builds"):
        (out / sub).mkdir(exist_ok=True)
    os.chmod(out, 0o755)  # the sandboxed bots, under uids of their own as root, reach their files
    names_file = out / "names.json"
    owners: dict[str, str] = json.loads(names_file.read_text()) if names_file.exists() else {}
    start = 1 + sum(1 for _ in (out / "submissions").iterdir())
    subs = [Submission(start + i, src, out / "submissions" / f"{start + i:03d}-{_stem(src)}")
            for i, src in enumerate(sources)]
    tell = on_event or (lambda stage, sub: None)
    for sub in subs:
        _receive(sub, owners, options)
        tell("received", sub)
    _write_json(names_file, owners)
    lock = threading.Lock()

    def finish(sub: Submission) -> None:
        if "status" not in sub.report:
            _build_and_validate(sub, game, registry, out, options)
        _write_json(sub.folder / "report.json", sub.report)
        (sub.folder / "report.html").write_text(_page(sub.report), encoding="utf-8")
        with lock:
            tell("done", sub)

    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        for future in [pool.submit(finish, sub) for sub in subs]:
            future.result()
    summary = _summary(game.name, subs, out)
    _write_json(out / "intake.json", summary)
    (out / "index.html").write_text(_index(summary), encoding="utf-8")
    return summary


def take_in(source: Path, game: Any, registry: Any, out: Path, options: Options = Options()) -> dict[str, Any]:
    """Take ONE submission (a folder or an archive, as given) in, through the same stages as
    `intake`, into the same output (its numbering, names.json, accepted.json); its report (the
    ladder's way in: no summary page is rewritten)."""
    out = Path(out)
    for sub in ("submissions", "builds"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o755)  # as in `intake`
    names_file = out / "names.json"
    owners: dict[str, str] = json.loads(names_file.read_text()) if names_file.exists() else {}
    number = 1 + sum(1 for _ in (out / "submissions").iterdir())
    sub = Submission(number, Path(source), out / "submissions" / f"{number:03d}-{_stem(Path(source))}")
    _receive(sub, owners, options)
    _write_json(names_file, owners)
    if "status" not in sub.report:
        _build_and_validate(sub, game, registry, out, options)
    _write_json(sub.folder / "report.json", sub.report)
    (sub.folder / "report.html").write_text(_page(sub.report), encoding="utf-8")
    _summary(game.name, [sub], out)  # accepted.json
    return sub.report


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".tar.gz", ".tgz", ".tar", ".zip"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:40].strip("._") or "submission"


def _receive(sub: Submission, owners: dict[str, str], options: Options) -> None:
    """Stages 1-3: unpack, manifest, name."""
    sub.report = {"submission": sub.source.name, "folder": sub.folder.name}
    sub.folder.mkdir(mode=0o755)
    files = sub.folder / "files"
    try:
        if sub.source.is_dir():
            copy_folder(sub.source, files, options.caps)
        else:
            unpack(sub.source, files, options.caps)
    except SubmissionError as exc:
        return sub.refuse("unpack", str(exc))
    try:
        m = manifests.read(files)
    except SubmissionError as exc:
        return sub.refuse("manifest", str(exc))
    sub.manifest, sub.files = m, files
    sub.report.update(name=m.name, author=m.author, version=m.version, language=m.language,
                      run=list(m.run), build={"command": list(m.build)} if m.build else None)
    owner = owners.setdefault(m.name, m.author)
    if owner != m.author:
        sub.refuse("name", f"the name {m.name!r} belongs to another author, who submitted it first")


def _build_and_validate(sub: Submission, game: Any, registry: Any, out: Path, options: Options) -> None:
    """Stages 4-5."""
    from referee.runner import Limits
    from referee.validate import run_validation

    m = sub.manifest
    assert m is not None and sub.files is not None
    run_dir = sub.files
    if m.build:
        try:
            built = build(sub.files, m.build, out / "builds", options.build)
        except OSError as exc:
            return sub.refuse("build", f"the build sandbox cannot run here: {exc}")
        log = built.log.read_bytes().decode("utf-8", "replace")
        sub.report["build"].update(ok=built.ok, seconds=round(built.seconds, 2), cached=built.cached,
                                   log=os.path.relpath(built.log, sub.folder), log_tail=log[-2000:])
        if not built.ok:
            return sub.refuse("build", built.reason)
        assert built.folder is not None
        run_dir = built.folder
    limits = Limits(move_ms=options.move_ms, start_ms=options.start_ms, sandbox=options.sandbox)
    argv = command_in(m.run, run_dir)
    cases = None if options.players is None and options.variant is None else _cases(game, registry, options)
    try:
        report = run_validation(game, registry, argv, limits, seeds=options.seeds, cases=cases,
                                max_failed=options.max_failed, out=sub.folder / "failures",
                                bot_options={"cwd": run_dir, "home": run_dir})
    except (SubmissionError, UsageError) as exc:  # its command cannot run: the submission's mistake
        return sub.refuse("validate", str(exc))
    sub.report["validation"] = report
    if not report["passed"]:
        kinds = ", ".join(f"{k} x{v['count']}" for k, v in report["faults"]["by_kind"].items()) or "no fault"
        return sub.refuse("validate", f"the validation battery found faults ({kinds}); see its failing matches")
    sub.report.update(status="accepted", stage="validate", reason="", dir=str(run_dir.resolve()), command=argv)


def _cases(game: Any, registry: Any, options: Options) -> list[Any]:
    """The battery's cases at `options.players` seats and under `options.variant` (a ladder plays
    nothing else): the first variant's cases with its options put in, when no variant is those."""
    from dataclasses import replace

    from referee.validate import battery

    cases = [c for c in battery(game, registry, options.seeds)
             if options.players is None or c.players == options.players]
    if options.variant is None:
        return cases
    same = [c for c in cases if c.variant == options.variant]
    if same:
        return same
    first = cases[0].variant if cases else {}
    return [replace(c, variant=dict(options.variant)) for c in cases if c.variant == first]


def command_in(run: Sequence[str], folder: Path) -> list[str]:
    """A manifest's command as run from its submission's `folder`: each argument naming a file
    of the submission (`./bot`, `bot.py`) made absolute, the rest as it is."""
    argv = []
    for arg in run:
        path = folder / arg
        inside = not arg.startswith("-") and not os.path.isabs(arg) and ".." not in Path(arg).parts
        argv.append(str(path.resolve()) if inside and path.exists() else arg)
    return argv


def _summary(game: str, subs: list[Submission], out: Path) -> dict[str, Any]:
    rows = [{k: s.report.get(k) for k in ("submission", "folder", "name", "author", "version", "status",
                                           "stage", "reason")} for s in subs]
    accepted_file = out / "accepted.json"
    accepted: dict[str, Any] = json.loads(accepted_file.read_text()) if accepted_file.exists() else {}
    for s in subs:
        r = s.report
        if r.get("status") == "accepted":
            accepted[r["name"]] = {"author": r["author"], "version": r["version"], "run": r["run"],
                                   "command": r["command"], "dir": r["dir"], "game": game,
                                   "submission": r["folder"]}
    _write_json(accepted_file, dict(sorted(accepted.items())))
    return {"game": game, "submissions": rows,
            "accepted": sum(1 for r in rows if r["status"] == "accepted"),
            "rejected": sum(1 for r in rows if r["status"] != "accepted")}


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


_STYLE = ("body{font-family:system-ui,sans-serif;margin:1rem auto;max-width:60rem;padding:0 1rem}"
          "table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem;"
          "text-align:left;vertical-align:top}.accepted{color:#176b2c}.rejected{color:#a31515}"
          "pre{background:#f5f5f5;padding:.5rem;overflow-x:auto;white-space:pre-wrap}"
          ".wrap{overflow-x:auto}")


def _html(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width,initial-scale=1"><title>{html.escape(title)}</title>'
            f"<style>{_STYLE}</style></head><body>{body}</body></html>\n")


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _page(r: dict[str, Any]) -> str:
    """A submission's report page: every stranger's text escaped."""
    status = r.get("status", "?")
    parts = [f"<h1>{_e(r.get('name') or r['submission'])}</h1>",
             f'<p class="{_e(status)}"><b>{_e(status)}</b>'
             + (f" at {_e(r.get('stage'))}: {_e(r.get('reason'))}" if status != "accepted" else "") + "</p>",
             "<table>"]
    for key in ("submission", "author", "version", "language"):
        parts.append(f"<tr><th>{key}</th><td>{_e(r.get(key))}</td></tr>")
    if r.get("run"):
        parts.append(f"<tr><th>run</th><td><code>{_e(' '.join(r['run']))}</code></td></tr>")
    parts.append("</table>")
    b = r.get("build")
    if b:
        parts.append(f"<h2>Build</h2><p><code>{_e(' '.join(b['command']))}</code>"
                     + (f": {'ok' if b.get('ok') else 'failed'}, {_e(b.get('seconds'))} s"
                        + (" (cached)" if b.get("cached") else "") if "ok" in b else "") + "</p>")
        if b.get("log_tail"):
            parts.append(f"<pre>{_e(b['log_tail'])}</pre>")
    v = r.get("validation")
    if v:
        m = v["matches"]
        parts.append(f"<h2>Validation</h2><p>{m['played']} of {m['planned']} matches, "
                     f"{m['with_faults']} with faults; {'passed' if v['passed'] else 'failed'}.</p>")
        for kind, info in v["faults"]["by_kind"].items():
            parts.append(f"<h3>{_e(kind)}: {info['count']}</h3><ul>")
            for ex in info["examples"][:3]:
                parts.append(f"<li>{_e(ex.get('detail'))}</li>")
            parts.append("</ul>")
        if v.get("failures"):
            parts.append("<h3>Failing matches</h3><ul>")
            for f in v["failures"]:
                parts.append(f"<li><code>{_e(f.get('command'))}</code></li>")
            parts.append("</ul>")
    return _html(f"intake: {r.get('name') or r['submission']}", "".join(parts))


def _index(summary: dict[str, Any]) -> str:
    """The summary page: one row per submission, linked to its report."""
    rows = "".join(
        f'<tr><td><a href="submissions/{_e(r["folder"])}/report.html">{_e(r["submission"])}</a></td>'
        f"<td>{_e(r['name'])}</td><td>{_e(r['author'])}</td><td>{_e(r['version'])}</td>"
        f'<td class="{_e(r["status"])}">{_e(r["status"])}</td><td>{_e(r["reason"])}</td></tr>'
        for r in summary["submissions"])
    return _html(f"intake: {summary['game']}",
                 f"<h1>Intake: {_e(summary['game'])}</h1><p>{summary['accepted']} accepted, "
                 f"{summary['rejected']} rejected.</p><div class=wrap><table><tr><th>submission</th><th>name</th>"
                 f"<th>author</th><th>version</th><th>status</th><th>reason</th></tr>{rows}</table></div>")
