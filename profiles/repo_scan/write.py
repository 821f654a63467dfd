"""The scan's writes: ops from a changed file's graph, retirements, the repo
node, and the one validated patch (``engine.apply_patch``) that applies them.

Imported only when a scan has something to write (``scan._Scan._writer``): a
rescan that changes nothing loads neither pydantic nor the document models.
NodeView nodes and edges read here are documents (the scan switched its store
back from plain reads first), so they can be evolved into ops.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from memgraph.documents import (
    GraphOp,
    MarkStale,
    MemoryEdge,
    MemoryNode,
    RetireNode,
    UpsertEdge,
    UpsertNode,
    evolve,
)
from memgraph.engine import ApplyResult, apply_patch, new_patch
from memgraph.hashing import same_node_content
from profiles.repo_scan.context import RepoContext
from profiles.repo_scan.facts import FileFacts
from profiles.repo_scan.files import language_of
from profiles.repo_scan.graph import file_graph
from profiles.repo_scan.keys import ARCH, EPOCH, repo_node_id

if TYPE_CHECKING:
    from memgraph.documents.views import NodeView
    from memgraph.store.protocol import Store

PROPOSER = "repo-scan"


def carry(before: MemoryNode | None, node: MemoryNode) -> MemoryNode | None:
    """The node to upsert over ``before``, or None when nothing changed.

    Observed and retired (a restored file) enter ``observed``; an accepted claim
    whose source changed goes ``stale`` (re-review needed); proposed/stale stay.
    """
    if before is None:
        return node
    kept = evolve(node, {"lifecycle": before.lifecycle, "created_at": before.created_at})
    if same_node_content(before, kept):
        return None
    state = {"accepted": "stale", "proposed": "proposed", "stale": "stale"}.get(
        before.lifecycle, "observed"
    )
    return evolve(node, {"lifecycle": state})


def file_ops(
    store: Store,
    facts: FileFacts,
    seen: dict[str, Any],
    ctx: RepoContext,
    previous: NodeView | None,
) -> tuple[list[GraphOp], list[GraphOp]]:
    """Node ops and edge ops that make the stored graph of ``facts.path`` the new one."""
    graph = file_graph(facts, seen, ctx)
    module = graph.nodes[0]
    owned = {
        "owned_edges": sorted(e.id for e in graph.edges),
        "owned_nodes": sorted(n.id for n in graph.nodes[1:]),
    }
    module.attributes = dict(sorted({**module.attributes, **owned}.items()))
    old_nodes = set(previous.attributes.get("owned_nodes") or []) if previous else set()
    old_edges = set(previous.attributes.get("owned_edges") or []) if previous else set()
    new_ids = {n.id for n in graph.nodes}
    with store.reader() as reader:
        before = reader.get_nodes([*new_ids, *old_nodes])
        gone_edges = reader.get_edges(sorted(old_edges - {e.id for e in graph.edges}))
    node_ops: list[GraphOp] = []
    for node in graph.nodes:
        up = carry(before.get(node.id), node)
        if up is not None:
            node_ops.append(UpsertNode(node=up))
    for nid in sorted(old_nodes - new_ids):
        gone = before.get(nid)
        if gone is not None and gone.lifecycle != "retired":
            node_ops.append(RetireNode(node_id=nid, reason=f"{facts.path} no longer has it"))
    edge_ops: list[GraphOp] = [UpsertEdge(edge=e) for e in graph.edges]
    return node_ops, edge_ops + retire_edges(gone_edges.values())


def retire_edges(edges: Iterable[MemoryEdge]) -> list[GraphOp]:
    return [
        UpsertEdge(edge=evolve(e, {"lifecycle": "retired"}))
        for e in sorted(edges, key=lambda e: e.id)
        if e.lifecycle != "retired"
    ]


def retire_file(store: Store, node: NodeView, path: str) -> tuple[list[GraphOp], list[GraphOp]]:
    """Node ops and edge ops retiring what the deleted ``path`` owned."""
    reason = f"{path} was deleted"
    ids = [node.id, *(node.attributes.get("owned_nodes") or [])]
    with store.reader() as reader:
        current = reader.get_nodes(ids)
        edges = reader.get_edges(node.attributes.get("owned_edges") or [])
    node_ops: list[GraphOp] = []
    for nid in ids:
        n = current.get(nid)
        if n is not None and n.lifecycle != "retired":
            node_ops.append(RetireNode(node_id=nid, reason=reason))
    return node_ops, retire_edges(edges.values())


def stale_for_new(repo: str, added: list[str], summary_ids: set[str]) -> list[GraphOp]:
    """A summarised package that gained a module no longer covers all of it."""
    from profiles.repo_scan.summaries import package_summary_id

    ops: list[GraphOp] = []
    for sid in sorted({package_summary_id(repo, _folder(p)) for p in added}):
        if sid in summary_ids:
            ops.append(MarkStale(target_id=sid, reason="new module(s) in the package"))
    return ops


def kept_lifecycle(before: str | None) -> str:
    """The lifecycle a scanner record (repo, history node) is rewritten with: the one
    stored (a store where a review accepted it before ``review`` refused to: written
    ``observed`` again, every scan failed "illegal lifecycle transition accepted ->
    observed"); a new or retired record is observed."""
    return before if before is not None and before != "retired" else "observed"


def repo_node(
    repo: str, root: str, state: dict[str, Any], files: int, before: str | None = None
) -> GraphOp:
    langs: dict[str, int] = {}
    for p in state["manifest"]:
        lang = language_of(p) or "other"
        langs[lang] = langs.get(lang, 0) + 1
    shown = ", ".join(f"{n} {lang}" for lang, n in sorted(langs.items()))
    node = MemoryNode(
        id=repo_node_id(repo),
        domain_id=f"repo:{repo}",
        profile=ARCH,
        kind="repo",
        title=f"repo {repo}",
        claim=f"repository {repo} at {root}: {files} source files ({shown})",
        lifecycle=kept_lifecycle(before),
        created_at=EPOCH,
        updated_at=EPOCH,
        attributes=state,
    )
    return UpsertNode(node=node)


def summary_ops(summaries: list[Any]) -> list[GraphOp]:
    from memgraph.documents import SummarizeCluster

    return [SummarizeCluster(summary=s) for s in summaries]


def apply(store: Store, ops: list[GraphOp], repo: str) -> ApplyResult:
    """All of the scan's ops as one validated patch."""
    return apply_patch(store, new_patch(ops, proposer=PROPOSER, reason=f"repo scan {repo}"))


def _folder(path: str) -> str:
    folder = PurePosixPath(path).parent.as_posix()
    return "" if folder == "." else folder
