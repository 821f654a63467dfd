"""Canonical store backends behind the ``Store`` protocol.

Lazy (PEP 562): the fast paths import ``memgraph.store.rows`` and
``memgraph.store.sqlite_ext`` without paying for the protocol module.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgraph.store.protocol import (
        GraphReader,
        Neighbourhood,
        PeriodQuery,
        SearchHit,
        Store,
        StoreTxn,
    )

_PROTOCOL = ("GraphReader", "Neighbourhood", "PeriodQuery", "SearchHit", "Store", "StoreTxn")


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


def __getattr__(name: str) -> Any:
    if name in _PROTOCOL:
        from memgraph.store import protocol

        return getattr(protocol, name)
    raise AttributeError(f"module 'memgraph.store' has no attribute {name!r}")


__all__ = [
    "GraphReader",
    "Neighbourhood",
    "PeriodQuery",
    "SearchHit",
    "Store",
    "StoreTxn",
    "open_store",
]
