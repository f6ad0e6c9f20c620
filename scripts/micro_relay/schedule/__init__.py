"""Schedules other than layer by layer: chains of window layers run row by row (rows.py, chains.py)."""
