"""Tournaments: the tournament file (config.py), its seating designs (designs.py), running the
schedule with a crash-safe journal (run.py) on local processes or Dask (executors.py), SPRT
gauntlets (sprt.py), and the standings computed from the journal alone (standings.py, with
ratings.py and head_to_head.py; reporting.py words the finished matches and faults)."""
