"""Rows -> documents, once for every SQL backend (SQLite, PostgreSQL).

Both backends keep each document as the exact JSON text the engine serialised
(``doc`` columns) and read it back the same way; only the statement plumbing
differs: the parameter mark (``?`` / ``%s``), how a list of ids reaches the
server (chunked ``IN (...)`` / one ``= ANY(%s)`` array) and which connection
and lock a read runs on. The backends subclass these two bases and supply
those few hooks; the queries and the decoding live here. SQLite stores receipts,
patches, nodes and edges packed (``memgraph.store.docpack``); ``unpack`` passes text through.

Rows decode into the pydantic documents, or, on a store a lean read marked with
``use_plain``, into the plain objects of ``memgraph.documents.plain`` (same
attribute names; no pydantic import). The document classes load on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from memgraph.store.docpack import unpack
from memgraph.store.rows import iso

if TYPE_CHECKING:
    from memgraph.documents import (
        MemoryEdge,
        MemoryEmbeddingManifest,
        MemoryGraphSnapshot,
        MemoryLifecycleReceipt,
        MemoryNode,
        MemorySummary,
    )
    from memgraph.store.protocol import Neighbourhood, PeriodQuery

Decode = Callable[[Any], Any]


class Docs:
    """Stored JSON text -> object, one function per document kind."""

    __slots__ = ("edge", "manifest", "node", "receipt", "summary")

    def __init__(
        self, node: Decode, edge: Decode, summary: Decode, receipt: Decode, manifest: Decode
    ) -> None:
        self.node, self.edge, self.summary = node, edge, summary
        self.receipt, self.manifest = receipt, manifest


_DOCUMENTS: list[Docs] = []


def _unpacking(decode: Decode) -> Decode:
    """``decode`` of a node or edge row: SQLite stores them packed since migration 105."""

    def run(doc: Any) -> Any:
        return decode(unpack(doc))

    return run


def documents() -> Docs:
    """The pydantic decoders (``Model.model_validate_json``), built on first use."""
    if not _DOCUMENTS:
        from memgraph.documents import (
            MemoryEdge,
            MemoryEmbeddingManifest,
            MemoryLifecycleReceipt,
            MemoryNode,
            MemorySummary,
        )

        _DOCUMENTS.append(
            Docs(
                _unpacking(MemoryNode.model_validate_json),
                _unpacking(MemoryEdge.model_validate_json),
                MemorySummary.model_validate_json,
                MemoryLifecycleReceipt.model_validate_json,
                MemoryEmbeddingManifest.model_validate_json,
            )
        )
    return _DOCUMENTS[0]


class _Lazy:
    """The pydantic decoders, looked up on first use (class default of ``docs``)."""

    def __get__(self, obj: object, owner: type | None = None) -> Docs:
        return documents()


_T = TypeVar("_T", bound="DocTxn")


def plain_docs() -> Docs:
    """Decoders into ``memgraph.documents.plain`` objects (embedding manifests,
    never read by a lean path, stay documents)."""
    from memgraph.documents import plain

    return Docs(
        _unpacking(plain.decoder(plain.PlainNode)),
        _unpacking(plain.decoder(plain.PlainEdge)),
        plain.decoder(plain.PlainSummary),
        plain.decoder(plain.PlainReceipt),
        lambda text: documents().manifest(text),
    )


def use_plain(store: object) -> None:
    """Make ``store``'s document reads (its own and its read snapshots') return
    plain objects (``memgraph.documents.plain``) instead of pydantic documents.
    For read-only commands (``memgraph context``, ``recall``): the engine never
    sees such a store. A backend that does not decode rows here (the in-memory
    store) keeps returning documents, which every reader accepts too."""
    if isinstance(store, DocStore):
        store.docs = store.plain = plain_docs()


def use_documents(store: object) -> None:
    """Undo ``use_plain``: ``store`` decodes pydantic documents again. For a lean
    command that finds it must write after all (``memgraph repo scan``): the
    engine reads through the store's decoders and needs documents."""
    if isinstance(store, DocStore) and store.plain is not None:
        store.docs = documents()
        store.plain = None


def _iso(dt: datetime | None) -> str | None:
    return None if dt is None else iso(dt)


class DocTxn:
    """``GraphReader`` reads of a transaction. Hooks: ``PARAM``, ``_column``
    (first column of one statement) and ``_where_in`` (a column of the rows
    whose key is one of ``ids``)."""

    PARAM = "?"
    docs: Docs = _Lazy()  # type: ignore[assignment]  # the store's, in its readers

    def _column(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        raise NotImplementedError

    def _where_in(self, select: str, table: str, key: str, ids: Iterable[str]) -> list[Any]:
        raise NotImplementedError

    def _in(self, column: str, values: Sequence[str]) -> tuple[str, list[object]]:
        """``column`` is one of ``values`` (a short list)."""
        return f"{column} IN ({','.join([self.PARAM] * len(values))})", list(values)

    def get_nodes(self, ids: Iterable[str]) -> dict[str, MemoryNode]:
        nodes = map(self.docs.node, self._where_in("doc", "nodes", "id", ids))
        return {n.id: n for n in nodes}

    def existing_node_ids(self, ids: Iterable[str]) -> set[str]:
        return set(self._where_in("id", "nodes", "id", ids))

    def get_edges(self, ids: Iterable[str]) -> dict[str, MemoryEdge]:
        edges = map(self.docs.edge, self._where_in("doc", "edges", "id", ids))
        return {e.id: e for e in edges}

    def get_summaries(self, ids: Iterable[str]) -> dict[str, MemorySummary]:
        docs = self._where_in("doc", "summaries", "id", ids)
        return {s.id: s for s in map(self.docs.summary, docs)}

    def summaries_covering(self, ids: Iterable[str]) -> list[MemorySummary]:
        sids = self._where_in("DISTINCT summary_id", "summary_covers", "covered_id", ids)
        return list(self.get_summaries(sids).values())

    def get_manifests(self, node_ids: Iterable[str]) -> dict[str, MemoryEmbeddingManifest]:
        docs = self._where_in("doc", "embeddings", "node_id", node_ids)
        return {m.node_id: m for m in map(self.docs.manifest, docs)}

    def nodes_in_domain(
        self, domain_id: str, profile: str | None = None, states: Iterable[str] | None = None
    ) -> list[MemoryNode]:
        p = self.PARAM
        sql = f"SELECT doc FROM nodes WHERE domain_id = {p}"
        args: list[object] = [domain_id]
        if profile is not None:
            sql += f" AND profile = {p}"
            args.append(profile)
        if states is not None:
            clause, values = self._in("lifecycle", list(states))
            sql += f" AND {clause}"
            args.extend(values)
        return list(map(self.docs.node, self._column(sql, args)))

    def receipts_for(self, target_id: str, op: str | None = None) -> list[MemoryLifecycleReceipt]:
        p = self.PARAM
        sql = f"SELECT doc FROM receipts WHERE target_id = {p}"
        args = [target_id]
        if op is not None:
            sql += f" AND op = {p}"
            args.append(op)
        docs = self._column(sql + " ORDER BY seq", args)
        receipt = self.docs.receipt
        return [receipt(unpack(d)) for d in docs]


class DocStore:
    """``Store`` reads that return documents. Hooks: ``PARAM`` and ``_column``
    (first column of one statement, on the store's own read path)."""

    PARAM = "?"
    docs: Docs = _Lazy()  # type: ignore[assignment]  # ``use_plain`` sets plain ones
    plain: Docs | None = None

    def _column(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        raise NotImplementedError

    def _reading(self, txn: _T) -> _T:
        """``txn`` (a read snapshot of this store) decoding as the store does."""
        if self.plain is not None:
            txn.docs = self.plain
        return txn

    def receipts(
        self, target_id: str | None = None, patch_id: str | None = None
    ) -> list[MemoryLifecycleReceipt]:
        p = self.PARAM
        sql, args = "SELECT doc FROM receipts WHERE 1=1", list[str]()
        if target_id is not None:
            sql, args = sql + f" AND target_id = {p}", [target_id]
        if patch_id is not None:
            sql, args = sql + f" AND patch_id = {p}", [*args, patch_id]
        docs = self._column(sql + " ORDER BY seq", args)
        receipt = self.docs.receipt
        return [receipt(unpack(d)) for d in docs]

    def iter_nodes(
        self, profile: str | None = None, kind: str | None = None
    ) -> Iterator[MemoryNode]:
        p = self.PARAM
        sql, args = "SELECT doc FROM nodes WHERE 1=1", list[str]()
        if profile is not None:
            sql, args = sql + f" AND profile = {p}", [*args, profile]
        if kind is not None:
            sql, args = sql + f" AND kind = {p}", [*args, kind]
        yield from map(self.docs.node, self._column(sql + " ORDER BY id", args))

    def iter_edges(self, profile: str | None = None) -> Iterator[MemoryEdge]:
        sql, args = "SELECT doc FROM edges", list[str]()
        if profile is not None:
            sql, args = sql + f" WHERE profile = {self.PARAM}", [profile]
        yield from map(self.docs.edge, self._column(sql + " ORDER BY id", args))

    def iter_summaries(self) -> Iterator[MemorySummary]:
        yield from map(self.docs.summary, self._column("SELECT doc FROM summaries ORDER BY id"))

    def nodes_in_period(self, query: PeriodQuery) -> list[MemoryNode]:
        """Indexed (profile, kind, valid_from) range read; see ``PeriodQuery``."""
        p = self.PARAM
        sql = f"SELECT doc FROM nodes WHERE profile = {p} AND kind = {p}"
        args: list[str | None] = [query.profile, query.kind]
        for column, op, bound in (
            ("lifecycle", "=", query.lifecycle),
            ("valid_from", ">=", _iso(query.starts_at_or_after)),
            ("valid_from", "<", _iso(query.starts_before)),
            ("valid_from", "<=", _iso(query.starts_at_or_before)),
            ("valid_to", ">=", _iso(query.ends_at_or_after)),
        ):
            if bound is not None:
                sql += f" AND {column} {op} {p}"
                args.append(bound)
        return list(map(self.docs.node, self._column(sql + " ORDER BY id", args)))


def snapshot_from(docs: Callable[[str], list[Any]], version: int) -> MemoryGraphSnapshot:
    """The whole store as a snapshot; ``docs(sql)`` runs each statement inside ONE
    read snapshot of the caller's. Orders are the export's contract (byte-identical
    snapshots from every backend)."""
    # the patch models (a dozen ops) load only here: reads never decode patches
    from memgraph.documents import (
        MemoryDomain,
        MemoryEdge,
        MemoryEmbeddingManifest,
        MemoryGraphSnapshot,
        MemoryLifecycleReceipt,
        MemoryNode,
        MemoryPatchCandidate,
        MemorySummary,
    )

    def read(model: Any, sql: str) -> list[Any]:
        # receipts, patches, nodes and edges may be packed (SQLite, memgraph.store.docpack)
        return [model.model_validate_json(unpack(d)) for d in docs(sql)]

    from memgraph.store.protocol import as_of

    receipts = read(MemoryLifecycleReceipt, "SELECT doc FROM receipts ORDER BY seq")
    return MemoryGraphSnapshot(
        exported_at=as_of(receipts),
        schema_version=version,
        domains=read(MemoryDomain, "SELECT doc FROM domains ORDER BY id"),
        nodes=read(MemoryNode, "SELECT doc FROM nodes ORDER BY id"),
        edges=read(MemoryEdge, "SELECT doc FROM edges ORDER BY id"),
        summaries=read(MemorySummary, "SELECT doc FROM summaries ORDER BY id"),
        receipts=receipts,
        embeddings=read(MemoryEmbeddingManifest, "SELECT doc FROM embeddings ORDER BY node_id"),
        patches=read(MemoryPatchCandidate, "SELECT doc FROM patches ORDER BY created_at, id"),
        node_history=read(MemoryNode, "SELECT doc FROM node_history ORDER BY seq"),
        edge_history=read(MemoryEdge, "SELECT doc FROM edge_history ORDER BY seq"),
        summary_history=read(MemorySummary, "SELECT doc FROM summary_history ORDER BY seq"),
    )


def walk_neighbourhood(
    txn: DocTxn,
    node_id: str,
    hops: int,
    touching: Callable[[list[str]], Iterable[tuple[str, str]]],
) -> Neighbourhood:
    """Nodes within ``hops`` edges (either direction) of ``node_id`` and the edges
    walked, read in ``txn``. ``touching(frontier)`` is the backend's statement: the
    (edge id, other end) of every edge with an end in the frontier."""
    from memgraph.store.protocol import Neighbourhood

    result = Neighbourhood(seed=node_id)
    if not txn.existing_node_ids([node_id]):
        return result
    result.distance[node_id] = 0
    frontier = [node_id]
    edge_ids: set[str] = set()
    for hop in range(1, hops + 1):
        if not frontier:
            break
        found: list[str] = []
        for eid, other in touching(frontier):
            edge_ids.add(eid)
            if other not in result.distance:
                result.distance[other] = hop
                found.append(other)
        frontier = found
    result.nodes = txn.get_nodes(list(result.distance))
    result.edges = txn.get_edges(sorted(edge_ids))
    return result


def load_snapshot(
    txn: Any, snapshot: MemoryGraphSnapshot, after_nodes: Callable[[], object] | None = None
) -> None:
    """Every document of ``snapshot`` written in ``txn`` (an empty store's write
    transaction), in the order the foreign keys need; ``after_nodes`` runs between
    the nodes and the edges (PostgreSQL fills its voice term table there)."""
    txn.put_domains(snapshot.domains)
    txn.put_node_history(snapshot.node_history)
    txn.put_nodes(snapshot.nodes, [])
    if after_nodes is not None:
        after_nodes()
    txn.put_edges(snapshot.edges, snapshot.edge_history)
    txn.put_summaries(snapshot.summaries, snapshot.summary_history)
    txn.put_manifests(snapshot.embeddings)
    for patch in snapshot.patches:
        txn.put_patch(patch)
    txn.append_receipts(snapshot.receipts)
