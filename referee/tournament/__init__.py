"""Tournaments: the tournament file (config.py), its schedule and seating designs (schedule.py,
designs.py), a run as a generator of typed events (driver.py, events.py) driving the matches
(run.py) with a crash-safe journal (journal.py) on local worker processes (workers.py, play.py
plays one match) or Dask (executors.py), SPRT gauntlets (sprt.py), and the standings computed
from the journal alone (standings.py, with ratings.py and head_to_head.py; reporting.py words
the finished matches and faults; outputs.py writes the standings files, index.py the index page)."""
