"""Canonical store backends behind the ``Store`` protocol."""

from __future__ import annotations

from pathlib import Path

from memgraph.store.protocol import (
    GraphReader,
    Neighbourhood,
    PeriodQuery,
    SearchHit,
    Store,
    StoreTxn,
)


def open_store(path: str | Path) -> Store:
    """Open (creating and migrating if needed) the SQLite store at ``path``.

    ``":memory:"`` gives the in-memory backend.
    """
    if str(path) == ":memory:":
        from memgraph.store.memory import MemoryStore

        return MemoryStore()
    from memgraph.store.sqlite import SQLiteStore

    return SQLiteStore(path)


__all__ = [
    "GraphReader",
    "Neighbourhood",
    "PeriodQuery",
    "SearchHit",
    "Store",
    "StoreTxn",
    "open_store",
]
