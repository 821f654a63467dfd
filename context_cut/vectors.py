"""The Qdrant nerve: vectors that rank candidate ids, nothing more.

- The projection covers nodes, edges (with a claim) and summaries. Each lives in
  the collection of its partition, one per embedding model + dimension
  (``mg_<partition>_<model>_<dim>``): ``voice`` (the operator's words), ``mind``
  (agent memory: short_term, role_self, incubation, agency_pressure,
  candidate_intervention, evidence), ``modeling`` (repo_architecture,
  repo_dataflow) and ``records`` (artifacts, session notes, activity). Physical
  partitions are the design's Mind/Modeling split: a cut queries only the
  partitions of its profiles, and one partition can be rebuilt alone.
- A point's payload holds only the document id and filter fields (doc type,
  profile), and the id is never trusted: for stable node ids (``n-<16 hex>``)
  the point id IS the node id; other ids use a uuid5 point id and a hit counts
  only when uuid5(payload id) reproduces it. Documents always come from the store.
- Which model embedded which document from which source text is recorded in the
  store as ``MemoryEmbeddingManifest`` (``refresh_embedding``, with receipts).
  A changed source text makes the vector stale (``index_status`` counts them);
  ``sync_index`` re-embeds exactly the stale and missing ones and refuses a
  dimension mismatch.
- The vectors are a cache of the store: a deleted collection is rebuilt from
  store text (``VectorNerve`` does it on first use), and a rebuild ranks the
  same ids, so deleting Qdrant gives a slower but identical answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from context_cut.embedders import Embedder
from context_cut.vector_backends import (
    DimensionMismatch,
    VectorBackend,
    VectorLocation,
    VectorPoint,
    VectorQuery,
    doc_id_of,
    open_backend,
    point_id,
)
from memgraph.errors import BackendUnavailable, UsageError
from memgraph.ids import content_hash
from memgraph.store.protocol import Store

if TYPE_CHECKING:  # the write path's models and engine load in sync_index only:
    # a reader (`recall`, a context cut) never builds them
    from memgraph.documents import (
        MemoryEdge,
        MemoryEmbeddingManifest,
        MemoryNode,
        MemorySummary,
    )

__all__ = [
    "PARTITIONS",
    "DimensionMismatch",
    "IndexStatus",
    "Projected",
    "SyncReport",
    "VectorIndex",
    "VectorNerve",
    "collection_name",
    "embed_text",
    "index_status",
    "node_id_of",
    "open_nerve",
    "partition_of",
    "point_id",
    "project",
    "source_hash",
    "sync_index",
]

EMBED_TEXT_LIMIT = 4000  # characters per document; long claims are cut, not dropped
# One write unit (vectors flushed to the shard, then one manifest patch) per _BATCH
# documents: each unit costs a shard flush and a store commit, so it is large;
# embedding runs in _EMBED_BATCH slices inside it (a model's memory grows with it).
_BATCH = 1024
_EMBED_BATCH = 64

PARTITIONS: dict[str, frozenset[str]] = {
    "voice": frozenset({"voice"}),
    "mind": frozenset(
        {
            "short_term",
            "role_self",
            "incubation",
            "agency_pressure",
            "candidate_intervention",
            "evidence",
        }
    ),
    "modeling": frozenset({"repo_architecture", "repo_dataflow"}),
    "records": frozenset({"artifact", "session", "activity"}),
}
_PARTITION_OF = {p: name for name, profiles in PARTITIONS.items() for p in profiles}

node_id_of = doc_id_of  # the older name: a hit may name an edge or a summary too


def partition_of(profile: str) -> str:
    return _PARTITION_OF.get(profile, "records")


def partitions_for(profiles: Iterable[str] | None) -> list[str]:
    """The partitions holding ``profiles`` (all of them for None)."""
    if profiles is None:
        return list(PARTITIONS)
    return sorted({partition_of(p) for p in profiles})


def collection_name(model: str, dimension: int, partition: str = "voice") -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_")[:60] or "model"
    return f"mg_{partition}_{slug}_{dimension}"


def _join(*parts: str) -> str:
    return "\n".join(p for p in parts if p)[:EMBED_TEXT_LIMIT]


def embed_text(node: MemoryNode) -> str:
    """What a node's vector is computed from."""
    return _join(node.title, node.claim, node.question, node.tension, node.action_implication)


def source_hash(node: MemoryNode) -> str:
    return content_hash(embed_text(node))


@dataclass(frozen=True)
class Projected:
    """One document as the vector store sees it: id, type, filter fields, text."""

    doc_id: str
    doc: str  # node | edge | summary
    profile: str
    partition: str
    text: str

    @property
    def source_hash(self) -> str:
        return content_hash(self.text)


def _edge(edge: MemoryEdge) -> Projected | None:
    if not edge.claim.strip():
        return None  # a bare relation has no text of its own to embed
    text = _join(f"{edge.kind.replace('_', ' ')}: {edge.claim}")
    p = edge.profile.value
    return Projected(edge.id, "edge", p, partition_of(p), text)


def _summary(summary: MemorySummary, profiles: dict[str, str]) -> Projected | None:
    text = _join(
        summary.target,
        summary.claim,
        summary.question,
        summary.tension,
        summary.action_implication,
    )
    if not text:
        return None
    # a summary lives with what it covers: the profile most of its nodes have
    covered = [profiles[i] for i in summary.covers_node_ids if i in profiles]
    profile = max(sorted(set(covered)), key=covered.count) if covered else "session"
    return Projected(summary.id, "summary", profile, partition_of(profile), text)


def project(store: Store, profiles: Iterable[str] | None = None) -> list[Projected]:
    """Every document with text, in id order, limited to ``profiles`` if given."""
    wanted = set(profiles) if profiles is not None else None
    out: list[Projected] = []
    node_profiles: dict[str, str] = {}
    for n in store.iter_nodes():
        node_profiles[n.id] = n.profile.value
        text = embed_text(n)
        if text and (wanted is None or n.profile.value in wanted):
            out.append(
                Projected(n.id, "node", n.profile.value, partition_of(n.profile.value), text)
            )
    for e in store.iter_edges():
        pe = _edge(e)
        if pe is not None and (wanted is None or pe.profile in wanted):
            out.append(pe)
    for s in store.iter_summaries():
        ps = _summary(s, node_profiles)
        if ps is not None and (wanted is None or ps.profile in wanted):
            out.append(ps)
    return out


class VectorIndex:
    """The vector engine the nerve writes to and queries (see ``vector_backends``)."""

    def __init__(self, backend: VectorBackend) -> None:
        self.backend = backend

    @classmethod
    def open(
        cls,
        *,
        path: Path | str | None = None,
        url: str | None = None,
        engine: str | None = None,
    ) -> VectorIndex:
        """Qdrant at ``url`` (server or cluster), else embedded at ``path`` with
        ``engine`` (``edge`` by default; ``:memory:`` means qdrant-client's
        in-memory mode)."""
        if engine is None:
            engine = "qdrant-client" if path is None or str(path) == ":memory:" else "edge"
        return cls(open_backend(VectorLocation(path=path, url=url, engine=engine)))

    @property
    def location(self) -> str:
        return self.backend.location

    @property
    def client(self) -> Any:
        """The qdrant-client behind a server/local-mode index (tests poke it)."""
        return getattr(self.backend, "client", None)

    def close(self) -> None:
        self.backend.close()

    def dimension_of(self, collection: str) -> int | None:
        return self.backend.dimension_of(collection)

    def ensure_collection(self, collection: str, dimension: int) -> None:
        self.backend.ensure_collection(collection, dimension)

    def count(self, collection: str, exact: bool = True) -> int:
        return self.backend.count(collection, exact)

    def present(self, collection: str, doc_ids: Sequence[str]) -> set[str]:
        return self.backend.present(collection, doc_ids)

    def upsert(
        self,
        collection: str,
        doc_ids: Sequence[str],
        vectors: Sequence[list[float]],
        meta: Sequence[Projected] | None = None,
    ) -> None:
        if meta is None:
            points = [VectorPoint(d, list(v)) for d, v in zip(doc_ids, vectors, strict=True)]
        else:
            points = [
                VectorPoint(d, list(v), m.doc, m.profile)
                for d, v, m in zip(doc_ids, vectors, meta, strict=True)
            ]
        self.backend.upsert(collection, points)

    def drop(self, collection: str) -> None:
        self.backend.drop(collection)

    def query(
        self,
        collection: str,
        vector: list[float],
        limit: int,
        where: dict[str, list[str]] | None = None,
    ) -> tuple[list[tuple[str, float]], int]:
        """(document id, cosine) best first, and how many hits were untrustworthy."""
        return self.backend.query(collection, VectorQuery(vector, limit, dict(where or {})))


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
        collection = collection_name(embedder.name, dimension, partition)
        mine = by_partition.get(partition, [])
        if rebuild:
            index.drop(collection)
        if not mine and index.dimension_of(collection) is None:
            continue
        index.ensure_collection(collection, dimension)
        report.collections.append(collection)
        if index.backend.relayout(collection):  # an older shard: copied, not re-embedded
            report.relaid.append(collection)
        _sync_partition(store, index, embedder, collection, mine, manifests, report, batch)
        wants = optimize or (optimize is None and index.backend.needs_optimize(collection))
        if wants and index.backend.optimize(collection):
            report.optimized.append(collection)
    return report


def _sync_partition(
    store: Store,
    index: VectorIndex,
    embedder: Embedder,
    collection: str,
    docs: Sequence[Projected],
    manifests: dict[str, MemoryEmbeddingManifest],
    report: SyncReport,
    batch: int,
) -> None:
    from memgraph.documents import MemoryEmbeddingManifest, RefreshEmbedding, utcnow
    from memgraph.engine import apply_patch, new_patch

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
            and m.collection == collection
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
                    collection=collection,
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


@dataclass
class VectorNerve:
    """An index plus the embedder that fills it: what a context cut consults."""

    index: VectorIndex
    embedder: Embedder
    heal: bool = True
    # the word-vector table (``context_cut.word_vectors``) recall reads, if any
    words_dir: Path | None = None
    # (text, vector) embedded ahead for the next search of that text
    # (``context_cut.word_vectors.prime``); taken once
    primed: tuple[str, list[float]] | None = None
    # hits below this cosine are noise, not candidates (unrelated text scores ~0)
    min_similarity: float = 0.1
    notices: list[str] = field(default_factory=list)
    _checked: set[str] = field(default_factory=set)

    @property
    def collection(self) -> str:
        """The voice collection (the one recall reads)."""
        return collection_name(self.embedder.name, self.embedder.dimension, "voice")

    def collection_for(self, partition: str) -> str:
        return collection_name(self.embedder.name, self.embedder.dimension, partition)

    def ensure_ready(self, store: Store, partitions: Sequence[str]) -> None:
        """Rebuild a partition's vectors from the store when its collection was
        deleted or wiped but the store says it was indexed."""
        todo = [p for p in partitions if p not in self._checked]
        self._checked.update(todo)
        if not self.heal or not todo:
            return
        # (emptiness needs no exact count: Edge's exact one walks every point)
        empty = [p for p in todo if self.index.count(self.collection_for(p), exact=False) == 0]
        wanted = [prof for p in empty for prof in sorted(PARTITIONS[p])]
        # (the store is asked only when a collection is empty: counting its tables
        # costs a reader at 100k messages more than the vector query itself)
        if not wanted or store.counts().get("embeddings", 0) == 0:
            return
        report = sync_index(store, self.index, self.embedder, profiles=wanted, optimize=False)
        if report.embedded:
            self.notices.append(
                f"vector index {', '.join(report.collections)} was empty; rebuilt "
                f"{report.embedded} vectors from the store"
            )

    def search(
        self, store: Store, text: str, limit: int, profiles: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """Node ids by cosine, best first, from the partitions of ``profiles``.
        An edge hit stands for its two ends, a summary hit for the nodes it covers."""
        if profiles is not None and not profiles:
            return []
        partitions = [p for p in partitions_for(profiles) if p in PARTITIONS]
        self.ensure_ready(store, partitions)
        live = [p for p in partitions if self.index.dimension_of(self.collection_for(p))]
        if not live:
            raise BackendUnavailable(
                f"no vector collection for {', '.join(partitions)} yet; run `memgraph index`"
            )
        primed, self.primed = self.primed, None
        vector = primed[1] if primed is not None and primed[0] == text else None
        vector = vector or self.embedder.embed([text])[0]
        where = {"profile": sorted(profiles)} if profiles is not None else {}
        scored: dict[str, float] = {}
        rejected = 0
        for p in live:
            hits, bad = self.index.query(self.collection_for(p), vector, limit, where)
            rejected += bad
            for doc, score in hits:
                # engines store float32 or float64: rounding keeps ties tied, so
                # every engine ranks the same ids in the same (id-broken) order
                score = round(score, 5)
                if score >= self.min_similarity:
                    scored[doc] = max(score, scored.get(doc, score))
        if rejected:
            self.notices.append(
                f"{rejected} vector hit(s) had untrustworthy payloads and were ignored; "
                "run `memgraph index --rebuild`"
            )
        return _as_nodes(store, scored, limit)


def _as_nodes(store: Store, scored: dict[str, float], limit: int) -> list[tuple[str, float]]:
    """Fold edge and summary hits into the nodes they stand for (best score wins)."""
    edges = [d for d in scored if d.startswith("e-")]
    summaries = [d for d in scored if d.startswith("s-")]
    nodes = {d: s for d, s in scored.items() if not d.startswith(("e-", "s-"))}
    if edges or summaries:
        with store.reader() as reader:
            for eid, edge in reader.get_edges(edges).items():
                for nid in (edge.source_id, edge.target_id):
                    nodes[nid] = max(scored[eid], nodes.get(nid, 0.0))
            for sid, summary in reader.get_summaries(summaries).items():
                for nid in summary.covers_node_ids:
                    nodes[nid] = max(scored[sid], nodes.get(nid, 0.0))
    ranked = sorted(nodes.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:limit]


def open_nerve(
    embedder: Embedder,
    *,
    path: Path | str | None = None,
    url: str | None = None,
    engine: str | None = None,
) -> VectorNerve:
    """A nerve over the Qdrant at ``url`` (a server or cluster) or embedded at ``path``."""
    if engine is not None and engine not in ("edge", "qdrant-client"):
        raise UsageError(f"unknown vector engine {engine!r}: use edge or qdrant-client")
    return VectorNerve(VectorIndex.open(path=path, url=url, engine=engine), embedder)
