"""SQLite schema as an ordered list of recorded migrations.

Each migration runs once, inside the transaction that records it in
``schema_migrations``; later issues append migrations, never edit old ones.
"""

from __future__ import annotations

import functools
import sqlite3
from types import ModuleType

from memgraph.store.rows import record


@record(frozen=True)
class Migration:
    version: int
    description: str
    sql: str


MIGRATIONS: list[Migration] = [
    Migration(
        1,
        "graph tables, append-only receipts, FTS5 over node text",
        """
        CREATE TABLE domains (id TEXT PRIMARY KEY, doc TEXT NOT NULL);

        CREATE TABLE nodes (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            profile TEXT NOT NULL,
            kind TEXT NOT NULL,
            domain_id TEXT NOT NULL,
            lifecycle TEXT NOT NULL,
            valid_from TEXT,
            valid_to TEXT,
            ingested_at TEXT,
            updated_at TEXT NOT NULL,
            title TEXT NOT NULL,
            body TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE INDEX nodes_profile_kind ON nodes(profile, kind, valid_from);
        CREATE INDEX nodes_domain ON nodes(domain_id, profile, lifecycle);

        CREATE TABLE node_history (
            seq INTEGER PRIMARY KEY,
            node_id TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE INDEX node_history_node ON node_history(node_id);

        CREATE TABLE edges (
            id TEXT PRIMARY KEY,
            source_id TEXT NOT NULL,
            target_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            profile TEXT NOT NULL,
            lifecycle TEXT NOT NULL,
            doc TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX edges_source ON edges(source_id, target_id);
        CREATE INDEX edges_target ON edges(target_id, source_id);

        CREATE TABLE summaries (
            id TEXT PRIMARY KEY,
            domain_id TEXT NOT NULL,
            freshness TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE TABLE summary_covers (
            covered_id TEXT NOT NULL,
            summary_id TEXT NOT NULL,
            PRIMARY KEY (covered_id, summary_id)
        ) WITHOUT ROWID;

        CREATE TABLE receipts (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            patch_id TEXT NOT NULL,
            op TEXT NOT NULL,
            target_id TEXT NOT NULL,
            at TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE INDEX receipts_target ON receipts(target_id, op);
        CREATE INDEX receipts_patch ON receipts(patch_id);
        CREATE TRIGGER receipts_no_update BEFORE UPDATE ON receipts
            BEGIN SELECT RAISE(ABORT, 'receipts are append-only'); END;
        CREATE TRIGGER receipts_no_delete BEFORE DELETE ON receipts
            BEGIN SELECT RAISE(ABORT, 'receipts are append-only'); END;

        CREATE TABLE patches (
            id TEXT PRIMARY KEY,
            status TEXT NOT NULL,
            created_at TEXT NOT NULL,
            doc TEXT NOT NULL
        );

        CREATE TABLE embeddings (
            node_id TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            dimension INTEGER NOT NULL,
            source_hash TEXT NOT NULL,
            doc TEXT NOT NULL
        );

        CREATE VIRTUAL TABLE node_fts USING fts5(
            title, body, content='nodes', content_rowid='rowid',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER nodes_fts_ai AFTER INSERT ON nodes BEGIN
            INSERT INTO node_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
        END;
        CREATE TRIGGER nodes_fts_ad AFTER DELETE ON nodes BEGIN
            INSERT INTO node_fts(node_fts, rowid, title, body)
                VALUES ('delete', old.rowid, old.title, old.body);
        END;
        CREATE TRIGGER nodes_fts_au AFTER UPDATE OF title, body ON nodes BEGIN
            INSERT INTO node_fts(node_fts, rowid, title, body)
                VALUES ('delete', old.rowid, old.title, old.body);
            INSERT INTO node_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
        END;
        """,
    ),
]

# Core migrations after 1 use versions 100+ (2-49 are reserved for extensions).
MIGRATIONS.append(
    Migration(
        100,
        "node FTS rows for inserted nodes are added set-based by the store, not per-row trigger",
        # A per-row trigger costs ~3x a set-based INSERT ... SELECT on bulk ingests.
        # SQLiteTxn.put_nodes indexes new rows in the same transaction; updates
        # still go through nodes_fts_au.
        "DROP TRIGGER IF EXISTS nodes_fts_ai;",
    )
)
MIGRATIONS.append(
    Migration(
        101,
        "edge_history and summary_history: replaced versions are kept, like node_history",
        """
        CREATE TABLE edge_history (
            seq INTEGER PRIMARY KEY,
            edge_id TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE INDEX edge_history_edge ON edge_history(edge_id);
        CREATE TABLE summary_history (
            seq INTEGER PRIMARY KEY,
            summary_id TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE INDEX summary_history_summary ON summary_history(summary_id);
        """,
    )
)

MIGRATIONS.append(
    Migration(
        102,
        "edges become a rowid table with a unique id index (was WITHOUT ROWID)",
        # WITHOUT ROWID keeps each ~500-byte edge document inside the primary-key
        # b-tree, so random edge ids split pages on every insert; SQLite advises it
        # only for small rows. A rowid table inserts ~35 % faster at 100k edges.
        """
        CREATE TABLE edges_v2 (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            source_id TEXT NOT NULL,
            target_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            profile TEXT NOT NULL,
            lifecycle TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        INSERT INTO edges_v2(id, source_id, target_id, kind, profile, lifecycle, doc)
            SELECT id, source_id, target_id, kind, profile, lifecycle, doc FROM edges ORDER BY id;
        DROP TABLE edges;
        ALTER TABLE edges_v2 RENAME TO edges;
        CREATE INDEX edges_source ON edges(source_id, target_id);
        CREATE INDEX edges_target ON edges(target_id, source_id);
        """,
    )
)

MIGRATIONS.append(
    Migration(
        103,
        "rebuild the node FTS: notes the lean `memgraph note` path wrote before migration 11 "
        "were never indexed",
        # 'rebuild' re-reads the external content table (nodes): an index op, no graph write.
        "INSERT INTO node_fts(node_fts) VALUES ('rebuild');",
    )
)

MIGRATIONS.append(
    Migration(
        104,
        "receipts and patches stored packed (memgraph.store.docpack): ~3x and ~9x smaller",
        # mg_pack is registered on the migrating connection (memgraph.store.sqlite_open.migrate).
        # Receipts are append-only: their UPDATE guard is lifted for this one
        # rewrite of the encoding (the JSON text is unchanged) and put back as it was.
        """
        DROP TRIGGER receipts_no_update;
        UPDATE receipts SET doc = mg_pack(doc) WHERE typeof(doc) = 'text';
        CREATE TRIGGER receipts_no_update BEFORE UPDATE ON receipts
            BEGIN SELECT RAISE(ABORT, 'receipts are append-only'); END;
        UPDATE patches SET doc = mg_pack(doc) WHERE typeof(doc) = 'text';
        """,
    )
)

MIGRATIONS.append(
    Migration(
        106,
        "store_meta: the store's id (a random uuid, made once) and where a writer last opened it",
        # the rows are written by the store when it opens (memgraph.store.identity)
        "CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    )
)

# The profile-owned index tables (memgraph.store.interfaces) live in
# memgraph/store/sqlite_ext/, one module per index, each with its own reserved
# version range: 2-9 voice (registry, voice index), 10-19 session, 40-49 term
# statistics. Imported directly: a missing module is an ImportError, never skipped.
# The voice index's tables come from voice_schema, not voice_index (its search code
# and the full-text helpers): every store open lists the migrations (speed37).


def _extension_modules() -> list[ModuleType]:
    from memgraph.store.sqlite_ext import ledger, registry, session, terms, voice_schema

    return [registry, voice_schema, ledger, session, terms]


# Index rows for NEW node rows are written set-based, not by AFTER INSERT
# triggers: SQLite runs a trigger as a sub-program per row even when its WHEN
# clause is false, and the four extension triggers alone cost ~3.7 us per
# inserted node (notes/substrate.md). Every writer of ``nodes`` inserts its
# rows, then runs each statement below with one parameter: the largest node
# rowid before its insert (new rows get larger ones; an upsert that updates
# keeps its rowid and is re-indexed by the AFTER UPDATE triggers). Extension
# modules add theirs as ``NEW_NODE_ROWS``.
NEW_NODE_ROWS: tuple[str, ...] = (
    "INSERT INTO node_fts(rowid, title, body) SELECT rowid, title, body FROM nodes WHERE rowid > ?",
)


@functools.cache
def new_node_statements() -> tuple[str, ...]:
    """Core and extension statements indexing node rows above a given rowid."""
    found = list(NEW_NODE_ROWS)
    for module in _extension_modules():
        found.extend(getattr(module, "NEW_NODE_ROWS", ()))
    return tuple(found)


def max_node_rowid(conn: sqlite3.Connection) -> int:
    """Read before inserting node rows: the one parameter of ``index_new_node_rows``."""
    return int(conn.execute("SELECT coalesce(max(rowid), 0) FROM nodes").fetchone()[0])


def index_new_node_rows(conn: sqlite3.Connection, last: int) -> None:
    """Run every ``new_node_statements()`` for the node rows above rowid ``last``."""
    for sql in new_node_statements():
        conn.execute(sql, (last,))


# Migration 105 re-creates the extension modules' AFTER UPDATE triggers on
# ``nodes`` (they read node documents, now packed, through ``mg_doc``), so its
# SQL is assembled from those modules when the list is built (they import this
# module: no import-time cycle).
_PACKED_NODES_SQL = """
UPDATE nodes SET doc = mg_pack(doc) WHERE typeof(doc) = 'text';
UPDATE node_history SET doc = mg_pack(doc) WHERE typeof(doc) = 'text';
UPDATE edges SET doc = mg_pack(doc) WHERE typeof(doc) = 'text';
UPDATE edge_history SET doc = mg_pack(doc) WHERE typeof(doc) = 'text';
"""


@functools.cache
def _migration_105() -> Migration:
    from memgraph.store.sqlite_ext import session, voice_schema

    return Migration(
        105,
        "node and edge documents (and their history) stored packed (memgraph.store.docpack); "
        "index triggers read them through mg_doc",
        voice_schema.PACKED_DOC_TRIGGERS + session.PACKED_DOC_TRIGGERS + _PACKED_NODES_SQL,
    )


def all_migrations() -> list[Migration]:
    """Core migrations plus every extension module's, ordered by version."""
    found = [*MIGRATIONS, _migration_105()]
    for module in _extension_modules():
        found.extend(module.MIGRATIONS)
    versions = [m.version for m in found]
    if len(versions) != len(set(versions)):
        raise RuntimeError(f"duplicate schema migration versions: {sorted(versions)}")
    return sorted(found, key=lambda m: m.version)
