"""Reads and writes inside one SQLite transaction (``SQLiteTxn``).

Rows go in with ``executemany`` on the caller's thread; only the set-based
index statements of a big node insert run on the store's helper thread (see
``SQLiteTxn``). Measured and dropped (notes/benchmarks.md): handing big
batches to a helper thread as one
``INSERT ... SELECT FROM json_each(?)`` statement: the JSON transport costs
more per row than executemany, and executemany on a second thread stalls on
the GIL convoy, so neither overlap paid off on two cores.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memgraph.documents.enums import to_json
from memgraph.store.decode import DocTxn
from memgraph.store.rowcodec import (
    INSERT_EDGE_HISTORY,
    INSERT_NODE,
    INSERT_NODE_HISTORY,
    INSERT_RECEIPT,
    UPSERT_EDGE,
    UPSERT_NODE,
    UPSERT_PATCH,
    edge_values,
    history_values,
    node_body,
    node_values,
    patch_values,
    receipt_values,
)
from memgraph.store.schema import index_new_node_rows, max_node_rowid

if TYPE_CHECKING:  # a read loads no document model (decode.py: on first use)
    from concurrent.futures import Executor, Future

    from memgraph.documents import (
        MemoryDomain,
        MemoryEdge,
        MemoryEmbeddingManifest,
        MemoryLifecycleReceipt,
        MemoryNode,
        MemoryPatchCandidate,
        MemorySummary,
    )

_CHUNK = 500  # ids per IN (...) query; well under SQLite's variable limit


def iso(dt: datetime | None) -> str | None:
    """Fixed-width UTC text, so SQL string comparison is time order."""
    if dt is None:
        return None
    text = _ISO_CACHE.get(dt)
    if text is None:
        if dt.tzinfo is not UTC:
            dt = dt.astimezone(UTC)
        # isoformat is fixed width (strftime drops a year's leading zeros) and
        # fast; the cache serves the patch's ``now`` stamped on every row.
        text = dt.isoformat(timespec="microseconds")[:-6] + "Z"  # drop "+00:00"
        if len(_ISO_CACHE) > 4096:
            _ISO_CACHE.clear()
        _ISO_CACHE[dt] = text
    return text


_ISO_CACHE: dict[datetime, str] = {}


def _chunks(ids: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(ids), _CHUNK):
        yield ids[i : i + _CHUNK]


def _json(doc: Any) -> bytes:
    """``documents.to_json`` as UTF-8 bytes (what ``docpack.pack`` compresses)."""
    return type(doc).__pydantic_serializer__.to_json(doc, warnings=False)  # type: ignore[no-any-return]


def node_row(n: MemoryNode) -> tuple[str | bytes | None, ...]:
    """The stored row of a node (``memgraph.store.rowcodec``, like every writer)."""
    return node_values(
        n.id,
        n.profile.value,
        n.kind,
        n.domain_id,
        n.lifecycle,
        iso(n.valid_from),
        iso(n.valid_to),
        iso(n.ingested_at),
        iso(n.updated_at),
        n.title,
        node_body(n.claim, n.question, n.tension, n.action_implication),
        _json(n),
    )


Row = tuple[str | bytes | None, ...]


# Inserted node rows at least this many: index them on the helper thread while
# this one builds the receipt rows. A handoff costs ~0.1 ms; the statements run
# ~3-4 us per row, so small patches (every CLI write) stay on one thread.
OVERLAP_MIN_ROWS = 2000


class SQLiteTxn(DocTxn):
    """Reads and writes inside one SQLite transaction (implements StoreTxn).

    With a ``helper`` (a one-thread executor of the store), a big node insert
    hands its set-based index statements (FTS, side tables: one C call each,
    which releases the GIL throughout) to the helper and returns; the engine's
    next step, building receipt rows, is Python and runs meanwhile. Any use of
    ``conn`` first waits for that work, so callers see one ordinary,
    sequential transaction; ``settle()`` before COMMIT surfaces its errors.
    """

    def __init__(
        self, conn: sqlite3.Connection, helper: Callable[[], Executor] | None = None
    ) -> None:
        self._conn = conn
        self._helper = helper
        self._pending: Future[None] | None = None

    @property
    def conn(self) -> sqlite3.Connection:
        if self._pending is not None:
            self.settle()
        return self._conn

    def settle(self) -> None:
        """Wait for work handed to the helper; re-raise what it raised."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def _insert(self, sql: str, rows: Iterable[Row]) -> None:
        self.conn.executemany(sql, rows)

    # -- reads -------------------------------------------------------------
    # documents are decoded by memgraph.store.decode.DocTxn
    def _column(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        return [r[0] for r in self.conn.execute(sql, args)]

    def _where_in(self, select: str, table: str, key: str, ids: Iterable[str]) -> list[Any]:
        unique = list(dict.fromkeys(ids))
        conn = self.conn
        out: list[Any] = []
        for chunk in _chunks(unique):
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT {select} FROM {table} WHERE {key} IN ({marks})"
            out.extend(r[0] for r in conn.execute(sql, chunk))
        return out

    def patch_status(self, patch_id: str) -> str | None:
        row = self.conn.execute("SELECT status FROM patches WHERE id = ?", (patch_id,)).fetchone()
        return None if row is None else str(row[0])

    # -- writes ------------------------------------------------------------
    def put_node_history(self, previous: Sequence[MemoryNode]) -> None:
        self._insert(INSERT_NODE_HISTORY, (history_values(p.id, _json(p)) for p in previous))

    def put_nodes(self, nodes: Sequence[MemoryNode], previous: Sequence[MemoryNode]) -> None:
        self.put_node_history(previous)
        if not nodes:
            return
        conn = self.conn
        # new rows get rowids above this (updates keep theirs and are
        # re-indexed by AFTER UPDATE triggers): see schema.NEW_NODE_ROWS
        last = max_node_rowid(conn)
        # ``previous`` holds the stored version of every node that exists: the
        # rest are new. Were that ever wrong, the plain INSERT fails on the id's
        # UNIQUE index and the transaction rolls back; nothing is overwritten.
        fresh: Sequence[MemoryNode] = nodes
        changed: Sequence[MemoryNode] = ()
        if previous:
            known = {p.id for p in previous}
            fresh = [n for n in nodes if n.id not in known]
            changed = [n for n in nodes if n.id in known]
        # rows are made as SQLite takes them: a 20k-node patch never holds
        # 20k serialised docs at once (measured: less heap churn, ~10% faster)
        conn.executemany(INSERT_NODE, map(node_row, fresh))
        if changed:
            conn.executemany(UPSERT_NODE, map(node_row, changed))
        # FTS and side tables for the new rows, set-based
        if self._helper is not None and len(nodes) >= OVERLAP_MIN_ROWS:
            self._pending = self._helper().submit(index_new_node_rows, conn, last)
        else:
            index_new_node_rows(conn, last)

    def put_edges(self, edges: Sequence[MemoryEdge], previous: Sequence[MemoryEdge] = ()) -> None:
        if not edges and not previous:
            return  # without touching conn: the helper may be indexing nodes
        self._insert(INSERT_EDGE_HISTORY, (history_values(p.id, _json(p)) for p in previous))
        self._insert(
            UPSERT_EDGE,
            (
                edge_values(
                    e.id, e.source_id, e.target_id, e.kind, e.profile.value, e.lifecycle, _json(e)
                )
                for e in edges
            ),
        )

    def put_summaries(
        self, summaries: Sequence[MemorySummary], previous: Sequence[MemorySummary] = ()
    ) -> None:
        if not summaries and not previous:
            return
        conn = self.conn
        conn.executemany(
            "INSERT INTO summary_history(summary_id, doc) VALUES (?, ?)",
            ((p.id, to_json(p)) for p in previous),
        )
        for s in summaries:
            conn.execute(
                "INSERT OR REPLACE INTO summaries(id, domain_id, freshness, doc) VALUES (?,?,?,?)",
                (s.id, s.domain_id, s.freshness.state.value, s.model_dump_json()),
            )
            conn.executemany(
                "INSERT OR IGNORE INTO summary_covers(covered_id, summary_id) VALUES (?, ?)",
                [(cid, s.id) for cid in s.covered_ids()],
            )

    def put_manifests(self, manifests: Sequence[MemoryEmbeddingManifest]) -> None:
        if not manifests:
            return
        self.conn.executemany(
            "INSERT OR REPLACE INTO embeddings(node_id, model, dimension, source_hash, doc)"
            " VALUES (?,?,?,?,?)",
            [
                (m.node_id, m.model, m.dimension, m.source_hash, m.model_dump_json())
                for m in manifests
            ],
        )

    def put_domains(self, domains: Sequence[MemoryDomain]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO domains(id, doc) VALUES (?, ?)",
            [(d.id, d.model_dump_json()) for d in domains],
        )

    def append_receipts(self, receipts: Sequence[MemoryLifecycleReceipt]) -> None:
        # docs packed (memgraph.store.docpack): receipts were a third of a store's bytes
        rows = (
            receipt_values(r.id, r.patch_id, r.op, r.target_id, iso(r.at), _json(r))
            for r in receipts
        )
        if self._pending is not None:
            # the helper is indexing nodes: make the rows now, alongside it
            rows = list(rows)  # type: ignore[assignment]
        self._insert(INSERT_RECEIPT, rows)

    def put_patch(self, patch: MemoryPatchCandidate) -> None:
        self.conn.execute(
            UPSERT_PATCH,
            patch_values(patch.id, patch.status.value, iso(patch.created_at), _json(patch)),
        )
