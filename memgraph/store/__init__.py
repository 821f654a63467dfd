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


def open_store(path: str | Path, *, for_reading: bool = False) -> Store:
    """Open (creating and migrating if needed) the store at ``path``: a SQLite file
    by default, ``":memory:"`` the in-memory backend, a ``postgresql://`` URL the
    PostgreSQL backend (``memgraph[postgres]``). ``for_reading=True`` is for
    commands that only read (search, stats, export, context...): a store that
    cannot be written (0444 file, read-only directory or mount) is then opened
    read-only instead of failing. A missing SQLite store is created either way: a
    command with nothing to do on a store that does not exist checks first
    (``memgraph.cli.common.existing_store``; the MCP server's read tools likewise).
    A 0-byte file, a non-SQLite or foreign SQLite file and a store from a newer
    memgraph are refused either way (``memgraph.store.guard``).
    """
    from memgraph.store.postgres import is_store_url

    if is_store_url(path):
        from memgraph.store.postgres import open_postgres

        return open_postgres(str(path))
    if str(path) == ":memory:":
        from memgraph.store.memory import MemoryStore

        return MemoryStore()
    from memgraph.store.sqlite import SQLiteStore

    if for_reading and not _writable(Path(path)):
        return SQLiteStore(path, readonly=True)
    return SQLiteStore(path)


def _writable(path: Path) -> bool:
    import os

    if not path.exists():
        return True  # a missing store: the caller decides whether one is created
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


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
