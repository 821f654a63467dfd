"""Opening an SQLite store's connection: read-only, and bringing the schema up to date.

``connect_read_only`` opens a store that is not to be written (``mode=ro``, or
``immutable=1`` where a read-only directory cannot hold the WAL). ``migrate`` applies
the migrations the store has not run (``memgraph.store.schema.all_migrations``),
each script split into statements by ``split_sql``; ``SQLiteStore`` calls it while
it opens the file, through its busy retry.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

from memgraph.documents.enums import utcnow
from memgraph.errors import StoreError
from memgraph.store.schema import Migration, all_migrations
from memgraph.store.sqlite_txn import iso

T = TypeVar("T")


class Retry(Protocol):
    """``SQLiteStore._retry``: run ``fn``, retrying while the store is locked."""

    def __call__(self, fn: Callable[[], T]) -> T: ...


def connect_read_only(path: Path) -> sqlite3.Connection:
    """``mode=ro``; when that cannot work (a read-only directory or file and no
    ``-shm`` to share), ``immutable=1`` -- safe then: nobody can be writing a
    store whose directory cannot hold its WAL."""
    uri = str(path.resolve()).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    conn = sqlite3.connect(
        f"file:{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False, timeout=5.0
    )
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(
                f"store {path} is read-only and has an unmerged WAL; open it once where it "
                "is writable (or copy it with `memgraph backup`)"
            ) from None
    return sqlite3.connect(
        f"file:{uri}?mode=ro&immutable=1",
        uri=True,
        isolation_level=None,
        check_same_thread=False,
        timeout=5.0,
    )


def pending_migrations(conn: sqlite3.Connection) -> list[Migration]:
    """The migrations ``conn``'s store has not run, in order."""
    has_table = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    done: set[int] = set()
    if has_table:
        done = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
    return [m for m in all_migrations() if m.version not in done]


def migrate(conn: sqlite3.Connection, retry: Retry) -> None:
    """Run the pending migrations in one ``BEGIN IMMEDIATE`` transaction."""
    # A plain read first: opening an up-to-date store must not queue for the
    # write lock behind other writers (many agents open the store at once).
    if not retry(lambda: pending_migrations(conn)):
        return

    def run() -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                " description TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            # re-read under the write lock: another process may have migrated
            for m in pending_migrations(conn):
                for statement in split_sql(m.sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                    (m.version, m.description, iso(utcnow())),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    retry(run)


def split_sql(script: str) -> list[str]:
    """Split a migration script into statements, keeping trigger bodies whole."""
    statements: list[str] = []
    buf: list[str] = []
    for line in script.splitlines():
        buf.append(line)
        candidate = "\n".join(buf).strip()
        if candidate and sqlite3.complete_statement(candidate):
            statements.append(candidate)
            buf = []
    rest = "\n".join(buf).strip()
    if rest:
        statements.append(rest)
    return statements
