"""SQLite ``CaptureAppend``: the voice capture's plain case written without the engine.

``profiles.voice.lean`` builds the rows ``apply_patch`` would store for a capture
whose nodes and edges are all new (``memgraph.store.rows.GraphWrite``); this
module checks, inside ONE write transaction, that they still are (no node or edge
id of the write stored, no voice message of its sessions indexed) and inserts
them with the lean writers' SQL (``session.write_rows``: the same statements as
``memgraph note``'s, decisions.md D9). When anything is already stored it writes
nothing and says so; the caller takes the engine path, which handles every case.

Stdlib only at import: the lean hook opens the store file with ``LightSQLite``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from memgraph.errors import StoreError
from memgraph.store.rows import GraphWrite
from memgraph.store.sqlite_ext.session import write_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import Conns, LightSQLite

_CHUNK = 500  # ids per IN (...): well under SQLite's variable limit


def _any(conn: sqlite3.Connection, sql: str, ids: Sequence[str]) -> bool:
    for i in range(0, len(ids), _CHUNK):
        chunk = ids[i : i + _CHUNK]
        marks = ",".join("?" * len(chunk))
        if conn.execute(sql.format(marks), chunk).fetchone() is not None:
            return True
    return False


def stored_already(conn: sqlite3.Connection, write: GraphWrite, sessions: Sequence[str]) -> bool:
    """Does the store hold any node or edge of ``write``, or a voice message of
    one of ``sessions`` (the voice index's session table)?"""
    return (
        _any(conn, "SELECT 1 FROM nodes WHERE id IN ({}) LIMIT 1", [n.id for n in write.nodes])
        or _any(conn, "SELECT 1 FROM edges WHERE id IN ({}) LIMIT 1", [e.id for e in write.edges])
        or _any(
            conn,
            "SELECT 1 FROM voice_message_session WHERE session_id IN ({}) LIMIT 1",
            list(sessions),
        )
        or conn.execute("SELECT 1 FROM patches WHERE id = ?", (write.patch.id,)).fetchone()
        is not None
    )


def append_in(conn: sqlite3.Connection, write: GraphWrite, sessions: Sequence[str]) -> bool:
    """Inside the caller's write transaction: the rows, or False (nothing written)."""
    if stored_already(conn, write, sessions):
        return False
    write_rows(conn, write.nodes, write.edges, write.receipts, write.patch)
    return True


class SQLiteCaptureAppend:
    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def append_capture(self, write: GraphWrite, sessions: Sequence[str]) -> bool:
        with self.conns.write() as conn:
            return append_in(conn, write, sessions)

    def any_stored(self, node_ids: Sequence[str], sessions: Sequence[str]) -> bool:
        """A read-only look before building a write: is any of these nodes, or a
        voice message of these sessions, stored? (``append_capture`` checks again.)"""
        with self.conns.read() as conn:
            return _any(
                conn, "SELECT 1 FROM nodes WHERE id IN ({}) LIMIT 1", list(node_ids)
            ) or _any(
                conn,
                "SELECT 1 FROM voice_message_session WHERE session_id IN ({}) LIMIT 1",
                list(sessions),
            )


def current_schema(conn: sqlite3.Connection) -> bool:
    """Every migration this memgraph knows is applied, and none it does not know:
    the index statements ``write_rows`` runs are those of this schema."""
    from memgraph.store.guard import unknown_versions
    from memgraph.store.schema import all_migrations

    try:
        have = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")}
    except sqlite3.Error:
        return False
    return {m.version for m in all_migrations()} <= have and not unknown_versions(conn)


def open_light(db_path: Path) -> LightSQLite | None:
    """A ``LightSQLite`` writer on a store file at the current schema, or None
    (no file, not a store, older or newer schema: the full path opens it)."""
    from memgraph.store.sqlite_ext.base import LightSQLite

    if not db_path.is_file():
        return None
    try:
        light = LightSQLite(db_path, readonly=False)
    except sqlite3.Error:
        return None
    try:
        if current_schema(light.conn):
            return light
    except sqlite3.Error:
        pass  # not a store this path can write: the full path opens (or refuses) it
    light.close()
    return None


@contextmanager
def light_writer(db_path: Path) -> Iterator[LightSQLite | None]:
    """``open_light`` for a block: closed after it; an SQLite error inside it is
    one ``StoreError`` line (never a traceback)."""
    light = open_light(db_path)
    if light is None:
        yield None
        return
    try:
        yield light
    except sqlite3.Error as exc:
        raise StoreError(f"store {db_path}: {exc}") from None
    finally:
        light.close()
