"""The Qdrant nerve: vectors that rank candidate ids, nothing more.

A ``VectorNerve`` is an index (``context_cut.vector_index``) plus the embedder
that fills it: what a context cut consults. It queries the collections of the
partitions its profiles live in (``context_cut.vector_projection``) and folds
edge and summary hits into the nodes they stand for.

The vectors are a cache of the store: a deleted collection is rebuilt from store
text (the nerve does it on first use, through ``context_cut.vector_sync``), and
a rebuild ranks the same ids, so deleting Qdrant gives a slower but identical
answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from context_cut.embedders import Embedder
from context_cut.vector_backends import ENGINES, doc_id_of
from context_cut.vector_index import VectorIndex
from context_cut.vector_projection import (
    PARTITIONS,
    collection_name,
    partitions_for,
    store_collection,
)
from context_cut.vector_sync import sync_index
from memgraph.errors import BackendUnavailable, UsageError
from memgraph.store.protocol import Store
from memgraph.terminal import plural

__all__ = ["VectorNerve", "node_id_of", "open_nerve"]

node_id_of = doc_id_of  # the older name: a hit may name an edge or a summary too


@dataclass
class VectorNerve:
    """An index plus the embedder that fills it: what a context cut consults."""

    index: VectorIndex
    embedder: Embedder
    heal: bool = True
    # the word-vector table (``context_cut.word_vectors``) recall reads, if any
    words_dir: Path | None = None
    # the token-vector table (``context_cut.token_vectors``, late interaction), if any
    tokens_dir: Path | None = None
    # (text, vector) embedded ahead for the next search of that text
    # (``context_cut.word_vectors.prime``); taken once
    primed: tuple[str, list[float]] | None = None
    # hits below this cosine are noise, not candidates (unrelated text scores ~0)
    min_similarity: float = 0.1
    notices: list[str] = field(default_factory=list)
    _checked: set[tuple[str, str]] = field(default_factory=set)  # (store, partition)
    _names: dict[tuple[str, str], str] = field(default_factory=dict)  # collection_for's

    def collection_for(self, partition: str, store: Store) -> str:
        """The store's own collection of ``partition`` (``store_collection``: by its
        id, or its collection from before the id while that is the one there)."""
        key = (store.location, partition)
        if key not in self._names:
            self._names[key] = store_collection(
                self.index.dimension_of,
                self.embedder.name,
                self.embedder.dimension,
                partition,
                store=store,
            )
        return self._names[key]

    def _shared(self, partition: str) -> str:
        """The partition's collection from before per-store ones (no store tag)."""
        return collection_name(self.embedder.name, self.embedder.dimension, partition)

    def ensure_ready(self, store: Store, partitions: Sequence[str]) -> None:
        """Rebuild a partition's vectors from the store when its collection was
        deleted or wiped (or never made in this Qdrant) but the store says it was
        indexed; not when this Qdrant holds the partition's shared collection from
        before per-store ones (an upgrade: the store's first ``memgraph index``
        fills its own, and searches say so meanwhile)."""
        todo = [p for p in partitions if (store.location, p) not in self._checked]
        self._checked.update((store.location, p) for p in todo)
        if not self.heal or not todo:
            return
        # (emptiness needs no exact count: Edge's exact one walks every point)
        empty = [
            p for p in todo if self.index.count(self.collection_for(p, store), exact=False) == 0
        ]
        # (the store is asked only when a collection is empty: counting its tables
        # costs a reader at 100k messages more than the vector query itself)
        if not empty or store.counts().get("embeddings", 0) == 0:
            return
        # A Qdrant from before per-store collections: the whole store is to embed
        # again (minutes with MiniLM), which is `memgraph index`'s work, not a search's
        before = [p for p in empty if self.index.dimension_of(self._shared(p)) is not None]
        if before:
            self.notices.append(
                f"vector index {', '.join(self._shared(p) for p in before)} is from before "
                "each store had its own; run `memgraph index` to fill this store's"
            )
        wanted = [prof for p in empty if p not in before for prof in sorted(PARTITIONS[p])]
        if not wanted:
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
        live = [p for p in partitions if self.index.dimension_of(self.collection_for(p, store))]
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
            hits, bad = self.index.query(self.collection_for(p, store), vector, limit, where)
            rejected += bad
            for doc, score in hits:
                # engines store float32 or float64: rounding keeps ties tied, so
                # every engine ranks the same ids in the same (id-broken) order
                score = round(score, 5)
                if score >= self.min_similarity:
                    scored[doc] = max(score, scored.get(doc, score))
        if rejected:
            self.notices.append(
                f"{plural(rejected, 'vector hit')} had untrustworthy payloads and were ignored; "
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
    if engine is not None and engine not in ENGINES:
        raise UsageError(f"unknown vector engine {engine!r}: use {' or '.join(sorted(ENGINES))}")
    return VectorNerve(VectorIndex.open(path=path, url=url, engine=engine), embedder)
