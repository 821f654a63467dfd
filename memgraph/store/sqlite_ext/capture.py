"""The store file's lean opener for the voice capture (``hook session-end``).

``CaptureAppend`` for SQLite (``SQLiteCaptureAppend``, re-exported here) lives in
``memgraph.store.sqlite_ext.session`` beside the lean writers' shared SQL: in ONE
write transaction it checks that nothing of a ``GraphWrite`` (built by
``profiles.voice.lean``) or of its sessions is stored, then inserts it with
``session.write_rows`` (``memgraph note``'s statements, decisions.md D9); when
anything is stored it writes nothing and the caller takes the engine path. This
module opens a store file for it without the store class (``LightSQLite``, no
migrations, no pydantic), only when the file's schema is exactly this memgraph's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memgraph.errors import StoreError
from memgraph.store.sqlite_ext.session import (  # re-exported: the hook's writer
    SQLiteCaptureAppend as SQLiteCaptureAppend,
)
from memgraph.store.sqlite_ext.session import capture_in as capture_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import LightSQLite


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
        from memgraph.store.guard import sqlite_reason

        raise StoreError(f"store {db_path}: {sqlite_reason(db_path, exc)}") from None
    finally:
        light.close()
