"""Every byte a bot sends is checked where it enters (issue 25 #1).

A lone surrogate ("\\ud800": valid JSON, no Unicode text) in `ready` or an action stopped `play`,
`validate` and a tournament with a UnicodeEncodeError: the replay writer could not write it.
Now a line holding one is an `invalid` fault, and `ready`'s name, version and author are made
printable (noted as `unprintable` conduct); the writers never raise on text.

Checked three ways: property-based fuzzing (hypothesis) of every field of every message against
the decoder (referee.protocol.parse) and a scripted bot (referee.bots.mock.MockPlayer)
playing whole matches of every game through run_match; the replay writer's fallback; and
tests/bots/attack_unicode.py as a real process in `play`, `validate` and a small tournament.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.bots import sandbox as sandbox_mod
from referee.protocol import NAME_CAP, Invalid, lone_surrogate, parse, printable
from referee.bots.mock import MockPlayer
from referee.config import resolve_config
from referee.players import Hello, StrategyPlayer
from referee.plugins import load_registry
from referee.replay.records import ReplayWriter, dumps_line
from referee.replay.verify import load_replay, verify_replay
from referee.runner import Limits, Seat, run_match
from referee_strategies.basic import RandomLegal

ROOT = Path(__file__).resolve().parent.parent
ATTACK = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'attack_unicode.py'}"
HONEST = f"{sys.executable} {ROOT / 'bots' / 'python' / 'random_bot.py'}"
#: in the sandbox, with the system's Python (a bot may run under a uid of its own, which may not
#: read a Python installed under /root)
SANDBOXED = [f"/usr/bin/python3 {cmd.split()[1]}" for cmd in (ATTACK, HONEST)]
REGISTRY = load_registry()
HELLO = Hello("pick", 0, 2, ["mock", "other"], {}, "pick-0001", {"move_ms": 1000, "start_ms": 5000,
                                                                  "max_line_bytes": 65536})
needs_bwrap = pytest.mark.skipif(not sandbox_mod.available(), reason="bubblewrap cannot build a sandbox here")
UNPRINTABLE = {"Cc", "Cf", "Cs", "Zl", "Zp"}  # docs/protocol.md: what a name may not hold
MAX_LINE = 2048  # the fuzzed matches' line cap: overlong lines come cheap
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def is_text(value: Any) -> bool:
    """Whether a parsed value holds Unicode text only (the oracle: it encodes as UTF-8)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- what a bot may send, generated ------------------------------------------------------------------

#: text of every kind: Unicode text, or any character mixed with lone surrogates, controls and
#: format characters
texts = st.one_of(st.text(max_size=12), st.lists(st.one_of(
    st.characters(), st.characters(categories=["Cs"]), st.characters(categories=["Cc", "Cf", "Zl", "Zp"])),
    max_size=12).map("".join))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=2**63, max_value=2**200),
                    st.floats(allow_nan=False, allow_infinity=False), texts)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
                      max_leaves=10)
#: JSON text that is no plain value: numbers past a float or an int's digits, NaN, deep nesting
raw_tokens = st.sampled_from(["1e400", "-1e400", "1" * 5000, "NaN", "Infinity", "-Infinity", "[" * 3000 + "]" * 3000,
                              '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\\\\ud800"'])
FIELDS = ["type", "id", "index", "action", "debug", "name", "version", "author", "reuse"]


def dumped(message: dict[str, Any], ascii_only: bool) -> bytes:
    """A message as a bot may write it: \\u escapes, or raw (a surrogate then is no UTF-8)."""
    return json.dumps(message, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@st.composite
def reply_plans(draw) -> tuple[str, Any]:
    """How the bot answers one act: ("good", extra fields) for a proper reply by index, its
    unknown fields and debug drawn; ("fields", fields) for a reply whose known fields are drawn
    too; ("token", raw JSON) for a field holding `raw_tokens`; ("bytes", b) for any line."""
    kind = draw(st.sampled_from(["good", "fields", "token", "bytes"]))
    if kind == "bytes":
        return kind, draw(st.binary(max_size=200)).replace(b"\n", b"")
    if kind == "token":
        return kind, (draw(st.sampled_from(FIELDS + ["pad"])), draw(raw_tokens))
    extra = draw(st.dictionaries(st.one_of(st.sampled_from(FIELDS), texts), values, max_size=4))
    if kind == "good":
        extra = {k: v for k, v in extra.items() if k not in ("type", "id", "index", "action")}
        if draw(st.booleans()):
            extra["debug"] = draw(texts)
        if draw(st.integers(0, 9)) == 0:
            extra["pad"] = "x" * MAX_LINE  # over the line cap
    return kind, (extra, draw(st.booleans()))


def reply_line(plan: tuple[str, Any], act: dict[str, Any]) -> tuple[bytes, str]:
    """The line a plan writes for `act`, and what it must be: "ok", "fault" (any), "invalid"
    (a lone surrogate, a line too long, not JSON), "any"."""
    kind, spec = plan
    base = {"type": "action", "id": act["id"], "index": 0}
    if kind == "bytes":
        try:
            json.loads(spec.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return spec, "any" if not spec.strip() else "invalid"
        return spec, "any"
    if kind == "token":
        field, token = spec
        line = json.dumps(base)[:-1].encode() + f', "{field}": {token}}}'.encode()
        return line, "any"
    extra, ascii_only = spec
    message = {**base, **extra}
    line = dumped(message, ascii_only)
    if len(line) > MAX_LINE:
        return line, "invalid"
    try:
        parsed = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return line, "invalid"
    if not is_text(parsed):
        return line, "invalid"
    return line, "ok" if kind == "good" else "any"


def ready_line(ready: dict[str, Any], ascii_only: bool) -> bytes:
    return dumped({"type": "ready", **ready}, ascii_only)


readies = st.fixed_dictionaries({"name": st.one_of(texts, values)}, optional={
    "version": st.one_of(texts, st.none(), values), "author": st.one_of(texts, st.none()),
    "reuse": values, "extra": values, "\ud800": values})


# -- the decoder ---------------------------------------------------------------------------------------


@FUZZ
@given(st.one_of(st.binary(max_size=300), st.builds(dumped, st.dictionaries(texts, values), st.booleans()),
                 st.builds(dumped, values, st.booleans()), raw_tokens.map(str.encode)))
def test_the_decoder_turns_any_line_into_a_message_of_text_or_an_invalid_line(line):
    try:
        message = parse(line)
    except Invalid as bad:
        assert isinstance(bad.detail, str) and bad.detail.encode() and isinstance(bad.raw, (bytes, str))
        dumps_line({"detail": bad.detail, "raw": bad.raw if isinstance(bad.raw, str) else ""})  # never raises
        if bad.message is not None:  # JSON, but not Unicode text
            assert not is_text(bad.message) and "lone surrogate" in bad.detail
        return
    if message is not None:
        assert type(message) is dict and is_text(message)
        dumps_line(message).decode("utf-8")  # what was accepted can be written


@pytest.mark.parametrize("text, where", [
    ('{"type":"action","id":1,"index":0,"debug":"\\ud800"}', "field 'debug'"),
    ('{"type":"action","id":1,"action":{"play":["\\udfff"]}}', "field 'action'"),
    ('{"type":"action","id":1,"index":0,"x":{"\\ud800":1}}', "a field name in field 'x'"),
    ('{"type":"action","id":1,"index":0,"\\udbff":1}', "a field name"),
    ('{"type":"\\ud800x","id":1}', "field 'type'"),
])
def test_a_lone_surrogate_anywhere_is_named_in_the_invalid_line(text, where):
    with pytest.raises(Invalid) as bad:
        parse(text.encode())
    assert bad.value.detail == f"{where} holds a lone surrogate, which is not Unicode text"
    assert bad.value.raw == text and bad.value.message == json.loads(text)


@pytest.mark.parametrize("text", ['{"a":"\\ud83d\\ude00"}', '{"a":"\\\\ud800"}', '{"a":"\\u00e9\\u202e"}'])
def test_escapes_of_unicode_text_are_no_fault(text):
    assert parse(text.encode()) == json.loads(text)


def test_a_deeply_nested_line_is_searched_without_recursion():
    deep: Any = "\ud800"
    for _ in range(100_000):
        deep = [deep]
    assert lone_surrogate({"x": deep}) == "field 'x'"


def test_printable_replaces_what_breaks_a_terminal_and_keeps_the_rest():
    assert printable("bot \u00e9\u4e2d\U0001f600 \u00a0x") == ("bot \u00e9\u4e2d\U0001f600 \u00a0x", [])
    assert printable("a\x1b[2J\u202e\n\ud800") == ("a\ufffd[2J\ufffd\ufffd\ufffd", ["U+001B", "U+202E", "U+000A",
                                                                                     "U+D800"])


# -- ready, through a scripted bot ---------------------------------------------------------------------


@FUZZ
@given(readies, st.booleans())
def test_any_ready_gives_printable_capped_names_or_an_invalid_fault(ready, ascii_only):
    line = ready_line(ready, ascii_only)
    p = MockPlayer([line + b"\n"])
    fault = p.start(HELLO)
    try:
        sent = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:  # a raw surrogate: no UTF-8
        assert fault is not None and fault.kind == "invalid" and fault.detail == "line is not UTF-8"
        return
    name, version, author = sent["name"], sent.get("version"), sent.get("author")
    proper = (type(name) is str and name != "" and all(v is None or type(v) is str for v in (version, author)))
    if not proper:
        assert fault is not None and fault.kind == "invalid"
        return
    assert fault is None
    notes = [detail for kind, detail in p.conduct if kind == "unprintable"]
    for field, given_text in (("name", name), ("version", version), ("author", author)):
        kept = getattr(p, field)
        if given_text is None:
            assert kept is None
            continue
        capped = given_text[:NAME_CAP]
        assert len(kept) == len(capped) and not any(unicodedata.category(c) in UNPRINTABLE for c in kept)
        replaced = any(unicodedata.category(c) in UNPRINTABLE for c in capped)
        assert (kept == capped) is not replaced
        assert any(n.startswith(f"ready's {field} ") for n in notes) is replaced
    dumps_line(p.announced()).decode("utf-8")


def test_an_unprintable_name_is_noted_in_the_conduct():
    p = MockPlayer(['{"type":"ready","name":"ev\\ud800il\\u001b[2J","version":"1\\u202e"}\n'])
    assert p.start(HELLO) is None
    assert (p.name, p.version) == ("ev\ufffdil\ufffd[2J", "1\ufffd")
    assert p.conduct == [
        ("unprintable", "ready's name held 2 characters that are not printable text (U+D800, U+001B): "
                        "replaced with U+FFFD"),
        ("unprintable", "ready's version held 1 character that is not printable text (U+202E): replaced with U+FFFD")]


# -- whole matches, through a scripted bot ---------------------------------------------------------------


def _match(game_name: str, ready: bytes, plans: list, seed: int) -> tuple[Any, list[tuple[int, str]], Path, Path]:
    """One match of `game_name`: seat 0 the scripted bot (ready, then the plans one act each, then
    index 0), the others random; the result, what each act had to be, and the replay."""
    game = REGISTRY.game(game_name)
    n = game.min_players
    expected: list[tuple[int, str]] = []
    plans = list(plans)

    def bot(written: bytes) -> bytes:
        out = []
        for raw in written.splitlines():
            message = json.loads(raw)
            if message["type"] == "hello":
                out.append(ready)
            elif message["type"] == "act":
                if plans:
                    line, must = reply_line(plans.pop(0), message)
                else:
                    line, must = json.dumps({"type": "action", "id": message["id"], "index": 0}).encode(), "ok"
                expected.append((message["id"], must))
                out.append(line)
        return b"".join(line + b"\n" for line in out)

    folder = Path(tempfile.mkdtemp(prefix="entry-"))
    replay = folder / "m.jsonl"
    players = [MockPlayer(bot, max_line_bytes=MAX_LINE)] + [
        StrategyPlayer(RandomLegal(game_name, s, {}, random.Random(s))) for s in range(1, n)]
    seats = [Seat("mock", "command", "mock", ready_name=True)] + [Seat(f"r{s}", "strategy", "random")
                                                                  for s in range(1, n)]
    result = run_match(game, resolve_config(game, {}, n), seed, seats, players,
                       Limits(max_faults=10_000, max_line_bytes=MAX_LINE), replay=replay)
    return result, expected, replay, folder


@pytest.mark.parametrize("game_name", sorted(REGISTRY.games))
def test_whole_matches_with_a_bot_sending_anything_finish_and_every_record_encodes(game_name):
    @settings(max_examples=12, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(readies, st.booleans(), st.lists(reply_plans(), min_size=1, max_size=8), st.integers(0, 1000))
    def run(ready, ascii_only, plans, seed):
        result, expected, replay, folder = _match(game_name, ready_line(ready, ascii_only), plans, seed)
        try:
            records = [json.loads(line) for line in replay.read_bytes().decode("utf-8").split("\n")[:-1]]
            loaded = load_replay(replay)
            assert loaded.records == records and verify_replay(loaded, REGISTRY.game(game_name)).ok
        finally:
            for path in folder.iterdir():
                path.unlink()
            folder.rmdir()
        assert records[0]["type"] == "header" and records[-1]["type"] == "result"
        assert records[-1]["faults"][1:] == [0] * (len(records[-1]["faults"]) - 1)  # the strategies: none
        faults = {f.act: f for f in result.faults if f.seat == 0 and f.act is not None}
        assert len(result.faults) == result.result["faults"][0]
        if result.faults and result.faults[0].act is None:
            return  # its ready failed: the seat was played by the fallback
        for act, must in expected:
            if must == "ok":
                assert act not in faults, (act, faults[act])
            elif must == "invalid":
                assert faults[act].kind == "invalid", (act, faults.get(act))

    run()


def test_line_separators_in_a_bots_text_leave_the_replay_one_record_a_line(tmp_path):
    # U+2028, U+2029 and U+0085 are valid text, written raw in a JSON string: the replay's reader
    # must not split lines there (str.splitlines does), or verify sees garbage records.
    plans = [("good", ({"debug": "a\u2028b\u2029c\x85d"}, False)), ("bytes", "not json \u2028".encode())]
    result, expected, replay, folder = _match("maumau", b'{"type":"ready","name":"sep"}', plans, 1)
    loaded = load_replay(replay)
    assert [r["type"] for r in loaded.records].count("garbage") == 0
    assert any(r.get("debug") == "a\u2028b\u2029c\x85d" for r in loaded.records)
    assert result.faults[0].kind == "invalid" and verify_replay(loaded, REGISTRY.game("maumau")).ok
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


# -- the writers -------------------------------------------------------------------------------------------


def test_the_replay_writer_writes_a_lone_surrogate_as_its_escape(tmp_path):
    writer = ReplayWriter(tmp_path / "r.jsonl")
    writer.write({"type": "header", "name": "x\ud800"})
    writer.add({"type": "move", "debug": "\udfff", "n": 1})
    writer.write({"type": "deal_end", "name": "caf\u00e9"})
    writer.close()
    data = (tmp_path / "r.jsonl").read_bytes()
    assert data == (b'{"type":"header","name":"x\\ud800"}\n{"type":"move","debug":"\\udfff","n":1}\n'
                    b'{"type":"deal_end","name":"caf\xc3\xa9"}\n')
    assert [json.loads(line)["type"] for line in data.decode("utf-8").splitlines()] == ["header", "move", "deal_end"]
    assert dumps_line({"a": "\ud800"}) == b'{"a":"\\ud800"}\n'


def test_a_replay_holding_a_lone_surrogate_is_shown_and_verified_without_an_error(tmp_path):
    # Defence in depth: were a lone surrogate to pass the entry (or a replay be written by hand),
    # the writer, the terminal and HTML views and verify still work; it shows as its escape.
    game = REGISTRY.game("maumau")
    players = [StrategyPlayer(RandomLegal("maumau", s, {}, random.Random(s))) for s in range(2)]
    run_match(game, resolve_config(game, {}, 2), 4, [Seat(f"r{s}", "strategy", "random") for s in range(2)], players,
              replay=tmp_path / "clean.jsonl")
    writer = ReplayWriter(tmp_path / "m.jsonl")
    for record in load_replay(tmp_path / "clean.jsonl").records:
        if record["type"] == "header":
            record["players"][1]["bot"] = {"name": "x\ud800", "version": "\udfff"}
        elif record["type"] == "move" and record["seat"] == 1:
            record["debug"] = "why \ud800"
        writer.write(record)
    writer.close()
    assert b"why \\ud800" in (tmp_path / "m.jsonl").read_bytes()
    shown = []
    for args in (["replay", "m.jsonl"], ["verify", "m.jsonl"], ["replay", "m.jsonl", "--html", "m.html"]):
        proc = referee(*args, cwd=tmp_path)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (args, proc.stderr)
        shown.append(proc.stdout)
    assert "why \\ud800" in shown[0]


# -- real processes: play, validate, a tournament ----------------------------------------------------------


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_play_finishes_with_the_replay_written_and_the_bot_faulted(tmp_path):
    proc = referee("play", "maumau", "-p", "random", "-p", f"{ATTACK} ready debug", "-p", HONEST, "--seed", "3",
                   "--out", str(tmp_path / "m.jsonl"), cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_bytes().decode("utf-8").splitlines()]
    bot = records[0]["players"][1]["bot"]
    assert bot["name"] == "evil\ufffd\ufffd[2J\ufffd\ufffd" and bot["version"] == "\ufffd1.0"
    assert bot["author"] == "\ufffd" + "x" * (NAME_CAP - 1)
    result = records[-1]
    assert result["faults"] == [0, 1, 0] and result["disqualified"] == [1]
    assert result["fault_log"][0]["kind"] == "invalid" and "'debug' holds a lone surrogate" in \
        result["fault_log"][0]["detail"]
    log = (tmp_path / "m.seat1.log").read_text()
    assert ("[referee] ready's name held 4 characters that are not printable text "
            "(U+D800, U+001B, U+202E, U+000A)") in log


def _check_sandboxed_play(out: Path, proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    records = [json.loads(line) for line in (out / "m.jsonl").read_bytes().decode("utf-8").split("\n")[:-1]]
    assert records[0]["players"][1]["bot"]["name"] == "evil\ufffd\ufffd[2J\ufffd\ufffd"
    assert records[-1]["faults"] == [0, 1, 0] and records[-1]["fault_log"][0]["kind"] == "invalid"


@needs_bwrap
def test_play_in_the_sandbox_finishes_as_root(tmp_path):
    # The sandbox does not matter (the bot only prints), but it is how bots run in a contest.
    proc = referee("play", "maumau", "-p", "random", "-p", f"{SANDBOXED[0]} ready debug", "-p", SANDBOXED[1],
                   "--seed", "3", "--sandbox", "bwrap", "--out", str(tmp_path / "m.jsonl"), cwd=ROOT)
    _check_sandboxed_play(tmp_path, proc)


@needs_bwrap
def test_play_in_the_sandbox_finishes_as_an_unprivileged_user():
    from test_integrity import _as_nobody  # the suite's way to run the referee as nobody

    out = Path(tempfile.mkdtemp(prefix="referee-entry-"))
    os.chown(out, 65534, 65534)
    try:
        proc = _as_nobody(["play", "maumau", "-p", "random", "-p", f"{SANDBOXED[0]} ready debug", "-p", SANDBOXED[1],
                           "--seed", "3", "--sandbox", "bwrap", "--out", str(out / "m.jsonl")], out)
        _check_sandboxed_play(out, proc)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_play_with_only_an_unprintable_ready_plays_on_without_a_fault(tmp_path):
    proc = referee("play", "maumau", "-p", "random", "-p", f"{ATTACK} ready", "--seed", "3",
                   "--out", str(tmp_path / "m.jsonl"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "m.jsonl").read_bytes().decode("utf-8").splitlines()[-1])
    assert result["faults"] == [0, 0]
    assert "ATTACK unicode HELD told end" in (tmp_path / "m.seat1.log").read_text()


def test_validate_reports_the_replaced_names_and_the_invalid_reply(tmp_path):
    proc = referee("validate", "presidente", "--json", "-", "--max-failed", "1", "--sandbox", "none",
                   "--out", str(tmp_path / "kept"), "--", *f"{ATTACK} ready action".split(), cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    assert not report["passed"]
    kinds = report["faults"]["by_kind"]
    assert kinds["unprintable"]["count"] == 3 and kinds["invalid"]["count"] == 1
    assert "'action' holds a lone surrogate" in kinds["invalid"]["examples"][0]["detail"]
    assert report["protocol"]["handshake"]["names"] == ["evil\ufffd\ufffd[2J\ufffd\ufffd"]


def test_a_tournament_goes_on_and_only_the_attacker_is_faulted(tmp_path):
    (tmp_path / "t.toml").write_text(f"""name = "unicode"
seed = 5
out = "{tmp_path / 'out'}"
concurrency = 1
[output]
viewers = false
[[entrants]]
name = "attacker"
command = {json.dumps(ATTACK + " ready debug")}
[[entrants]]
name = "honest"
command = {json.dumps(HONEST)}
[[entrants]]
name = "random"
strategy = "random"
[[games]]
game = "maumau"
players = 2
seeds = 1
""")
    proc = referee("tournament", str(tmp_path / "t.toml"), cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    out = tmp_path / "out"
    records = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()[1:]]
    assert len(records) == 3 and (out / "standings.json").is_file()
    for record in records:
        for seat, name in enumerate(record["seats"]):
            assert record["faults"][seat] == (name == "attacker"), record["fault_log"]
        for f in record["fault_log"]:
            assert f["kind"] == "invalid" and "'debug' holds a lone surrogate" in f["detail"]
