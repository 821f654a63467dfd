"""PostgreSQL tables and triggers of the profile-owned indexes, as recorded migrations.

``memgraph.store.interfaces`` names the indexes; their version numbers are the
SQLite store's (each index's reserved range), so both backends record the same
``schema_migrations``. ``schema.all_migrations`` merges these with the core ones.
"""

from __future__ import annotations

from memgraph.store.postgres.schema import FTS, VOICE, C, tsvector
from memgraph.store.schema import Migration

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
            GENERATED ALWAYS AS ({tsvector("title")}) STORED;
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
        9,
        "voice: ingest ledger (per transcript: lines read, captured, filtered, dropped)",
        f"""
        CREATE TABLE voice_ledger (
            path text {C} PRIMARY KEY,
            lines bigint NOT NULL,
            captured bigint NOT NULL,
            filtered text NOT NULL,
            dropped text NOT NULL,
            file_error text,
            recorded_at text NOT NULL
        );
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
