"""The engine's working view: store state overlaid with a patch's pending effects."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memgraph.documents import (
    FreshnessState,
    GraphOp,
    MemoryEdge,
    MemoryEmbeddingManifest,
    MemoryFreshness,
    MemoryLifecycleReceipt,
    MemoryNode,
    MemoryPatchCandidate,
    MemorySummary,
    evolve,
)
from memgraph.hashing import edge_hash, node_hash, summary_hash
from memgraph.validation import review_approves

if TYPE_CHECKING:  # annotations only (a repo rescan never imports the protocol)
    from memgraph.store.protocol import GraphReader


def referenced_ids(ops: Sequence[GraphOp]) -> tuple[set[str], set[str], set[str]]:
    """(node ids, edge ids, summary ids) an op list touches, for one bulk prefetch."""
    nodes, endpoints, edges, summaries = prefetch_plan(ops)
    return nodes | endpoints, edges, summaries


def prefetch_plan(ops: Sequence[GraphOp]) -> tuple[set[str], set[str], set[str], set[str]]:
    """(node ids to load, node ids only checked for existence, edge ids, summary ids).

    Edge endpoints only need to exist; loading (and parsing) their documents
    would dominate a bulk edge ingest, so they are checked with a key lookup.
    """
    nodes: set[str] = set()
    endpoints: set[str] = set()
    edges: set[str] = set()
    summaries: set[str] = set()
    for op in ops:
        match op.op:
            case "upsert_node":
                nodes.add(op.node.id)
            case "upsert_edge":
                edges.add(op.edge.id)
                endpoints.update((op.edge.source_id, op.edge.target_id))
            case "merge_nodes":
                nodes.update(op.source_ids)
                nodes.add(op.target_id)
            case "summarize_cluster":
                summaries.add(op.summary.id)
                nodes.update(op.summary.covers_node_ids)
                edges.update(op.summary.covers_edge_ids)
                summaries.update(op.summary.covers_summary_ids)
            case "mark_stale":
                nodes.add(op.target_id)
                summaries.add(op.target_id)
            case "refresh_embedding":  # the embedded document: a node, edge or summary
                target = op.manifest.node_id
                if target.startswith("e-"):
                    edges.add(target)
                elif target.startswith("s-"):
                    summaries.add(target)
                else:
                    nodes.add(target)
            case "forced_sleep":
                nodes.update(op.dispositions)
            case _:
                nodes.add(op.node_id)
    return nodes, endpoints - nodes, edges, summaries


def _receipt_hasher(patch_id: str) -> Any:
    """sha256 state equal to ``digest(patch_id, ...)`` before its last part.

    Receipt ids are ``stable_id("r", patch_id, str(n))``; copying this state
    gives the same ids without rehashing the patch id for every receipt.
    """
    h = hashlib.sha256()
    data = patch_id.encode("utf-8", "surrogatepass")
    h.update(len(data).to_bytes(8, "big"))
    h.update(data)
    return h


def receipt_id(hasher: Any, number: int) -> str:
    h = hasher.copy()
    data = str(number).encode()
    h.update(len(data).to_bytes(8, "big"))
    h.update(data)
    return f"r-{h.hexdigest()[:16]}"


class Working:
    """Implements ``profiles.base.RuleContext`` for the engine."""

    def __init__(self, reader: GraphReader, patch: MemoryPatchCandidate, now: datetime) -> None:
        self.reader = reader
        self.patch = patch
        self.now = now
        self._nodes: dict[str, MemoryNode | None] = {}
        self._edges: dict[str, MemoryEdge | None] = {}
        self._summaries: dict[str, MemorySummary | None] = {}
        self.pending_nodes: dict[str, MemoryNode] = {}
        self.previous_nodes: dict[str, MemoryNode] = {}
        self.pending_edges: dict[str, MemoryEdge] = {}
        # versions the store had before this patch: they go to *_history
        self.previous_edges: dict[str, MemoryEdge] = {}
        self.previous_summaries: dict[str, MemorySummary] = {}
        self.pending_summaries: dict[str, MemorySummary] = {}
        self.pending_manifests: dict[str, MemoryEmbeddingManifest] = {}
        self.receipts: list[MemoryLifecycleReceipt] = []
        self.approved: set[str] = set()
        # ids with a rejecting review in this patch (a later verdict wins)
        self.rejected: set[str] = set()
        self._exists: dict[str, bool] = {}
        self._manifests: dict[str, MemoryEmbeddingManifest | None] = {}
        # ids whose content hash changed in this patch: staleness starts here
        self.changed_ids: set[str] = set()
        self._receipt_no = 0
        self._receipt_hasher = _receipt_hasher(patch.id)
        # Receipts are built from validated data by the engine itself, and a bulk
        # ingest writes hundreds of thousands: copy a constructed template (the
        # patch-wide fields) instead of validating each one.
        self._receipt_template = MemoryLifecycleReceipt.model_construct(
            id="",
            patch_id=patch.id,
            op="",
            target_id="",
            target_type="",
            profile=None,
            actor=patch.proposer,
            at=now,
            before=None,
            after=None,
            reason=patch.reason,
            details={},
            valid_from=None,
            valid_to=None,
            ingested_at=now,
        )

    # -- reads -------------------------------------------------------------
    def prefetch(self, nodes: set[str], edges: set[str], summaries: set[str]) -> None:
        missing = [i for i in nodes if i not in self._nodes]
        found = self.reader.get_nodes(missing)
        for i in missing:
            self._nodes[i] = found.get(i)
        missing = [i for i in edges if i not in self._edges]
        found_e = self.reader.get_edges(missing)
        for i in missing:
            self._edges[i] = found_e.get(i)
        missing = [i for i in summaries if i not in self._summaries]
        found_s = self.reader.get_summaries(missing)
        for i in missing:
            self._summaries[i] = found_s.get(i)

    def prefetch_exists(self, node_ids: Iterable[str]) -> None:
        missing = [i for i in node_ids if i not in self._nodes and i not in self._exists]
        found = self.reader.existing_node_ids(missing)
        for i in missing:
            self._exists[i] = i in found

    def node_exists(self, node_id: str) -> bool:
        """Existence without loading the document (edge endpoints)."""
        if node_id in self._nodes:
            return self._nodes[node_id] is not None
        if node_id not in self._exists:
            self._exists[node_id] = bool(self.reader.existing_node_ids([node_id]))
        return self._exists[node_id]

    def manifest(self, node_id: str) -> MemoryEmbeddingManifest | None:
        if node_id in self.pending_manifests:
            return self.pending_manifests[node_id]
        if node_id not in self._manifests:
            self._manifests[node_id] = self.reader.get_manifests([node_id]).get(node_id)
        return self._manifests[node_id]

    def node(self, node_id: str) -> MemoryNode | None:
        if node_id not in self._nodes:
            self._nodes[node_id] = self.reader.get_nodes([node_id]).get(node_id)
        return self._nodes[node_id]

    def edge(self, edge_id: str) -> MemoryEdge | None:
        if edge_id not in self._edges:
            self._edges[edge_id] = self.reader.get_edges([edge_id]).get(edge_id)
        return self._edges[edge_id]

    def summary(self, summary_id: str) -> MemorySummary | None:
        if summary_id not in self._summaries:
            self._summaries[summary_id] = self.reader.get_summaries([summary_id]).get(summary_id)
        return self._summaries[summary_id]

    def nodes_in_domain(
        self, domain_id: str, profile: str, states: Iterable[str]
    ) -> list[MemoryNode]:
        wanted = set(states)
        result: dict[str, MemoryNode] = {}
        for n in self.reader.nodes_in_domain(domain_id, profile, wanted):
            current = self.node(n.id)
            if current is not None:
                result[n.id] = current
        for n in self.pending_nodes.values():
            if n.domain_id == domain_id and n.profile.value == profile:
                result[n.id] = n
        return [n for n in result.values() if n.lifecycle in wanted]

    def has_approving_review(self, node_id: str) -> bool:
        """The latest review verdict (this patch first) approves, and the node has
        not left ``accepted`` since (``validation.review_approves``)."""
        if node_id in self.approved:
            return True
        if node_id in self.rejected:
            return False
        return review_approves(self.reader.receipts_for(node_id))

    # -- writes (pending) --------------------------------------------------
    def set_node(self, node: MemoryNode, *, claim_changed: bool = True) -> None:
        before = self._nodes.get(node.id)
        if before is not None and before.lifecycle == "accepted" != node.lifecycle:
            # leaving accepted voids earlier reviews (see has_approving_review)
            self.approved.discard(node.id)
            self.rejected.add(node.id)
        # history keeps the version the store had before this patch, once
        if before is not None and node.id not in self.pending_nodes:
            self.previous_nodes.setdefault(node.id, before)
        # A node new to the graph cannot be covered by any summary yet, so only
        # a changed existing node starts staleness propagation; a trust move
        # (profiles.base.Profile.trust_moves) changes no claim and starts none.
        if claim_changed and before is not None and node_hash(before) != node_hash(node):
            self.changed_ids.add(node.id)
        self._nodes[node.id] = node
        self.pending_nodes[node.id] = node

    def set_edge(self, edge: MemoryEdge) -> None:
        before = self._edges.get(edge.id)
        if before is not None and edge.id not in self.pending_edges:
            self.previous_edges.setdefault(edge.id, before)
        self._edges[edge.id] = edge
        self.pending_edges[edge.id] = edge

    def set_summary(self, summary: MemorySummary) -> None:
        before = self._summaries.get(summary.id)
        if before is not None and summary.id not in self.pending_summaries:
            self.previous_summaries.setdefault(summary.id, before)
        self._summaries[summary.id] = summary
        self.pending_summaries[summary.id] = summary

    def receipt(
        self,
        op: str,
        target_id: str,
        target_type: str,
        *,
        profile: str | None = None,
        before: str | None = None,
        after: str | None = None,
        reason: str = "",
        details: dict[str, Any] | None = None,
    ) -> None:
        self._receipt_no += 1
        self.receipts.append(
            evolve(
                self._receipt_template,
                {
                    "id": receipt_id(self._receipt_hasher, self._receipt_no),
                    "op": op,
                    "target_id": target_id,
                    "target_type": target_type,
                    "profile": profile,
                    "before": before,
                    "after": after,
                    "reason": reason or self.patch.reason,
                    "details": details or {},
                },
            )
        )

    # -- staleness ---------------------------------------------------------
    def propagate_staleness(self) -> list[str]:
        """Mark stale every summary covering a changed id, transitively.

        A summary of summaries goes stale when a summary it covers does.
        """
        frontier = set(self.changed_ids)
        seen: set[str] = set()
        while frontier:
            covering = {s.id: s for s in self.reader.summaries_covering(frontier)}
            for s in self.pending_summaries.values():
                if frontier & set(s.covered_ids()):
                    covering[s.id] = s
            next_frontier: set[str] = set()
            for sid in sorted(covering):
                if sid in seen:
                    continue
                current = self.summary(sid) or covering[sid]
                hits = sorted(frontier & set(current.covered_ids()))
                if not hits or not self._covered_changed(current, hits):
                    continue
                seen.add(sid)
                self.mark_summary_stale(current, hits, "covered source changed")
                next_frontier.add(sid)
            frontier = next_frontier
        return []

    def _covered_changed(self, summary: MemorySummary, hits: list[str]) -> bool:
        for cid in hits:
            recorded = summary.source_hashes.get(cid)
            current = self.current_hash(cid)
            if recorded is None or current is None or recorded != current:
                return True
        return False

    def current_hash(self, covered_id: str) -> str | None:
        node = self._nodes.get(covered_id)
        if node is not None:
            return node_hash(node)
        summary = self._summaries.get(covered_id)
        if summary is not None:
            return summary_hash(summary) + ":" + summary.freshness.state.value
        edge = self._edges.get(covered_id)
        if edge is not None:
            return edge_hash(edge)
        return None

    def mark_summary_stale(self, summary: MemorySummary, stale_ids: list[str], reason: str) -> None:
        before = summary.freshness.state.value
        freshness = MemoryFreshness(
            state=FreshnessState.stale,
            checked_at=self.now,
            stale_ids=sorted(set(summary.freshness.stale_ids) | set(stale_ids)),
            reason=reason,
        )
        self.set_summary(summary.model_copy(update={"freshness": freshness}))
        self.receipt(
            "mark_stale",
            summary.id,
            "summary",
            before=before,
            after=FreshnessState.stale.value,
            reason=reason,
            details={"stale_ids": stale_ids},
        )
