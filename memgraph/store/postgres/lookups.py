"""The profile-owned lookups on PostgreSQL other than voice search: transcript
registry, session index, note append, term statistics, activity
(``memgraph.store.interfaces``; ``indexes.pg_indexes`` registers them). Reads in
one REPEATABLE READ snapshot, writes in the store's write transaction."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memgraph.store.postgres.fts import (
    Phrase,
    having_sql,
    phrase_tsquery,
    rank_rows,
    token_count,
    tokens,
    tsquery_text,
)
from memgraph.store.postgres.schema import FTS, N_FTS
from memgraph.store.postgres.voice_sql import nul, one
from memgraph.store.rows import (
    ActivityRow,
    ActivitySource,
    LedgerRow,
    NoteIndexRow,
    NoteWrite,
    RegistryRow,
    SessionRow,
    TermFrequencies,
    ledger_columns,
    ledger_row,
)

if TYPE_CHECKING:
    from memgraph.store.postgres.store import PostgresStore


# -- transcript registry ------------------------------------------------------------

_REGISTRY = (
    "path, size, mtime_ns, sha256, session_id, status, reason, message_count, page, processed_at"
)


class PgRegistry:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def rows(self, since: str | None = None) -> list[RegistryRow]:
        sql = f"SELECT {_REGISTRY} FROM voice_registry"
        args: list[str] = []
        if since is not None:
            sql += " WHERE processed_at >= %s"
            args.append(since)
        with self.store.reader() as txn:
            rows = txn.conn.execute(sql + " ORDER BY processed_at, path", args).fetchall()
        return [RegistryRow(*r) for r in rows]

    def get(self, path: str) -> RegistryRow | None:
        with self.store.reader() as txn:
            row = txn.conn.execute(
                f"SELECT {_REGISTRY} FROM voice_registry WHERE path = %s", (path,)
            ).fetchone()
        return RegistryRow(*row) if row else None

    def put(self, row: RegistryRow) -> None:
        cols = _REGISTRY.split(", ")
        with self.store.transaction() as txn:
            txn.conn.execute(
                f"INSERT INTO voice_registry({_REGISTRY}) VALUES ({', '.join(['%s'] * 10)})"
                " ON CONFLICT (path) DO UPDATE SET "
                + ", ".join(f"{c} = excluded.{c}" for c in cols[1:]),
                (
                    row.path,
                    row.size,
                    row.mtime_ns,
                    row.sha256,
                    row.session_id,
                    row.status,
                    row.reason,
                    row.message_count,
                    row.page,
                    row.processed_at,
                ),
            )


# -- ingest ledger ------------------------------------------------------------------


class PgLedger:
    """``IngestLedger``: the latest row per transcript path (migration 9, ``voice_ledger``)."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def put(self, rows: Sequence[LedgerRow], recorded_at: str) -> None:
        if not rows:
            return
        with self.store.transaction() as txn, txn.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO voice_ledger VALUES (%s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (path) DO UPDATE SET lines = excluded.lines,"
                " captured = excluded.captured, filtered = excluded.filtered,"
                " dropped = excluded.dropped, file_error = excluded.file_error,"
                " recorded_at = excluded.recorded_at",
                [(*ledger_columns(r), recorded_at) for r in rows],
            )

    def rows(self) -> list[LedgerRow]:
        with self.store.reader() as txn:
            return ledger_rows(txn.conn)


def ledger_rows(conn: Any) -> list[LedgerRow]:
    """Every ledger row by path, read on ``conn`` (psycopg or the lean libpq client);
    none on a store an older memgraph migrated (no ``voice_ledger`` yet: a read-only
    open does not migrate, and ``voice --stats`` must still answer)."""
    there = conn.execute("SELECT to_regclass('voice_ledger') IS NOT NULL").fetchone()
    if not there or not there[0]:
        return []
    raw = conn.execute(
        "SELECT path, lines, captured, filtered, dropped, file_error FROM voice_ledger"
        " ORDER BY path"
    ).fetchall()
    return [ledger_row(*r) for r in raw]


# -- session index and the lean note append ------------------------------------------

_SESSION = "session_id, node_id, persona, workspace, started_at, harness, lifecycle"


def _session(conn: Any, session_id: str) -> SessionRow | None:
    row = conn.execute(
        f"SELECT {_SESSION} FROM session_sessions WHERE session_id = %s", (session_id,)
    ).fetchone()
    return None if row is None else SessionRow(*(str(v) for v in row))


class PgSessionIndex:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def session(self, session_id: str) -> SessionRow | None:
        with self.store.reader() as txn:
            return _session(txn.conn, session_id)

    def view(self, session_id: str) -> tuple[SessionRow | None, list[NoteIndexRow]]:
        with self.store.reader() as txn:  # one snapshot: header and notes agree
            conn = txn.conn
            rows = conn.execute(
                "SELECT ts, text, harness, node_id FROM session_notes"
                " WHERE session_id = %s AND lifecycle = 'active' ORDER BY ts, node_id",
                (session_id,),
            ).fetchall()
            return _session(conn, session_id), [
                NoteIndexRow(ts=r[0], text=r[1], harness=r[2], node_id=r[3]) for r in rows
            ]


class PgNoteAppend:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def append_note(
        self, session_id: str, build: Callable[[SessionRow], NoteWrite | None]
    ) -> NoteWrite | None:
        with self.store.transaction() as txn:
            conn = txn.conn
            row = _session(conn, session_id)
            if row is None:
                return None
            w = build(row)
            if w is None:
                return None
            if conn.execute("SELECT 1 FROM nodes WHERE id = %s", (w.node.id,)).fetchone():
                return None  # a re-applied note: the engine decides (no-op or revision)
            n = w.node
            conn.execute(
                "INSERT INTO nodes(id, profile, kind, domain_id, lifecycle, valid_from, valid_to,"
                " ingested_at, updated_at, title, body, doc, ntok)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (
                    n.id,
                    n.profile,
                    n.kind,
                    n.domain_id,
                    n.lifecycle,
                    n.valid_from,
                    n.valid_to,
                    n.ingested_at,
                    n.updated_at,
                    nul(n.title),
                    nul(n.body),
                    n.doc,
                    token_count(n.title) + token_count(n.body),
                ),
            )
            e = w.edge
            conn.execute(
                "INSERT INTO edges(id, source_id, target_id, kind, profile, lifecycle, doc)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (id) DO UPDATE SET"
                " source_id = excluded.source_id, target_id = excluded.target_id,"
                " kind = excluded.kind, profile = excluded.profile,"
                " lifecycle = excluded.lifecycle, doc = excluded.doc",
                (e.id, e.source_id, e.target_id, e.kind, e.profile, e.lifecycle, e.doc),
            )
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO receipts(id, patch_id, op, target_id, at, doc)"
                    " VALUES (%s,%s,%s,%s,%s,%s)",
                    [(r.id, r.patch_id, r.op, r.target_id, r.at, r.doc) for r in w.receipts],
                )
            p = w.patch
            conn.execute(
                "INSERT INTO patches(id, status, created_at, doc) VALUES (%s,%s,%s,%s)"
                " ON CONFLICT (id) DO UPDATE SET status = excluded.status,"
                " created_at = excluded.created_at, doc = excluded.doc",
                (p.id, p.status, p.created_at, p.doc),
            )
            return w


# -- term statistics -------------------------------------------------------------------


class PgTermStats:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def frequencies(self, terms: Sequence[str]) -> TermFrequencies:
        with self.store.reader() as txn:
            conn = txn.conn
            nodes = int(one(conn.execute("SELECT nodes FROM node_stats"))[0])
            df = []
            for term in dict.fromkeys(terms):
                if not tokens(term):
                    continue
                count = one(
                    conn.execute(
                        f"SELECT count(*) FROM nodes WHERE {FTS}"
                        " @@ to_tsquery('memgraph_text', %s)",
                        (phrase_tsquery(((term,), False)),),
                    )
                )[0]
                if count:
                    df.append((term, int(count)))
        return TermFrequencies(nodes=nodes, df=tuple(df))

    def rank_any(self, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        words = [t for t in dict.fromkeys(terms) if len(tokens(t)) == 1]
        if not words or limit < 1:
            return []
        phrases: list[Phrase] = [((tokens(w)[0],), False) for w in words]
        rows = self.store.fetch_all(
            f"SELECT s.nodes, s.tokens{having_sql(FTS, len(phrases))}, n.id, n.ntok, n.title,"
            " n.body FROM node_stats s CROSS JOIN nodes n"
            f" WHERE {N_FTS} @@ to_tsquery('memgraph_text', %s)",
            [*[phrase_tsquery(p) for p in phrases], tsquery_text(phrases, "|")],
        )
        ranked = rank_rows(phrases, rows, len(rows), "|")
        best = sorted(((nid, -score) for nid, score in ranked), key=lambda kv: (-kv[1], kv[0]))
        return best[:limit]


# -- activity lookups ------------------------------------------------------------------


class PgActivity:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def rows_in_range(
        self, sources: Sequence[ActivitySource], lo: str, hi: str
    ) -> list[ActivityRow]:
        found: list[ActivityRow] = []
        with self.store.reader() as txn:
            for src in sources:
                rows = txn.conn.execute(
                    "SELECT kind, id, valid_from, doc FROM nodes"
                    " WHERE profile = %s AND kind = %s AND valid_from >= %s"
                    " AND valid_from <= %s AND lifecycle = ANY(%s)",
                    (src.profile, src.kind, lo, hi, list(src.states)),
                ).fetchall()
                for kind, nid, valid, doc in rows:
                    # parsed here, not as jsonb: jsonb cannot hold a NUL the text may have
                    d = json.loads(doc)
                    attrs, text = d.get("attributes"), d.get("claim")
                    found.append(
                        ActivityRow(
                            kind=kind,
                            node_id=nid,
                            valid_from=valid,
                            attributes=attrs if isinstance(attrs, dict) else {},
                            text=(text or "") if src.kind == "message" else "",
                        )
                    )
        return found

    def message_cwds(self, lo: str, hi: str) -> set[str]:
        with self.store.reader() as txn:
            rows = txn.conn.execute(
                "SELECT DISTINCT cwd FROM voice_messages WHERE ts >= %s AND ts <= %s",
                (lo, hi),
            ).fetchall()
        return {r[0] for r in rows if isinstance(r[0], str) and r[0]}
