"""The stored form of graph rows on SQLite: the ONE helper every writer calls.

Every writer of ``nodes``, ``edges``, ``receipts`` and ``patches`` rows -- the
engine (``SQLiteTxn``), the lean ``memgraph note`` append
(``sqlite_ext/session.py``), any model-free capture writer -- builds its rows
with these functions and inserts them with these statements, so the encoding
(documents packed by ``memgraph.store.docpack`` since migration 105; the body
column is the node's text) is decided here and nowhere else. A writer that
inserts node rows then runs ``memgraph.store.schema.index_new_node_rows`` on a
connection that went through ``docpack.register`` (``SQLiteStore`` and
``LightSQLite`` connections do): the index statements read node fields with
``mg_doc(doc)``.

``doc`` arguments are the document's JSON text exactly as ``documents.to_json``
writes it (``str`` or its UTF-8 ``bytes``); readers get that text back from
``docpack.unpack``. Stdlib only: the lean writers run without pydantic.
"""

from __future__ import annotations

from memgraph.store.docpack import pack

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.rows import EdgeRow, NodeRow, PatchRow, ReceiptRow

NODE_COLUMNS = (
    "id",
    "profile",
    "kind",
    "domain_id",
    "lifecycle",
    "valid_from",
    "valid_to",
    "ingested_at",
    "updated_at",
    "title",
    "body",
    "doc",
)
EDGE_COLUMNS = ("id", "source_id", "target_id", "kind", "profile", "lifecycle", "doc")
RECEIPT_COLUMNS = ("id", "patch_id", "op", "target_id", "at", "doc")
PATCH_COLUMNS = ("id", "status", "created_at", "doc")


def _insert(head: str, columns: tuple[str, ...], tail: str = "") -> str:
    marks = ",".join("?" * len(columns))
    return f"{head} ({', '.join(columns)}) VALUES ({marks}) {tail}".strip()


# A new node is a plain INSERT (the upsert clause costs ~3.5 us per row even when
# nothing conflicts, notes/substrate.md); a changed node (its old version already
# in node_history) is the upsert.
INSERT_NODE = _insert("INSERT INTO nodes", NODE_COLUMNS)
UPSERT_NODE = _insert(
    "INSERT INTO nodes",
    NODE_COLUMNS,
    """ON CONFLICT(id) DO UPDATE SET profile=excluded.profile, kind=excluded.kind,
        domain_id=excluded.domain_id, lifecycle=excluded.lifecycle,
        valid_from=excluded.valid_from, valid_to=excluded.valid_to,
        ingested_at=excluded.ingested_at, updated_at=excluded.updated_at,
        title=excluded.title, body=excluded.body, doc=excluded.doc""",
)
INSERT_NODE_HISTORY = _insert("INSERT INTO node_history", ("node_id", "doc"))
UPSERT_EDGE = _insert("INSERT OR REPLACE INTO edges", EDGE_COLUMNS)
INSERT_EDGE_HISTORY = _insert("INSERT INTO edge_history", ("edge_id", "doc"))
INSERT_RECEIPT = _insert("INSERT INTO receipts", RECEIPT_COLUMNS)
UPSERT_PATCH = _insert("INSERT OR REPLACE INTO patches", PATCH_COLUMNS)

Value = str | bytes | None


def node_body(claim: str, question: str, tension: str, action_implication: str) -> str:
    """The ``body`` column (what the node FTS and the voice indexes read)."""
    return "\n".join(t for t in (claim, question, tension, action_implication) if t)


def node_values(
    id: str,
    profile: str,
    kind: str,
    domain_id: str,
    lifecycle: str,
    valid_from: str | None,
    valid_to: str | None,
    ingested_at: str | None,
    updated_at: str | None,
    title: str,
    body: str,
    doc: str | bytes,
) -> tuple[Value, ...]:
    """One ``nodes`` row in ``NODE_COLUMNS`` order (times as ``sqlite.iso`` text)."""
    return (
        id,
        profile,
        kind,
        domain_id,
        lifecycle,
        valid_from,
        valid_to,
        ingested_at,
        updated_at,
        title,
        body,
        pack(doc),
    )


def history_values(doc_id: str, doc: str | bytes) -> tuple[Value, ...]:
    """One ``node_history`` / ``edge_history`` row: the replaced version."""
    return (doc_id, pack(doc))


def edge_values(
    id: str,
    source_id: str,
    target_id: str,
    kind: str,
    profile: str,
    lifecycle: str,
    doc: str | bytes,
) -> tuple[Value, ...]:
    """One ``edges`` row in ``EDGE_COLUMNS`` order."""
    return (id, source_id, target_id, kind, profile, lifecycle, pack(doc))


def receipt_values(
    id: str, patch_id: str, op: str, target_id: str, at: str | None, doc: str | bytes
) -> tuple[Value, ...]:
    """One ``receipts`` row in ``RECEIPT_COLUMNS`` order."""
    return (id, patch_id, op, target_id, at, pack(doc))


def patch_values(
    id: str, status: str, created_at: str | None, doc: str | bytes
) -> tuple[Value, ...]:
    """One ``patches`` row in ``PATCH_COLUMNS`` order."""
    return (id, status, created_at, pack(doc))


# -- the lean rows (memgraph.store.rows), as model-free writers hand them over ---------


def node_row_values(n: NodeRow) -> tuple[Value, ...]:
    return node_values(
        n.id,
        n.profile,
        n.kind,
        n.domain_id,
        n.lifecycle,
        n.valid_from,
        n.valid_to,
        n.ingested_at,
        n.updated_at,
        n.title,
        n.body,
        n.doc,
    )


def edge_row_values(e: EdgeRow) -> tuple[Value, ...]:
    return edge_values(e.id, e.source_id, e.target_id, e.kind, e.profile, e.lifecycle, e.doc)


def receipt_row_values(r: ReceiptRow) -> tuple[Value, ...]:
    return receipt_values(r.id, r.patch_id, r.op, r.target_id, r.at, r.doc)


def patch_row_values(p: PatchRow) -> tuple[Value, ...]:
    return patch_values(p.id, p.status, p.created_at, p.doc)


__all__ = [
    "EDGE_COLUMNS",
    "INSERT_EDGE_HISTORY",
    "INSERT_NODE",
    "INSERT_NODE_HISTORY",
    "INSERT_RECEIPT",
    "NODE_COLUMNS",
    "UPSERT_EDGE",
    "UPSERT_NODE",
    "UPSERT_PATCH",
    "edge_row_values",
    "edge_values",
    "history_values",
    "node_body",
    "node_row_values",
    "node_values",
    "patch_row_values",
    "patch_values",
    "receipt_row_values",
    "receipt_values",
]
