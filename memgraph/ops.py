"""The named graph operations as a Python API.

Each function wraps one op in a patch and applies it (validate -> one
transaction -> receipts). To batch, build the ops yourself and use
``memgraph.engine.apply_patch`` with ``new_patch([...])``.
"""

from __future__ import annotations

from memgraph.documents import (
    AttachAnchor,
    ForcedSleep,
    GraphOp,
    MarkStale,
    MemoryAnchor,
    MemoryEdge,
    MemoryEmbeddingManifest,
    MemoryNode,
    MemorySummary,
    MergeNodes,
    NodeRevision,
    RefreshEmbedding,
    RetireNode,
    ReviewNode,
    ReviseNode,
    SleepDisposition,
    SummarizeCluster,
    TransitionNode,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import ApplyResult, apply_patch, new_patch
from memgraph.store.protocol import Store


def _one(store: Store, op: GraphOp, actor: str, reason: str = "") -> ApplyResult:
    return apply_patch(store, new_patch([op], proposer=actor, reason=reason))


def upsert_node(store: Store, node: MemoryNode, actor: str = "memgraph") -> ApplyResult:
    return _one(store, UpsertNode(node=node), actor)


def upsert_edge(store: Store, edge: MemoryEdge, actor: str = "memgraph") -> ApplyResult:
    return _one(store, UpsertEdge(edge=edge), actor)


def retire_node(
    store: Store, node_id: str, reason: str = "", actor: str = "memgraph"
) -> ApplyResult:
    return _one(store, RetireNode(node_id=node_id, reason=reason), actor, reason)


def revise_node(
    store: Store, node_id: str, changes: NodeRevision, reason: str = "", actor: str = "memgraph"
) -> ApplyResult:
    return _one(store, ReviseNode(node_id=node_id, changes=changes, reason=reason), actor, reason)


def transition_node(
    store: Store, node_id: str, to_state: str, reason: str = "", actor: str = "memgraph"
) -> ApplyResult:
    return _one(store, TransitionNode(node_id=node_id, to_state=to_state, reason=reason), actor)


def review_node(
    store: Store, node_id: str, reviewer: str, approve: bool = True, reason: str = ""
) -> ApplyResult:
    verdict = "approve" if approve else "reject"
    op = ReviewNode(node_id=node_id, reviewer=reviewer, verdict=verdict, reason=reason)
    return _one(store, op, reviewer, reason)


def merge_nodes(
    store: Store, source_ids: list[str], target_id: str, reason: str = "", actor: str = "memgraph"
) -> ApplyResult:
    op = MergeNodes(source_ids=source_ids, target_id=target_id, reason=reason)
    return _one(store, op, actor, reason)


def attach_anchor(
    store: Store, node_id: str, anchor: MemoryAnchor, actor: str = "memgraph"
) -> ApplyResult:
    return _one(store, AttachAnchor(node_id=node_id, anchor=anchor), actor)


def summarize_cluster(store: Store, summary: MemorySummary, actor: str = "memgraph") -> ApplyResult:
    return _one(store, SummarizeCluster(summary=summary), actor)


def mark_stale(
    store: Store,
    target_id: str,
    source_hashes: list[str] | None = None,
    reason: str = "",
    actor: str = "memgraph",
) -> ApplyResult:
    op = MarkStale(target_id=target_id, source_hashes=source_hashes, reason=reason)
    return _one(store, op, actor, reason)


def refresh_embedding(
    store: Store, manifest: MemoryEmbeddingManifest, actor: str = "memgraph"
) -> ApplyResult:
    return _one(store, RefreshEmbedding(manifest=manifest), actor)


def forced_sleep(
    store: Store,
    domain_id: str,
    dispositions: dict[str, SleepDisposition],
    reason: str = "",
    actor: str = "memgraph",
) -> ApplyResult:
    op = ForcedSleep(domain_id=domain_id, dispositions=dispositions, reason=reason)
    return _one(store, op, actor, reason)
