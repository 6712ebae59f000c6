"""Nothing a seat is told depends on what it may not know (issue 25, findings 2 and 3).

Two matches that differ only in another seat's hidden choice or hidden cards must send this seat
the very same lines (`referee.testing.told`), act ids included, until the difference is shown
in public (a card played). Act ids used to count every seat's decisions, so a gap between two of
a bot's ids counted the others' hidden ones (Mau Mau's kept draw, Mayor's counter pass); the
`end` message used to give every seat the others' faults whole (their legal actions: cards of
their hands). tests/bots/attack_actids.py tries both on a real subprocess bot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.bots import sandbox as sandbox_mod
from referee.plugins import load_registry
from referee.runner import Limits
from referee.testing import first_difference, swap_cards, told, told_alike

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
GAMES = load_registry().games
#: a pinned deal key: the attack's match is the same one on every run (and on the old code)
KEY = "leak-test-deal-key-0123456789abcdef"
STOPPERS = {"RP", "YP", "BP", "GP", "T1"}  # M-12
#: told() checks every line as the kit does (no card a seat may not see); Mayor's Casino guess
#: names any card, publicly (M-11), as in tests/test_conformance.py
GUESS = ("name",)


def lowest(legal: list, avoid: set[str] = frozenset()) -> int:
    """The index of the first action in JSON order, one naming no card of `avoid` if there is one."""
    keep = [k for k, a in enumerate(legal) if not any(v in avoid for v in a.values() if isinstance(v, str))]
    return min(keep or range(len(legal)), key=lambda k: json.dumps(legal[k], sort_keys=True))


def messages(lines: list[bytes]) -> list[dict]:
    return [json.loads(line) for line in lines]


def acts(lines: list[bytes]) -> list[dict]:
    return [m for m in messages(lines) if m["type"] == "act"]


def test_each_seat_counts_its_own_acts_from_1():
    """Per-seat ids: 1, 2, 3... for every seat of a 3-seat match, whatever the others did."""
    lines = told(GAMES["maumau"], {"target": 30}, lambda seat, obs, legal: lowest(legal), 3, seed=1)
    for seat in range(3):
        ids = [m["id"] for m in acts(lines[seat])]
        assert ids == list(range(1, len(ids) + 1)), (seat, ids[:20])


# -- Mau Mau: a playable card drawn and kept (one more decision, MM-5) or an unplayable one ----------


def drawer_policy():
    """Seat 1 draws at its first turn and keeps a playable card drawn; every choice else is the
    `lowest` play, or a draw when there is none."""
    first = [True]

    def choose(seat: int, obs: dict, legal: list) -> int:
        if seat == 1 and obs["phase"] == "drawn":
            return legal.index({"pass": True})  # keep it: "passed", kept, told to the drawer only
        if seat == 1 and first[0] and {"draw": True} in legal:
            first[0] = False
            return legal.index({"draw": True})
        plays = [k for k, a in enumerate(legal) if "draw" not in a]  # a play when there is one (MM-8's
        return plays[lowest([legal[k] for k in plays])] if plays else lowest(legal)  # cap not reached)

    return choose


def test_maumau_a_kept_playable_draw_tells_the_other_seat_what_an_unplayable_draw_does():
    """Match A: seat 1 draws D, playable, and keeps it. Match B: D and a card Y of seat 1's hand
    trade places in the deal, so seat 1 holds D and draws Y, unplayable. After the draw it holds
    the same cards; only seat 1 knows which match it is. Seat 0 must be told the same lines."""
    game, config = GAMES["maumau"], {"voluntary_draw": True}  # seat 1 may draw holding D
    for seed in range(40):
        a = told(game, config, drawer_policy(), 2, seed)
        drawer = acts(a[1])
        if len(drawer) < 2 or drawer[1]["obs"]["phase"] != "drawn":
            continue
        drawn = drawer[1]["obs"]["drawn"]
        for other in drawer[0]["obs"]["hand"]:
            b = told(game, config, drawer_policy(), 2, seed, chance=swap_cards(drawn, other))
            if acts(b[1])[1]["obs"]["phase"] != "drawn":  # `other` was not playable: drawn, no choice
                break
        else:
            continue
        assert len(acts(a[1])) == len(acts(b[1])) + 1, "the drawer decided once more in match A"
        assert told_alike(a[0], b[0], seat=0) is None  # the kit's own comparison (referee.testing)
        return
    pytest.fail("no seed gave a drawer a playable card at its first turn")


# -- Mayor: a counter-offer pass, told to nobody (M-12) ---------------------------------------------


def mayor_policy(avoid: set[str]):
    """Every seat passes every counter offer and plays `lowest`, keeping `avoid` back while it can."""

    def choose(seat: int, obs: dict, legal: list) -> int:
        if {"pass": True} in legal:
            return legal.index({"pass": True})
        return lowest(legal, avoid)

    return choose


def test_mayor_a_counter_pass_tells_the_other_seats_nothing_until_the_card_is_played():
    """Match A: after the reveal a Thief is played and an opponent still to play, holding one
    Policeman, is asked and passes. Match B: that Policeman and a card of the Thief's player of
    the same suit trade places in the deal: nobody is asked. The two seats left are told the same
    lines until one of the two cards is played (a public event), and they act in between."""
    game, config = GAMES["mayor"], {"deals": 1}
    for seed in range(60):
        a = told(game, config, mayor_policy(STOPPERS), 4, seed, guess_fields=GUESS)
        for asked in range(4):
            offers = [m for m in acts(a[asked]) if m["obs"]["phase"] == "counter"]
            held = [c for c in offers[0]["obs"]["hand"] if c in STOPPERS] if offers else []
            if len(held) != 1 or held[0] == "T1":
                continue
            police = held[0]
            events = [m["event"] for m in messages(a[asked]) if m["type"] == "event"]
            thief = next(e["seat"] for e in events if e["kind"] == "played" and e["card"] == "THIEF")
            dealt = next(m["event"] for m in messages(a[thief])
                         if m["type"] == "event" and m["event"]["kind"] == "deal")
            for card in dealt["hand"]:
                if card[0] != police[0] or card in STOPPERS or card.endswith("M"):
                    continue
                avoid = STOPPERS | {card}
                a2 = told(game, config, mayor_policy(avoid), 4, seed, guess_fields=GUESS)
                b2 = told(game, config, mayor_policy(avoid), 4, seed, chance=swap_cards(police, card),
                          guess_fields=GUESS)
                if not any(m["obs"]["phase"] == "counter" for m in acts(a2[asked])) \
                        or any(m["obs"]["phase"] == "counter" for m in acts(b2[asked])):
                    continue
                for watcher in set(range(4)) - {asked, thief}:
                    check_told_alike_until_shown(a2[watcher], b2[watcher], {police, card}, watcher)
                return
    pytest.fail("no seed gave a counter offer to a seat holding one Policeman")


def check_told_alike_until_shown(a: list[bytes], b: list[bytes], cards: set[str], seat: int) -> None:
    """The first line that differs is a `played` event of one of `cards`, and the seat was asked
    to act after the Thief and before it (so a count of hidden decisions would have shown)."""
    k = told_alike(a, b, seat, shown=cards)  # the first line told differently names one of the cards
    assert k is not None, "the swapped cards are played in the deal"
    shown = json.loads(a[k])
    assert shown["type"] == "event" and shown["event"]["kind"] == "played" and shown["event"]["card"] in cards, \
        f"line {k + 1} was told differently: {a[k][:200]!r} vs {b[k][:200]!r}"
    thief = next(i for i, line in enumerate(a) if b'"card":"THIEF"' in line)
    assert any(line.startswith(b'{"type":"act"') for line in a[thief:k]), "no act between the Thief and the card"


# -- Presidente: a citizen's gift (P-9), chosen in secret ------------------------------------------


def test_presidente_a_citizens_gift_tells_the_president_and_the_slave_nothing_until_played():
    """Two matches where the first citizen gives its highest card in round 2, or not: the president and the
    slave are told the same lines until the citizens' different hands show in play (an event,
    never an act). Each citizen always makes 3 gift decisions, so ids never told this; the test
    keeps it so."""
    game = GAMES["presidente"]

    def policy(pick: int):
        def choose(seat: int, obs: dict, legal: list) -> int:
            exchange = obs["exchange"]
            if obs["phase"] == "exchange" and obs["round"] == 2 and not exchange["gave"] and exchange["with"] > seat:
                return sorted(range(len(legal)), key=lambda k: json.dumps(legal[k]))[pick]
            return lowest(legal)
        return choose

    a, b = told(game, {}, policy(0), 4, seed=3), told(game, {}, policy(-1), 4, seed=3)
    roles = next(m["obs"]["roles"] for m in acts(a[0]) if m["obs"]["round"] == 2)
    assert sorted(roles) == ["citizen", "citizen", "president", "slave"]
    for watcher in (s for s in range(4) if roles[s] != "citizen"):
        k = first_difference(a[watcher], b[watcher])
        assert k is not None, "the citizens' hands differ, and show in play"
        shown = [json.loads(lines[watcher][k]) for lines in (a, b)]
        assert all(m["type"] == "event" for m in shown), \
            f"line {k + 1} was told differently: {a[watcher][k][:200]!r} vs {b[watcher][k][:200]!r}"
        assert any(m["type"] == "act" and m["obs"]["round"] == 2 for m in messages(a[watcher][:k]))


# -- the end message's fault log --------------------------------------------------------------------


def test_the_end_message_tells_a_seat_only_the_seat_deal_and_kind_of_anothers_fault():
    faults = [2]

    def choose(seat: int, obs: dict, legal: list) -> int:
        if seat == 1 and faults[0]:
            faults[0] -= 1
            return len(legal)  # an index past the legal list: illegal
        return lowest(legal)

    lines = told(GAMES["maumau"], {"target": 10}, choose, 3, seed=2, limits=Limits(60_000, 60_000, max_faults=3))
    ends = [json.loads(seat[-1])["result"]["fault_log"] for seat in lines]
    assert len(ends[1]) == 2 and all(set(f) >= {"seat", "deal", "kind", "detail", "raw", "act", "legal", "hint"}
                                     for f in ends[1]), ends[1]
    assert [f["act"] for f in ends[1]] == [1, 2]  # its own act ids
    for seat in (0, 2):
        assert ends[seat] == [{"seat": 1, "deal": f["deal"], "kind": "illegal"} for f in ends[1]], ends[seat]


# -- the attack bot ---------------------------------------------------------------------------------


def reports(log: str) -> dict[str, tuple[bool, str]]:
    """The ATTACK lines of a log: name -> (won, detail)."""
    out = {}
    for line in log.splitlines():
        parts = line.split(" ", 3)
        if len(parts) >= 3 and parts[0] == "ATTACK":
            out[parts[1]] = (parts[2] == "WON", parts[3] if len(parts) > 3 else "")
    return out


def play(tmp_path: Path, game: str, players: list[str], *args: str, nobody: bool = False) -> tuple[str, dict]:
    """`referee play` with the attack bot in seat 0 (in the sandbox where it can be built; as
    nobody, with the system Python, if asked): its log and the replay's result."""
    sandbox = "bwrap" if sandbox_mod.available() else "none"
    # the command as written, relative to the checkout: the match id (and so the bots' choices,
    # seeded by it) must not depend on where the checkout lies
    spy = "python3 tests/bots/attack_actids.py"
    out = tmp_path / "m.jsonl"
    tail = ["play", game, "-p", spy, *[a for p in players for a in ("-p", p)], "--sandbox", sandbox, "--move-ms",
            "30000", "--out", str(out), *args]
    if nobody:
        from test_integrity import _SETUP, _paths, _unprivileged_python

        prefix = _unprivileged_python()
        if prefix is None:
            pytest.skip("no way to run the referee as an unprivileged user here")
        os.chown(tmp_path, 65534, 65534)
        code = f"{_SETUP}; sys.argv[0] = 'referee'; from referee.cli import main; main()"
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(tmp_path), "REFEREE_DEAL_KEY": KEY,
               "PYTHONPATH": os.pathsep.join(_paths())}
        argv = [*prefix, "-c", code, *tail]
    else:
        env = {**os.environ, "REFEREE_DEAL_KEY": KEY, "TMPDIR": str(tmp_path)}
        argv = [sys.executable, "-m", "referee", *tail]
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return (tmp_path / "m.seat0.log").read_text(), json.loads(out.read_text().splitlines()[-1])


@pytest.mark.parametrize("nobody", [False, True], ids=["as-this-user", "as-nobody"])
def test_the_attack_cannot_infer_counter_passes_from_act_ids(tmp_path, nobody):
    """On the old code (ids counting every seat's decisions) this very match (pinned key and seed)
    reports `ATTACK actids WON questions=3 positives=2 right=3 baseline=2`: every question right."""
    if nobody:  # a folder nobody may write, every folder above it open to others
        import tempfile

        tmp_path = Path(tempfile.mkdtemp(prefix="referee-leak-"))
    try:
        log, result = play(tmp_path, "mayor", ["random"] * 3, "--seed", "3", "--set", "deals=60", nobody=nobody)
    finally:
        if nobody:
            sandbox_mod.remove_scratch(tmp_path)
    won, detail = reports(log)["actids"]
    counts = dict(part.split("=") for part in detail.split())
    questions, positives = int(counts["questions"]), int(counts["positives"])
    assert questions >= 3 and 0 < positives < questions, f"nothing to infer in this match: {detail}"
    assert not won, detail
    assert result["faults"] == [0, 0, 0, 0]


def test_the_attack_cannot_read_anothers_legal_actions_from_the_end_message(tmp_path):
    log, result = play(tmp_path, "maumau", ["python3 tests/bots/illegal.py", "random"], "--seed", "1",
                       "--set", "target=20")
    won, detail = reports(log)["endlog"]
    assert not won and "others' faults=1" in detail, detail
    (entry,) = result["fault_log"]  # the organiser's replay keeps the fault whole
    assert entry["seat"] == 1 and entry["legal"].startswith("[{") and entry["act"] == 1 and entry["raw"]
    # a seat's view of the replay (terminal, HTML) shows the fault log as that seat was told it
    from referee.replay.html import viewer_data
    from referee.replay.terminal import build_story
    from referee.replay.verify import load_replay

    replay = load_replay(tmp_path / "m.jsonl")
    for seat, told_log in ((0, [{"seat": 1, "deal": entry["deal"], "kind": "illegal"}]), (1, [entry]), (None, [entry])):
        assert build_story(replay, GAMES["maumau"], seat).result["fault_log"] == told_log, seat
        assert viewer_data(replay, GAMES["maumau"], seat)["result"]["fault_log"] == told_log, seat
