"""Waking up: the SessionStart hook, active sessions, and standing context material.

Every module here is stdlib-only except ``standing`` consumers in ``context_cut``:
the hook runs at every session start inside a 300 ms budget.
"""
