"""Connections for the SQLite index implementations (stdlib only).

An index implementation reads and writes through a ``Conns``: ``read()`` yields
a connection inside one read snapshot, ``write()`` one inside a ``BEGIN
IMMEDIATE`` transaction that commits on exit. ``SQLiteStore`` is one (through
its own reader and transaction, under its lock); ``LightSQLite`` is another,
opened on a path without importing pydantic, for the fast paths
(``memgraph voice``, ``memgraph note``), which must start in 150 ms.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memgraph.errors import StoreBusy, StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Protocol

    class Conns(Protocol):
        def read(self) -> AbstractContextManager[sqlite3.Connection]: ...

        def write(self) -> AbstractContextManager[sqlite3.Connection]: ...


BUSY_DEADLINE = 120.0  # as SQLiteStore


def is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def begin_immediate(conn: sqlite3.Connection, where: object, deadline_s: float) -> None:
    """``BEGIN IMMEDIATE`` with jittered retry until ``deadline_s``, then ``StoreBusy``."""
    import random  # not at import: the read-only fast path never waits for a lock
    import time

    deadline = time.monotonic() + deadline_s
    delay = 0.002
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                from memgraph.store.guard import sqlite_reason

                raise StoreError(f"store {where}: {sqlite_reason(where, exc)}") from None
            if time.monotonic() > deadline:
                raise StoreBusy(
                    f"store {where} stayed locked for {deadline_s:.0f}s; "
                    "another writer holds it, retry later"
                ) from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.1)


def _uri(path: Path) -> str:
    text = str(path.resolve()).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return f"file:{text}?mode=ro"


class LightSQLite:
    """A store file opened without the store class (no migrations, no pydantic).

    Raises ``sqlite3.Error`` when the file cannot be opened; callers in this
    package turn that into ``None`` ("use the full path") or a ``StoreError``.
    """

    def __init__(self, path: Path, *, readonly: bool, timeout: float = 5.0) -> None:
        self.path = path
        if readonly:
            self.conn = sqlite3.connect(_uri(path), uri=True, timeout=timeout, isolation_level=None)
        else:
            self.conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        from memgraph.store.docpack import register

        register(self.conn)  # mg_doc: node fields in SQL (memgraph.store.rowcodec)

    def has_table(self, name: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return row is not None

    def has_migration(self, version: int) -> bool:
        try:
            row = self.conn.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
            ).fetchone()
        except sqlite3.Error:
            return False
        return row is not None

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            self.conn.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        begin_immediate(self.conn, self.path, BUSY_DEADLINE)
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()
