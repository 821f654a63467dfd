"""The graph operations on what is derived from nodes: summaries (their cover,
their freshness) and embedding manifests. Same manners as ``memgraph.ops_node``:
validate against the working view, record the effect and its receipt, return
problems instead of raising."""

from __future__ import annotations

from memgraph.documents import (
    FreshnessState,
    MarkStale,
    MemoryFreshness,
    MemorySummary,
    RefreshEmbedding,
    SummarizeCluster,
)
from memgraph.ops_node import Problems, commit_node, existing_node
from memgraph.validation import summary_problems
from memgraph.working import Working


def _summary_cycle(work: Working, summary: MemorySummary) -> bool:
    """True when ``summary`` is reachable from the summaries it covers."""
    stack = list(summary.covers_summary_ids)
    seen: set[str] = set()
    while stack:
        sid = stack.pop()
        if sid == summary.id:
            return True
        if sid in seen:
            continue
        seen.add(sid)
        covered = work.summary(sid)
        if covered is not None:
            stack.extend(covered.covers_summary_ids)
    return False


def _same_summary(a: MemorySummary, b: MemorySummary) -> bool:
    volatile = {"ingested_at", "freshness"}
    return a.model_dump(exclude=volatile) == b.model_dump(exclude=volatile)


def summarize_cluster(work: Working, op: SummarizeCluster) -> Problems:
    summary = op.summary
    missing = [i for i in summary.covers_node_ids if work.node(i) is None]
    missing += [i for i in summary.covers_edge_ids if work.edge(i) is None]
    missing += [i for i in summary.covers_summary_ids if work.summary(i) is None]
    problems = summary_problems(summary, missing)
    if problems:
        return problems
    if _summary_cycle(work, summary):
        return [f"{summary.id}: covering these summaries would make a cycle"]
    hashes = {cid: work.current_hash(cid) or "" for cid in summary.covered_ids()}
    if summary.source_hashes and summary.source_hashes != hashes:
        return [f"{summary.id}: source_hashes do not match the covered documents"]
    anchors = sum(len(n.anchors) for i in summary.covers_node_ids if (n := work.node(i)))
    before = work.summary(summary.id)
    after = summary.model_copy(
        update={
            "source_hashes": hashes,
            "anchor_count": summary.anchor_count or anchors,
            "freshness": MemoryFreshness(state=FreshnessState.fresh, checked_at=work.now),
            "ingested_at": summary.ingested_at or work.now,
        }
    )
    if (
        before is not None
        and before.freshness.state == FreshnessState.fresh
        and _same_summary(before, after)
    ):
        return []  # re-summarising the same fresh summary changes nothing
    work.set_summary(after)
    if before is not None:
        work.changed_ids.add(summary.id)
    work.receipt(
        "summarize_cluster",
        summary.id,
        "summary",
        before=before.freshness.state.value if before else None,
        after=FreshnessState.fresh.value,
        details={"covers": len(hashes)},
    )
    return []


def mark_stale(work: Working, op: MarkStale) -> Problems:
    """On a summary: mark it stale (propagates to summaries covering it).
    On a node: record its new source hashes (summaries over it go stale)."""
    summary = work.summary(op.target_id)
    if summary is not None:
        if summary.freshness.state == FreshnessState.stale:
            return []  # already stale: nothing changes, no receipt
        work.mark_summary_stale(summary, [], op.reason or "marked stale")
        work.changed_ids.add(summary.id)
        return []
    before, _problems = existing_node(work, op.target_id)
    if before is None:
        return [f"{op.target_id}: no such node or summary"]
    if op.source_hashes is None:
        return [f"{op.target_id}: marking a node stale needs its new source_hashes"]
    if op.source_hashes == before.source_hashes:
        return []  # sources unchanged: nothing is stale
    after = before.model_copy(update={"source_hashes": op.source_hashes, "updated_at": work.now})
    return commit_node(work, "mark_stale", before, after, op.reason)


def refresh_embedding(work: Working, op: RefreshEmbedding) -> Problems:
    """Record which model embedded a node, an edge or a summary (the manifest's
    ``node_id`` names the document: the vector projection covers all three)."""
    target = op.manifest.node_id
    profile: str | None
    if target.startswith("e-"):
        edge = work.edge(target)
        if edge is None:
            return [f"{target}: no such edge"]
        profile = edge.profile.value
    elif target.startswith("s-"):
        if work.summary(target) is None:
            return [f"{target}: no such summary"]
        profile = None
    else:
        node, problems = existing_node(work, target)
        if node is None:
            return problems
        profile = node.profile.value
    if work.manifest(target) == op.manifest:
        return []  # the same embedding again: no change, no receipt
    work.pending_manifests[target] = op.manifest
    work.receipt(
        "refresh_embedding",
        target,
        "embedding",
        profile=profile,
        details={"model": op.manifest.model, "dimension": op.manifest.dimension},
    )
    return []
