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
def _tsvector(expr: str) -> str:
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
FTS_DOCUMENT = f"{_tsvector('title')} || {_tsvector('body')}"
FTS_BODY = _tsvector("body")
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
]


# -- the profile-owned indexes (memgraph.store.interfaces), same version numbers ----
# Kept by row triggers on ``nodes`` whose WHEN clause PostgreSQL evaluates
# before calling the function, so a node of another profile costs nothing.


# jsonb cannot hold U+0000: the index columns read a NUL (escaped in the stored
# JSON) as a space, as the indexed body does (txn._text)
JSONB_NEW = "replace(NEW.doc, '\\u0000', '\\u0020')::jsonb"


def _attr_text(key: str, src: str = "a") -> str:
    # attributes are free JSON: a non-string value must not poison the index
    return f"CASE WHEN jsonb_typeof({src}->'{key}') = 'string' THEN {src}->>'{key}' END"


# voice_terms and voice_df of every live voice message, set-based: migration 8's
# backfill, and a snapshot import (which loads nodes with the row triggers off:
# one upsert of voice_df per lexeme of every message is hours on a big store)
VOICE_TERMS_FILL = """
        INSERT INTO voice_terms
            SELECT u.lexeme, n.id, cardinality(u.positions), n.ntok, v.day, v.classification
            FROM voice_messages v JOIN nodes n ON n.id = v.node_id, unnest(n.fts_body) u
            WHERE v.lifecycle <> 'retired';
        INSERT INTO voice_df
            SELECT u, count(*) FROM nodes n, unnest(tsvector_to_array(n.fts_body)) u
            WHERE n.profile = 'voice' AND n.kind = 'message' AND n.lifecycle <> 'retired'
            GROUP BY u;
"""


EXTENSION_MIGRATIONS: list[Migration] = [
    Migration(
        2,
        "voice: registry of processed transcripts",
        f"""
        CREATE TABLE voice_registry (
            path text {C} PRIMARY KEY,
            size bigint NOT NULL,
            mtime_ns bigint NOT NULL,
            sha256 text NOT NULL,
            session_id text {C},
            status text NOT NULL,
            reason text,
            message_count integer NOT NULL DEFAULT 0,
            page text,
            processed_at text {C} NOT NULL
        );
        CREATE INDEX voice_registry_processed ON voice_registry(processed_at, path);
        CREATE INDEX voice_registry_session ON voice_registry(session_id);
        """,
    ),
    Migration(
        3,
        "voice: session -> message node index (trigger-maintained)",
        f"""
        -- one row per voice message node (retired ones too: session_messages
        -- reads them); search and stats read the live rows only
        CREATE TABLE voice_messages (
            node_id text {C} PRIMARY KEY,
            session_id text {C} NOT NULL,
            constellation text {C} NOT NULL,
            project text {C} NOT NULL,
            ts text {C} NOT NULL,
            day double precision NOT NULL,
            ingested_at text {C},
            classification text {C},
            confidence double precision,
            voice_page text {C},
            lifecycle text {C} NOT NULL,
            cwd text,
            -- the node's body is exactly its claim (a search hit's text): no JSON read
            body_is_claim boolean NOT NULL
        );
        CREATE INDEX voice_messages_session ON voice_messages(session_id, ts);
        CREATE INDEX voice_messages_ts ON voice_messages(ts) WHERE lifecycle <> 'retired';
        CREATE INDEX voice_messages_project ON voice_messages(lower(project), ts)
            WHERE lifecycle <> 'retired';
        CREATE INDEX voice_messages_constellation ON voice_messages(lower(constellation), ts)
            WHERE lifecycle <> 'retired';

        CREATE FUNCTION memgraph_voice_messages() RETURNS trigger LANGUAGE plpgsql AS $f$
            DECLARE d jsonb; a jsonb;
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    DELETE FROM voice_messages WHERE node_id = OLD.id;
                END IF;
                IF TG_OP <> 'DELETE' AND NEW.profile = 'voice' AND NEW.kind = 'message' THEN
                    d := {JSONB_NEW};
                    a := d -> 'attributes';
                    INSERT INTO voice_messages VALUES (
                        NEW.id,
                        coalesce({_attr_text("session_id")}, ''),
                        coalesce({_attr_text("constellation")}, ''),
                        coalesce({_attr_text("project")}, ''),
                        coalesce(NEW.valid_from, ''),
                        coalesce(extract(epoch FROM NEW.valid_from::timestamptz) / 86400.0, 0.0),
                        NEW.ingested_at,
                        {_attr_text("classification")},
                        CASE WHEN jsonb_typeof(a->'confidence') = 'number'
                             THEN (a->>'confidence')::double precision END,
                        {_attr_text("voice_page")},
                        NEW.lifecycle,
                        {_attr_text("cwd")},
                        coalesce(d ->> 'claim' = NEW.body, false)
                            AND strpos(NEW.doc, '\\u0000') = 0);
                END IF;
                RETURN NULL;
            END $f$;
        CREATE TRIGGER nodes_voice_ins AFTER INSERT ON nodes FOR EACH ROW
            WHEN (NEW.profile = 'voice' AND NEW.kind = 'message')
            EXECUTE FUNCTION memgraph_voice_messages();
        CREATE TRIGGER nodes_voice_upd AFTER UPDATE ON nodes FOR EACH ROW
            WHEN ((OLD.profile = 'voice' AND OLD.kind = 'message')
                  OR (NEW.profile = 'voice' AND NEW.kind = 'message'))
            EXECUTE FUNCTION memgraph_voice_messages();
        CREATE TRIGGER nodes_voice_del AFTER DELETE ON nodes FOR EACH ROW
            WHEN (OLD.profile = 'voice' AND OLD.kind = 'message')
            EXECUTE FUNCTION memgraph_voice_messages();
        """,
    ),
    Migration(
        4,
        "voice: message-session rows for inserted nodes are added set-based by the store",
        "-- PostgreSQL: the row triggers of 3 keep voice_messages",
    ),
    Migration(
        5,
        "voice_index: voice message side table (filters, ranking) kept by triggers on nodes",
        "-- PostgreSQL: voice_messages (3) is the voice index",
    ),
    Migration(
        6,
        "voice_index rows for inserted nodes are added set-based by the store",
        "-- PostgreSQL: the row triggers of 3 keep voice_messages",
    ),
    Migration(
        7,
        "voice_tri: trigram index of voice message text (substring and CJK search)",
        """
        CREATE INDEX nodes_voice_tri ON nodes USING gin (lower(body) gin_trgm_ops)
            WHERE profile = 'voice' AND kind = 'message';
        CREATE INDEX nodes_voice_seq ON nodes (seq) WHERE profile = 'voice' AND kind = 'message';
        """,
    ),
    Migration(
        8,
        "voice_terms: per-message term frequencies for voice search's BM25 (PostgreSQL only)",
        f"""
        -- One row per (lexeme, live voice message): the phrase's instances in the
        -- body (tf), the row's FTS5 length and the recency/demote inputs, so BM25
        -- of a one-word (or prefix) query is an index range scan and arithmetic,
        -- not a re-read of every matching message (notes/fleet.md). Kept by row
        -- triggers named after nodes_voice_* so they fire after voice_messages'.
        CREATE TABLE voice_terms (
            term text {C} NOT NULL,
            node_id text {C} NOT NULL,
            tf integer NOT NULL,
            ntok integer NOT NULL,
            day double precision NOT NULL,
            classification text {C},
            PRIMARY KEY (term, node_id)
        );
        -- live voice messages holding each lexeme (= its voice_terms rows): with
        -- the partial text index of the other nodes (retired messages included),
        -- a word's document frequency is two lookups, not a visit of every row
        CREATE TABLE voice_df (term text {C} PRIMARY KEY, n bigint NOT NULL);
        CREATE FUNCTION memgraph_voice_terms() RETURNS trigger LANGUAGE plpgsql AS $f$
            BEGIN
                IF TG_OP <> 'INSERT' AND OLD.profile = 'voice' AND OLD.kind = 'message' THEN
                    DELETE FROM voice_terms
                        WHERE term = ANY(tsvector_to_array(OLD.fts_body)) AND node_id = OLD.id;
                    IF OLD.lifecycle <> 'retired' THEN
                        UPDATE voice_df SET n = n - 1
                            WHERE term = ANY(tsvector_to_array(OLD.fts_body));
                    END IF;
                END IF;
                IF TG_OP <> 'DELETE' AND NEW.profile = 'voice' AND NEW.kind = 'message'
                        AND NEW.lifecycle <> 'retired' THEN
                    INSERT INTO voice_df SELECT t, 1 FROM unnest(tsvector_to_array(NEW.fts_body)) t
                        ON CONFLICT (term) DO UPDATE SET n = voice_df.n + 1;
                    INSERT INTO voice_terms
                        SELECT u.lexeme, NEW.id, cardinality(u.positions), NEW.ntok, v.day,
                               v.classification
                        FROM voice_messages v, unnest(NEW.fts_body) u
                        WHERE v.node_id = NEW.id;
                END IF;
                RETURN NULL;
            END $f$;
        CREATE TRIGGER nodes_voiceterms_ins AFTER INSERT ON nodes FOR EACH ROW
            WHEN (NEW.profile = 'voice' AND NEW.kind = 'message')
            EXECUTE FUNCTION memgraph_voice_terms();
        CREATE TRIGGER nodes_voiceterms_upd AFTER UPDATE ON nodes FOR EACH ROW
            WHEN ((OLD.profile = 'voice' AND OLD.kind = 'message')
                  OR (NEW.profile = 'voice' AND NEW.kind = 'message'))
            EXECUTE FUNCTION memgraph_voice_terms();
        CREATE TRIGGER nodes_voiceterms_del AFTER DELETE ON nodes FOR EACH ROW
            WHEN (OLD.profile = 'voice' AND OLD.kind = 'message')
            EXECUTE FUNCTION memgraph_voice_terms();
        {VOICE_TERMS_FILL}
        -- title + body text: an index over the two columns' concatenation (the
        -- same tsvector as the generated column it replaces), so each body is
        -- parsed once per write, not twice (a bulk write's main server cost)
        ALTER TABLE nodes DROP COLUMN fts;
        ALTER TABLE nodes ADD COLUMN fts_title tsvector
            GENERATED ALWAYS AS ({_tsvector("title")}) STORED;
        CREATE INDEX nodes_fts ON nodes USING gin({FTS})
            WITH (gin_pending_list_limit = 256);
        -- the body text index in two parts: live voice messages, everything else
        DROP INDEX nodes_fts_body;
        CREATE INDEX nodes_fts_body_voice ON nodes USING gin(fts_body)
            WITH (gin_pending_list_limit = 256) WHERE {VOICE};
        CREATE INDEX nodes_fts_body_other ON nodes USING gin(fts_body)
            WITH (gin_pending_list_limit = 256) WHERE NOT ({VOICE});
        """,
    ),
    Migration(
        88,
        "voice_terms: the key covers tf, ntok, day and classification (PostgreSQL only)",
        """
        -- a word's postings are an index-only range of the key, in node id order:
        -- one word is a range scan without a heap visit per message, several words
        -- are a merge join of their ranges (notes/fleet.md, issue 16)
        ALTER TABLE voice_terms DROP CONSTRAINT voice_terms_pkey;
        ALTER TABLE voice_terms ADD CONSTRAINT voice_terms_pkey
            PRIMARY KEY (term, node_id) INCLUDE (tf, ntok, day, classification);
        ALTER TABLE voice_terms ALTER COLUMN term SET STATISTICS 1000;
        ANALYZE voice_terms;
        """,
    ),
    Migration(
        89,
        "turn ranking: title text index of live voice messages, superseded ones (PostgreSQL only)",
        f"""
        -- a turn ranking (turns.py) reads no message row: body postings from
        -- voice_terms, titles holding a word from this index, and the superseded
        -- messages to leave out from the second (notes/fleet.md, issue 16)
        CREATE INDEX nodes_title_voice ON nodes USING gin(fts_title)
            WITH (gin_pending_list_limit = 256) WHERE {VOICE};
        CREATE INDEX voice_messages_superseded ON voice_messages(node_id)
            WHERE lifecycle = 'superseded';
        """,
    ),
    Migration(
        10,
        "session: note and session index tables kept by triggers on nodes",
        f"""
        CREATE TABLE session_notes (
            node_id text {C} PRIMARY KEY,
            session_id text {C},
            persona text {C},
            ts text {C},
            harness text,
            lifecycle text {C} NOT NULL,
            text text
        );
        CREATE INDEX session_notes_session ON session_notes(session_id, ts, node_id);
        CREATE TABLE session_sessions (
            session_id text {C} PRIMARY KEY,
            node_id text {C} NOT NULL UNIQUE,
            persona text,
            workspace text,
            started_at text,
            harness text,
            lifecycle text NOT NULL
        );
        CREATE FUNCTION memgraph_session_index() RETURNS trigger LANGUAGE plpgsql AS $f$
            DECLARE d jsonb; a jsonb;
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    DELETE FROM session_notes WHERE node_id = OLD.id;
                    DELETE FROM session_sessions WHERE node_id = OLD.id;
                END IF;
                IF TG_OP <> 'DELETE' AND NEW.profile = 'session' THEN
                    d := {JSONB_NEW};
                    a := d -> 'attributes';
                    IF NEW.kind = 'note' THEN
                        INSERT INTO session_notes VALUES (NEW.id, a->>'session_id',
                            a->>'persona', NEW.valid_from, a->>'harness', NEW.lifecycle,
                            d->>'claim');
                    ELSIF NEW.kind = 'session' THEN
                        INSERT INTO session_sessions VALUES (a->>'session_id', NEW.id,
                            a->>'persona', a->>'workspace', a->>'started_at', a->>'harness',
                            NEW.lifecycle);
                    END IF;
                END IF;
                RETURN NULL;
            END $f$;
        CREATE TRIGGER nodes_session_ins AFTER INSERT ON nodes FOR EACH ROW
            WHEN (NEW.profile = 'session' AND NEW.kind IN ('note', 'session'))
            EXECUTE FUNCTION memgraph_session_index();
        CREATE TRIGGER nodes_session_upd AFTER UPDATE ON nodes FOR EACH ROW
            WHEN (OLD.profile = 'session' OR NEW.profile = 'session')
            EXECUTE FUNCTION memgraph_session_index();
        CREATE TRIGGER nodes_session_del AFTER DELETE ON nodes FOR EACH ROW
            WHEN (OLD.profile = 'session')
            EXECUTE FUNCTION memgraph_session_index();
        """,
    ),
    Migration(
        11,
        "session: index rows for inserted nodes are added set-based by the store",
        "-- PostgreSQL: the row triggers of 10 keep the session index",
    ),
    Migration(
        40,
        "context_cut: term document frequencies over node_fts",
        "-- PostgreSQL: ts_stat-free; frequencies are counted on the GIN index of nodes.fts",
    ),
]


def all_migrations() -> list[Migration]:
    """Core and index migrations, ordered by version."""
    found = [*MIGRATIONS, *EXTENSION_MIGRATIONS]
    versions = [m.version for m in found]
    if len(versions) != len(set(versions)):
        raise RuntimeError(f"duplicate PostgreSQL schema versions: {sorted(versions)}")
    return sorted(found, key=lambda m: m.version)
