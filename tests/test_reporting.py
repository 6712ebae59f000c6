"""A tournament's per-match lines and fault table (issue 18)."""

from __future__ import annotations

import random

from referee.tournament.reporting import duration, fault_rows, match_line


def rec(index, seats, ranks, faults=()):
    return {"index": index, "key": f"maumau.g0.t0.s{index}.r0", "game": "maumau", "seats": seats, "ranks": ranks,
            "disqualified": [f["seat"] for f in faults if f["kind"] == "crash"],
            "fault_log": list(faults)}


def test_a_match_line_names_seats_by_rank_and_its_faults():
    line = match_line(rec(3, ["a", "b", "c"], [2, 1, 3], [{"seat": 2, "kind": "crash", "detail": "exited"}]),
                      4, 10, 75)
    assert line == "[4/10, ETA 1m15s] maumau.g0.t0.s3.r0: 1. b, 2. a, 3. c; faults: c crash (disqualified: c)"
    assert match_line(rec(0, ["a", "b"], [1, 2]), 1, 2) == "[1/2] maumau.g0.t0.s0.r0: 1. a, 2. b"


def test_durations():
    assert [duration(s) for s in (0, 42, 185, 3720)] == ["0s", "42s", "3m05s", "1h02m"]


def test_fault_rows_count_by_entrant_and_kind_name_the_first_matches_and_logs_in_any_order():
    records = [rec(i, ["a", "b"], [1, 2], [{"seat": 1, "kind": "timeout", "detail": "no reply", "hint": "flush",
                                              "log": f"maumau.g0.t0.s{i}.r0.seat1.log"}]
                   if i % 2 else []) for i in range(10)]
    records.append(rec(10, ["b", "a"], [2, 1], [{"seat": 1, "kind": "illegal", "detail": "x"}]))
    rows = fault_rows(records)
    shuffled = records[:]
    random.Random(1).shuffle(shuffled)
    assert [r.record() for r in fault_rows(shuffled)] == [r.record() for r in rows]
    (timeouts, illegal) = rows
    assert (timeouts.entrant, timeouts.kind, timeouts.count) == ("b", "timeout", 5)
    assert timeouts.matches == ["maumau.g0.t0.s1.r0", "maumau.g0.t0.s3.r0", "maumau.g0.t0.s5.r0"]
    assert timeouts.logs[0] == "replays/maumau.g0.t0.s1.r0.seat1.log" and timeouts.example == "no reply (flush)"
    assert (illegal.entrant, illegal.count) == ("a", 1)
