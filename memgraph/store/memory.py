"""An in-memory store: the second backend the contract tests run against.

Transactions copy the (immutable-by-convention) document maps and swap them in
on commit, which gives all-or-nothing semantics without any I/O.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from pydantic import BaseModel

from memgraph.documents import (
    MemoryDomain,
    MemoryEdge,
    MemoryEmbeddingManifest,
    MemoryGraphSnapshot,
    MemoryLifecycleReceipt,
    MemoryNode,
    MemoryPatchCandidate,
    MemorySummary,
    to_json,
)
from memgraph.errors import SnapshotError, StoreError
from memgraph.store.interfaces import StoreIndexes, register_indexes
from memgraph.store.protocol import Neighbourhood, PeriodQuery, SearchHit, as_of
from memgraph.store.rows import RegistryRow


@dataclass
class _State:
    domains: dict[str, MemoryDomain] = field(default_factory=dict)
    nodes: dict[str, MemoryNode] = field(default_factory=dict)
    history: list[MemoryNode] = field(default_factory=list)
    edges: dict[str, MemoryEdge] = field(default_factory=dict)
    summaries: dict[str, MemorySummary] = field(default_factory=dict)
    receipts: list[MemoryLifecycleReceipt] = field(default_factory=list)
    patches: dict[str, MemoryPatchCandidate] = field(default_factory=dict)
    manifests: dict[str, MemoryEmbeddingManifest] = field(default_factory=dict)
    receipt_ids: set[str] = field(default_factory=set)
    edge_history: list[MemoryEdge] = field(default_factory=list)
    summary_history: list[MemorySummary] = field(default_factory=list)
    registry: dict[str, RegistryRow] = field(default_factory=dict)  # TranscriptRegistry

    def copy(self) -> _State:
        return _State(
            dict(self.domains),
            dict(self.nodes),
            list(self.history),
            dict(self.edges),
            dict(self.summaries),
            list(self.receipts),
            dict(self.patches),
            dict(self.manifests),
            set(self.receipt_ids),
            list(self.edge_history),
            list(self.summary_history),
            dict(self.registry),
        )


class MemoryTxn:
    def __init__(self, state: _State) -> None:
        self.s = state

    def get_nodes(self, ids: Iterable[str]) -> dict[str, MemoryNode]:
        return {i: self.s.nodes[i] for i in ids if i in self.s.nodes}

    def existing_node_ids(self, ids: Iterable[str]) -> set[str]:
        return {i for i in ids if i in self.s.nodes}

    def get_edges(self, ids: Iterable[str]) -> dict[str, MemoryEdge]:
        return {i: self.s.edges[i] for i in ids if i in self.s.edges}

    def get_summaries(self, ids: Iterable[str]) -> dict[str, MemorySummary]:
        return {i: self.s.summaries[i] for i in ids if i in self.s.summaries}

    def summaries_covering(self, ids: Iterable[str]) -> list[MemorySummary]:
        wanted = set(ids)
        return [s for s in self.s.summaries.values() if wanted & set(s.covered_ids())]

    def nodes_in_domain(
        self, domain_id: str, profile: str | None = None, states: Iterable[str] | None = None
    ) -> list[MemoryNode]:
        wanted = set(states) if states is not None else None
        return [
            n
            for n in self.s.nodes.values()
            if n.domain_id == domain_id
            and (profile is None or n.profile.value == profile)
            and (wanted is None or n.lifecycle in wanted)
        ]

    def receipts_for(self, target_id: str, op: str | None = None) -> list[MemoryLifecycleReceipt]:
        return [
            r for r in self.s.receipts if r.target_id == target_id and (op is None or r.op == op)
        ]

    def get_manifests(self, node_ids: Iterable[str]) -> dict[str, MemoryEmbeddingManifest]:
        return {i: self.s.manifests[i] for i in node_ids if i in self.s.manifests}

    def patch_status(self, patch_id: str) -> str | None:
        p = self.s.patches.get(patch_id)
        return None if p is None else p.status.value

    def put_nodes(self, nodes: Sequence[MemoryNode], previous: Sequence[MemoryNode]) -> None:
        _storable(nodes)
        self.s.history.extend(previous)
        self.s.nodes.update((n.id, n) for n in nodes)

    def put_edges(self, edges: Sequence[MemoryEdge], previous: Sequence[MemoryEdge] = ()) -> None:
        _storable(edges)
        self.s.edge_history.extend(previous)
        self.s.edges.update((e.id, e) for e in edges)

    def put_summaries(
        self, summaries: Sequence[MemorySummary], previous: Sequence[MemorySummary] = ()
    ) -> None:
        _storable(summaries)
        self.s.summary_history.extend(previous)
        self.s.summaries.update((s.id, s) for s in summaries)

    def put_manifests(self, manifests: Sequence[MemoryEmbeddingManifest]) -> None:
        _storable(manifests)
        self.s.manifests.update((m.node_id, m) for m in manifests)

    def put_domains(self, domains: Sequence[MemoryDomain]) -> None:
        _storable(domains)
        self.s.domains.update((d.id, d) for d in domains)

    def append_receipts(self, receipts: Sequence[MemoryLifecycleReceipt]) -> None:
        _storable(receipts)
        known = self.s.receipt_ids
        new_ids = [r.id for r in receipts]
        if len(set(new_ids)) != len(new_ids) or known.intersection(new_ids):
            raise StoreError("receipt id already exists (receipts are append-only)")
        known.update(new_ids)
        self.s.receipts.extend(receipts)

    def put_patch(self, patch: MemoryPatchCandidate) -> None:
        _storable([patch])
        self.s.patches[patch.id] = patch


def _storable(docs: Iterable[BaseModel]) -> None:
    """Fail as the SQLite store does on a document it cannot keep as JSON.

    Serialising is this backend's only cost beyond a dict update, but without
    it a lone surrogate would be accepted here and refused there, and the
    contract tests exist to keep the two backends saying the same thing.
    """
    for doc in docs:
        to_json(doc)


class MemoryStore:
    location = ":memory:"

    def __init__(self) -> None:
        from memgraph.store.identity import new_id

        # an id of its own (its caches are keyed by ":memory:", shared by every one)
        self.store_id: str | None = new_id()
        self._state = _State()
        self._lock = threading.RLock()
        self._work: _State | None = None  # the open transaction's copy

    @contextmanager
    def transaction(self) -> Iterator[MemoryTxn]:
        with self._lock:
            outer = self._work
            work = (outer or self._state).copy()
            self._work = work
            try:
                yield MemoryTxn(work)
            finally:
                self._work = outer
            if outer is not None:
                outer.__dict__.update(work.__dict__)
            else:
                self._state = work

    def current_state(self) -> _State:
        """What a read sees now: the open transaction's copy on its thread, else the store."""
        with self._lock:
            return self._work if self._work is not None else self._state

    @contextmanager
    def reader(self) -> Iterator[MemoryTxn]:
        with self._lock:
            yield MemoryTxn(self._state)

    def neighbourhood(self, node_id: str, hops: int = 2) -> Neighbourhood:
        s = self._state
        result = Neighbourhood(seed=node_id)
        if node_id not in s.nodes:
            return result
        result.distance[node_id] = 0
        frontier = {node_id}
        for hop in range(1, hops + 1):
            found: set[str] = set()
            for e in s.edges.values():
                for a, b in ((e.source_id, e.target_id), (e.target_id, e.source_id)):
                    if a in frontier:
                        result.edges[e.id] = e
                        if b not in result.distance:
                            result.distance[b] = hop
                            found.add(b)
            frontier = found
        result.nodes = {i: s.nodes[i] for i in result.distance if i in s.nodes}
        return result

    def receipts(
        self, target_id: str | None = None, patch_id: str | None = None
    ) -> list[MemoryLifecycleReceipt]:
        return [
            r
            for r in self._state.receipts
            if (target_id is None or r.target_id == target_id)
            and (patch_id is None or r.patch_id == patch_id)
        ]

    def iter_nodes(
        self, profile: str | None = None, kind: str | None = None
    ) -> Iterator[MemoryNode]:
        for nid in sorted(self._state.nodes):
            n = self._state.nodes[nid]
            if (profile is None or n.profile.value == profile) and (kind is None or n.kind == kind):
                yield n

    def iter_edges(self, profile: str | None = None) -> Iterator[MemoryEdge]:
        for eid in sorted(self._state.edges):
            e = self._state.edges[eid]
            if profile is None or e.profile.value == profile:
                yield e

    def iter_summaries(self) -> Iterator[MemorySummary]:
        for sid in sorted(self._state.summaries):
            yield self._state.summaries[sid]

    def nodes_in_period(self, query: PeriodQuery) -> list[MemoryNode]:
        return [n for n in self.iter_nodes(query.profile, query.kind) if query.matches(n)]

    def search(self, query: str, limit: int = 20, profile: str | None = None) -> list[SearchHit]:
        words = [w.lower() for w in re.findall(r"\w+", query)]
        hits: list[SearchHit] = []
        for n in self.iter_nodes(profile=profile):
            text = " ".join((n.title, n.claim, n.question, n.tension, n.action_implication)).lower()
            tokens = re.findall(r"\w+", text)
            if words and all(any(t.startswith(w) for t in tokens) for w in words):
                hits.append(SearchHit(n.id, -float(sum(text.count(w) for w in words))))
        return sorted(hits, key=lambda h: (h.score, h.node_id))[:limit]

    def counts(self) -> dict[str, int]:
        s = self._state
        return {
            "nodes": len(s.nodes),
            "edges": len(s.edges),
            "summaries": len(s.summaries),
            "receipts": len(s.receipts),
            "patches": len(s.patches),
            "embeddings": len(s.manifests),
            "domains": len(s.domains),
        }

    def export_snapshot(self) -> MemoryGraphSnapshot:
        s = self._state
        return MemoryGraphSnapshot(
            exported_at=as_of(s.receipts),
            domains=[s.domains[k] for k in sorted(s.domains)],
            nodes=[s.nodes[k] for k in sorted(s.nodes)],
            edges=[s.edges[k] for k in sorted(s.edges)],
            summaries=[s.summaries[k] for k in sorted(s.summaries)],
            receipts=list(s.receipts),
            embeddings=[s.manifests[k] for k in sorted(s.manifests)],
            patches=sorted(s.patches.values(), key=lambda p: (p.created_at, p.id)),
            node_history=list(s.history),
            edge_history=list(s.edge_history),
            summary_history=list(s.summary_history),
        )

    def import_snapshot(self, snapshot: MemoryGraphSnapshot) -> None:
        with self._lock:
            if self._state.nodes or self._state.receipts:
                raise SnapshotError("store is not empty; import a snapshot into a new store")
            state = _State(
                {d.id: d for d in snapshot.domains},
                {n.id: n for n in snapshot.nodes},
                list(snapshot.node_history),
                {e.id: e for e in snapshot.edges},
                {s.id: s for s in snapshot.summaries},
                [],
                {p.id: p for p in snapshot.patches},
                {m.node_id: m for m in snapshot.embeddings},
                set(),
                list(snapshot.edge_history),
                list(snapshot.summary_history),
            )
            MemoryTxn(state).append_receipts(snapshot.receipts)
            self._state = state

    def close(self) -> None:
        pass


def _indexes(store: MemoryStore) -> StoreIndexes:
    from memgraph.store.memory_ext import memory_indexes

    return memory_indexes(store)


register_indexes(MemoryStore, _indexes)
