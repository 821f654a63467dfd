"""The small protocols every store backend implements.

The graph engine (``memgraph.graph``) only talks to these, so profile law and
validation never depend on which backend holds the data.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

# Types only: importing the protocol (every store open does) must not build the
# snapshot/context models a short-lived command never uses.
if TYPE_CHECKING:
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


class GraphReader(Protocol):
    """Read access used by validation and profile rules."""

    def get_nodes(self, ids: Iterable[str]) -> dict[str, MemoryNode]: ...

    def existing_node_ids(self, ids: Iterable[str]) -> set[str]: ...

    def get_edges(self, ids: Iterable[str]) -> dict[str, MemoryEdge]: ...

    def get_summaries(self, ids: Iterable[str]) -> dict[str, MemorySummary]: ...

    def summaries_covering(self, ids: Iterable[str]) -> list[MemorySummary]: ...

    def nodes_in_domain(
        self, domain_id: str, profile: str | None = None, states: Iterable[str] | None = None
    ) -> list[MemoryNode]: ...

    def receipts_for(
        self, target_id: str, op: str | None = None
    ) -> list[MemoryLifecycleReceipt]: ...

    def get_manifests(self, node_ids: Iterable[str]) -> dict[str, MemoryEmbeddingManifest]: ...

    def patch_status(self, patch_id: str) -> str | None: ...


class StoreTxn(GraphReader, Protocol):
    """A write transaction: everything put here commits together or not at all."""

    def put_nodes(self, nodes: Sequence[MemoryNode], previous: Sequence[MemoryNode]) -> None:
        """Store ``nodes``; ``previous`` is the stored version of each one that
        exists (kept as history). A node without one is new: a store may
        refuse it (and so the transaction) if its id exists after all."""
        ...

    def put_edges(
        self, edges: Sequence[MemoryEdge], previous: Sequence[MemoryEdge] = ()
    ) -> None: ...

    def put_summaries(
        self, summaries: Sequence[MemorySummary], previous: Sequence[MemorySummary] = ()
    ) -> None: ...

    def put_manifests(self, manifests: Sequence[MemoryEmbeddingManifest]) -> None: ...

    def put_domains(self, domains: Sequence[MemoryDomain]) -> None: ...

    def append_receipts(self, receipts: Sequence[MemoryLifecycleReceipt]) -> None: ...

    def put_patch(self, patch: MemoryPatchCandidate) -> None: ...


def as_of(receipts: Sequence[MemoryLifecycleReceipt]) -> datetime | None:
    """A snapshot's ``exported_at``: the time of the graph's latest receipt.

    Derived from the data rather than the wall clock, so exporting the same
    graph twice (or after an import) gives byte-identical files.
    """
    return max((r.at for r in receipts), default=None)


@dataclass
class Neighbourhood:
    """Nodes within ``hops`` of a seed, with the edges that connect them."""

    seed: str
    nodes: dict[str, MemoryNode] = field(default_factory=dict)
    edges: dict[str, MemoryEdge] = field(default_factory=dict)
    distance: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PeriodQuery:
    """Nodes of one profile and kind whose valid time meets every bound given.

    Bounds compare ``valid_from`` / ``valid_to``; a node missing the compared
    time never matches a bound on it.
    """

    profile: str
    kind: str
    lifecycle: str | None = None
    starts_at_or_after: datetime | None = None  # valid_from >= t
    starts_before: datetime | None = None  # valid_from < t
    starts_at_or_before: datetime | None = None  # valid_from <= t
    ends_at_or_after: datetime | None = None  # valid_to >= t

    def matches(self, node: MemoryNode) -> bool:
        """The same predicate in Python (for backends without an index)."""
        if node.profile.value != self.profile or node.kind != self.kind:
            return False
        if self.lifecycle is not None and node.lifecycle != self.lifecycle:
            return False
        vf, vt = node.valid_from, node.valid_to
        if self.starts_at_or_after is not None and (vf is None or vf < self.starts_at_or_after):
            return False
        if self.starts_before is not None and (vf is None or vf >= self.starts_before):
            return False
        if self.starts_at_or_before is not None and (vf is None or vf > self.starts_at_or_before):
            return False
        return self.ends_at_or_after is None or (vt is not None and vt >= self.ends_at_or_after)


@dataclass(frozen=True)
class SearchHit:
    node_id: str
    score: float  # bm25: lower is better, as SQLite reports it


class Store(Protocol):
    """A canonical store backend (SQLite by default, in-memory for tests)."""

    location: str
    # the store's id, a uuid kept in its own tables (``memgraph.store.identity``);
    # None when this open may not use one (read-only, from before the id, a copy)
    store_id: str | None

    def transaction(self) -> AbstractContextManager[StoreTxn]: ...

    def reader(self) -> AbstractContextManager[GraphReader]: ...

    def neighbourhood(self, node_id: str, hops: int = 2) -> Neighbourhood: ...

    def receipts(
        self, target_id: str | None = None, patch_id: str | None = None
    ) -> list[MemoryLifecycleReceipt]: ...

    def iter_nodes(
        self, profile: str | None = None, kind: str | None = None
    ) -> Iterator[MemoryNode]: ...

    def iter_edges(self, profile: str | None = None) -> Iterator[MemoryEdge]: ...

    def iter_summaries(self) -> Iterator[MemorySummary]: ...

    def nodes_in_period(self, query: PeriodQuery) -> list[MemoryNode]: ...

    def search(
        self, query: str, limit: int = 20, profile: str | None = None
    ) -> list[SearchHit]: ...

    def counts(self) -> dict[str, int]: ...

    def export_snapshot(self) -> MemoryGraphSnapshot: ...

    def import_snapshot(self, snapshot: MemoryGraphSnapshot) -> None: ...

    def close(self) -> None: ...
