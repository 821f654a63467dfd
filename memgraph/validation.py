"""Pure validation of documents and whole graphs (no I/O).

Every function returns problems as ``"<id or path>: <message>"`` strings; an
empty list means valid. The engine uses the per-document checks before every
mutation; ``validate_snapshot`` checks a whole exported graph.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

# the registry is built on first use (profiles/__init__): import the package, not the name
import profiles

if TYPE_CHECKING:  # annotations only: every write imports this module, and building
    # the snapshot model (which no write validates) cost ~3-4 ms of each write process
    from memgraph.documents import (
        MemoryEdge,
        MemoryGraphSnapshot,
        MemoryLifecycleReceipt,
        MemoryNode,
        MemorySummary,
    )


def node_problems(node: MemoryNode) -> list[str]:
    problems: list[str] = []
    if not node.id.strip():
        problems.append("node: empty id")
    if not node.domain_id.strip():
        problems.append(f"{node.id}: empty domain_id")
    profile = profiles.REGISTRY[node.profile]
    if node.kind not in profile.node_kinds:
        problems.append(
            f"{node.id}: kind {node.kind!r} is not part of profile {profile.name.value} "
            f"({', '.join(sorted(profile.node_kinds))})"
        )
    if node.lifecycle not in profile.states:
        problems.append(
            f"{node.id}: lifecycle {node.lifecycle!r} unknown to profile {profile.name.value}"
        )
    if node.valid_from and node.valid_to and node.valid_to < node.valid_from:
        problems.append(f"{node.id}: valid_to is before valid_from")
    return problems


def edge_problems(
    edge: MemoryEdge, source: MemoryNode | None, target: MemoryNode | None
) -> list[str]:
    return edge_endpoint_problems(edge, source is not None, target is not None)


def edge_endpoint_problems(edge: MemoryEdge, source_exists: bool, target_exists: bool) -> list[str]:
    """Edges reference existing nodes; valid time is ordered."""
    problems: list[str] = []
    if not edge.id.strip():
        problems.append("edge: empty id")
    if not source_exists:
        problems.append(f"{edge.id}: source {edge.source_id} does not exist")
    if not target_exists:
        problems.append(f"{edge.id}: target {edge.target_id} does not exist")
    if edge.valid_from and edge.valid_to and edge.valid_to < edge.valid_from:
        problems.append(f"{edge.id}: valid_to is before valid_from")
    return problems


def summary_problems(summary: MemorySummary, missing: Iterable[str]) -> list[str]:
    problems = [f"{summary.id}: covers missing id {m}" for m in missing]
    if not summary.covered_ids():
        problems.append(f"{summary.id}: a summary must cover at least one id")
    if not summary.target.strip():
        problems.append(f"{summary.id}: a summary needs a target")
    if not (summary.claim.strip() or summary.question.strip()):
        problems.append(f"{summary.id}: a summary needs a claim or a question")
    if summary.id in summary.covers_summary_ids:
        problems.append(f"{summary.id}: a summary cannot cover itself")
    return problems


def review_approves(receipts: Iterable[MemoryLifecycleReceipt]) -> bool:
    """Does the latest review still approve? ``receipts`` are one node's, in order.

    The latest ``review_node`` verdict counts, and leaving ``accepted`` (e.g. to
    ``stale``) voids it: re-acceptance needs a fresh review.
    """
    verdict: object = None
    for r in receipts:
        if r.op == "review_node":
            verdict = r.details.get("verdict")
        elif r.before == "accepted" and r.after != "accepted":
            verdict = None
    return verdict == "approve"


def _duplicates(kind: str, ids: Iterable[str]) -> list[str]:
    return [f"{kind} {i}: duplicate id" for i, n in Counter(ids).items() if n > 1]


def validate_snapshot(snapshot: MemoryGraphSnapshot) -> list[str]:
    """Every generic invariant and the profile laws checkable on a whole graph."""
    registry = profiles.REGISTRY
    problems: list[str] = []
    problems += _duplicates("node", (n.id for n in snapshot.nodes))
    problems += _duplicates("edge", (e.id for e in snapshot.edges))
    problems += _duplicates("summary", (s.id for s in snapshot.summaries))
    problems += _duplicates("receipt", (r.id for r in snapshot.receipts))
    nodes = {n.id: n for n in snapshot.nodes}
    edges = {e.id: e for e in snapshot.edges}
    summaries = {s.id: s for s in snapshot.summaries}
    by_target: dict[str, list[MemoryLifecycleReceipt]] = {}
    for r in snapshot.receipts:
        by_target.setdefault(r.target_id, []).append(r)
    approved = {t for t, rs in by_target.items() if review_approves(rs)}
    for node in snapshot.nodes:
        problems += node_problems(node)
        profile = registry[node.profile]
        ctx = _SnapshotContext(nodes, approved)
        for rule in profile.node_rules:
            problems += list(rule(None, node, ctx))
    for edge in snapshot.edges:
        problems += edge_problems(edge, nodes.get(edge.source_id), nodes.get(edge.target_id))
        profile = registry[edge.profile]
        if edge.kind not in profile.edge_kinds:
            problems.append(
                f"{edge.id}: edge kind {edge.kind!r} is not part of {profile.name.value}"
            )
    for s in snapshot.summaries:
        missing = [i for i in s.covers_node_ids if i not in nodes]
        missing += [i for i in s.covers_edge_ids if i not in edges]
        missing += [i for i in s.covers_summary_ids if i not in summaries]
        problems += summary_problems(s, missing)
    for m in snapshot.embeddings:
        if m.node_id not in nodes and m.node_id not in edges and m.node_id not in summaries:
            problems.append(f"embedding {m.node_id}: no node, edge or summary has that id")
    return problems


class _SnapshotContext:
    """RuleContext over a static snapshot (for rules that only read nodes)."""

    def __init__(self, nodes: dict[str, MemoryNode], approved: set[str]) -> None:
        self._nodes = nodes
        self._approved = approved

    def node(self, node_id: str) -> MemoryNode | None:
        return self._nodes.get(node_id)

    def nodes_in_domain(
        self, domain_id: str, profile: str, states: Iterable[str]
    ) -> list[MemoryNode]:
        wanted = set(states)
        return [
            n
            for n in self._nodes.values()
            if n.domain_id == domain_id and n.profile.value == profile and n.lifecycle in wanted
        ]

    def has_approving_review(self, node_id: str) -> bool:
        return node_id in self._approved
