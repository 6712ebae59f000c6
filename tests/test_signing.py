"""Results are authentic (issue 25, finding 5): signed replays and journals, and what `verify`
catches without a key.

The finding: edit a replay's result so that its winner "crashed at the start" (faults,
disqualified, ranks, fault_log; its moves were the fallback's anyway) and the old `verify` said
OK, even for a built-in strategy's seat. Without a key, verify now rejects results the replay
contradicts; with `--key` it rejects any record edited, removed, added or moved, a signature by
another key, and a replay that is not the one its journal record names.

(The finding-5 tests import nothing of referee.signing at module level: they run against the
old code too, where they fail.)
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

from referee.config import resolve_config
from referee.match import make_players, seat_names
from referee.plugins import load_registry
from referee.ranking import competition_ranks
from referee.replay.verify import load_replay, simulate, verify_file
from referee.runner import Limits, run_match

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
REGISTRY = load_registry()
#: a command bot that always plays the first legal action: the fallback's move, every time
FIRST_BOT = f"{shlex.quote(sys.executable)} {BOTS / 'scripted.py'} '{{}}'"


def play(path: Path, specs: list[str], seed: int, signer=None, game: str = "maumau") -> Path:
    """One match of `specs`, its replay at `path` (signed by `signer`, if given)."""
    g = REGISTRY.game(game)
    config = resolve_config(g, {}, len(specs))
    seats = seat_names(specs, REGISTRY)
    players = make_players(g, config, seed, seats, REGISTRY, Limits(), path.parent, path.stem)
    kwargs = {"signer": signer} if signer is not None else {}
    run_match(g, config, seed, seats, players, Limits(), replay=path, **kwargs)
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, recs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in recs))
    return path


def won_by_seat(tmp_path: Path, specs: list[str], seat: int) -> Path:
    """A match of `specs` that seat `seat` wins (the first seed where it does)."""
    for seed in range(1, 40):
        path = play(tmp_path / f"won-{seed}.jsonl", specs, seed)
        if records(path)[-1]["ranks"][seat] == 1:
            return path
    raise AssertionError(f"seat {seat} won no match")


def crash_the_winner(path: Path, out: Path) -> Path:
    """Finding 5's edit: the winner crashed at the start (faults, disqualified, ranks and fault_log
    made consistent; its moves, the first legal action's, are the fallback's anyway)."""
    recs = records(path)
    result = recs[-1]
    winner = result["ranks"].index(1)
    *_, last = simulate(load_replay(path), REGISTRY.game(recs[0]["game"]))
    result["fault_log"] = [{"seat": winner, "deal": 0, "kind": "crash", "detail": "the bot exited before ready",
                            "raw": ""}] + result["fault_log"]
    result["faults"][winner] += 1
    result["disqualified"] = sorted({*result["disqualified"], winner})
    result["ranks"] = competition_ranks(last.state.outcome().measure, result["disqualified"])
    result.pop("signature", None)
    return write(out, recs)


# -- finding 5, without a key ---------------------------------------------------------------------


def test_finding_5_a_command_bot_winner_made_to_crash_at_the_start_is_rejected(tmp_path):
    path = won_by_seat(tmp_path, ["random", FIRST_BOT], 1)
    assert verify_file(path, REGISTRY).ok
    forged = crash_the_winner(path, tmp_path / "forged.jsonl")
    assert records(forged)[-1]["disqualified"] == [1]
    verdict = verify_file(forged, REGISTRY)
    assert not verdict.ok  # the old verify said OK
    # the referee never asks (nor times) a disqualified seat: its recorded thinking time betrays it
    assert "seat 1 is disqualified, yet the move records" in verdict.discrepancy.message


def test_finding_5_a_strategy_winner_made_to_crash_at_the_start_is_rejected(tmp_path):
    path = won_by_seat(tmp_path, ["random", "first"], 1)
    recs = records(path)
    for r in recs:  # its moves made untimed too, as a careful forger would: no time left to betray it
        if r["type"] == "move" and r["seat"] == 1:
            r["ms"] = 0.0
    untimed = write(tmp_path / "untimed.jsonl", recs)
    assert verify_file(untimed, REGISTRY).ok
    verdict = verify_file(crash_the_winner(untimed, tmp_path / "forged.jsonl"), REGISTRY)
    assert not verdict.ok  # the old verify said OK
    assert "a crash at the start recorded for seat 1, a strategy, which cannot fail to start" in \
        verdict.discrepancy.message


def test_a_fault_a_strategy_cannot_make_is_rejected(tmp_path):
    path = won_by_seat(tmp_path, ["random", "first"], 1)
    *_, last = simulate(load_replay(path), REGISTRY.game("maumau"))
    recs = records(path)
    for r in recs:  # untimed, as the moves of a seat disqualified at its first
        if r["type"] == "move" and r["seat"] == 1:
            r["ms"] = 0.0
    move = next(r for r in recs if r["type"] == "move" and r["seat"] == 1)
    move["fault"] = {"kind": "invalid", "detail": "the line is not JSON", "raw": "x"}
    recs[-1]["fault_log"] = [{"seat": 1, "deal": move["deal"], "kind": "invalid", "detail": "the line is not JSON",
                              "raw": "x"}]
    recs[-1]["faults"][1] = 1
    recs[-1]["disqualified"] = [1]
    recs[-1]["ranks"] = competition_ranks(last.state.outcome().measure, [1])
    verdict = verify_file(write(tmp_path / "invalid.jsonl", recs), REGISTRY)
    assert not verdict.ok  # the old verify said OK: a strategy sends no message to be invalid
    assert "a invalid fault recorded for a strategy seat, which cannot make one" in verdict.discrepancy.message


def _crash_at(path: Path, seat: int, k: int, out: Path) -> Path:
    """The replay with seat `seat` (a strategy playing the first legal action, the fallback's)
    made to crash at its k-th move: the fault on it, its moves untimed from there, the counts,
    disqualification, ranks and fault log made to agree."""
    *_, last = simulate(load_replay(path), REGISTRY.game("maumau"))
    recs = records(path)
    mine = [r for r in recs if r["type"] == "move" and r["seat"] == seat]
    fault = {"kind": "crash", "detail": "strategy raised ValueError: boom", "raw": ""}
    mine[k - 1]["fault"] = fault
    for r in mine[k - 1:]:
        r["ms"] = 0.0
    result = recs[-1]
    result["fault_log"] = [{"seat": seat, "deal": mine[k - 1]["deal"], **fault}]
    result["faults"][seat] = 1
    result["disqualified"] = [seat]
    result["ranks"] = competition_ranks(last.state.outcome().measure, [seat])
    return write(out, recs)


def test_a_crash_recorded_for_a_deterministic_strategy_is_re_run(tmp_path):
    path = won_by_seat(tmp_path, ["random", "first"], 1)
    forged = _crash_at(path, 1, 3, tmp_path / "crashed.jsonl")
    verdict = verify_file(forged, REGISTRY)
    assert not verdict.ok  # the old verify said OK
    assert "seat 1 (first) is recorded crashing here, but the strategy, re-run, plays" in verdict.discrepancy.message


def test_a_strategy_that_really_crashed_verifies(tmp_path):
    # a deterministic strategy that raises at its 3rd decision: its replay verifies, re-run and all
    from referee.hookspecs import hookimpl
    from referee.players import Strategy
    from referee.plugins import build_registry, get_plugin_manager

    class Crasher(Strategy):
        calls = 0

        def choose(self, obs, legal):
            self.calls += 1
            if self.calls == 3:
                raise ValueError("boom")
            return 0

    class Plugin:
        @hookimpl
        def register_strategies(self, register):
            register("crasher", Crasher, help="raises at its 3rd decision")

    registry = build_registry(get_plugin_manager(extra=[Plugin()]))
    g = registry.game("maumau")
    config = resolve_config(g, {}, 2)
    seats = seat_names(["random", "crasher"], registry)
    players = make_players(g, config, 1, seats, registry, Limits())
    path = tmp_path / "real.jsonl"
    run_match(g, config, 1, seats, players, Limits(), replay=path)
    assert records(path)[-1]["disqualified"] == [1]
    assert verify_file(path, registry).ok


# -- keys -----------------------------------------------------------------------------------------------


def test_keygen_writes_a_private_key_only_its_owner_reads_and_refuses_to_overwrite(tmp_path):
    from typer.testing import CliRunner

    from referee.cli import app

    runner = CliRunner()
    key = tmp_path / "k"
    result = runner.invoke(app, ["keygen", str(key)])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(f"{key}.pub").stat().st_mode) & 0o077 == 0o044  # public: readable
    assert b"PRIVATE KEY" in key.read_bytes() and b"PUBLIC KEY" in Path(f"{key}.pub").read_bytes()
    before = key.read_bytes()
    again = runner.invoke(app, ["keygen", str(key)])
    assert again.exit_code == 2 and "exists" in again.output and "--force" in again.output
    assert key.read_bytes() == before
    key.chmod(0o644)
    forced = runner.invoke(app, ["keygen", str(key), "--force"])
    assert forced.exit_code == 0 and key.read_bytes() != before
    assert stat.S_IMODE(key.stat().st_mode) == 0o600  # a replaced key keeps no looser mode
    # a public key where a private one is wanted, and the other way round: one line each
    signed = runner.invoke(app, ["play", "maumau", "-p", "random", "-p", "first", "--sign-key", f"{key}.pub",
                                 "--out", str(tmp_path / "m.jsonl")])
    assert signed.exit_code == 2 and "is not a private key" in signed.output and "Traceback" not in signed.output


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    from referee import signing

    folder = tmp_path_factory.mktemp("keys")
    mine, other = signing.generate(), signing.generate()
    signing.write_key(folder / "mine", mine)
    signing.write_key(folder / "other", other)
    return mine, signing.load_verifier(folder / "mine.pub"), signing.load_verifier(folder / "other.pub")


# -- signed replays ---------------------------------------------------------------------------------------


def test_a_signed_replay_is_the_unsigned_one_plus_the_result_signature(tmp_path, keys):
    from referee.replay.records import ReplayWriter

    signer, _, _ = keys
    recs = records(play(tmp_path / "m.jsonl", ["random", "first", "random"], 5))
    unsigned, signed = ReplayWriter(tmp_path / "u.jsonl"), ReplayWriter(tmp_path / "s.jsonl", signer)
    for writer in (unsigned, signed):
        for r in recs:
            writer.add(r) if r["type"] in ("move", "chance") else writer.write(r)
        writer.close()
    assert unsigned.digest is None and (tmp_path / "u.jsonl").read_bytes() == (tmp_path / "m.jsonl").read_bytes()
    u = (tmp_path / "u.jsonl").read_bytes().splitlines(keepends=True)
    s = (tmp_path / "s.jsonl").read_bytes().splitlines(keepends=True)
    assert s[:-1] == u[:-1]
    assert s[-1].startswith(u[-1][:-2] + b',"signature":{"key":"' + signer.id.encode())
    assert signed.digest == hashlib.sha256((tmp_path / "s.jsonl").read_bytes()).hexdigest()


def _edits(recs: list[dict]) -> dict[str, tuple[list[dict] | bytes, str]]:
    """Edited copies of a signed replay's records, each with the reason verify --key must give."""
    moves = [k for k, r in enumerate(recs) if r["type"] == "move"]
    out = {}
    bad = copy.deepcopy(recs)
    bad[moves[3]]["ms"] = bad[moves[3]]["ms"] + 1
    out["a move's time"] = (bad, "the records before it were edited, removed, added or reordered")
    bad = copy.deepcopy(recs)
    del bad[moves[5]]
    out["a move removed"] = (bad, "the records before it were edited, removed, added or reordered")
    bad = copy.deepcopy(recs)
    bad[moves[1]], bad[moves[2]] = bad[moves[2]], bad[moves[1]]
    out["two moves swapped"] = (bad, "the records before it were edited, removed, added or reordered")
    bad = copy.deepcopy(recs)
    bad[-1]["scores"] = list(reversed(bad[-1]["scores"]))
    out["the result's scores"] = (bad, "it was edited since it was signed")
    bad = copy.deepcopy(recs)
    bad[-1]["faults"][0] += 1
    out["the result's faults"] = (bad, "it was edited since it was signed")
    bad = copy.deepcopy(recs)
    bad.append(copy.deepcopy(bad[moves[0]]))
    out["a record after the result"] = (bad, "the last record is not the signed result record")
    bad = copy.deepcopy(recs)
    del bad[-1]["signature"]
    out["the signature removed"] = (bad, "the result record is not signed")
    bad = copy.deepcopy(recs)
    bad[-1]["signature"]["sig"] = bad[-1]["signature"]["sig"][::-1]
    out["the signature edited"] = (bad, "signature")
    return out


def test_every_edit_of_a_signed_replay_fails_verify_with_its_reason(tmp_path, keys):
    signer, mine, other = keys
    path = play(tmp_path / "m.jsonl", ["random", FIRST_BOT, "random"], 3, signer)
    verdict = verify_file(path, REGISTRY, mine)
    assert verdict.ok and verdict.signed_by == mine.id
    assert verify_file(path, REGISTRY).ok  # without a key: consistent, as ever
    wrong = verify_file(path, REGISTRY, other).discrepancy
    assert f"signed by another key (id {mine.id}, not {other.id})" in wrong.message
    recs = records(path)
    for name, (bad, reason) in _edits(recs).items():
        edited = write(tmp_path / "edited.jsonl", bad)
        d = verify_file(edited, REGISTRY, mine).discrepancy
        assert d is not None and d.message.startswith("signature: ") and reason in d.message, (name, d)
    # finding 5's edit of a signed replay (the signature left as it was): caught by the signature
    forged = records(crash_the_winner(path, tmp_path / "forged.jsonl"))
    forged[-1]["signature"] = recs[-1]["signature"]
    d = verify_file(write(tmp_path / "forged.jsonl", forged), REGISTRY, mine).discrepancy
    assert "it was edited since it was signed" in d.message
    # compressed: the signature is over the lines, whatever the file's encoding
    gz = tmp_path / "m.jsonl.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert verify_file(gz, REGISTRY, mine).ok


def test_a_replay_signed_by_another_key_or_unsigned_fails_verify_key_on_the_command_line(tmp_path, keys):
    from typer.testing import CliRunner

    from referee.cli import app

    signer, mine, _ = keys
    key_dir = Path(mine.source).parent
    signed = play(tmp_path / "s.jsonl", ["random", "first"], 2, signer)
    unsigned = play(tmp_path / "u.jsonl", ["random", "first"], 2)
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", "--key", str(key_dir / "mine.pub"), str(signed)])
    assert ok.exit_code == 0 and "OK (maumau," in ok.output and f"signed by key {mine.id}" in ok.output
    bad = runner.invoke(app, ["verify", "--key", str(key_dir / "other.pub"), str(signed), str(unsigned)])
    assert bad.exit_code == 1
    lines = bad.output.splitlines()
    assert "DISCREPANCY" in lines[0] and "signed by another key" in lines[0]
    assert "DISCREPANCY" in lines[1] and "the result record is not signed" in lines[1]
    assert runner.invoke(app, ["verify", str(unsigned)]).exit_code == 0  # no key: no signature needed


# -- a tournament -------------------------------------------------------------------------------------------


def _tournament(tmp_path: Path, extra: str = "", entrants: str = "") -> Path:
    path = tmp_path / "t.toml"
    path.write_text(f'name = "signed"\nseed = 4\nout = "{tmp_path / "out"}"\nconcurrency = 1\n{extra}'
                    '[[entrants]]\nstrategy = "random"\n[[entrants]]\nstrategy = "first"\n'
                    f'{entrants}[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 3\n')
    return path


@pytest.fixture(scope="module")
def signed_tournament(tmp_path_factory):
    from referee.tournament import run as tour
    from referee.tournament.config import load_tournament

    folder = tmp_path_factory.mktemp("tournament")
    tour.run(load_tournament(_tournament(folder), REGISTRY), keep=False)
    return folder / "out"


def test_a_tournament_signs_with_its_own_key_and_everything_verifies(signed_tournament):
    from referee import signing
    from referee.replay.verify import verify_journal

    out = signed_tournament
    assert stat.S_IMODE((out / "sign.key").stat().st_mode) == 0o600
    key = signing.load_verifier(out / "sign.pub")
    assert key.id == signing.load_signer(out / "sign.key").id
    journal = (out / "journal.jsonl").read_bytes()
    lines = [json.loads(line) for line in journal.splitlines()]
    assert lines[0]["sign_key"] == key.id and all(r["signature"]["key"] == key.id for r in lines)
    matches = [r for r in lines if r["type"] == "match"]
    assert len(matches) == 3 and all(len(r["replay_sha256"]) == 64 for r in matches)
    verdict = verify_journal(out / "journal.jsonl", journal, key)
    assert verdict.ok and verdict.records == 4 and verdict.replays == 3, verdict
    for r in matches:
        assert verify_file(out / r["replay"], REGISTRY, key).ok


def _journal_edits(lines: list[bytes]) -> dict[str, tuple[list[bytes], int, str]]:
    """Edited copies of a signed journal's lines: (lines, the line verify must name, its reason)."""
    first = json.loads(lines[1])
    edited = lines[1].replace(b'"ranks":' + json.dumps(first["ranks"], separators=(",", ":")).encode(),
                              b'"ranks":' + json.dumps(first["ranks"][::-1], separators=(",", ":")).encode())
    assert edited != lines[1]
    return {
        "a record's ranks": ([lines[0], edited, *lines[2:]], 2, "it was edited since it was signed"),
        "a record removed": ([lines[0], *lines[2:]], 2, "the records before it were edited"),
        "two records swapped": ([lines[0], lines[2], lines[1], *lines[3:]], 2, "the records before it were edited"),
        "a record twice": ([*lines[:3], lines[2], *lines[3:]], 4, "the records before it were edited"),
        "the head edited": ([lines[0].replace(b'"signed"', b'"forged"'), *lines[1:]], 1, "it was edited"),
    }


def test_every_edit_of_a_signed_journal_fails_verify_with_the_line_and_its_reason(signed_tournament, keys,
                                                                                  tmp_path):
    from referee import signing
    from referee.replay.verify import verify_journal

    out = signed_tournament
    key = signing.load_verifier(out / "sign.pub")
    lines = (out / "journal.jsonl").read_bytes().splitlines(keepends=True)
    copy_path = out / "edited.jsonl"  # beside the replays it names
    try:
        for name, (bad, line, reason) in _journal_edits(lines).items():
            copy_path.write_bytes(b"".join(bad))
            verdict = verify_journal(copy_path, copy_path.read_bytes(), key)
            assert not verdict.ok and verdict.line == line and reason in verdict.problem, (name, verdict)
        other = verify_journal(out / "journal.jsonl", b"".join(lines), keys[2])
        assert other.line == 1 and "signed by another key" in other.problem
        # on the command line: one line each, exit 1 for the edited journal
        from typer.testing import CliRunner

        from referee.cli import app

        copy_path.write_bytes(b"".join(_journal_edits(lines)["a record removed"][0]))
        result = CliRunner().invoke(app, ["verify", "--key", str(out / "sign.pub"), str(out / "journal.jsonl"),
                                          str(copy_path)])
        assert result.exit_code == 1, result.output
        ok, bad = result.output.splitlines()
        assert ok.endswith(f"OK (journal, 4 records, 3 replays match, signed by key {key.id})")
        assert bad.endswith("DISCREPANCY at line 2: signature: the records before it were edited, removed, added "
                            "or reordered")
    finally:
        copy_path.unlink(missing_ok=True)


def test_a_replay_replaced_by_another_is_caught_with_or_without_a_key(signed_tournament, tmp_path):
    from referee import signing
    from referee.replay.verify import verify_journal

    out = signed_tournament
    key = signing.load_verifier(out / "sign.pub")
    journal = (out / "journal.jsonl").read_bytes()
    matches = [json.loads(line) for line in journal.splitlines() if b'"type":"match"' in line]
    a, b = out / matches[0]["replay"], out / matches[1]["replay"]
    saved = a.read_bytes()
    try:
        a.write_bytes(b.read_bytes())  # a genuine, signed replay: of another match
        assert verify_file(a, REGISTRY, key).ok  # on its own it verifies...
        for k in (key, None):  # ...but not as the replay its record names
            verdict = verify_journal(out / "journal.jsonl", journal, k)
            assert verdict.line == 2 and "is not the one it names" in verdict.problem, verdict
        a.unlink()
        assert "is missing" in verify_journal(out / "journal.jsonl", journal, key).problem
    finally:
        a.write_bytes(saved)
    assert verify_journal(out / "journal.jsonl", journal, key).ok


def test_resume_with_another_signing_key_is_refused_and_leaves_sign_pub(tmp_path, keys):
    from referee import signing
    from referee.errors import UsageError
    from referee.tournament import run as tour
    from referee.tournament.config import load_tournament

    path = _tournament(tmp_path)
    tour.run(load_tournament(path, REGISTRY), keep=False)
    out = tmp_path / "out"
    published = (out / "sign.pub").read_bytes()
    with pytest.raises(UsageError, match="it was signed by key .* and this run signs with key"):
        tour.run(load_tournament(path, REGISTRY), resume=True, keep=False, signer=keys[0])
    assert (out / "sign.pub").read_bytes() == published
    tour.run(load_tournament(path, REGISTRY), resume=True, keep=False)  # its own key: resumes
    key = signing.load_verifier(out / "sign.pub")
    assert verify_journal_ok(out, key)


def verify_journal_ok(out: Path, key) -> bool:
    from referee.replay.verify import verify_journal

    return verify_journal(out / "journal.jsonl", (out / "journal.jsonl").read_bytes(), key).ok


def test_a_tournament_given_a_key_signs_with_it_and_publishes_its_public_key(tmp_path, keys):
    from referee.tournament import run as tour
    from referee.tournament.config import load_tournament

    signer, mine, _ = keys
    tour.run(load_tournament(_tournament(tmp_path), REGISTRY), keep=False, signer=signer)
    out = tmp_path / "out"
    assert not (out / "sign.key").exists()  # the organiser's own key is used, and not copied
    assert (out / "sign.pub").read_bytes() == Path(mine.source).read_bytes()
    assert verify_journal_ok(out, mine)


# -- the signing key stays out of the bots' sight ------------------------------------------------------


def _attack_tournament(out: Path, sandbox: str, *paths: Path) -> Path:
    from test_integrity import attack

    command = attack("files", *map(str, paths))
    path = out.parent / f"{out.name}.toml"
    path.write_text(f'name = "keys"\nseed = 1\nout = "{out}"\nconcurrency = 1\n[limits]\nmove_ms = 30000\n'
                    f'sandbox = "{sandbox}"\n[output]\nviewers = false\n'
                    f'[[entrants]]\nname = "files"\ncommand = {json.dumps(command)}\ncwd = "{ROOT}"\n'
                    '[[entrants]]\nstrategy = "random"\n[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 1\n')
    return path


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_sandboxed_bot_cannot_read_the_signing_keys(sandbox):
    # The tournament's own sign.key in its output directory, and an organiser's key given with
    # --sign-key in the folder the bots run in: read in plain mode (the control), never in the sandbox.
    from test_integrity import reports, run

    from referee.bots import sandbox as sandbox_mod

    if sandbox == "bwrap" and not sandbox_mod.available():
        pytest.skip("bubblewrap cannot build a sandbox here")
    base = ROOT / "tests" / "artifacts" / f"signing-{os.urandom(4).hex()}"  # inside what the bots see
    base.mkdir(parents=True)
    try:
        own = base / "own"
        proc = run(["tournament", str(_attack_tournament(own, sandbox, own / "sign.key"))], timeout=300)
        assert proc.returncode == 0, proc.stderr
        given = base / "given"
        key = base / "organiser.key"
        assert run(["keygen", str(key)]).returncode == 0
        proc = run(["tournament", str(_attack_tournament(given, sandbox, key)), "--sign-key", str(key)], timeout=300)
        assert proc.returncode == 0, proc.stderr
        for out, path in ((own, own / "sign.key"), (given, key)):
            logs = "\n".join(p.read_text(errors="replace") for p in (out / "replays").glob("*.seat*.log"))
            reads = [(won, detail) for won, detail in reports(logs)["read"] if detail.startswith(str(path))]
            assert reads and all(won is (sandbox == "none") for won, _ in reads), reads
    finally:
        sandbox_mod.remove_scratch(base)


def test_as_an_unprivileged_user_the_key_is_its_own_and_hidden_from_its_bots(tmp_path):
    # as nobody: a tournament's own sign.key is nobody's, mode 0600; an organiser's --sign-key file
    # lying in the bots' working directory is not read by a sandboxed bot
    from test_integrity import _as_nobody, _system_python, attack, reports

    from referee.bots import sandbox as sandbox_mod

    if not sandbox_mod.available():
        pytest.skip("bubblewrap cannot build a sandbox here")
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="referee-unpriv-sign-"))
    try:
        os.chown(base, 65534, 65534)
        bots = base / "bots"  # the bots' working directory, where the organiser left the key
        bots.mkdir()
        os.chown(bots, 65534, 65534)
        key = bots / "organiser.key"
        proc = _as_nobody(["keygen", str(key)], base)
        assert proc.returncode == 0, proc.stderr
        assert key.stat().st_uid == 65534 and stat.S_IMODE(key.stat().st_mode) == 0o600
        command = _system_python(attack("files", str(key)))
        path = base / "t.toml"
        path.write_text(f'name = "keys"\nseed = 1\nout = "{base / "out"}"\nconcurrency = 1\n[limits]\n'
                        'move_ms = 30000\nsandbox = "bwrap"\n[output]\nviewers = false\n'
                        f'[[entrants]]\nname = "files"\ncommand = {json.dumps(command)}\ncwd = "{bots}"\n'
                        '[[entrants]]\nstrategy = "random"\n[[games]]\ngame = "maumau"\nplayers = 2\nseeds = 1\n')
        os.chown(path, 65534, 65534)
        for args in (["tournament", str(path), "--sign-key", str(key)], ["verify", "--key", f"{key}.pub",
                                                                      str(base / "out" / "journal.jsonl")]):
            proc = _as_nobody(args, base)
            assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        logs = "\n".join(p.read_text(errors="replace") for p in (base / "out" / "replays").glob("*.seat*.log"))
        reads = [(won, detail) for won, detail in reports(logs)["read"]]
        assert len(reads) == 1 and not any(won for won, _ in reads), reads
    finally:
        sandbox_mod.remove_scratch(base)
