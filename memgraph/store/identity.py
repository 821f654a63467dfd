"""The store's id: a random uuid made once per store and kept in its own tables.

``store_meta`` (schema version 106, SQLite and PostgreSQL alike) holds two rows:
``store_id``, the id, and ``seat``, where the store sat when a writer last
opened it (a file's real path; a PostgreSQL database's server and oid,
``memgraph.store.postgres.store_id``). The per-store caches of a home are keyed
by the id (``memgraph.home_dirs``), so a store moved to another path, or a URL
spelled another way, keeps them.

A copied store file holds the same id as its original. When a writer opens a file
whose seat is another path, that path is looked at: still the same id there, the
file is a copy and takes a new id (its caches start empty, the original's stay
its own: two stores never share a cache folder or a Qdrant collection); not
there (gone, another store, unreadable), the store was moved and keeps its id.
A hard link (or another name of the same file) is the same store, never a copy.

Readers that cannot write (a read-only store, or one opened read-only) never
make or change an id: a store without one yet (older schema), or one that sits
beside its original as a copy, is keyed by its location as before
(``store_id`` is None). An id that is not a canonical uuid (a hand-edited or
hostile row) counts as none; a writer replaces it.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memgraph.store.sqlite_open import Retry

STORE_ID = "store_id"
SEAT = "seat"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def valid_id(value: object) -> bool:
    """A canonical (lower-case, hyphenated) uuid: safe as a folder name and a tag."""
    return isinstance(value, str) and _UUID.match(value) is not None


def new_id() -> str:
    import uuid  # only when one is made

    return str(uuid.uuid4())


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    """The ``store_meta`` rows ({} on a store from before version 106)."""
    try:
        rows = conn.execute(
            "SELECT key, value FROM store_meta WHERE key IN (?, ?)", (STORE_ID, SEAT)
        ).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return {}
        raise
    return {str(k): str(v) for k, v in rows}


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _id_at(path: str) -> str | None:
    """The id of the store file at ``path`` (None: nothing there, not a store,
    unreadable). Read-only; ``guard.check_file`` first, so a FIFO or device at
    that path is never opened."""
    from memgraph.errors import StoreError
    from memgraph.store import guard
    from memgraph.store.sqlite_open import connect_read_only

    try:
        if not guard.check_file(Path(path)):
            return None
        conn = connect_read_only(Path(path))
    except (StoreError, OSError, sqlite3.Error, ValueError):
        return None
    try:
        return _meta(conn).get(STORE_ID)
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def _here(path: Path) -> str:
    return os.path.realpath(path)


def _settled(meta: dict[str, str], here: str) -> str | None:
    """The id, when nothing is to settle: valid, and seated here (or at another
    name of this same file)."""
    sid, seat = meta.get(STORE_ID), meta.get(SEAT)
    if valid_id(sid) and seat is not None and (seat == here or _same_file(seat, here)):
        return sid
    return None


def read_sqlite_id(conn: sqlite3.Connection, path: Path) -> str | None:
    """The id as a reader that cannot write sees it (see the module docstring)."""
    meta = _meta(conn)
    sid, seat = meta.get(STORE_ID), meta.get(SEAT)
    if not valid_id(sid):
        return None
    here = _here(path)
    if seat is None or seat == here or _same_file(seat, here):
        return sid
    return None if _id_at(seat) == sid else sid  # beside its original: a copy


def settle_sqlite_id(conn: sqlite3.Connection, path: Path, retry: Retry) -> str:
    """The id of a store opened for writing: made if it has none (or a malformed
    one), re-made if the file is a copy, its seat moved here if it was moved.
    A plain read first; the write lock only when something is to settle."""
    here = _here(path)
    found = retry(lambda: _settled(_meta(conn), here))
    if found is not None:
        return found

    def settle() -> str:
        conn.execute("BEGIN IMMEDIATE")
        try:
            sid = _settle(_meta(conn), here, _id_at, _put(conn))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return sid

    return retry(settle)


def _put(conn: sqlite3.Connection) -> Callable[[str, str], None]:
    def put(key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES (?, ?)", (key, value))

    return put


def _settle(
    meta: dict[str, str],
    here: str,
    id_at: Callable[[str], str | None],
    put: Callable[[str, str], None],
) -> str:
    """Under the write lock (re-read): what ``settle_sqlite_id`` decides."""
    sid, seat = meta.get(STORE_ID), meta.get(SEAT)
    if valid_id(sid) and seat is not None and (seat == here or _same_file(seat, here)):
        return str(sid)  # another writer settled it meanwhile
    if not valid_id(sid) or (seat is not None and id_at(seat) == sid):
        sid = new_id()  # none yet, a malformed one, or a copy beside its original
        put(STORE_ID, sid)
    put(SEAT, here)
    return str(sid)


__all__ = [
    "SEAT",
    "STORE_ID",
    "new_id",
    "read_sqlite_id",
    "settle_sqlite_id",
    "valid_id",
]
