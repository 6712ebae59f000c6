#!/usr/bin/env python3
"""Reads everything, never answers anything (not even hello)."""

from _botlib import messages

for message in messages():
    pass
