"""Vector engines behind the Qdrant nerve: one protocol, a registry of backends.

- ``edge``: Qdrant Edge (``qdrant-edge-py``), an in-process shard per collection
  in a local directory (``context_cut.vector_edge``). The embedded default: it
  keeps points on disk, answers a query in milliseconds at 100k points and
  reopens in a fraction of a second.
- ``qdrant-client``: qdrant-client against a server or cluster URL (fleets), or
  its pure-Python local mode (a path, or ``:memory:``), kept as the stand-in for
  a server in tests because no Qdrant server runs on this machine.

A backend stores vectors and a payload of ids and filter fields only; content
always reloads from the canonical store. Index optimisation (HNSW builds) is an
explicit call, never part of a query: ``memgraph index`` runs it when a shard
has grown past a threshold, so a search command never waits for it.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from memgraph.errors import BackendUnavailable, ConfigError, MemgraphError, MissingExtra

_STABLE = re.compile(r"^n-[0-9a-f]{16}$")
_POINT_NS = uuid.UUID("5b0f7e4e-2f1c-4d3a-9c55-6d656d677261")
# payload fields every point carries (ids and filter fields, never content)
FILTER_FIELDS = ("doc", "profile")
# unindexed points in a shard past which `memgraph index` builds its HNSW graph
OPTIMIZE_AT = 20_000


class DimensionMismatch(MemgraphError):
    """An index holds vectors of another width than the embedder produces."""


def point_id(doc_id: str) -> int | str:
    """Point id for a document id (reversible for stable node ids)."""
    if _STABLE.match(doc_id):
        return int(doc_id[2:], 16)
    return str(uuid.uuid5(_POINT_NS, doc_id))


def doc_id_of(point: Any, payload: dict[str, Any] | None) -> str | None:
    """The document id a hit stands for, or None when it cannot be trusted."""
    if isinstance(point, int):
        return f"n-{point:016x}"
    claimed = (payload or {}).get("node_id")
    if isinstance(claimed, str) and str(point_id(claimed)) == str(point):
        return claimed
    return None


@dataclass(frozen=True)
class VectorPoint:
    """One vector to store: the document id and its filter fields."""

    doc_id: str
    vector: list[float]
    doc: str = "node"  # node | edge | summary
    profile: str = ""

    def payload(self) -> dict[str, Any]:
        return {"node_id": self.doc_id, "doc": self.doc, "profile": self.profile}


@dataclass(frozen=True)
class VectorQuery:
    """Nearest neighbours of ``vector``, optionally only points whose payload
    field matches one of the given values (``{"profile": ["voice"]}``)."""

    vector: list[float]
    limit: int
    where: dict[str, list[str]] = field(default_factory=dict)


class VectorBackend(Protocol):
    """What the nerve needs from a vector engine."""

    location: str

    def dimension_of(self, collection: str) -> int | None: ...

    def ensure_collection(self, collection: str, dimension: int) -> None: ...

    def collections(self) -> list[str]: ...

    def count(self, collection: str, exact: bool = True) -> int:
        """Points in ``collection``; ``exact=False`` may be the engine's cheap
        estimate (what an emptiness check needs)."""
        ...

    def present(self, collection: str, doc_ids: Sequence[str]) -> set[str]: ...

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None: ...

    def delete(self, collection: str, doc_ids: Sequence[str]) -> None: ...

    def drop(self, collection: str) -> None: ...

    def query(self, collection: str, query: VectorQuery) -> tuple[list[tuple[str, float]], int]:
        """(document id, cosine) best first, and how many hits were untrustworthy."""
        ...

    def needs_optimize(self, collection: str) -> bool: ...

    def optimize(self, collection: str) -> bool: ...

    def relayout(self, collection: str) -> bool:
        """Rewrite a collection stored in an older on-disk layout into the current
        one, points copied as they are (no re-embedding); False when current."""
        ...

    def close(self) -> None: ...


def _reason(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:160] or type(exc).__name__


def _checked(location: str, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    try:
        return fn(*args, **kw)
    except MemgraphError:
        raise
    except Exception as exc:
        raise BackendUnavailable(f"qdrant at {location}: {what} failed: {_reason(exc)}") from None


def _mismatch(collection: str, have: int, want: int) -> DimensionMismatch:
    return DimensionMismatch(
        f"collection {collection} holds {have}-dim vectors but the embedder makes "
        f"{want}; rebuild it with `memgraph index --rebuild`"
    )


def _hits(points: Sequence[Any]) -> tuple[list[tuple[str, float]], int]:
    hits: list[tuple[str, float]] = []
    rejected = 0
    for p in points:
        payload = p.payload if isinstance(p.payload, dict) else None
        doc = doc_id_of(p.id, payload)
        if doc is None:
            rejected += 1
        else:
            hits.append((doc, float(p.score)))
    return hits, rejected


def _present(doc_ids: Sequence[str], fetch: Callable[[list[Any]], Sequence[Any]]) -> set[str]:
    """Which of ``doc_ids`` have a point: ``fetch`` retrieves point records by id,
    1,000 ids a call."""
    by_point = {str(point_id(d)): d for d in doc_ids}
    ids = [point_id(d) for d in doc_ids]
    found: set[str] = set()
    for i in range(0, len(ids), 1000):
        found.update(by_point[str(r.id)] for r in fetch(ids[i : i + 1000]) if str(r.id) in by_point)
    return found


_COLLECTION = re.compile(r"^[a-z0-9_]{1,120}$")


class ClientBackend:
    """qdrant-client: a server/cluster URL, or its local mode at a path / in memory."""

    def __init__(self, client: Any, location: str) -> None:
        self.client = client
        self.location = location

    @classmethod
    def open(cls, *, path: Path | str | None = None, url: str | None = None) -> ClientBackend:
        try:
            from qdrant_client import QdrantClient
        except ImportError:
            raise MissingExtra("qdrant", "qdrant-client") from None
        try:
            if url:
                try:  # no version probe: its thread's UserWarning reached stderr beside
                    # memgraph's own line when the server was down (qdrant-client >= 1.13)
                    client = QdrantClient(url=url, timeout=10, check_compatibility=False)
                except TypeError:
                    client = QdrantClient(url=url, timeout=10)
                return cls(client, url)
            if path is None or str(path) == ":memory:":
                return cls(QdrantClient(location=":memory:"), ":memory:")
            Path(path).mkdir(parents=True, exist_ok=True)
            return cls(QdrantClient(path=str(path)), str(path))
        except Exception as exc:  # lock held by another process, bad URL...
            raise BackendUnavailable(f"qdrant at {url or path}: {_reason(exc)}") from None

    def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        return _checked(self.location, what, fn, *args, **kw)

    def dimension_of(self, collection: str) -> int | None:
        if not self._call("exists", self.client.collection_exists, collection):
            return None
        info = self._call("get_collection", self.client.get_collection, collection)
        size = getattr(info.config.params.vectors, "size", None)
        return int(size) if size is not None else None

    def collections(self) -> list[str]:
        listed = self._call("list", self.client.get_collections)
        return sorted(c.name for c in listed.collections)

    def ensure_collection(self, collection: str, dimension: int) -> None:
        from qdrant_client.models import Distance, PayloadSchemaType, VectorParams

        have = self.dimension_of(collection)
        if have is None:
            params = VectorParams(size=dimension, distance=Distance.COSINE)
            self._call("create", self.client.create_collection, collection, vectors_config=params)
            if self.location.startswith(("http://", "https://")):  # local mode has no indexes
                for name in FILTER_FIELDS:
                    self._call(
                        "index field",
                        self.client.create_payload_index,
                        collection,
                        field_name=name,
                        field_schema=PayloadSchemaType.KEYWORD,
                    )
        elif have != dimension:
            raise _mismatch(collection, have, dimension)

    def count(self, collection: str, exact: bool = True) -> int:
        if self.dimension_of(collection) is None:
            return 0
        return int(self._call("count", self.client.count, collection, exact=exact).count)

    def present(self, collection: str, doc_ids: Sequence[str]) -> set[str]:
        if self.dimension_of(collection) is None:
            return set()
        return _present(
            doc_ids,
            lambda ids: self._call(
                "retrieve",
                self.client.retrieve,
                collection,
                ids=ids,
                with_payload=False,
                with_vectors=False,
            ),
        )

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        from qdrant_client.models import PointStruct

        structs = [
            PointStruct(id=point_id(p.doc_id), vector=p.vector, payload=p.payload()) for p in points
        ]
        if structs:
            self._call("upsert", self.client.upsert, collection, points=structs, wait=True)

    def delete(self, collection: str, doc_ids: Sequence[str]) -> None:
        from qdrant_client.models import PointIdsList

        if doc_ids and self.dimension_of(collection) is not None:
            selector = PointIdsList(points=[point_id(d) for d in doc_ids])
            self._call("delete", self.client.delete, collection, points_selector=selector)

    def drop(self, collection: str) -> None:
        if self.dimension_of(collection) is not None:
            self._call("delete", self.client.delete_collection, collection)

    def query(self, collection: str, query: VectorQuery) -> tuple[list[tuple[str, float]], int]:
        from qdrant_client.models import FieldCondition, Filter, MatchAny

        must: list[Any] = [
            FieldCondition(key=key, match=MatchAny(any=list(values)))
            for key, values in sorted(query.where.items())
        ]
        response = self._call(
            "query",
            self.client.query_points,
            collection,
            query=query.vector,
            limit=query.limit,
            query_filter=Filter(must=must) if must else None,
            with_payload=True,
        )
        return _hits(response.points)

    def needs_optimize(self, collection: str) -> bool:
        return False  # a server optimises on its own; local mode has no index to build

    def relayout(self, collection: str) -> bool:
        return False  # one layout only

    def optimize(self, collection: str) -> bool:
        return False

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()


@dataclass(frozen=True)
class VectorLocation:
    """Where the vectors live: a server ``url``, or an embedded ``path`` run by ``engine``."""

    path: Path | str | None = None
    url: str | None = None
    engine: str = "edge"


def _open_edge(where: VectorLocation) -> VectorBackend:
    if where.path is None or str(where.path) == ":memory:":
        raise BackendUnavailable(
            "qdrant edge needs a directory (use engine qdrant-client for :memory:)"
        )
    from context_cut.vector_edge import EdgeBackend

    return EdgeBackend.open(Path(where.path))


def _open_client(where: VectorLocation) -> VectorBackend:
    return ClientBackend.open(path=where.path, url=where.url)


# engine name -> opener; a URL always means a server, which qdrant-client speaks
ENGINES: dict[str, Callable[[VectorLocation], VectorBackend]] = {
    "edge": _open_edge,
    "qdrant-client": _open_client,
}


def open_backend(where: VectorLocation) -> VectorBackend:
    if where.url:
        return _open_client(where)
    opener = ENGINES.get(where.engine)
    if opener is None:
        raise ConfigError(
            f"unknown vector engine {where.engine!r}: use one of {', '.join(sorted(ENGINES))}"
        )
    return opener(where)
