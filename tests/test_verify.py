"""referee verify: untouched replays of every game and variant pass; tampered ones (an illegal
card, a wrong score, a swapped seat, impossible deals and reshuffles, bad faults) are caught
with the deal and move where they differ."""

from __future__ import annotations

import copy
import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from referee.tournament.driver import ReplayChecker as TournamentVerifier
from referee.config import resolve_config
from referee.errors import UsageError
from referee.players import Fault, Player, Reply, StrategyPlayer
from referee.plugins import load_registry
from referee.runner import Limits, Seat, run_match
from referee.testing import random_playout
from referee.ranking import competition_ranks
from referee.replay.verify import load_replay, simulate, verify_file, verify_replay
from referee_strategies.basic import RandomLegal

from misbehaving import Misbehaving

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = load_registry()
GAMES = {"maumau": 3, "presidente": 4, "mayor": 4}


def referee(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def make(tmp_path: Path, game: str, seed: int = 1, config: dict | None = None, players: int | None = None,
         name: str | None = None) -> Path:
    path = tmp_path / (name or f"{game}-{seed}.jsonl")
    random_playout(REGISTRY.game(game), config or {}, seed, players or GAMES[game], replay=path)
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, recs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def line_of(recs: list[dict], k: int) -> int:
    return k + 1


def moves_of(recs):
    """(index in recs, deal, number within the deal) of every move record."""
    out, counts = [], {}
    for i, r in enumerate(recs):
        if r["type"] == "move":
            counts[r["deal"]] = counts.get(r["deal"], 0) + 1
            out.append((i, r["deal"], counts[r["deal"]]))
    return out


# -- untouched replays pass ------------------------------------------------------------------------

CASES = [(name, variant, players, seed)
         for name in sorted(GAMES)
         for variant in REGISTRY.game(name).variants()
         for players in sorted({GAMES[name], REGISTRY.game(name).min_players, REGISTRY.game(name).max_players})
         for seed in (1, 2, 3)]


@pytest.mark.parametrize("game,variant,players,seed", CASES,
                         ids=[f"{g}-{'-'.join(f'{k}={v}' for k, v in c.items()) or 'default'}-{n}p-s{s}"
                              for g, c, n, s in CASES])
def test_untouched_replays_verify(tmp_path, game, variant, players, seed):
    path = make(tmp_path, game, seed, variant, players)
    verdict = verify_file(path, REGISTRY)
    assert verdict.ok, verdict.discrepancy
    recs = records(path)
    assert verdict.moves == sum(r["type"] == "move" for r in recs)
    assert verdict.deals == sum(r["type"] == "deal" for r in recs)


def test_greedy_strategies_replays_verify_and_gzip_is_read_by_content(tmp_path):
    for game, greedy in (("maumau", "maumau-greedy"), ("presidente", "presidente-greedy"), ("mayor", "mayor-greedy")):
        path = tmp_path / f"{game}.jsonl.gz"
        proc = referee("play", game, *sum((["-p", greedy if i == 0 else "random"] for i in range(GAMES[game])), []),
                       "--seed", "4", "--out", str(path))
        assert proc.returncode == 0, proc.stderr
        assert path.read_bytes()[:2] == b"\x1f\x8b"
        assert verify_file(path, REGISTRY).ok
        # a gzip-compressed replay named like a plain one is still read
        plain_name = tmp_path / f"{game}-renamed.jsonl"
        plain_name.write_bytes(path.read_bytes())
        assert verify_file(plain_name, REGISTRY).ok


# -- tampered replays are caught -------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_illegal_card_is_caught_at_its_move(tmp_path, game):
    recs = records(make(tmp_path, game))
    deal1 = next(r for r in recs if r["type"] == "deal")
    for i, deal, number in moves_of(recs):
        action = recs[i]["action"]
        if "play" in action:
            break
    seat = recs[i]["seat"]
    other = deal1["hands"][(seat + 1) % len(deal1["hands"])]
    # a card the seat never held: from another seat's hand as dealt (it is still there: first play)
    foreign = next(c for c in other if c not in deal1["hands"][seat])
    recs[i]["action"] = {"play": [foreign]} if game == "presidente" else {"play": foreign}
    verdict = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY)
    d = verdict.discrepancy
    assert d is not None and not verdict.ok
    assert (d.deal, d.move, d.line) == (deal, number, i + 1)
    assert "not legal" in d.message and foreign in d.message
    assert str(d).startswith(f"deal {deal}, move {number} (line {i + 1}): seat {seat} played")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_wrong_deal_score_is_caught_after_the_deals_last_move(tmp_path, game):
    recs = records(make(tmp_path, game))
    k = next(i for i, r in enumerate(recs) if r["type"] == "deal_end")
    recs[k]["scores"][0] += 1
    verdict = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY)
    d = verdict.discrepancy
    last = [m for m in moves_of(recs) if m[0] < k][-1]
    assert (d.deal, d.move, d.line, d.after) == (1, last[2], k + 1, True)
    assert "deal_end record differs: scores" in d.message
    assert str(d).startswith(f"deal 1, after move {last[2]} (line {k + 1})")


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("field", ["scores", "ranks"])
def test_a_wrong_result_is_caught(tmp_path, game, field):
    recs = records(make(tmp_path, game))
    result = recs[-1]
    result[field] = list(reversed(result[field])) if len(set(map(str, result[field]))) > 1 else \
        [v + 1 for v in result[field]]
    verdict = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY)
    assert verdict.discrepancy.line == len(recs)
    assert verdict.discrepancy.message.startswith(f"result record: {field}")


def _first_deal(recs: list[dict]) -> tuple[int, int]:
    """The indexes of the first deal's chance record (its shuffle) and of its deal record."""
    k = next(i for i, r in enumerate(recs) if r["type"] == "chance" and r["kind"] == "deal")
    return k, next(i for i in range(k, len(recs)) if recs[i]["type"] == "deal")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_swapped_hands_are_caught_at_the_first_move_that_betrays_them(tmp_path, game):
    recs = records(make(tmp_path, game))
    c, k = _first_deal(recs)
    hands = recs[k]["hands"]
    # two seats, neither the Mayor candidate (holder of T19): the deal record itself stays plausible
    a, b = [s for s in range(len(hands)) if "T19" not in hands[s]][:2]
    hands[a], hands[b] = hands[b], hands[a]
    d = verify_file(write(tmp_path / "hands.jsonl", recs), REGISTRY).discrepancy
    assert (d.deal, d.line) == (1, k + 1) and "deal record differs: hands" in d.message  # not the shuffle's deal
    # and with a shuffle that deals exactly those hands (the game's own reading of a deal record):
    # every record is consistent, the moves are not
    recs[c]["outcome"] = REGISTRY.game(game).old_outcome(recs[k], None)
    d = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY).discrepancy
    assert d is not None and d.deal == 1 and d.move is not None and d.move >= 1
    assert "not legal" in d.message
    assert recs[d.line - 1]["type"] == "move" and recs[d.line - 1]["seat"] in (a, b)


def test_a_swapped_candidate_hand_is_caught_at_the_deal_record(tmp_path):
    recs = records(make(tmp_path, "mayor"))
    _, k = _first_deal(recs)
    hands = recs[k]["hands"]
    c = recs[k]["candidate"]
    hands[c], hands[(c + 1) % 4] = hands[(c + 1) % 4], hands[c]
    d = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY).discrepancy
    assert (d.deal, d.line) == (1, k + 1)
    assert "deal record differs" in d.message


@pytest.mark.parametrize("game", sorted(GAMES))
def test_swapped_seats_of_two_moves_are_caught(tmp_path, game):
    recs = records(make(tmp_path, game))
    ms = moves_of(recs)
    j = next(j for j in range(len(ms) - 1) if recs[ms[j][0]]["seat"] != recs[ms[j + 1][0]]["seat"])
    (i1, deal, n1), (i2, _, _) = ms[j], ms[j + 1]
    recs[i1]["seat"], recs[i2]["seat"] = recs[i2]["seat"], recs[i1]["seat"]
    d = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY).discrepancy
    assert (d.deal, d.move, d.line) == (deal, n1, i1 + 1)
    assert "but it is seat" in d.message


def test_swapped_actions_of_two_seats_are_caught(tmp_path):
    recs = records(make(tmp_path, "presidente"))
    ms = moves_of(recs)
    plays = [m for m in ms if "play" in recs[m[0]]["action"]]
    (i1, deal, n1), (i2, _, _) = plays[0], next(p for p in plays[1:] if recs[p[0]]["seat"] != recs[plays[0][0]]["seat"])
    recs[i1]["action"], recs[i2]["action"] = recs[i2]["action"], recs[i1]["action"]
    d = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY).discrepancy
    assert (d.deal, d.move) == (deal, n1) and "not legal" in d.message


# -- impossible chance records: the core refuses an outcome that is not one of the request's ------


def test_a_reserve_holding_a_forbidden_card_is_impossible_M_1(tmp_path):
    recs = records(make(tmp_path, "mayor"))
    c, _ = _first_deal(recs)
    deck = recs[c]["outcome"]
    j = deck.index("RM")
    deck[j], deck[-1] = deck[-1], "RM"  # the last 6 cards are the reserve
    d = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY).discrepancy
    assert (d.deal, d.line) == (1, c + 1)
    assert "impossible chance record" in d.message and "M-1" in d.message


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_deal_with_a_duplicated_card_or_wrong_hand_sizes_is_impossible(tmp_path, game):
    recs = records(make(tmp_path, game))
    c, k = _first_deal(recs)
    bad = copy.deepcopy(recs)
    bad[c]["outcome"][0] = bad[c]["outcome"][1]  # one card twice, another missing
    d = verify_file(write(tmp_path / "dup.jsonl", bad), REGISTRY).discrepancy
    assert (d.deal, d.line) == (1, c + 1) and "not an order of the" in d.message and "missing" in d.message
    bad = copy.deepcopy(recs)
    bad[c]["outcome"].pop()  # a card short
    d = verify_file(write(tmp_path / "short.jsonl", bad), REGISTRY).discrepancy
    assert (d.deal, d.line) == (1, c + 1) and "not an order of the" in d.message
    bad = copy.deepcopy(recs)
    bad[k]["hands"][1].append(bad[k]["hands"][0].pop())  # the same cards, wrong sizes: not what the game deals
    d = verify_file(write(tmp_path / "sizes.jsonl", bad), REGISTRY).discrepancy
    assert (d.deal, d.line) == (1, k + 1) and "deal record differs" in d.message


def _reshuffling_replay(tmp_path) -> tuple[Path, list[dict]]:
    for seed in range(1, 40):
        path = make(tmp_path, "maumau", seed)
        recs = records(path)
        if any(r["type"] == "chance" and r["kind"] == "reshuffle" for r in recs):
            return path, recs
    raise AssertionError("no reshuffle in 40 seeds")


def test_a_reshuffle_that_is_not_the_discard_pile_is_impossible_MM_8(tmp_path):
    _, recs = _reshuffling_replay(tmp_path)
    k = next(i for i, r in enumerate(recs) if r["type"] == "chance" and r["kind"] == "reshuffle")
    deal = next(r for r in recs if r["type"] == "deal" and r["deal"] == recs[k]["deal"])
    outside = next(c for c in deal["hands"][0] + deal["stock"] if c not in recs[k]["outcome"])
    recs[k]["outcome"][0] = outside
    d = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY).discrepancy
    before = [m for m in moves_of(recs) if m[0] < k][-1]
    assert (d.deal, d.move, d.line) == (before[1], before[2], k + 1)
    assert "impossible chance record" in d.message and "reshuffle" in d.message


def test_a_reordered_reshuffle_is_possible_but_differs_later_or_verifies(tmp_path):
    # another order of the same discards is a legal chance outcome: verify replays it and then
    # catches the first draw that no longer matches (or, rarely, nothing depends on the order)
    path, recs = _reshuffling_replay(tmp_path)
    k = next(i for i, r in enumerate(recs) if r["type"] == "chance" and r["kind"] == "reshuffle")
    recs[k]["outcome"].reverse()
    verdict = verify_file(write(tmp_path / "t.jsonl", recs), REGISTRY)
    assert verdict.ok or verdict.discrepancy.line > k + 1


def test_a_chance_record_of_another_kind_or_missing_is_caught(tmp_path):
    recs = records(make(tmp_path, "presidente"))
    c, k = _first_deal(recs)
    bad = copy.deepcopy(recs)
    bad[c]["kind"] = "reshuffle"
    d = verify_file(write(tmp_path / "kind.jsonl", bad), REGISTRY).discrepancy
    assert d.line == c + 1 and "where the match asks for a deal of deal 1" in d.message
    # (a deal record alone reads as a replay of before, whose deal records were its outcomes)
    d = verify_file(write(tmp_path / "none.jsonl", recs[:c] + recs[k + 1:]), REGISTRY).discrepancy
    assert d.line == c + 1 and "the match asks for a deal (deal 1), but the replay has a move record" in d.message


def test_a_truncated_replay_and_extra_records_are_caught(tmp_path):
    recs = records(make(tmp_path, "presidente"))
    d = verify_file(write(tmp_path / "short.jsonl", recs[:40]), REGISTRY).discrepancy
    assert "stops before the end of the match" in d.message
    d = verify_file(write(tmp_path / "noresult.jsonl", recs[:-1]), REGISTRY).discrepancy
    assert "no result record" in d.message
    extra = recs[:5] + [{"type": "chance", "deal": 1, "kind": "reshuffle", "stock": []}] + recs[5:]
    d = verify_file(write(tmp_path / "extra.jsonl", extra), REGISTRY).discrepancy
    assert d.line == 6 and "chance record" in d.message


# -- faults and disqualifications ------------------------------------------------------------------


def faulty_match(tmp_path: Path, game: str = "maumau", max_faults: int = 1, fallback: str = "first") -> Path:
    g = REGISTRY.game(game)
    n = GAMES[game]
    config = resolve_config(g, {}, n)
    seats = [Seat(f"p{i}", "strategy", "x") for i in range(n)]
    players = [Misbehaving(game, i, config, bad=3 if i == 1 else 0) for i in range(n)]
    path = tmp_path / f"faulty-{game}-{max_faults}-{fallback}.jsonl"
    run_match(g, config, 9, seats, players, Limits(max_faults=max_faults, fallback=fallback), replay=path)
    return path


@pytest.mark.parametrize("max_faults,fallback", [(1, "first"), (2, "random")])
def test_faults_fallbacks_and_disqualification_verify(tmp_path, max_faults, fallback):
    path = faulty_match(tmp_path, "maumau", max_faults, fallback)
    recs = records(path)
    assert recs[-1]["faults"][1] == 1 and recs[-1]["disqualified"] == ([1] if max_faults == 1 else [])
    assert verify_file(path, REGISTRY).ok


def test_a_tampered_fallback_or_fault_count_is_caught(tmp_path):
    path = faulty_match(tmp_path)
    recs = records(path)
    # seat 1 is disqualified after its fault: every later move of its must be the first legal action
    k = next(i for i, r in enumerate(recs) if r["type"] == "move" and "fault" in r)
    later = next(i for i in range(k + 1, len(recs)) if recs[i]["type"] == "move" and recs[i]["seat"] == 1)
    bad = copy.deepcopy(recs)
    bad[k]["fault"]["kind"] = bad[-1]["fault_log"][0]["kind"] = "timeout"  # still a fault: verifies
    assert verify_file(write(tmp_path / "kind.jsonl", bad), REGISTRY).ok
    bad = copy.deepcopy(recs)
    bad[k]["fault"]["kind"] = "timeout"  # the fault log says otherwise
    d = verify_file(write(tmp_path / "kind-log.jsonl", bad), REGISTRY).discrepancy
    assert "result record: fault_log[0]" in d.message and "seat 1's timeout in deal 1" in d.message
    bad = copy.deepcopy(recs)
    bad[-1]["faults"][1] = 0
    d = verify_file(write(tmp_path / "count.jsonl", bad), REGISTRY).discrepancy
    assert "result record: faults" in d.message
    bad = copy.deepcopy(recs)
    bad[-1]["disqualified"] = []
    d = verify_file(write(tmp_path / "dq.jsonl", bad), REGISTRY).discrepancy
    assert "result record: ranks" in d.message or "disqualified" in d.message
    # another legal action in place of the fallback's choice
    g = REGISTRY.game("maumau")
    rep = load_replay(path)
    from referee.replay.verify import simulate

    for step in simulate(rep, g):
        if step.index == sum(1 for r in recs[:later] if r["type"] == "move"):
            legal = step.state.legal_actions()
            break
    if len(legal) > 1:
        bad = copy.deepcopy(recs)
        bad[later]["action"] = legal[1]
        d = verify_file(write(tmp_path / "fallback.jsonl", bad), REGISTRY).discrepancy
        assert d.line == later + 1 and "fallback policy (first)" in d.message


def faulty_seat_0(tmp_path: Path, game: str, max_faults: int, name: str, fallback: str = "first", seed: int = 9,
                  **bad) -> Path:
    """A match where seat 0 is a Misbehaving(**bad) and the others play randomly."""
    g = REGISTRY.game(game)
    n = GAMES[game]
    config = resolve_config(g, {}, n)
    # seat 0 stands for a bot (a strategy cannot fail at its hello: verify knows it)
    seats = [Seat(f"p{i}", "command" if i == 0 else "strategy", "x") for i in range(n)]
    players = [Misbehaving(game, 0, config, **bad)] + [Misbehaving(game, i, config, 0) for i in range(1, n)]
    path = tmp_path / f"{name}.jsonl"
    run_match(g, config, seed, seats, players, Limits(max_faults=max_faults, fallback=fallback), replay=path)
    return path


def ranks_with(path: Path, disqualified: list[int]) -> list[int]:
    """The ranks C-5 gives the (untouched) replay's outcome with these seats disqualified."""
    replay = load_replay(path)
    *_, last = simulate(replay, REGISTRY.game(replay.game))
    return competition_ranks(last.state.outcome().measure, disqualified)


def without_log(recs: list[dict], disqualified: list[int] | None = None, path: Path | None = None) -> list[dict]:
    """The records with no fault_log in the result (and, if given, other disqualified seats and
    the ranks C-5 gives with them)."""
    out = copy.deepcopy(recs)
    del out[-1]["fault_log"]
    if disqualified is not None:
        out[-1]["disqualified"] = disqualified
        out[-1]["ranks"] = ranks_with(path, disqualified)
    return out


@pytest.mark.parametrize("case", ["max_faults", "crash"])
def test_without_a_fault_log_the_disqualifications_must_still_follow_the_moves_faults(tmp_path, case):
    # seat 0 faults at its decisions 2, 10 and 20 with max_faults 3, or crashes at its 5th
    bad = {"at": (2, 10, 20)} if case == "max_faults" else {"at": (5,), "crash": True}
    for seed in range(9, 60):  # a deal where undoing the disqualification changes the ranks
        path = faulty_seat_0(tmp_path, "presidente", 3, case, seed=seed, **bad)
        recs = records(path)
        tampered = without_log(recs, [], path)
        if tampered[-1]["ranks"] != recs[-1]["ranks"]:
            break
    assert tampered[-1]["ranks"] != recs[-1]["ranks"]
    assert recs[-1]["disqualified"] == [0] and recs[-1]["faults"][0] == len(bad["at"])
    assert verify_file(write(tmp_path / "nolog.jsonl", without_log(recs)), REGISTRY).ok
    d = verify_file(write(tmp_path / "undisqualified.jsonl", tampered), REGISTRY).discrepancy
    assert d is not None and d.line == len(recs)
    assert "result record: disqualified: recorded [], but the faults disqualify [0]" in d.message
    # a seat with no fault is no more disqualified without a log than with one
    d = verify_file(write(tmp_path / "extra.jsonl", without_log(recs, [0, 2], path)), REGISTRY).discrepancy
    assert "disqualified: recorded [0, 2], but the faults disqualify [0]" in d.message


def test_without_a_fault_log_a_seat_has_at_most_one_fault_at_the_start(tmp_path):
    path = faulty_seat_0(tmp_path, "presidente", 3, "one", at=(2,))
    recs = records(path)
    assert recs[-1]["faults"][0] == 1 and recs[-1]["disqualified"] == []
    bad = without_log(recs)
    bad[-1]["faults"][0] = 2  # one at its hello: possible, and not a disqualification
    assert verify_file(write(tmp_path / "hello.jsonl", bad), REGISTRY).ok
    bad[-1]["faults"][0] = 3
    d = verify_file(write(tmp_path / "two-hellos.jsonl", bad), REGISTRY).discrepancy
    assert "result record: faults: recorded [3, 0, 0, 0], but the moves record [1, 0, 0, 0]" in d.message
    bad[-1]["faults"][0] = 0
    d = verify_file(write(tmp_path / "fewer.jsonl", bad), REGISTRY).discrepancy
    assert "result record: faults: recorded [0, 0, 0, 0]" in d.message
    # a fault at its hello and two on its moves make three: max_faults 3 disqualifies the seat at the
    # second, and its own later moves are not the fallback's
    path = faulty_seat_0(tmp_path, "presidente", 3, "two", at=(2, 10))
    bad = without_log(records(path))
    bad[-1]["faults"][0] = 3
    d = verify_file(write(tmp_path / "hello-dq.jsonl", bad), REGISTRY).discrepancy
    assert "seat 0 is disqualified" in d.message  # yet its moves were timed, and not the fallback's


def test_a_seat_disqualified_at_its_hello_verifies_without_a_fault_log(tmp_path):
    path = faulty_seat_0(tmp_path, "presidente", 3, "hello", hello=Fault("crash", "the bot exited"))
    recs = records(path)
    assert recs[-1]["disqualified"] == [0] and recs[-1]["faults"][0] == 1
    assert recs[-1]["fault_log"][0]["deal"] == 0
    assert verify_file(path, REGISTRY).ok
    assert verify_file(write(tmp_path / "nolog.jsonl", without_log(recs)), REGISTRY).ok
    # a hello fault that did not disqualify: the seat played its own moves, not the fallback's
    path = faulty_seat_0(tmp_path, "presidente", 3, "timeout", hello=Fault("timeout", "no hello"))
    recs = records(path)
    assert recs[-1]["disqualified"] == [] and recs[-1]["faults"][0] == 1
    assert verify_file(write(tmp_path / "nolog2.jsonl", without_log(recs)), REGISTRY).ok
    d = verify_file(write(tmp_path / "dq2.jsonl", without_log(recs, [0], path)), REGISTRY).discrepancy
    # (its own moves were timed: the referee never asks a disqualified seat; and not the fallback's)
    assert d is not None and "seat 0 is disqualified" in d.message


def test_a_fault_log_that_differs_from_the_moves_is_caught(tmp_path):
    path = faulty_seat_0(tmp_path, "presidente", 3, "log", hello=Fault("timeout", "no hello"), at=(2, 10))
    recs = records(path)
    log = recs[-1]["fault_log"]
    assert [(e["seat"], e["deal"] > 0) for e in log] == [(0, False), (0, True), (0, True)]
    assert verify_file(path, REGISTRY).ok

    def tampered(name: str, change) -> str:
        bad = copy.deepcopy(recs)
        change(bad[-1]["fault_log"])
        d = verify_file(write(tmp_path / f"{name}.jsonl", bad), REGISTRY).discrepancy
        assert d is not None and d.line == len(recs), name
        return d.message

    assert "fault_log[1]: recorded" in tampered("kind", lambda log: log[1].update(kind="timeout"))
    assert "fault_log[2]: recorded" in tampered("seat", lambda log: log[2].update(seat=1))
    assert "fault_log[2]: " in tampered("order", lambda log: log.insert(2, log.pop(0)))
    assert "1 entries after the start, but the moves record 2 faults" in tampered("missing", lambda log: log.pop())
    assert "fault_log[3]: " in tampered("extra", lambda log: log.append(dict(log[2])))
    assert "not a seat's one fault at the start" in tampered("hello twice", lambda log: log.insert(0, dict(log[0])))
    bad = copy.deepcopy(recs)
    bad[-1]["fault_log"] = "none"
    d = verify_file(write(tmp_path / "not-a-list.jsonl", bad), REGISTRY).discrepancy
    assert "result record: fault_log: \"none\" is not a list" in d.message


class Forgetful(Player):
    """Plays randomly, but drops every due Mau Mau announcement: the referee accepts the bare
    play and penalises it (MM-7), with no fault."""

    def __init__(self, seat: int, config: dict) -> None:
        self.inner = StrategyPlayer(RandomLegal("maumau", seat, config, random.Random(seat)))

    def start(self, hello):
        return None

    def event(self, event):
        pass

    def act(self, id, obs, legal, time_ms):
        reply = self.inner.act(id, obs, legal, time_ms)
        action = legal[reply.index] if reply.index is not None else reply.action
        return Reply(action={k: v for k, v in action.items() if k != "say"})

    def end(self, result):
        pass


def test_a_play_without_its_due_announcement_is_accepted_and_verifies_MM_7(tmp_path):
    g = REGISTRY.game("maumau")
    config = resolve_config(g, {}, 3)
    path = tmp_path / "forgetful.jsonl"
    run_match(g, config, 5, [Seat(f"p{i}", "strategy", "x") for i in range(3)],
              [Forgetful(i, config) for i in range(3)], Limits(), replay=path)
    recs = records(path)
    assert recs[-1]["faults"] == [0, 0, 0]
    moves = [r for r in recs if r["type"] == "move"]
    assert not any("say" in r["action"] for r in moves)
    assert verify_file(path, REGISTRY).ok
    # the record must be what the game made of the play: the bot's own wrong words are not it
    k = next(i for i, r in enumerate(recs) if r["type"] == "move" and r["action"].get("play")
             and sum(1 for m in recs[:i] if m["type"] == "move" and m["seat"] == r["seat"]) > 2)
    bad = copy.deepcopy(recs)
    bad[k]["action"]["say"] = "MAU"
    d = verify_file(write(tmp_path / "said.jsonl", bad), REGISTRY).discrepancy
    assert d is not None and d.line == k + 1


# -- usage errors and games that cannot re-simulate ------------------------------------------------


def test_not_a_replay_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        verify_file(tmp_path / "missing.jsonl", REGISTRY)
    (tmp_path / "text.jsonl").write_text("hello\n")
    with pytest.raises(UsageError, match="not a replay"):
        verify_file(tmp_path / "text.jsonl", REGISTRY)
    (tmp_path / "nohead.jsonl").write_text('{"type": "move"}\n')
    with pytest.raises(UsageError, match="not a replay"):
        verify_file(tmp_path / "nohead.jsonl", REGISTRY)
    (tmp_path / "broken.jsonl.gz").write_bytes(gzip.compress(b'{"type": "header"')[:-6])
    with pytest.raises(UsageError):
        verify_file(tmp_path / "broken.jsonl.gz", REGISTRY)


def test_a_malformed_chance_request_is_the_plugins_error_in_verify(tmp_path):
    from referee.errors import PluginError
    from referee_maumau.game import MauMau
    from referee_maumau.state import MauMauState

    class Bad(MauMauState):
        def chance(self):
            request = super().chance()
            return None if request is None else ["not", "a", "request"]

    class BadGame(MauMau):
        def new_state(self, config, players):
            full = {o.name: o.default for o in self.options}
            return Bad({**full, **config}, players)

    with pytest.raises(PluginError, match=r"game 'maumau' \(test_verify\).*not a referee.game.Shuffle"):
        verify_replay(load_replay(make(tmp_path, "maumau")), BadGame())


def test_verify_command_exit_codes_and_messages(tmp_path):
    good = make(tmp_path, "mayor")
    recs = records(good)
    recs[-1]["scores"][0] = 99
    bad = write(tmp_path / "bad.jsonl", recs)
    proc = referee("verify", str(good))
    assert proc.returncode == 0 and proc.stdout.strip() == f"{good}: OK (mayor, 4 deals, {len(moves_of(recs))} moves)"
    proc = referee("verify", str(good), str(bad))
    assert proc.returncode == 1
    assert f"{bad}: DISCREPANCY at line {len(recs)}: result record: scores" in proc.stdout
    assert f"{good}: OK" in proc.stdout
    proc = referee("verify", str(tmp_path / "nope.jsonl"))
    assert proc.returncode == 2 and proc.stderr.strip() == f"{tmp_path / 'nope.jsonl'}: error: {tmp_path / 'nope.jsonl'}: no such file"
    assert referee("verify").returncode == 2


def test_tournament_verifier_counts_failures(tmp_path):
    (tmp_path / "replays").mkdir()
    good = make(tmp_path / "replays", "maumau", name="good.jsonl")
    recs = records(good)
    recs[-1]["ranks"] = [1] * len(recs[-1]["ranks"])
    write(tmp_path / "replays" / "bad.jsonl", recs)
    verifier = TournamentVerifier(tmp_path, REGISTRY, enabled=True)
    for name in ("good", "bad", "missing"):
        verifier.check({"replay": f"replays/{name}.jsonl"})
    assert verifier.checked == 3 and len(verifier.failures) == 2
    assert "bad.jsonl" in verifier.failures[0] and "ranks" in verifier.failures[0]
    off = TournamentVerifier(tmp_path, REGISTRY, enabled=False)
    off.check({"replay": "replays/bad.jsonl"})
    assert off.checked == 0


def test_tournament_verify_option(tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text('name = "v"\nseed = 3\nconcurrency = 1\n[[entrants]]\nstrategy = "random"\n[[entrants]]\n'
                    'strategy = "first"\n[[games]]\ngame = "maumau"\nplayers = 2\nconfig = { target = 30 }\n')
    proc = referee("tournament", str(toml), "--out", str(tmp_path / "o"), "--verify")
    assert proc.returncode == 0, proc.stderr
    assert "verified 1 replays: all OK" in proc.stdout
    assert (tmp_path / "o" / "index.html").is_file()
