"""The voice index's tables (schema versions 3-8) and the SQL that keeps them.

``voice_message_session`` (3-4): session_id -> message node row. ``voice_index``
(5-6, 8): one row per live voice message node, keyed by ``nodes.rowid`` (1:1 with
``node_fts``). ``voice_tri`` (7, ``voice_substring.py``): trigrams. All maintained in
the transaction of every node write (``NEW_NODE_ROWS`` for inserted rows, triggers for
updates and deletes). The search over them is ``voice_index.py``.

Stdlib only at import: ``memgraph voice`` runs this module without pydantic.
"""

from __future__ import annotations

from memgraph.store.schema import Migration
from memgraph.store.sqlite_ext import voice_substring as substring


# Node documents are packed since migration 105 (memgraph.store.docpack): SQL
# reads their fields through mg_doc(doc), which passes the text of an older row
# through -- so the earlier migrations read through it too (same effect on the
# stores they were written for, and still right when one re-runs on a packed store).
def _doc(src: str) -> str:
    return f"mg_doc({src}.doc)"


def _text(path: str, src: str) -> str:
    # Attributes are free JSON; a non-string value must not poison the index.
    doc = _doc(src)
    return (
        f"CASE WHEN json_type({doc}, '$.attributes.{path}') = 'text' "
        f"THEN json_extract({doc}, '$.attributes.{path}') END"
    )


def columns(src: str) -> str:
    """The index row for node alias ``src`` (``new`` in triggers, ``n`` in reindex)."""
    doc = _doc(src)
    return f"""{src}.rowid, {src}.id,
        coalesce({_text("session_id", src)}, ''),
        coalesce({_text("constellation", src)}, ''),
        coalesce({_text("project", src)}, ''),
        coalesce({src}.valid_from, ''),
        coalesce(julianday({src}.valid_from), 0.0),
        {src}.ingested_at,
        {_text("classification", src)},
        CASE WHEN json_type({doc}, '$.attributes.confidence') IN ('real', 'integer')
             THEN json_extract({doc}, '$.attributes.confidence') END,
        {_text("voice_page", src)},
        {src}.lifecycle"""


INSERT_ROW = """INSERT OR REPLACE INTO voice_index(rowid, node_id, session_id, constellation,
    project, ts, day, ingested_at, classification, confidence, voice_page, lifecycle)"""

# Retired messages are withdrawn: they leave the index (smaller, and no filter on
# every query or stats scan).
IS_MESSAGE = "{0}.profile = 'voice' AND {0}.kind = 'message' AND {0}.lifecycle != 'retired'"

MIGRATIONS: list[Migration] = [
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
                        COALESCE(json_extract(mg_doc(new.doc), '$.attributes.session_id'), ''),
                        new.valid_from);
        END;
        CREATE TRIGGER voice_message_session_au AFTER UPDATE OF doc ON nodes
            WHEN new.profile = 'voice' AND new.kind = 'message' BEGIN
            DELETE FROM voice_message_session WHERE node_rowid = new.rowid;
            INSERT INTO voice_message_session(node_rowid, session_id, ts)
                VALUES (new.rowid,
                        COALESCE(json_extract(mg_doc(new.doc), '$.attributes.session_id'), ''),
                        new.valid_from);
        END;
        CREATE TRIGGER voice_message_session_ad AFTER DELETE ON nodes
            WHEN old.profile = 'voice' AND old.kind = 'message' BEGIN
            DELETE FROM voice_message_session WHERE node_rowid = old.rowid;
        END;
        INSERT OR REPLACE INTO voice_message_session(node_rowid, session_id, ts)
            SELECT rowid, COALESCE(json_extract(mg_doc(doc), '$.attributes.session_id'), ''),
                valid_from
            FROM nodes WHERE profile = 'voice' AND kind = 'message';
        """,
    ),
    Migration(
        4,
        "voice: message-session rows for inserted nodes are added set-based by the store",
        "DROP TRIGGER IF EXISTS voice_message_session_ai;",
    ),
    Migration(
        5,
        "voice_index: voice message side table (filters, ranking) kept by triggers on nodes",
        f"""
        CREATE TABLE voice_index (
            rowid INTEGER PRIMARY KEY,
            node_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            constellation TEXT NOT NULL,
            project TEXT NOT NULL,
            ts TEXT NOT NULL,
            day REAL NOT NULL,
            ingested_at TEXT,
            classification TEXT,
            confidence REAL,
            voice_page TEXT,
            lifecycle TEXT NOT NULL
        );
        CREATE INDEX voice_index_ts ON voice_index(ts);
        CREATE INDEX voice_index_session ON voice_index(session_id, ts);
        CREATE INDEX voice_index_project ON voice_index(project, ts);
        CREATE INDEX voice_index_constellation ON voice_index(constellation, ts);
        CREATE INDEX voice_index_class ON voice_index(classification);
        CREATE INDEX voice_index_page ON voice_index(voice_page);
        CREATE TRIGGER voice_index_ai AFTER INSERT ON nodes
            WHEN {IS_MESSAGE.format("new")} BEGIN
            {INSERT_ROW} SELECT {columns("new")};
        END;
        CREATE TRIGGER voice_index_au AFTER UPDATE ON nodes BEGIN
            DELETE FROM voice_index WHERE rowid = old.rowid;
            {INSERT_ROW} SELECT {columns("new")} WHERE {IS_MESSAGE.format("new")};
        END;
        CREATE TRIGGER voice_index_ad AFTER DELETE ON nodes BEGIN
            DELETE FROM voice_index WHERE rowid = old.rowid;
        END;
        {INSERT_ROW} SELECT {columns("n")} FROM nodes AS n WHERE {IS_MESSAGE.format("n")};
        """,
    ),
    Migration(
        6,
        "voice_index rows for inserted nodes are added set-based by the store",
        "DROP TRIGGER IF EXISTS voice_index_ai;",
    ),
    Migration(
        7,
        "voice_tri: trigram index of voice message text (substring and CJK search)",
        substring.MIGRATION_SQL,
    ),
    Migration(
        8,
        "voice_index: forgotten tombstones by session (stats leave them out)",
        "CREATE INDEX IF NOT EXISTS voice_index_forgotten ON voice_index(session_id)"
        " WHERE lifecycle = 'forgotten';",
    ),
]

# Part of core migration 105 (node documents packed; the voice range 2-9 is
# full): the AFTER UPDATE triggers read the document through mg_doc.
PACKED_DOC_TRIGGERS = f"""
DROP TRIGGER IF EXISTS voice_message_session_au;
CREATE TRIGGER voice_message_session_au AFTER UPDATE OF doc ON nodes
    WHEN new.profile = 'voice' AND new.kind = 'message' BEGIN
    DELETE FROM voice_message_session WHERE node_rowid = new.rowid;
    INSERT INTO voice_message_session(node_rowid, session_id, ts)
        VALUES (new.rowid,
                COALESCE(json_extract(mg_doc(new.doc), '$.attributes.session_id'), ''),
                new.valid_from);
END;
DROP TRIGGER IF EXISTS voice_index_au;
CREATE TRIGGER voice_index_au AFTER UPDATE ON nodes BEGIN
    DELETE FROM voice_index WHERE rowid = old.rowid;
    {INSERT_ROW} SELECT {columns("new")} WHERE {IS_MESSAGE.format("new")};
END;
"""

# Run by every writer of ``nodes`` after inserting rows (memgraph.store.schema):
# ``?`` is the largest node rowid before the insert. The unary ``+`` keeps the
# planner on the rowid range (this patch's rows) instead of the profile index
# (every message ever stored).
NEW_NODE_ROWS: tuple[str, ...] = (
    """INSERT OR REPLACE INTO voice_message_session(node_rowid, session_id, ts)
        SELECT rowid, COALESCE(json_extract(mg_doc(doc), '$.attributes.session_id'), ''),
            valid_from
        FROM nodes WHERE rowid > ? AND +profile = 'voice' AND +kind = 'message'""",
    f"""{INSERT_ROW} SELECT {columns("n")} FROM nodes AS n WHERE n.rowid > ?
        AND +n.profile = 'voice' AND +n.kind = 'message' AND n.lifecycle != 'retired'""",
    substring.NEW_NODE_ROW,
)


__all__ = [
    "INSERT_ROW",
    "IS_MESSAGE",
    "MIGRATIONS",
    "NEW_NODE_ROWS",
    "PACKED_DOC_TRIGGERS",
    "columns",
]
