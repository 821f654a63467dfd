"""The Qdrant nerve: vectors that rank candidate node ids, nothing more.

- One collection per embedding model + dimension (``mg_<model>_<dim>``).
- A point's payload holds only the node id, and even that is never trusted:
  for memgraph's stable ids (``n-<16 hex>``) the point id IS the node id (the
  64-bit hex as an unsigned int), so a hit maps back to a node without reading
  the payload; other ids use a uuid5 point id and a hit counts only when
  uuid5(payload id) reproduces the point id. Documents always come from the store.
- Which model embedded which node from which source text is recorded in the
  store as ``MemoryEmbeddingManifest`` via the engine's ``refresh_embedding``
  op (with receipts). ``sync_index`` re-embeds only nodes whose source hash
  changed or whose point is missing, and refuses a dimension mismatch.
- The vectors are a cache of the store: a deleted or wiped collection is
  rebuilt from store text (``VectorNerve`` does it on first use), so deleting
  Qdrant gives a slower but identical answer.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from context_cut.embedders import Embedder
from memgraph.documents import MemoryEmbeddingManifest, MemoryNode, RefreshEmbedding, utcnow
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import BackendUnavailable, MemgraphError, MissingExtra
from memgraph.ids import content_hash
from memgraph.store.protocol import Store

_STABLE = re.compile(r"^n-[0-9a-f]{16}$")
_POINT_NS = uuid.UUID("5b0f7e4e-2f1c-4d3a-9c55-6d656d677261")
EMBED_TEXT_LIMIT = 4000  # characters per node; long claims are cut, not dropped
_BATCH = 64


class DimensionMismatch(MemgraphError):
    """An index holds vectors of another width than the embedder produces."""


def point_id(node_id: str) -> int | str:
    """Qdrant point id for a node id (reversible for stable ids)."""
    if _STABLE.match(node_id):
        return int(node_id[2:], 16)
    return str(uuid.uuid5(_POINT_NS, node_id))


def node_id_of(point: int | str, payload: dict[str, Any] | None) -> str | None:
    """The node id a hit stands for, or None when it cannot be trusted."""
    if isinstance(point, int):
        return f"n-{point:016x}"
    claimed = (payload or {}).get("node_id")
    if isinstance(claimed, str) and str(point_id(claimed)) == str(point):
        return claimed
    return None


def embed_text(node: MemoryNode) -> str:
    """What a node's vector is computed from."""
    parts = (node.title, node.claim, node.question, node.tension, node.action_implication)
    return "\n".join(p for p in parts if p)[:EMBED_TEXT_LIMIT]


def source_hash(node: MemoryNode) -> str:
    return content_hash(embed_text(node))


def collection_name(model: str, dimension: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_")[:60] or "model"
    return f"mg_{slug}_{dimension}"


class VectorIndex:
    """qdrant-client, embedded at a local path (the default) or at a server URL."""

    def __init__(self, client: Any, location: str) -> None:
        self.client = client
        self.location = location

    @classmethod
    def open(cls, *, path: Path | str | None = None, url: str | None = None) -> VectorIndex:
        try:
            from qdrant_client import QdrantClient
        except ImportError:
            raise MissingExtra("qdrant", "qdrant-client") from None
        try:
            if url:
                return cls(QdrantClient(url=url, timeout=10), url)
            if path is None or str(path) == ":memory:":
                return cls(QdrantClient(location=":memory:"), ":memory:")
            Path(path).mkdir(parents=True, exist_ok=True)
            return cls(QdrantClient(path=str(path)), str(path))
        except Exception as exc:  # lock held by another process, bad URL...
            reason = " ".join(str(exc).split())[:160]
            raise BackendUnavailable(f"qdrant at {url or path}: {reason}") from None

    def close(self) -> None:
        self.client.close()

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MemgraphError:
            raise
        except Exception as exc:
            reason = " ".join(str(exc).split())[:160] or type(exc).__name__
            raise BackendUnavailable(
                f"qdrant at {self.location}: {what} failed: {reason}"
            ) from None

    def dimension_of(self, collection: str) -> int | None:
        if not self._call("exists", self.client.collection_exists, collection):
            return None
        info = self._call("get_collection", self.client.get_collection, collection)
        vectors = info.config.params.vectors
        size = getattr(vectors, "size", None)
        return int(size) if size is not None else None

    def ensure_collection(self, collection: str, dimension: int) -> None:
        from qdrant_client.models import Distance, VectorParams

        have = self.dimension_of(collection)
        if have is None:
            params = VectorParams(size=dimension, distance=Distance.COSINE)
            self._call("create", self.client.create_collection, collection, vectors_config=params)
        elif have != dimension:
            raise DimensionMismatch(
                f"collection {collection} holds {have}-dim vectors but the embedder makes "
                f"{dimension}; rebuild it with `memgraph index --rebuild`"
            )

    def count(self, collection: str) -> int:
        if self.dimension_of(collection) is None:
            return 0
        return int(self._call("count", self.client.count, collection, exact=True).count)

    def present(self, collection: str, node_ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        by_point = {str(point_id(n)): n for n in node_ids}
        ids = [point_id(n) for n in node_ids]
        for i in range(0, len(ids), 1000):
            records = self._call(
                "retrieve",
                self.client.retrieve,
                collection,
                ids=ids[i : i + 1000],
                with_payload=False,
                with_vectors=False,
            )
            found.update(by_point[str(r.id)] for r in records if str(r.id) in by_point)
        return found

    def upsert(
        self, collection: str, node_ids: Sequence[str], vectors: Sequence[list[float]]
    ) -> None:
        from qdrant_client.models import PointStruct

        points = [
            PointStruct(id=point_id(n), vector=v, payload={"node_id": n})
            for n, v in zip(node_ids, vectors, strict=True)
        ]
        self._call("upsert", self.client.upsert, collection, points=points, wait=True)

    def drop(self, collection: str) -> None:
        if self.dimension_of(collection) is not None:
            self._call("delete", self.client.delete_collection, collection)

    def query(
        self, collection: str, vector: list[float], limit: int
    ) -> tuple[list[tuple[str, float]], int]:
        """(node id, cosine) best first, and how many hits were untrustworthy."""
        response = self._call(
            "query",
            self.client.query_points,
            collection,
            query=vector,
            limit=limit,
            with_payload=True,
        )
        hits: list[tuple[str, float]] = []
        rejected = 0
        for p in response.points:
            payload = p.payload if isinstance(p.payload, dict) else None
            nid = node_id_of(p.id, payload)
            if nid is None:
                rejected += 1
            else:
                hits.append((nid, float(p.score)))
        return hits, rejected


@dataclass
class SyncReport:
    collection: str
    model: str
    dimension: int
    scanned: int = 0
    embedded: int = 0  # vectors written (changed text, new node, or missing point)
    manifests: int = 0  # manifests written through refresh_embedding
    unchanged: int = 0

    def line(self) -> str:
        return (
            f"{self.collection}: scanned {self.scanned}, embedded {self.embedded}, "
            f"manifests {self.manifests}, unchanged {self.unchanged}"
        )


def _chunks(items: Sequence[MemoryNode], size: int) -> Iterator[Sequence[MemoryNode]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def sync_index(
    store: Store,
    index: VectorIndex,
    embedder: Embedder,
    *,
    rebuild: bool = False,
    profiles: Iterable[str] | None = None,
    batch: int = _BATCH,
) -> SyncReport:
    """Bring the collection for ``embedder`` in line with the store.

    A node is (re-)embedded when it has no manifest for this model, its source
    text hash changed (a stale vector), or its point is missing from Qdrant.
    Manifests are written only when the hash or model changed, so rebuilding a
    deleted collection writes nothing to the store.
    """
    dimension = embedder.dimension
    collection = collection_name(embedder.name, dimension)
    wanted = set(profiles) if profiles is not None else None
    nodes = [n for n in store.iter_nodes() if wanted is None or n.profile.value in wanted]
    with store.reader() as reader:
        manifests = reader.get_manifests([n.id for n in nodes])
    if not rebuild:
        clash = next(
            (
                m
                for m in manifests.values()
                if m.model == embedder.name and m.dimension != dimension
            ),
            None,
        )
        if clash is not None:
            raise DimensionMismatch(
                f"{embedder.name} was indexed at {clash.dimension} dims but now returns "
                f"{dimension}; refusing to mix them (run `memgraph index --rebuild`)"
            )
    else:
        index.drop(collection)
    index.ensure_collection(collection, dimension)
    report = SyncReport(collection=collection, model=embedder.name, dimension=dimension)
    report.scanned = len(nodes)
    present = index.present(collection, [n.id for n in nodes])
    todo: list[MemoryNode] = []
    fresh_manifest: set[str] = set()
    for n in nodes:
        m = manifests.get(n.id)
        current = (
            m is not None
            and m.model == embedder.name
            and m.dimension == dimension
            and m.source_hash == source_hash(n)
            and m.collection == collection
        )
        if current and not rebuild and n.id in present:
            report.unchanged += 1
            continue
        if current:
            fresh_manifest.add(n.id)
        todo.append(n)
    for chunk in _chunks(todo, batch):
        vectors = embedder.embed([embed_text(n) for n in chunk])
        bad = next((len(v) for v in vectors if len(v) != dimension), None)
        if bad is not None:
            raise DimensionMismatch(
                f"{embedder.name} declared {dimension} dims but returned a {bad}-dim vector"
            )
        index.upsert(collection, [n.id for n in chunk], vectors)
        report.embedded += len(chunk)
        now = utcnow()
        ops: list[Any] = [
            RefreshEmbedding(
                manifest=MemoryEmbeddingManifest(
                    node_id=n.id,
                    model=embedder.name,
                    dimension=dimension,
                    source_hash=source_hash(n),
                    embedded_at=now,
                    collection=collection,
                )
            )
            for n in chunk
            if n.id not in fresh_manifest
        ]
        if ops:
            # Vectors first, manifests after: a crash in between leaves a manifest
            # that is behind its vector, which the next sync simply redoes.
            apply_patch(store, new_patch(ops, proposer="memgraph.index", reason="sync index"))
            report.manifests += len(ops)
    return report


@dataclass
class VectorNerve:
    """An index plus the embedder that fills it: what a context cut consults."""

    index: VectorIndex
    embedder: Embedder
    heal: bool = True
    # hits below this cosine are noise, not candidates (unrelated text scores ~0)
    min_similarity: float = 0.1
    notices: list[str] = field(default_factory=list)
    _checked: bool = False

    @property
    def collection(self) -> str:
        return collection_name(self.embedder.name, self.embedder.dimension)

    def ensure_ready(self, store: Store) -> None:
        """Rebuild the vectors from the store when the collection was deleted or wiped."""
        if self._checked:
            return
        self._checked = True
        if not self.heal or self.index.count(self.collection) > 0:
            return
        if store.counts().get("embeddings", 0) == 0:
            return
        report = sync_index(store, self.index, self.embedder)
        self.notices.append(
            f"vector index {report.collection} was empty; rebuilt {report.embedded} "
            "vectors from the store"
        )

    def search(self, store: Store, text: str, limit: int) -> list[tuple[str, float]]:
        self.ensure_ready(store)
        collection = self.collection
        if self.index.dimension_of(collection) is None:
            raise BackendUnavailable(f"no vector collection {collection} yet; run `memgraph index`")
        vector = self.embedder.embed([text])[0]
        hits, rejected = self.index.query(collection, vector, limit)
        hits = [(n, score) for n, score in hits if score >= self.min_similarity]
        if rejected:
            self.notices.append(
                f"{rejected} vector hit(s) had untrustworthy payloads and were ignored; "
                "run `memgraph index --rebuild`"
            )
        return hits


def open_nerve(
    embedder: Embedder, *, path: Path | str | None = None, url: str | None = None
) -> VectorNerve:
    """A nerve over the Qdrant at ``url`` (a server or cluster) or embedded at ``path``."""
    return VectorNerve(VectorIndex.open(path=path, url=url), embedder)
