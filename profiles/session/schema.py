"""Session index tables (versions 10-19): fast reads for notes, wake and the lean CLI path.

Kept in sync with ``nodes`` inside the same transaction as every node write
(inserted rows by ``NEW_NODE_ROWS``, updates and deletes by triggers: DELETE
then INSERT, as an upsert's conflict policy overrides a trigger's ``OR
REPLACE``), so they can never disagree with the graph. They are read paths
only; the canonical note is the node.
"""

from __future__ import annotations

from memgraph.store.schema import Migration

_NOTE_COLUMNS = """
    json_extract(new.doc, '$.attributes.session_id'),
    json_extract(new.doc, '$.attributes.persona'),
    new.valid_from,
    json_extract(new.doc, '$.attributes.harness'),
    new.lifecycle,
    json_extract(new.doc, '$.claim')"""

_SESSION_COLUMNS = """
    json_extract(new.doc, '$.attributes.persona'),
    json_extract(new.doc, '$.attributes.workspace'),
    json_extract(new.doc, '$.attributes.started_at'),
    json_extract(new.doc, '$.attributes.harness'),
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
            VALUES (json_extract(new.doc, '$.attributes.session_id'), new.id, {_SESSION_COLUMNS});
        END;
        CREATE TRIGGER session_sessions_au AFTER UPDATE ON nodes
        WHEN new.profile = 'session' AND new.kind = 'session' BEGIN
            DELETE FROM session_sessions WHERE node_id = new.id;
            INSERT INTO session_sessions(
                session_id, node_id, persona, workspace, started_at, harness, lifecycle)
            VALUES (json_extract(new.doc, '$.attributes.session_id'), new.id, {_SESSION_COLUMNS});
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

# Inserted node rows above ``?`` (memgraph.store.schema.NEW_NODE_ROWS), with the
# triggers' semantics: DELETE then a plain INSERT, so a second session node for
# one session id still fails the patch (session_sessions' primary key). The
# unary ``+`` keeps the planner on the rowid range, off the profile index.
_NEW = "FROM nodes AS n WHERE n.rowid > ? AND +n.profile = 'session' AND +n.kind = '{}'"

NEW_NODE_ROWS: tuple[str, ...] = (
    f"DELETE FROM session_notes WHERE node_id IN (SELECT n.id {_NEW.format('note')})",
    f"""INSERT INTO session_notes(node_id, session_id, persona, ts, harness, lifecycle, text)
        SELECT n.id,
            json_extract(n.doc, '$.attributes.session_id'),
            json_extract(n.doc, '$.attributes.persona'),
            n.valid_from,
            json_extract(n.doc, '$.attributes.harness'),
            n.lifecycle,
            json_extract(n.doc, '$.claim')
        {_NEW.format("note")}""",
    f"DELETE FROM session_sessions WHERE node_id IN (SELECT n.id {_NEW.format('session')})",
    f"""INSERT INTO session_sessions(
            session_id, node_id, persona, workspace, started_at, harness, lifecycle)
        SELECT json_extract(n.doc, '$.attributes.session_id'), n.id,
            json_extract(n.doc, '$.attributes.persona'),
            json_extract(n.doc, '$.attributes.workspace'),
            json_extract(n.doc, '$.attributes.started_at'),
            json_extract(n.doc, '$.attributes.harness'),
            n.lifecycle
        {_NEW.format("session")}""",
)
