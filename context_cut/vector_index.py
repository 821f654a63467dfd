"""The vector index: the one handle the nerve and the sync write to and query.

A thin layer over a ``VectorBackend`` (``context_cut.vector_backends``): it picks
the engine for a location and turns projected documents into points. A point's
payload holds only the document id and filter fields (doc type, profile), and
the id is never trusted: for stable node ids (``n-<16 hex>``) the point id IS the
node id; other ids use a uuid5 point id and a hit counts only when uuid5(payload
id) reproduces it. Documents always come from the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from context_cut.vector_backends import (
    VectorBackend,
    VectorLocation,
    VectorPoint,
    VectorQuery,
    open_backend,
)

if TYPE_CHECKING:  # upsert's annotation only: the index stores points, not documents
    from context_cut.vector_projection import Projected

__all__ = ["VectorIndex"]


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
