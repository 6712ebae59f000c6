"""The Mau Mau game: its options (MM-10), configuration checks (MM-1) and state factory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.errors import ConfigError
from referee.game import Game, Option, Shuffle

from referee_maumau.cards import DECK_SIZES, decks_for
from referee_maumau.state import MauMauState

if TYPE_CHECKING:
    from referee_maumau.describe import MauMauDescriber


class MauMau(Game):
    """Mau Mau, 2-10 players (two decks for 7-10), as in the seed plus MM-1..MM-10."""

    name = "maumau"
    title = "Mau Mau"
    min_players = 2
    max_players = 10
    options = (
        Option("hand_size", int, 5, "Cards dealt to each player (MM-1).", choices=(5, 7)),
        Option("deck", str, "standard", "standard: 52 cards; skat32: 7 to A only (MM-10).",
               choices=("standard", "skat32")),
        Option("ace", str, "none", "Ace power: none, draw1 (every other player draws one) or "
               "skip_all (the player of the Ace plays again) (MM-10).", choices=("none", "draw1", "skip_all")),
        Option("seven_chain", int, 0, "How many players after the first may pass a 7 penalty on; "
               "0 = unlimited (MM-4).", min=0),
        Option("sevens", bool, True, "A 7 makes the next player draw 2; false: it draws nothing (MM-10)."),
        Option("voluntary_draw", bool, False, "Allow drawing while holding a legal play (MM-5)."),
        Option("announcements", bool, True, "Require 'mau' / 'mau mau', 2 penalty cards if missing (MM-7)."),
        Option("target", int, 100, "The match ends when a total reaches this; lowest total wins (MM-9).", min=1),
        Option("max_decisions", int, 2000, "A round ends with no winner after this many decisions (MM-8).",
               min=1),
        Option("max_tiebreaks", int, 5, "Tie-break rounds for the lowest total before the rank is "
               "shared (MM-9).", min=0),
    )
    summary = (
        "Shedding game for 2-6 players with one 52-card deck, 7-10 players with two decks. Deal 5 each "
        "(hand_size) from the dealer's left and turn up one card; the dealer's left plays first.\n"
        "Play one card matching the top card's rank or suit. A Jack goes on anything but a pending 7 "
        "and names a suit. A 7 makes the next player draw 2 and lose the turn, unless they play a 7, "
        "passing on 2 more (2, 4, 6...). An 8 skips the next player. With no legal play draw one "
        "card: play it at once if you can, or keep it.\n"
        "Say \"mau\" with a play that leaves one card and \"mau mau\" with your last card, or draw 2 "
        "penalty cards (a missing \"mau mau\" means the round goes on). The first to go out with "
        "\"mau mau\" wins the round; the others score their cards: A K Q J = 10, 2-10 face value.\n"
        "The match ends when a total reaches the target (100): the lowest total wins; a tie is broken "
        "by extra rounds among the tied players.\n"
        "Variants: skat32 deck, Ace powers (draw1, skip_all), seven_chain limit, sevens off, 7-card "
        "hands, voluntary draw, announcements off."
    )

    def check_config(self, config: dict[str, Any], players: int) -> None:
        """MM-1: the deal (plus the up-card) must fit in the decks used for this many players."""
        decks = decks_for(players)
        cards = DECK_SIZES[config["deck"]] * decks
        needed = players * config["hand_size"] + 1
        if needed > cards:
            raise ConfigError(
                f"maumau: {players} players x {config['hand_size']} cards + 1 up-card need {needed} cards, "
                f"but {decks} {config['deck']} deck{'s' if decks > 1 else ''} hold{'' if decks > 1 else 's'} "
                f"only {cards} (MM-1)"
            )

    def new_state(self, config: dict[str, Any], players: int) -> MauMauState:
        """A new match, waiting for its first round's shuffle."""
        full = {o.name: o.default for o in self.options}
        full.update(config)
        return MauMauState(full, players)

    def old_outcome(self, record: dict[str, Any], request: Shuffle) -> list[str] | None:
        """Reading replays written before chance went through the runner: an old deal record's
        cards in dealing order (MM-1), or an old reshuffle record's new draw pile."""
        if record.get("type") == "chance":
            return record.get("stock") if record.get("kind") == "reshuffle" else None
        hands, up, stock, dealer, active = (record.get(k) for k in ("hands", "up", "stock", "dealer", "active"))
        try:
            n = len(hands)
            order = [s for s in ((dealer + k) % n for k in range(1, n + 1)) if s in active]
            size = len(hands[order[0]])
            return [hands[s][k] for k in range(size) for s in order] + [up] + list(stock)
        except (TypeError, IndexError, ZeroDivisionError):
            return None

    def describer(self) -> MauMauDescriber:
        """The game's words and pictures for the viewers, `play` and the schema (referee_maumau/describe.py)."""
        from referee_maumau.describe import MauMauDescriber  # rich only when something is told, not to play

        return MauMauDescriber()

    def variants(self) -> list[dict[str, Any]]:
        return [
            {},
            {"deck": "skat32"},
            {"ace": "draw1"},
            {"ace": "skip_all"},
            {"seven_chain": 1},
            {"sevens": False},
            {"hand_size": 7},
            {"voluntary_draw": True},
            {"announcements": False},
        ]
