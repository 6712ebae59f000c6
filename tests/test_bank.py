"""The time bank, bank_ms (issue 29; Kaggle's overage time): a seat's allowance per match for
decisions longer than move_ms. What a decision takes beyond move_ms is drawn from it; its
deadline is move_ms + the bank left (a total budget capping both); `hello` and every `act` tell
it, the replay records it. Without a bank nothing on the wire changes, byte for byte.

The bank's arithmetic is checked exactly with players that say how long they took; real bots
(tests/bots/banker.py) sleep 400 ms against a move_ms of 200, so a loaded machine only shifts
which decision ends the bank, never the verdicts asserted."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from referee import api
from referee.bots.limits import MAX_MS
from referee.config import resolve_config
from referee.errors import ConfigError, UsageError
from referee.players import Fault, Player, Reply, StrategyPlayer
from referee.plugins import load_registry
from referee.protocol import act_line, act_message, encode
from referee.replay.html import render_viewer
from referee.replay.records import read_replay
from referee.replay.verify import load_replay, verify_file
from referee.runner import Limits, Seat, run_match
from referee.tournament.config import load_tournament
from referee.tournament.run import _changed, match_limits, setup
from referee import schema, sealing
from referee_strategies.basic import RandomLegal

ROOT = Path(__file__).resolve().parent.parent
BANKER = ROOT / "tests" / "bots" / "banker.py"
REGISTRY = load_registry()
OBS = {"seat": 0, "hand": ["7S", "JH"]}
LEGAL = [{"play": "7S"}, {"draw": True}]


# -- the wire -------------------------------------------------------------------------------------


def test_an_act_without_a_bank_is_the_same_bytes_as_before():
    # what act_line encoded before the bank existed
    before = encode({"type": "act", "id": 3, "obs": OBS, "legal": LEGAL, "time_ms": 1000})
    assert act_line(3, OBS, LEGAL, 1000) == before
    assert act_message(3, OBS, LEGAL, 1000) == json.loads(before)


def test_an_act_with_a_bank_carries_what_is_left_of_it():
    line = act_line(3, OBS, LEGAL, 200, 1299)
    assert line.endswith(b',"time_ms":200,"bank_ms":1299}\n')
    assert json.loads(line) == act_message(3, OBS, LEGAL, 200, 1299)
    assert act_line(3, OBS, LEGAL, 200, 0).endswith(b',"bank_ms":0}\n')  # spent: still told


def test_hello_tells_the_bank_only_when_there_is_one():
    assert "bank_ms" not in Limits().wire()
    assert Limits(bank_ms=1500).wire()["bank_ms"] == 1500


def test_the_schema_describes_bank_ms():
    root = schema.load()
    root["$ref"] = "#/$defs/message"
    act = Draft202012Validator(root)
    assert act.is_valid(json.loads(act_line(1, {}, [{"draw": True}], 200, 0)))
    assert not act.is_valid(json.loads(act_line(1, {}, [{"draw": True}], 200, -1)))
    limits = {"move_ms": 200, "start_ms": 5000, "max_line_bytes": 65536}
    hello = {"type": "hello", "protocol": 1, "game": "maumau", "seat": 0, "players": 2, "names": ["a", "b"],
             "config": {}, "match": "m", "limits": limits}
    assert act.is_valid({**hello, "limits": {**limits, "bank_ms": 1500}})
    assert not act.is_valid({**hello, "limits": {**limits, "bank_ms": 0}})  # no bank: not told


@pytest.mark.parametrize("value", [-1, MAX_MS + 1, 1.5, True, "500", None])
def test_a_bank_that_is_no_count_of_ms_is_refused_in_one_line(value):
    with pytest.raises(UsageError, match=r"^bank_ms must be an integer from 0 \(no time bank\) to \d+, got .+$"):
        Limits(bank_ms=value)


# -- the bank's arithmetic, with players that say how long they took -----------------------------------


class Claiming(Player):
    """A random player that says each decision took `ms` (a timeout fault at act `late`), and
    keeps what each act gave it: (time_ms, bank_ms, None when not passed)."""

    def __init__(self, config, ms: float, late: int | None = None) -> None:
        self.inner = StrategyPlayer(RandomLegal("maumau", 0, config, random.Random(0)))
        self.ms, self.late, self.told = ms, late, []

    def start(self, hello):
        return None

    def act(self, id, obs, legal, time_ms, **banked):
        self.told.append((time_ms, banked.get("bank_ms")))
        if id == self.late:
            return Reply(fault=Fault("timeout", "no reply"), ms=self.ms)
        return dataclasses.replace(self.inner.act(id, obs, legal, time_ms), ms=self.ms)

    def event(self, event):
        pass

    def end(self, result):
        pass


class Acts:
    """A monitor keeping every act message sent to seat 0."""

    def __init__(self) -> None:
        self.acts = []

    def sent(self, seat, message, state):
        if seat == 0 and message["type"] == "act":
            self.acts.append(message)

    def stepped(self, state):
        pass


def _claimed(tmp_path: Path, limits: Limits, ms: float, late: int | None = None):
    """A 2-seat Mau Mau match: seat 0 says it took `ms` per decision, seat 1 is an in-process
    strategy. Seat 0's player, the act messages it was sent, every move record and the result."""
    game = REGISTRY.games["maumau"]
    config = resolve_config(game, {}, 2)
    claiming = Claiming(config, ms, late)
    rival = StrategyPlayer(RandomLegal("maumau", 1, config, random.Random(1)))
    monitor, path = Acts(), tmp_path / "r.jsonl"
    result = run_match(game, config, 5, [Seat("c", "command", "c"), Seat("r", "strategy", "random")],
                       [claiming, rival], limits, replay=path, monitor=monitor)
    moves = [r for r in read_replay(path) if r["type"] == "move"]
    return claiming, monitor.acts, moves, result


def test_time_beyond_move_ms_is_drawn_from_the_bank(tmp_path):
    player, acts, moves, result = _claimed(tmp_path, Limits(move_ms=200, bank_ms=1000), 450.0)
    # 250 ms beyond move_ms per decision: four decisions spend 1000 ms; then it is 0 and stays so
    assert player.told[:7] == [(200, 1000), (200, 750), (200, 500), (200, 250), (200, 0), (200, 0), (200, 0)]
    assert [(m["time_ms"], m["bank_ms"]) for m in acts] == player.told  # what the monitor saw sent
    mine = [m for m in moves if m["seat"] == 0]
    assert [m.get("bank") for m in mine[:6]] == [750.0, 500.0, 250.0, 0.0, None, None]
    assert not any("bank" in m for m in mine[4:]) and not any("bank" in m for m in moves if m["seat"] == 1)
    assert result.header["limits"]["bank_ms"] == 1000
    assert result.result["faults"] == [0, 0]  # the player answered: its time is the bank's business


def test_a_decision_within_move_ms_costs_nothing(tmp_path):
    player, _, moves, _ = _claimed(tmp_path, Limits(move_ms=200, bank_ms=1000), 199.0)
    assert {bank for _, bank in player.told} == {1000}
    assert not any("bank" in m for m in moves)


def test_a_timeout_empties_the_bank(tmp_path):
    player, _, moves, result = _claimed(tmp_path, Limits(move_ms=200, bank_ms=1000, max_faults=5), 300.0, late=2)
    assert player.told[:4] == [(200, 1000), (200, 900), (200, 0), (200, 0)]
    mine = [m for m in moves if m["seat"] == 0]
    assert (mine[0]["bank"], mine[1]["bank"], mine[1]["fault"]["kind"]) == (900.0, 0.0, "timeout")
    assert "bank" not in mine[2] and result.result["faults"][0] == 1


def test_the_total_budget_caps_the_bank_told(tmp_path):
    limits = Limits(move_ms=200, bank_ms=1500, total_ms=1000, max_faults=5)
    player, _, moves, result = _claimed(tmp_path, limits, 300.0)
    # total left 1000, 700, 400, 100: each deadline time_ms + bank_ms is what the budget leaves
    assert player.told == [(200, 800), (200, 500), (200, 200), (100, 0)]
    mine = [m for m in moves if m["seat"] == 0]
    assert [m.get("bank") for m in mine[:4]] == [1400.0, 1300.0, 1200.0, 1100.0]
    assert mine[4]["fault"]["detail"] == "total time budget of 1000 ms used up"


def test_without_a_bank_a_player_is_asked_as_before(tmp_path):
    player, acts, moves, result = _claimed(tmp_path, Limits(move_ms=200), 450.0)
    assert {bank for _, bank in player.told} == {None}  # no bank_ms keyword at all
    assert all(list(m) == ["type", "id", "obs", "legal", "time_ms"] for m in acts)
    assert not any("bank" in m for m in moves) and "bank_ms" not in result.header["limits"]


# -- a real bot, slower than move_ms ----------------------------------------------------------------


def _play(tmp_path: Path, plan: str, *options: str) -> tuple[list[dict], list[str], dict]:
    """`referee play` of banker.py (seat 0) against random: the replay's records, the protocol
    log's lines to seat 0, and the --json result."""
    replay, log = tmp_path / "m.jsonl", tmp_path / "p.log"
    proc = subprocess.run([sys.executable, "-m", "referee", "play", "maumau", "-p", f"{sys.executable} {BANKER} {plan}",
                           "-p", "random", "--move-ms", "200", "--seed", "1", "--out", str(replay),
                           "--log-protocol", str(log), "--json", "-", *options],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    sent = [line[4:] for line in log.read_text().splitlines() if line.startswith("0 > ")]
    return list(read_replay(replay)), sent, json.loads(proc.stdout)


def test_a_slow_bot_faults_at_once_without_a_bank(tmp_path):
    records, sent, out = _play(tmp_path, "400")
    hello, act = json.loads(sent[0]), next(m for m in map(json.loads, sent) if m["type"] == "act")
    assert "bank_ms" not in hello["limits"] and "bank_ms" not in records[0]["limits"]
    assert list(act) == ["type", "id", "obs", "legal", "time_ms"]
    fault = out["fault_log"][0]
    assert (fault["seat"], fault["act"], fault["kind"]) == (0, 1, "timeout")
    assert re.fullmatch(r"answered \d+ ms late \(limit 200 ms\)|no reply within 200 ms", fault["detail"])
    assert not any("bank" in r for r in records if r["type"] == "move")


def test_a_slow_bot_spends_its_bank_then_faults(tmp_path):
    records, sent, out = _play(tmp_path, "400", "--bank-ms", "1500")
    assert json.loads(sent[0])["limits"]["bank_ms"] == 1500 and records[0]["limits"]["bank_ms"] == 1500
    to_bot = schema.validator("maumau", "to_bot")
    assert all(to_bot.is_valid(json.loads(line)) for line in sent)  # the schema describes what is sent
    acts = [m for m in map(json.loads, sent) if m["type"] == "act"]
    told = [a["bank_ms"] for a in acts]
    assert told[0] == 1500 and all(a["time_ms"] == 200 for a in acts)
    assert told == sorted(told, reverse=True) and len(set(told)) == len(told)  # shrinking at every act
    [fault] = out["fault_log"]  # one: max_faults 1 disqualifies
    # each act draws at least 200 ms: by its 8th, under 100 ms are left, and a 400 ms sleep is late;
    # even at 500 ms beyond move_ms each (a 400 ms sleep taking 700 on a loaded machine), the 4th
    assert fault["kind"] == "timeout" and 4 <= fault["act"] <= 8 and fault["act"] == len(acts)
    limit = 200 + told[-1]  # the deadline that act had
    assert re.fullmatch(rf"answered \d+ ms late \(limit {limit} ms\)|no reply within {limit} ms", fault["detail"])
    mine = [r for r in records if r["type"] == "move" and r["seat"] == 0]
    answered, faulted = mine[: fault["act"] - 1], mine[fault["act"] - 1]
    assert all("fault" not in m for m in answered)
    # each answered move records the bank left after it (to 0.1 ms): the next act told it in whole ms
    assert all(b <= m["bank"] <= b + 1 for m, b in zip(answered, told[1:], strict=True))
    assert [m["debug"] for m in answered] == [f"time_ms=200 bank_ms={b}" for b in told[:-1]]
    assert faulted["bank"] == 0.0 and faulted["fault"]["kind"] == "timeout"
    assert not any("bank" in m for m in mine[fault["act"]:])  # disqualified: the fallback plays
    path = tmp_path / "m.jsonl"
    assert verify_file(path, REGISTRY).ok
    assert render_viewer(load_replay(path), REGISTRY.games["maumau"]).startswith("<!DOCTYPE html>")


def test_a_late_reply_names_the_deadline_with_the_bank(tmp_path):
    # banker.py "late" answers 150 ms after time_ms + bank_ms: 1,700 ms, with 50 of grace and a
    # window of 425 ms after it to say how late
    result = api.play("maumau", [[sys.executable, str(BANKER), "late"], "random"], seed=1, out=tmp_path,
                      move_ms=200, bank_ms=1500)
    fault = result.fault_log[0]
    assert (fault["act"], fault["kind"]) == (1, "timeout")
    assert re.fullmatch(r"answered \d+ ms late \(limit 1700 ms\)", fault["detail"])
    move = next(r for r in read_replay(result.replay) if r["type"] == "move" and r["seat"] == 0)
    assert move["bank"] == 0.0


# -- where the organiser sets it ------------------------------------------------------------------


def _tournament(tmp_path: Path, limits: str):
    path = tmp_path / "t.toml"
    path.write_text(f'[limits]\n{limits}\n[[entrants]]\nstrategy = "random"\n[[entrants]]\nstrategy = "first"\n'
                    '[[games]]\ngame = "maumau"\nplayers = 2\n')
    return load_tournament(path, REGISTRY)


def test_a_tournament_file_sets_the_bank_and_resume_sees_it_change(tmp_path):
    key = sealing.default()
    banked = _tournament(tmp_path, "bank_ms = 1500")
    assert match_limits(banked).bank_ms == 1500
    none, zero = setup(_tournament(tmp_path, ""), key), setup(_tournament(tmp_path, "bank_ms = 0"), key)
    assert "bank_ms" not in none["limits"] and none == zero  # journals from before the bank resume
    assert _changed(none, setup(banked, key)) == "limit bank_ms changed (None then, 1500 now)"


@pytest.mark.parametrize("value, expected", [("-1", "0 or more"), ('"1500"', "integer"), (str(MAX_MS + 1), "at most")])
def test_a_tournament_file_with_a_wrong_bank_is_refused(tmp_path, value, expected):
    with pytest.raises(ConfigError, match=rf"limits\.bank_ms: expected .*{expected}"):
        _tournament(tmp_path, f"bank_ms = {value}")


def test_play_takes_a_bank_and_refuses_a_negative_one(tmp_path):
    def play(bank: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "referee", "play", "maumau", "-p", "random", "-p", "random",
                               "--seed", "1", "--out", "m.jsonl", "--bank-ms", bank],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)

    proc = play("-1")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "Invalid value for '--bank-ms': Input should be greater than or equal to 0" in proc.stderr
    assert play("1500").returncode == 0
    assert next(read_replay(tmp_path / "m.jsonl"))["limits"]["bank_ms"] == 1500


def test_validate_passes_the_bank_on_and_its_reproduce_command_carries_it():
    from referee.validate import Case, _Watched, play_command

    class Inner:
        def act(self, id, obs, legal, time_ms, meanwhile=None, **banked):
            self.banked = banked
            return Reply(index=0, ms=1.0)

    watched = _Watched(Inner())
    watched.act(1, {}, LEGAL, 200, bank_ms=1299)
    assert watched.inner.banked == {"bank_ms": 1299}
    watched.act(2, {}, LEGAL, 200)
    assert watched.inner.banked == {}  # no bank: asked as before
    case, key = Case({}, 2, 0, "random", 1), sealing.default()
    _, cmd = play_command("maumau", case, ["bot"], Limits(move_ms=200, bank_ms=1500), key)
    assert cmd[cmd.index("--bank-ms") + 1] == "1500"
    assert "--bank-ms" not in play_command("maumau", case, ["bot"], Limits(move_ms=200), key)[1]


def test_validate_gives_the_bot_its_bank_and_says_so(tmp_path):
    from io import StringIO

    from rich.console import Console

    from referee.cli.validate import print_report
    from referee.validate import Case, run_validation

    # 250 ms a decision against a move_ms of 200: each act draws about 50 ms of the 3000 ms bank;
    # the key and seed give a short match (5 decisions of the bot's)
    key = sealing.DealKey(b"tests/test_bank.py: validate", "env")
    report = run_validation(REGISTRY.games["maumau"], REGISTRY, [sys.executable, str(BANKER), "250"],
                            Limits(move_ms=200, bank_ms=3000), cases=[Case({"target": 10}, 2, 0, "random", 1)],
                            key=key)
    assert report["faults"]["total"] == 0 and report["passed"]
    assert report["limits"]["bank_ms"] == 3000 and report["move_time_ms"]["over_limit"] > 0
    out = StringIO()
    print_report(Console(file=out, width=200), report)
    assert "(limit 200 ms and a time bank of 3000 ms per match, " in out.getvalue()
