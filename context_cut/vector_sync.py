"""Keeping the vectors in line with the store: ``sync_index`` and ``index_status``.

- Which model embedded which document from which source text is recorded in the
  store as ``MemoryEmbeddingManifest`` (``refresh_embedding``, with receipts).
  A changed source text makes the vector stale (``index_status`` counts them);
  ``sync_index`` re-embeds exactly the stale and missing ones and refuses a
  dimension mismatch.
- Vectors are written first and their manifests after, one batch at a time, so
  a killed sync resumes where it stopped (tests/context_cut/test_vectors_kill.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from context_cut.embedders import Embedder
from context_cut.vector_backends import DimensionMismatch
from context_cut.vector_index import VectorIndex
from context_cut.vector_projection import (
    Projected,
    collection_name,
    partitions_for,
    project,
    qdrant_collection,
    store_collection,
)
from memgraph.store.protocol import Store

if TYPE_CHECKING:  # the write path's models and engine load in sync_index only:
    # a reader (`recall`, a context cut) never builds them
    from memgraph.documents import MemoryEmbeddingManifest

__all__ = ["IndexStatus", "SyncReport", "index_status", "sync_index"]

# One write unit (vectors flushed to the shard, then one manifest patch) per _BATCH
# documents: each unit costs a shard flush and a store commit, so it is large;
# embedding runs in _EMBED_BATCH slices inside it (a model's memory grows with it).
_BATCH = 1024
_EMBED_BATCH = 64


@dataclass
class SyncReport:
    model: str
    dimension: int
    collections: list[str] = field(default_factory=list)
    scanned: int = 0
    embedded: int = 0  # vectors written (changed text, new document, or missing point)
    manifests: int = 0  # manifests written through refresh_embedding
    unchanged: int = 0
    optimized: list[str] = field(default_factory=list)
    relaid: list[str] = field(default_factory=list)  # rewritten into the current layout

    def line(self) -> str:
        where = ", ".join(self.collections) or "no collections"
        extra = f", optimized {', '.join(self.optimized)}" if self.optimized else ""
        if self.relaid:
            extra += f", rewrote {', '.join(self.relaid)} in the WAL-less layout"
        return (
            f"{where}: scanned {self.scanned}, embedded {self.embedded}, "
            f"manifests {self.manifests}, unchanged {self.unchanged}"
            f"{extra}"
        )


def _chunks(items: Sequence[Projected], size: int) -> Iterator[Sequence[Projected]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _check_dimension(manifests: Iterable[MemoryEmbeddingManifest], embedder: Embedder) -> None:
    clash = next(
        (m for m in manifests if m.model == embedder.name and m.dimension != embedder.dimension),
        None,
    )
    if clash is not None:
        raise DimensionMismatch(
            f"{embedder.name} was indexed at {clash.dimension} dims but now returns "
            f"{embedder.dimension}; refusing to mix them (run `memgraph index --rebuild`)"
        )


def sync_index(
    store: Store,
    index: VectorIndex,
    embedder: Embedder,
    *,
    rebuild: bool = False,
    profiles: Iterable[str] | None = None,
    batch: int = _BATCH,
    optimize: bool | None = None,
) -> SyncReport:
    """Bring the collections for ``embedder`` in line with the store.

    A document is (re-)embedded when it has no manifest for this model, its
    source text changed (a stale vector), or its point is missing. Manifests are
    written only when the hash or model changed, so rebuilding a deleted
    collection writes nothing to the store. Vectors go first, their manifests
    after, one batch at a time: a killed run resumes where it stopped.
    ``profiles`` limits the sync to those profiles (scoped sync). Shards that
    grew past the engine's threshold are optimised at the end (``optimize``
    True forces it, False skips it); a search never waits for that.
    """
    dimension = embedder.dimension
    docs = project(store, profiles)
    with store.reader() as reader:
        manifests = reader.get_manifests([d.doc_id for d in docs])
    if not rebuild:
        _check_dimension(manifests.values(), embedder)
    report = SyncReport(model=embedder.name, dimension=dimension, scanned=len(docs))
    by_partition: dict[str, list[Projected]] = {}
    for d in docs:
        by_partition.setdefault(d.partition, []).append(d)
    for partition in partitions_for(profiles):
        named = collection_name(embedder.name, dimension, partition)  # as manifests say
        collection = store_collection(
            index.dimension_of, embedder.name, dimension, partition, store=store
        )
        mine = by_partition.get(partition, [])
        if rebuild:  # (the store's collection from before its id too: made anew by id)
            index.drop(collection)
            collection = qdrant_collection(embedder.name, dimension, partition, store=store)
        if not mine and index.dimension_of(collection) is None:
            continue
        index.ensure_collection(collection, dimension)
        report.collections.append(collection)
        if index.backend.relayout(collection):  # an older shard: copied, not re-embedded
            report.relaid.append(collection)
        where = (named, collection)
        _sync_partition(store, index, embedder, where, mine, manifests, report, batch)
        wants = optimize or (optimize is None and index.backend.needs_optimize(collection))
        if wants and index.backend.optimize(collection):
            report.optimized.append(collection)
    return report


def _sync_partition(
    store: Store,
    index: VectorIndex,
    embedder: Embedder,
    where: tuple[str, str],
    docs: Sequence[Projected],
    manifests: dict[str, MemoryEmbeddingManifest],
    report: SyncReport,
    batch: int,
) -> None:
    """Embed the partition's stale and missing documents into ``where``: (the
    collection as manifests name it, the store's own collection in Qdrant)."""
    from memgraph.documents import MemoryEmbeddingManifest, RefreshEmbedding, utcnow
    from memgraph.engine import apply_patch, new_patch

    named, collection = where
    present = index.present(collection, [d.doc_id for d in docs])
    todo: list[Projected] = []
    fresh_manifest: set[str] = set()
    for d in docs:
        m = manifests.get(d.doc_id)
        current = (
            m is not None
            and m.model == embedder.name
            and m.dimension == embedder.dimension
            and m.source_hash == d.source_hash
            and m.collection == named
        )
        if current and d.doc_id in present:
            report.unchanged += 1
            continue
        if current:
            fresh_manifest.add(d.doc_id)
        todo.append(d)
    for chunk in _chunks(todo, batch):
        vectors = [
            v
            for part in _chunks(chunk, _EMBED_BATCH)
            for v in embedder.embed([d.text for d in part])
        ]
        bad = next((len(v) for v in vectors if len(v) != embedder.dimension), None)
        if bad is not None:
            raise DimensionMismatch(
                f"{embedder.name} declared {embedder.dimension} dims but returned a "
                f"{bad}-dim vector"
            )
        index.upsert(collection, [d.doc_id for d in chunk], vectors, chunk)
        report.embedded += len(chunk)
        now = utcnow()
        ops: list[Any] = [
            RefreshEmbedding(
                manifest=MemoryEmbeddingManifest(
                    node_id=d.doc_id,
                    model=embedder.name,
                    dimension=embedder.dimension,
                    source_hash=d.source_hash,
                    embedded_at=now,
                    collection=named,
                )
            )
            for d in chunk
            if d.doc_id not in fresh_manifest
        ]
        if ops:
            # Vectors first, manifests after: a crash in between leaves a manifest
            # that is behind its vector, which the next sync simply redoes.
            apply_patch(store, new_patch(ops, proposer="memgraph.index", reason="sync index"))
            report.manifests += len(ops)


@dataclass
class IndexStatus:
    """Per partition: documents to embed, vectors current, stale, missing."""

    model: str
    dimension: int
    partitions: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def stale(self) -> int:
        return sum(p["stale"] for p in self.partitions.values())

    def lines(self) -> list[str]:
        return [
            f"{name}: {c['documents']} document{'' if c['documents'] == 1 else 's'}, "
            f"{c['current']} current, "
            f"{c['stale']} stale, {c['missing']} missing"
            for name, c in sorted(self.partitions.items())
        ]


def index_status(
    store: Store, embedder: Embedder, profiles: Iterable[str] | None = None
) -> IndexStatus:
    """Which vectors are stale (source text changed since embedding) or missing,
    read from the manifests alone (the vector engine is not consulted)."""
    docs = project(store, profiles)
    with store.reader() as reader:
        manifests = reader.get_manifests([d.doc_id for d in docs])
    status = IndexStatus(model=embedder.name, dimension=embedder.dimension)
    for name in partitions_for(profiles):
        status.partitions[name] = {"documents": 0, "current": 0, "stale": 0, "missing": 0}
    for d in docs:
        counts = status.partitions[d.partition]
        counts["documents"] += 1
        m = manifests.get(d.doc_id)
        if m is None or m.model != embedder.name or m.dimension != embedder.dimension:
            counts["missing"] += 1
        elif m.source_hash != d.source_hash:
            counts["stale"] += 1
        else:
            counts["current"] += 1
    return status
