"""PostgreSQL schema as recorded migrations, numbered like the SQLite store's.

The version numbers are the SQLite store's (``memgraph.store.schema``): a
snapshot carries ``max(version)``, and the same graph must export the same
bytes from either backend. Where SQLite needed a migration PostgreSQL does not
(FTS5 rebuilds, a table rewrite) the version is recorded with an equivalent or
empty step, so ``schema_migrations`` lists the same versions on both.

Text columns that are sorted or compared use ``COLLATE "C"``: byte order, as
SQLite's BINARY, whatever the database's default collation is.
"""

from __future__ import annotations

from memgraph.store.schema import Migration

# Full-text search: PostgreSQL's default parser keeps "src/auth.py" or "a-b"
# as one token where FTS5's unicode61 splits them; replacing ASCII punctuation
# with spaces first gives the same words. Only the first 250k characters of a
# node are indexed (a tsvector holds at most 1 MB of lexemes).
FTS_DOCUMENT = (
    "to_tsvector('memgraph_text'::regconfig, "
    "regexp_replace(left(title || ' ' || body, 250000), '[[:punct:]]+', ' ', 'g'))"
)

C = 'COLLATE "C"'

MIGRATIONS: list[Migration] = [
    Migration(
        1,
        "graph tables, append-only receipts, full-text search over node text",
        f"""
        CREATE EXTENSION IF NOT EXISTS unaccent;
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'memgraph_text') THEN
                CREATE TEXT SEARCH CONFIGURATION memgraph_text (COPY = simple);
                ALTER TEXT SEARCH CONFIGURATION memgraph_text
                    ALTER MAPPING FOR word, hword, hword_part, numword, numhword, hword_numpart
                    WITH unaccent, simple;
            END IF;
        END $$;

        CREATE TABLE domains (id text {C} PRIMARY KEY, doc text NOT NULL);

        CREATE TABLE nodes (
            id text {C} PRIMARY KEY,
            profile text {C} NOT NULL,
            kind text {C} NOT NULL,
            domain_id text {C} NOT NULL,
            lifecycle text {C} NOT NULL,
            valid_from text {C},
            valid_to text {C},
            ingested_at text {C},
            updated_at text {C} NOT NULL,
            title text NOT NULL,
            body text NOT NULL,
            doc text NOT NULL,
            fts tsvector GENERATED ALWAYS AS ({FTS_DOCUMENT}) STORED
        );
        CREATE INDEX nodes_profile_kind ON nodes(profile, kind, valid_from);
        CREATE INDEX nodes_domain ON nodes(domain_id, profile, lifecycle);
        CREATE INDEX nodes_fts ON nodes USING gin(fts);

        CREATE TABLE node_history (
            seq bigserial PRIMARY KEY,
            node_id text {C} NOT NULL,
            doc text NOT NULL
        );
        CREATE INDEX node_history_node ON node_history(node_id);

        CREATE TABLE edges (
            id text {C} PRIMARY KEY,
            source_id text {C} NOT NULL,
            target_id text {C} NOT NULL,
            kind text {C} NOT NULL,
            profile text {C} NOT NULL,
            lifecycle text {C} NOT NULL,
            doc text NOT NULL
        );
        CREATE INDEX edges_source ON edges(source_id, target_id);
        CREATE INDEX edges_target ON edges(target_id, source_id);

        CREATE TABLE summaries (
            id text {C} PRIMARY KEY,
            domain_id text {C} NOT NULL,
            freshness text {C} NOT NULL,
            doc text NOT NULL
        );
        CREATE TABLE summary_covers (
            covered_id text {C} NOT NULL,
            summary_id text {C} NOT NULL,
            PRIMARY KEY (covered_id, summary_id)
        );

        CREATE TABLE receipts (
            seq bigserial PRIMARY KEY,
            id text {C} NOT NULL,
            patch_id text {C} NOT NULL,
            op text {C} NOT NULL,
            target_id text {C} NOT NULL,
            at text {C} NOT NULL,
            doc text NOT NULL,
            CONSTRAINT receipts_id_unique UNIQUE (id)
        );
        CREATE INDEX receipts_target ON receipts(target_id, op);
        CREATE INDEX receipts_patch ON receipts(patch_id);
        CREATE FUNCTION memgraph_receipts_append_only() RETURNS trigger
            LANGUAGE plpgsql AS $f$
            BEGIN RAISE EXCEPTION 'receipts are append-only'; END $f$;
        CREATE TRIGGER receipts_no_update BEFORE UPDATE OR DELETE ON receipts
            FOR EACH ROW EXECUTE FUNCTION memgraph_receipts_append_only();
        CREATE TRIGGER receipts_no_truncate BEFORE TRUNCATE ON receipts
            FOR EACH STATEMENT EXECUTE FUNCTION memgraph_receipts_append_only();

        CREATE TABLE patches (
            id text {C} PRIMARY KEY,
            status text {C} NOT NULL,
            created_at text {C} NOT NULL,
            doc text NOT NULL
        );

        CREATE TABLE embeddings (
            node_id text {C} PRIMARY KEY,
            model text NOT NULL,
            dimension integer NOT NULL,
            source_hash text NOT NULL,
            doc text NOT NULL
        );
        """,
    ),
    Migration(
        100,
        "node FTS rows for inserted nodes are added set-based by the store, not per-row trigger",
        "-- PostgreSQL: nodes.fts is a generated column, maintained by the row itself",
    ),
    Migration(
        101,
        "edge_history and summary_history: replaced versions are kept, like node_history",
        f"""
        CREATE TABLE edge_history (
            seq bigserial PRIMARY KEY,
            edge_id text {C} NOT NULL,
            doc text NOT NULL
        );
        CREATE INDEX edge_history_edge ON edge_history(edge_id);
        CREATE TABLE summary_history (
            seq bigserial PRIMARY KEY,
            summary_id text {C} NOT NULL,
            doc text NOT NULL
        );
        CREATE INDEX summary_history_summary ON summary_history(summary_id);
        """,
    ),
    Migration(
        102,
        "edges become a rowid table with a unique id index (was WITHOUT ROWID)",
        "-- PostgreSQL: tables are heaps already; nothing to rewrite",
    ),
    Migration(
        103,
        "rebuild the node FTS: notes the lean `memgraph note` path wrote before migration "
        "11 were never indexed",
        "-- PostgreSQL: the generated column indexed every row",
    ),
]


def all_migrations() -> list[Migration]:
    """Core migrations (extension indexes join here as their backends land)."""
    versions = [m.version for m in MIGRATIONS]
    if len(versions) != len(set(versions)):
        raise RuntimeError(f"duplicate PostgreSQL schema versions: {sorted(versions)}")
    return sorted(MIGRATIONS, key=lambda m: m.version)
