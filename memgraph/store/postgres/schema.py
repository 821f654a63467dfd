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
def tsvector(expr: str) -> str:
    return (
        "to_tsvector('memgraph_text'::regconfig, "
        f"regexp_replace(left({expr}, 250000), '[[:punct:]]+', ' ', 'g'))"
    )


# Two tsvectors, each with its GIN index: title then body (``Store.search`` and
# term statistics match both, like FTS5 over both columns) and the body alone
# (voice search matches the message text only). Counting the rows that hold a
# word is then an index count; one weighted tsvector (title A, body B) made
# every body-only count re-read and decompress each matching row (measured:
# 10-20 ms per common word on 15k messages; notes/fleet.md).
FTS_DOCUMENT = f"{tsvector('title')} || {tsvector('body')}"
FTS_BODY = tsvector("body")
# title + body since migration 8: the indexed expression (nodes_fts) every
# ``Store.search`` and term statistics query matches
FTS = "(fts_title || fts_body)"
N_FTS = "(n.fts_title || n.fts_body)"

C = 'COLLATE "C"'
# live voice message rows (the partial body text indexes of migration 8)
VOICE = "profile = 'voice' AND kind = 'message' AND lifecycle <> 'retired'"

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
            -- FTS5-style token count of title + body (BM25's document length)
            ntok integer NOT NULL DEFAULT 0,
            -- insertion order (SQLite's rowid): an update keeps it
            seq bigint GENERATED ALWAYS AS IDENTITY,
            fts tsvector GENERATED ALWAYS AS ({FTS_DOCUMENT}) STORED,
            fts_body tsvector GENERATED ALWAYS AS ({FTS_BODY}) STORED
        );
        CREATE INDEX nodes_profile_kind ON nodes(profile, kind, valid_from);
        CREATE INDEX nodes_domain ON nodes(domain_id, profile, lifecycle);
        -- a small pending list: every search scans it linearly (4 MB, the
        -- default, cost ~20 ms per query term), a merge every 256 kB is cheap
        CREATE INDEX nodes_fts ON nodes USING gin(fts) WITH (gin_pending_list_limit = 256);
        CREATE INDEX nodes_fts_body ON nodes USING gin(fts_body)
            WITH (gin_pending_list_limit = 256);

        -- BM25's corpus figures (row count, total tokens), kept by statement
        -- triggers over transition tables: one update per statement, not per row
        CREATE TABLE node_stats (
            one boolean PRIMARY KEY DEFAULT true CHECK (one),
            nodes bigint NOT NULL,
            tokens bigint NOT NULL
        );
        INSERT INTO node_stats VALUES (true, 0, 0);
        CREATE FUNCTION memgraph_node_stats_ins() RETURNS trigger LANGUAGE plpgsql AS $f$
            BEGIN
                UPDATE node_stats SET nodes = nodes + (SELECT count(*) FROM new_rows),
                    tokens = tokens + (SELECT coalesce(sum(ntok), 0) FROM new_rows);
                RETURN NULL;
            END $f$;
        CREATE FUNCTION memgraph_node_stats_upd() RETURNS trigger LANGUAGE plpgsql AS $f$
            BEGIN
                UPDATE node_stats SET
                    tokens = tokens + (SELECT coalesce(sum(ntok), 0) FROM new_rows)
                                    - (SELECT coalesce(sum(ntok), 0) FROM old_rows);
                RETURN NULL;
            END $f$;
        CREATE FUNCTION memgraph_node_stats_del() RETURNS trigger LANGUAGE plpgsql AS $f$
            BEGIN
                UPDATE node_stats SET nodes = nodes - (SELECT count(*) FROM old_rows),
                    tokens = tokens - (SELECT coalesce(sum(ntok), 0) FROM old_rows);
                RETURN NULL;
            END $f$;
        CREATE TRIGGER nodes_stats_ins AFTER INSERT ON nodes REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION memgraph_node_stats_ins();
        CREATE TRIGGER nodes_stats_upd AFTER UPDATE ON nodes
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION memgraph_node_stats_upd();
        CREATE TRIGGER nodes_stats_del AFTER DELETE ON nodes REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION memgraph_node_stats_del();

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
    Migration(
        104,
        "receipts and patches stored packed (memgraph.store.docpack): ~3x and ~9x smaller",
        "-- PostgreSQL: documents stay text; TOAST compresses the large ones itself",
    ),
    Migration(
        105,
        "node and edge documents (and their history) stored packed (memgraph.store.docpack); "
        "index triggers read them through mg_doc",
        "-- PostgreSQL: documents stay text (both backends export the same schema_version)",
    ),
    Migration(
        106,
        "store_meta: the store's id (a random uuid, made once) and where a writer last opened it",
        # the rows are written by the store when it opens (memgraph.store.postgres.store_id)
        f"CREATE TABLE store_meta (key text {C} PRIMARY KEY, value text NOT NULL);",
    ),
]


def all_migrations() -> list[Migration]:
    """Core and index migrations, ordered by version."""
    from memgraph.store.postgres.schema_ext import EXTENSION_MIGRATIONS

    found = [*MIGRATIONS, *EXTENSION_MIGRATIONS]
    versions = [m.version for m in found]
    if len(versions) != len(set(versions)):
        raise RuntimeError(f"duplicate PostgreSQL schema versions: {sorted(versions)}")
    return sorted(found, key=lambda m: m.version)
