"""The PostgreSQL store's id (``memgraph.store.identity``): ``store_meta``'s rows.

The seat of a database is the server's system identifier and the database's
oid: the same however its URL is spelled (another host name, user, port
forward), and kept by ``ALTER DATABASE ... RENAME``. A copy (``CREATE DATABASE
... TEMPLATE``, a dump restored into another database or server) has another
seat: its first writer gives it an id of its own, so it never shares the
original's caches or Qdrant collections (a restore that replaces a store is
re-embedded once). Concurrent first writers agree on one id: each inserts its
own only if none is there (``ON CONFLICT DO NOTHING``), then reads the one kept,
under the migration lock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memgraph.store.identity import SEAT, STORE_ID, new_id, valid_id

if TYPE_CHECKING:
    from memgraph.store.postgres.store import PostgresStore


def _meta(conn: Any) -> dict[str, str]:
    rows = conn.execute(
        "SELECT key, value FROM store_meta WHERE key IN (%s, %s)", (STORE_ID, SEAT)
    ).fetchall()
    return {str(k): str(v) for k, v in rows}


def _has_table(conn: Any) -> bool:
    row = conn.execute("SELECT to_regclass('store_meta') IS NOT NULL").fetchone()
    return bool(row and row[0])


def seat(conn: Any) -> str:
    """``<system identifier>:<database oid>`` (autocommit: outside a transaction;
    a role not allowed to read the control data gives ``?`` for the first)."""
    import psycopg

    oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
    found = oid.fetchone()
    try:
        row = conn.execute("SELECT system_identifier FROM pg_control_system()").fetchone()
        system = str(row[0]) if row else "?"
    except psycopg.Error:
        system = "?"
    return f"{system}:{found[0] if found else '?'}"


_STATE = (
    "SELECT (SELECT system_identifier FROM pg_control_system())::text || ':' || d.oid::text,"
    " (SELECT value FROM store_meta WHERE key = %s), (SELECT value FROM store_meta WHERE key = %s)"
    " FROM pg_database d WHERE d.datname = current_database()"
)


def _state(conn: Any) -> tuple[str, dict[str, str]]:
    """(seat, store_meta rows) in one round trip (every open of a writer pays it);
    two when the control data cannot be read."""
    import psycopg

    try:
        row = conn.execute(_STATE, (STORE_ID, SEAT)).fetchone()
    except psycopg.Error:
        return seat(conn), _meta(conn)
    meta = {k: str(v) for k, v in ((STORE_ID, row[1]), (SEAT, row[2])) if v is not None}
    return str(row[0]), meta


def read_pg_id(store: PostgresStore) -> str | None:
    """The id as a read-only store sees it: None without one (an older schema), or
    when the database is a copy its writers have not given an id of its own yet."""
    conn = store.conn
    if not store._retry(lambda: _has_table(conn)):
        return None
    here, meta = store._retry(lambda: _state(conn))
    sid, where = meta.get(STORE_ID), meta.get(SEAT)
    if not valid_id(sid) or (where is not None and where != here):
        return None
    return sid


def settle_pg_id(store: PostgresStore, namespace: int, lock: int) -> str:
    """The id of a store opened for writing (made, or re-made for a copy or a
    malformed row, and seated here); a plain read first, the lock only to settle."""
    conn = store.conn
    here, meta = store._retry(lambda: _state(conn))
    if valid_id(meta.get(STORE_ID)) and meta.get(SEAT) == here:
        return meta[STORE_ID]

    def put(key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO store_meta(key, value) VALUES (%s, %s)"
            " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (key, value),
        )

    def run() -> str:
        with store._lock:
            conn.execute("BEGIN")
            try:
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (namespace, lock))
                conn.execute(
                    "INSERT INTO store_meta(key, value) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                    (STORE_ID, new_id()),
                )
                found = _meta(conn)  # the id kept: ours, or the first writer's
                sid, where = found[STORE_ID], found.get(SEAT)
                if not valid_id(sid) or (where is not None and where != here):
                    sid = new_id()  # a malformed row, or a copy of another database
                    put(STORE_ID, sid)
                if where != here:
                    put(SEAT, here)
                conn.execute("COMMIT")
            except BaseException:
                store._rollback()
                raise
            return sid

    return store._retry(run)
