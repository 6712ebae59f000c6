"""`referee ladder`: a contest that goes on as people resubmit (docs/contests.md, "Ladder").

config.py reads the ladder file; state.py keeps everything in SQLite; submissions.py watches the
submissions folder and takes each new version in through intake; schedule.py chooses the next
table; run.py plays duplicate sets and refits the ratings; site.py writes and serves the pages."""
