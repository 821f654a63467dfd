"""Reads and writes inside one PostgreSQL transaction (``PostgresTxn``).

Ids go to the server as one array parameter (``= ANY(%s)``), so reads need no
chunking; new nodes and receipts go in with ``COPY``, upserts with pipelined
``executemany``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from memgraph.documents import (
    MemoryDomain,
    MemoryEdge,
    MemoryEmbeddingManifest,
    MemoryLifecycleReceipt,
    MemoryNode,
    MemoryPatchCandidate,
    MemorySummary,
    to_json,
)
from memgraph.store import rowcodec
from memgraph.store.decode import DocTxn
from memgraph.store.postgres.fts import token_count
from memgraph.store.sqlite_txn import iso

if TYPE_CHECKING:
    import psycopg

# the SQLite columns plus the token count the PostgreSQL ranking divides by
NODE_COLUMNS = (*rowcodec.NODE_COLUMNS, "ntok")


def _upsert(table: str, columns: tuple[str, ...]) -> str:
    """``INSERT ... ON CONFLICT (id) DO UPDATE`` of every column but the id."""
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT (id) DO UPDATE SET {updates}"
    )


_EDGE_COLUMNS = rowcodec.EDGE_COLUMNS
_NODE_UPSERT = _upsert("nodes", NODE_COLUMNS)
_EDGE_UPSERT = _upsert("edges", _EDGE_COLUMNS)


def _text(value: str) -> str:
    # PostgreSQL text cannot hold NUL; the JSON doc escapes it, the indexed
    # title/body columns (search only) read it as the separator FTS5 sees
    return value.replace("\x00", " ") if "\x00" in value else value


def node_row(n: MemoryNode) -> tuple[str | int | None, ...]:
    body = "\n".join(t for t in (n.claim, n.question, n.tension, n.action_implication) if t)
    return (
        n.id,
        n.profile.value,
        n.kind,
        n.domain_id,
        n.lifecycle,
        iso(n.valid_from),
        iso(n.valid_to),
        iso(n.ingested_at),
        iso(n.updated_at),
        _text(n.title),
        _text(body),
        to_json(n),
        token_count(n.title) + token_count(body),
    )


class PostgresTxn(DocTxn):
    """Implements ``StoreTxn`` (and ``GraphReader``) on one open transaction."""

    PARAM = "%s"

    def __init__(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        self.conn = conn

    # -- reads (documents decoded by memgraph.store.decode.DocTxn) ------------
    def _column(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        return [r[0] for r in self.conn.execute(sql, args)]

    def _where_in(self, select: str, table: str, key: str, ids: Iterable[str]) -> list[Any]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return []
        return self._column(f"SELECT {select} FROM {table} WHERE {key} = ANY(%s)", (unique,))

    def _in(self, column: str, values: Sequence[str]) -> tuple[str, list[object]]:
        return f"{column} = ANY(%s)", [list(values)]

    def patch_status(self, patch_id: str) -> str | None:
        row = self.conn.execute("SELECT status FROM patches WHERE id = %s", (patch_id,)).fetchone()
        return None if row is None else str(row[0])

    # -- writes ------------------------------------------------------------
    def _copy(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
        with (
            self.conn.cursor() as cur,
            cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)

    def put_node_history(self, previous: Sequence[MemoryNode]) -> None:
        if previous:
            self._copy("node_history", ("node_id", "doc"), ((p.id, to_json(p)) for p in previous))

    def put_nodes(self, nodes: Sequence[MemoryNode], previous: Sequence[MemoryNode]) -> None:
        self.put_node_history(previous)
        if not nodes:
            return
        # ``previous`` holds the stored version of every node that exists: the
        # rest are new and go in by COPY; were one there after all, the primary
        # key refuses it and the transaction rolls back (nothing overwritten).
        fresh: Sequence[MemoryNode] = nodes
        changed: Sequence[MemoryNode] = ()
        if previous:
            known = {p.id for p in previous}
            fresh = [n for n in nodes if n.id not in known]
            changed = [n for n in nodes if n.id in known]
        if fresh:
            self._copy("nodes", NODE_COLUMNS, map(node_row, fresh))
        if changed:
            with self.conn.cursor() as cur:
                cur.executemany(_NODE_UPSERT, [node_row(n) for n in changed])

    def put_edges(self, edges: Sequence[MemoryEdge], previous: Sequence[MemoryEdge] = ()) -> None:
        if previous:
            self._copy("edge_history", ("edge_id", "doc"), ((p.id, to_json(p)) for p in previous))
        if edges:
            with self.conn.cursor() as cur:
                cur.executemany(
                    _EDGE_UPSERT,
                    [
                        (
                            e.id,
                            e.source_id,
                            e.target_id,
                            e.kind,
                            e.profile.value,
                            e.lifecycle,
                            to_json(e),
                        )
                        for e in edges
                    ],
                )

    def put_summaries(
        self, summaries: Sequence[MemorySummary], previous: Sequence[MemorySummary] = ()
    ) -> None:
        if previous:
            self._copy(
                "summary_history", ("summary_id", "doc"), ((p.id, to_json(p)) for p in previous)
            )
        with self.conn.cursor() as cur:
            for s in summaries:
                cur.execute(
                    "INSERT INTO summaries(id, domain_id, freshness, doc) VALUES (%s,%s,%s,%s)"
                    " ON CONFLICT (id) DO UPDATE SET domain_id = excluded.domain_id,"
                    " freshness = excluded.freshness, doc = excluded.doc",
                    (s.id, s.domain_id, s.freshness.state.value, s.model_dump_json()),
                )
                covers = [(cid, s.id) for cid in s.covered_ids()]
                if covers:
                    cur.executemany(
                        "INSERT INTO summary_covers(covered_id, summary_id) VALUES (%s, %s)"
                        " ON CONFLICT DO NOTHING",
                        covers,
                    )

    def put_manifests(self, manifests: Sequence[MemoryEmbeddingManifest]) -> None:
        if not manifests:
            return
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO embeddings(node_id, model, dimension, source_hash, doc)"
                " VALUES (%s,%s,%s,%s,%s) ON CONFLICT (node_id) DO UPDATE SET"
                " model = excluded.model, dimension = excluded.dimension,"
                " source_hash = excluded.source_hash, doc = excluded.doc",
                [
                    (m.node_id, m.model, m.dimension, m.source_hash, m.model_dump_json())
                    for m in manifests
                ],
            )

    def put_domains(self, domains: Sequence[MemoryDomain]) -> None:
        if not domains:
            return
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO domains(id, doc) VALUES (%s, %s)"
                " ON CONFLICT (id) DO UPDATE SET doc = excluded.doc",
                [(d.id, d.model_dump_json()) for d in domains],
            )

    def append_receipts(self, receipts: Sequence[MemoryLifecycleReceipt]) -> None:
        if not receipts:
            return
        self._copy(
            "receipts",
            ("id", "patch_id", "op", "target_id", "at", "doc"),
            ((r.id, r.patch_id, r.op, r.target_id, iso(r.at), to_json(r)) for r in receipts),
        )

    def put_patch(self, patch: MemoryPatchCandidate) -> None:
        self.conn.execute(
            "INSERT INTO patches(id, status, created_at, doc) VALUES (%s,%s,%s,%s)"
            " ON CONFLICT (id) DO UPDATE SET status = excluded.status,"
            " created_at = excluded.created_at, doc = excluded.doc",
            (patch.id, patch.status.value, iso(patch.created_at), patch.model_dump_json()),
        )
