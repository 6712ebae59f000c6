"""External bots: the subprocess player that speaks protocol v1 to a bot process (player.py),
its resource limits (limits.py), the bubblewrap sandbox (sandbox.py), and a person at the
terminal as a player (human.py). Everything here treats the other side as hostile."""
