"""Replays: the record file format and its writer (records.py), re-judging a replay with the
rules (verify.py), and its two views: the terminal (terminal.py) and the HTML viewer
(html.py, viewer.html). The views know no game: they word everything through its describer."""
