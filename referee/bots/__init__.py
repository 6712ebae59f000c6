"""External bots, every one treated as hostile: `player.py` (SubprocessPlayer, protocol v1's
state machine) talks through `channel.py` (lines with deadlines and bounded buffers) to a
process from `process.py` (command line, stderr log, exit status, the kill), whose every
descendant `family.py` finds and kills; `messages.py` is the wire format, `pool.py` keeps
processes between matches, `mock.py` runs the protocol logic over an in-memory channel for
tests. Also: resource limits (`limits.py`), the bubblewrap sandbox (`sandbox.py`), and a person
at the terminal as a player (`human.py`)."""
