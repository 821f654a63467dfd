"""SQLite session index (schema versions 10-19): ``SessionIndex``, ``NoteAppend``, and the
lean writers' shared SQL (``write_rows``; ``CaptureAppend`` for the voice capture's plain case).

``session_notes`` and ``session_sessions`` are kept in sync with ``nodes``
inside the same transaction as every node write (inserted rows by
``NEW_NODE_ROWS``, updates and deletes by triggers: DELETE then INSERT, as an
upsert's conflict policy overrides a trigger's ``OR REPLACE``), so they can
never disagree with the graph. They are read paths only; the canonical note is
the node. ``SQLiteNoteAppend`` is the lean ``memgraph note`` writer's SQL
(``profiles.session.lean`` builds the rows; decisions.md D9).

Stdlib only at import: ``memgraph note`` runs this module without pydantic.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from memgraph.errors import StoreError
from memgraph.store import rowcodec
from memgraph.store.rows import (
    EdgeRow,
    GraphWrite,
    NodeRow,
    NoteIndexRow,
    NoteWrite,
    PatchRow,
    ReceiptRow,
    SessionRow,
)
from memgraph.store.schema import Migration, index_new_node_rows, max_node_rowid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import Conns

# Node documents are packed since migration 105 (memgraph.store.docpack): SQL reads
# their fields through mg_doc(doc), which passes an older row's text through (so
# migration 10 reads through it too: same effect, and right on a packed store).
_NOTE_COLUMNS = """
    json_extract(mg_doc(new.doc), '$.attributes.session_id'),
    json_extract(mg_doc(new.doc), '$.attributes.persona'),
    new.valid_from,
    json_extract(mg_doc(new.doc), '$.attributes.harness'),
    new.lifecycle,
    json_extract(mg_doc(new.doc), '$.claim')"""

_SESSION_COLUMNS = """
    json_extract(mg_doc(new.doc), '$.attributes.persona'),
    json_extract(mg_doc(new.doc), '$.attributes.workspace'),
    json_extract(mg_doc(new.doc), '$.attributes.started_at'),
    json_extract(mg_doc(new.doc), '$.attributes.harness'),
    new.lifecycle"""

MIGRATIONS: list[Migration] = [
    Migration(
        10,
        "session: note and session index tables kept by triggers on nodes",
        f"""
        CREATE TABLE session_notes (
            node_id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            persona TEXT NOT NULL,
            ts TEXT NOT NULL,
            harness TEXT NOT NULL,
            lifecycle TEXT NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX session_notes_session ON session_notes(session_id, ts, node_id);
        CREATE INDEX session_notes_persona ON session_notes(persona, ts, node_id);

        CREATE TABLE session_sessions (
            session_id TEXT PRIMARY KEY,
            node_id TEXT NOT NULL UNIQUE,
            persona TEXT NOT NULL,
            workspace TEXT NOT NULL,
            started_at TEXT NOT NULL,
            harness TEXT NOT NULL,
            lifecycle TEXT NOT NULL
        );

        CREATE TRIGGER session_notes_ai AFTER INSERT ON nodes
        WHEN new.profile = 'session' AND new.kind = 'note' BEGIN
            DELETE FROM session_notes WHERE node_id = new.id;
            INSERT INTO session_notes(
                node_id, session_id, persona, ts, harness, lifecycle, text)
            VALUES (new.id, {_NOTE_COLUMNS});
        END;
        CREATE TRIGGER session_notes_au AFTER UPDATE ON nodes
        WHEN new.profile = 'session' AND new.kind = 'note' BEGIN
            DELETE FROM session_notes WHERE node_id = new.id;
            INSERT INTO session_notes(
                node_id, session_id, persona, ts, harness, lifecycle, text)
            VALUES (new.id, {_NOTE_COLUMNS});
        END;
        CREATE TRIGGER session_notes_ad AFTER DELETE ON nodes
        WHEN old.profile = 'session' BEGIN
            DELETE FROM session_notes WHERE node_id = old.id;
            DELETE FROM session_sessions WHERE node_id = old.id;
        END;
        CREATE TRIGGER session_sessions_ai AFTER INSERT ON nodes
        WHEN new.profile = 'session' AND new.kind = 'session' BEGIN
            DELETE FROM session_sessions WHERE node_id = new.id;
            INSERT INTO session_sessions(
                session_id, node_id, persona, workspace, started_at, harness, lifecycle)
            VALUES (json_extract(mg_doc(new.doc), '$.attributes.session_id'), new.id,
                {_SESSION_COLUMNS});
        END;
        CREATE TRIGGER session_sessions_au AFTER UPDATE ON nodes
        WHEN new.profile = 'session' AND new.kind = 'session' BEGIN
            DELETE FROM session_sessions WHERE node_id = new.id;
            INSERT INTO session_sessions(
                session_id, node_id, persona, workspace, started_at, harness, lifecycle)
            VALUES (json_extract(mg_doc(new.doc), '$.attributes.session_id'), new.id,
                {_SESSION_COLUMNS});
        END;
        """,
    ),
]

MIGRATIONS.append(
    Migration(
        11,
        "session: index rows for inserted nodes are added set-based by the store",
        """
        DROP TRIGGER IF EXISTS session_notes_ai;
        DROP TRIGGER IF EXISTS session_sessions_ai;
        """,
    )
)

# Part of core migration 105 (node documents packed): the AFTER UPDATE triggers
# read the document through mg_doc (memgraph.store.docpack).
PACKED_DOC_TRIGGERS = f"""
DROP TRIGGER IF EXISTS session_notes_au;
CREATE TRIGGER session_notes_au AFTER UPDATE ON nodes
WHEN new.profile = 'session' AND new.kind = 'note' BEGIN
    DELETE FROM session_notes WHERE node_id = new.id;
    INSERT INTO session_notes(
        node_id, session_id, persona, ts, harness, lifecycle, text)
    VALUES (new.id, {_NOTE_COLUMNS});
END;
DROP TRIGGER IF EXISTS session_sessions_au;
CREATE TRIGGER session_sessions_au AFTER UPDATE ON nodes
WHEN new.profile = 'session' AND new.kind = 'session' BEGIN
    DELETE FROM session_sessions WHERE node_id = new.id;
    INSERT INTO session_sessions(
        session_id, node_id, persona, workspace, started_at, harness, lifecycle)
    VALUES (json_extract(mg_doc(new.doc), '$.attributes.session_id'), new.id, {_SESSION_COLUMNS});
END;
"""

# Inserted node rows above ``?`` (memgraph.store.schema.NEW_NODE_ROWS), with the
# triggers' semantics: DELETE then a plain INSERT, so a second session node for
# one session id still fails the patch (session_sessions' primary key). The
# unary ``+`` keeps the planner on the rowid range, off the profile index.
_NEW = "FROM nodes AS n WHERE n.rowid > ? AND +n.profile = 'session' AND +n.kind = '{}'"

NEW_NODE_ROWS: tuple[str, ...] = (
    f"DELETE FROM session_notes WHERE node_id IN (SELECT n.id {_NEW.format('note')})",
    f"""INSERT INTO session_notes(node_id, session_id, persona, ts, harness, lifecycle, text)
        SELECT n.id,
            json_extract(mg_doc(n.doc), '$.attributes.session_id'),
            json_extract(mg_doc(n.doc), '$.attributes.persona'),
            n.valid_from,
            json_extract(mg_doc(n.doc), '$.attributes.harness'),
            n.lifecycle,
            json_extract(mg_doc(n.doc), '$.claim')
        {_NEW.format("note")}""",
    f"DELETE FROM session_sessions WHERE node_id IN (SELECT n.id {_NEW.format('session')})",
    f"""INSERT INTO session_sessions(
            session_id, node_id, persona, workspace, started_at, harness, lifecycle)
        SELECT json_extract(mg_doc(n.doc), '$.attributes.session_id'), n.id,
            json_extract(mg_doc(n.doc), '$.attributes.persona'),
            json_extract(mg_doc(n.doc), '$.attributes.workspace'),
            json_extract(mg_doc(n.doc), '$.attributes.started_at'),
            json_extract(mg_doc(n.doc), '$.attributes.harness'),
            n.lifecycle
        {_NEW.format("session")}""",
)


_SESSION = "session_id, node_id, persona, workspace, started_at, harness, lifecycle"


def _session(conn: sqlite3.Connection, session_id: str) -> SessionRow | None:
    row = conn.execute(
        f"SELECT {_SESSION} FROM session_sessions WHERE session_id = ?", (session_id,)
    ).fetchone()
    return None if row is None else SessionRow(*(str(v) for v in row))


def _notes(conn: sqlite3.Connection, session_id: str) -> list[NoteIndexRow]:
    rows = conn.execute(
        "SELECT ts, text, harness, node_id FROM session_notes "
        "WHERE session_id = ? AND lifecycle = 'active' ORDER BY ts, node_id",
        (session_id,),
    ).fetchall()
    return [NoteIndexRow(ts=r[0], text=r[1], harness=r[2], node_id=r[3]) for r in rows]


class SQLiteSessionIndex:
    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def session(self, session_id: str) -> SessionRow | None:
        with self.conns.read() as conn:
            return _session(conn, session_id)

    def view(self, session_id: str) -> tuple[SessionRow | None, list[NoteIndexRow]]:
        with self.conns.read() as conn:  # one read snapshot: header and notes agree
            return _session(conn, session_id), _notes(conn, session_id)


def write_note(conn: sqlite3.Connection, w: NoteWrite) -> None:
    """Insert one lean note's rows (inside the caller's write transaction)."""
    write_rows(conn, (w.node,), (w.edge,), w.receipts, w.patch)


def write_rows(
    conn: sqlite3.Connection,
    nodes: Sequence[NodeRow],
    edges: Sequence[EdgeRow],
    receipts: Sequence[ReceiptRow],
    patch: PatchRow,
) -> None:
    """Insert the rows of the lean writers (``memgraph note``, the voice capture's
    plain case) inside the caller's write transaction: new nodes (indexed as
    ``SQLiteTxn.put_nodes`` indexes them), edges, receipts and the patch, encoded by
    ``memgraph.store.rowcodec`` like the engine's (tests/profiles/session/test_lean.py
    and tests/profiles/voice/test_lean_capture.py compare the rows with the engine's)."""
    last = max_node_rowid(conn)
    conn.executemany(rowcodec.INSERT_NODE, map(rowcodec.node_row_values, nodes))
    # the node FTS and every index table, as SQLiteTxn.put_nodes does
    index_new_node_rows(conn, last)
    conn.executemany(rowcodec.UPSERT_EDGE, map(rowcodec.edge_row_values, edges))
    conn.executemany(rowcodec.INSERT_RECEIPT, map(rowcodec.receipt_row_values, receipts))
    conn.execute(rowcodec.UPSERT_PATCH, rowcodec.patch_row_values(patch))


def append_in(
    conn: sqlite3.Connection, session_id: str, build: Callable[[SessionRow], NoteWrite | None]
) -> NoteWrite | None:
    row = _session(conn, session_id)
    if row is None:
        return None
    w = build(row)
    if w is None:
        return None
    if conn.execute("SELECT 1 FROM nodes WHERE id = ?", (w.node.id,)).fetchone():
        return None  # a re-applied note: the engine decides (no-op or revision)
    write_note(conn, w)
    return w


class SQLiteNoteAppend:
    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def append_note(
        self, session_id: str, build: Callable[[SessionRow], NoteWrite | None]
    ) -> NoteWrite | None:
        with self.conns.write() as conn:
            return append_in(conn, session_id, build)


# Migration 11 made the store's set-based statements (run after the insert) the
# way inserted nodes reach the index tables, and 105 packed node documents (the
# rows rowcodec writes need its triggers); a store without it is migrated by the
# full path first (SQLiteStore applies every pending migration).
READY_VERSION = 105


def append_note_at(
    db_path: Path, session_id: str, build: Callable[[SessionRow], NoteWrite | None]
) -> NoteWrite | None:
    """``NoteAppend.append_note`` on a store file, without opening the store class.

    None (use the full path) when there is no store file or it lacks the
    current session index; errors of the file itself are one ``StoreError`` line.
    """
    from memgraph.store.sqlite_ext.base import LightSQLite

    if not db_path.is_file():
        return None
    try:
        light = LightSQLite(db_path, readonly=False)
    except sqlite3.Error:
        return None
    try:
        if not light.has_migration(READY_VERSION):
            return None
        from memgraph.store.guard import unknown_versions

        with light.read() as conn:
            if unknown_versions(conn):
                return None  # a store from a newer memgraph: the full path refuses it
        return SQLiteNoteAppend(light).append_note(session_id, build)
    except sqlite3.Error as exc:
        from memgraph.store.guard import sqlite_reason

        raise StoreError(f"store {db_path}: {sqlite_reason(db_path, exc)}") from None
    finally:
        light.close()


def session_view_at(db_path: Path, session_id: str) -> tuple[SessionRow | None, list[NoteIndexRow]]:
    """``SessionIndex.view`` on a store file opened read-only (the fast note path)."""
    from memgraph.store.sqlite_ext.base import LightSQLite

    try:
        light = LightSQLite(db_path, readonly=True, timeout=30.0)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read store {db_path}: {exc}") from None
    try:
        return SQLiteSessionIndex(light).view(session_id)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read store {db_path}: {exc}") from None
    finally:
        light.close()


# -- the voice capture's plain case (CaptureAppend) ----------------------------

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


def capture_in(conn: sqlite3.Connection, write: GraphWrite, sessions: Sequence[str]) -> bool:
    """Inside the caller's write transaction: the rows, or False (nothing written)."""
    if stored_already(conn, write, sessions):
        return False
    write_rows(conn, write.nodes, write.edges, write.receipts, write.patch)
    return True


class SQLiteCaptureAppend:
    """``CaptureAppend``: the voice capture's plain case (``profiles.voice.lean``).
    Here, beside ``write_rows``, so opening a store imports no further module; the
    store file's lean opener for the hook is ``memgraph.store.sqlite_ext.capture``."""

    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def append_capture(self, write: GraphWrite, sessions: Sequence[str]) -> bool:
        with self.conns.write() as conn:
            return capture_in(conn, write, sessions)

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
