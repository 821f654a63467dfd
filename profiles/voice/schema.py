"""Voice capture's own tables in the canonical store (schema versions 2-4).

``voice_registry``: one row per processed transcript file, so backfill skips
what it has done and ``memgraph probe`` can count sessions accounted for.
``voice_message_session``: session_id -> message node, maintained in the same
transaction as every node write (``NEW_NODE_ROWS`` for inserts, triggers for
updates and deletes), so re-rendering one
session's page never scans every message in the store. (Trigger bodies use
DELETE + INSERT, not INSERT OR REPLACE: inside a trigger the outer statement's
conflict policy wins, and the node upsert's is ABORT.)
"""

from __future__ import annotations

from memgraph.store.schema import Migration

MIGRATIONS: list[Migration] = [
    Migration(
        2,
        "voice: registry of processed transcripts",
        """
        CREATE TABLE voice_registry (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            session_id TEXT,
            status TEXT NOT NULL,
            reason TEXT,
            message_count INTEGER NOT NULL DEFAULT 0,
            page TEXT,
            processed_at TEXT NOT NULL
        );
        CREATE INDEX voice_registry_processed ON voice_registry(processed_at);
        CREATE INDEX voice_registry_session ON voice_registry(session_id);
        """,
    ),
    Migration(
        3,
        "voice: session -> message node index (trigger-maintained)",
        """
        CREATE TABLE voice_message_session (
            node_rowid INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            ts TEXT
        );
        CREATE INDEX voice_message_session_sid ON voice_message_session(session_id, ts);
        CREATE TRIGGER voice_message_session_ai AFTER INSERT ON nodes
            WHEN new.profile = 'voice' AND new.kind = 'message' BEGIN
            DELETE FROM voice_message_session WHERE node_rowid = new.rowid;
            INSERT INTO voice_message_session(node_rowid, session_id, ts)
                VALUES (new.rowid,
                        COALESCE(json_extract(new.doc, '$.attributes.session_id'), ''),
                        new.valid_from);
        END;
        CREATE TRIGGER voice_message_session_au AFTER UPDATE OF doc ON nodes
            WHEN new.profile = 'voice' AND new.kind = 'message' BEGIN
            DELETE FROM voice_message_session WHERE node_rowid = new.rowid;
            INSERT INTO voice_message_session(node_rowid, session_id, ts)
                VALUES (new.rowid,
                        COALESCE(json_extract(new.doc, '$.attributes.session_id'), ''),
                        new.valid_from);
        END;
        CREATE TRIGGER voice_message_session_ad AFTER DELETE ON nodes
            WHEN old.profile = 'voice' AND old.kind = 'message' BEGIN
            DELETE FROM voice_message_session WHERE node_rowid = old.rowid;
        END;
        INSERT OR REPLACE INTO voice_message_session(node_rowid, session_id, ts)
            SELECT rowid, COALESCE(json_extract(doc, '$.attributes.session_id'), ''), valid_from
            FROM nodes WHERE profile = 'voice' AND kind = 'message';
        """,
    ),
    Migration(
        4,
        "voice: message-session rows for inserted nodes are added set-based by the store",
        "DROP TRIGGER IF EXISTS voice_message_session_ai;",
    ),
]

# Run by every writer of ``nodes`` after inserting rows (memgraph.store.schema):
# ``?`` is the largest node rowid before the insert. The unary ``+`` keeps the
# planner on the rowid range (this patch's rows) instead of the profile index
# (every message ever stored).
NEW_NODE_ROWS: tuple[str, ...] = (
    """INSERT OR REPLACE INTO voice_message_session(node_rowid, session_id, ts)
        SELECT rowid, COALESCE(json_extract(doc, '$.attributes.session_id'), ''), valid_from
        FROM nodes WHERE rowid > ? AND +profile = 'voice' AND +kind = 'message'""",
)
