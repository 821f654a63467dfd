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
    """Open (creating and migrating if needed) the store at ``path``.

    A SQLite file by default; ``":memory:"`` gives the in-memory backend and a
    ``postgresql://`` URL the PostgreSQL backend (``memgraph[postgres]``).
    """
    from memgraph.store.postgres import is_store_url

    if is_store_url(path):
        from memgraph.store.postgres import open_postgres

        return open_postgres(str(path))
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
