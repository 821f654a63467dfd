"""Voice meets code: commit artifact nodes -> ``touches`` -> module nodes.

For every commit of the repo that is already in the graph (``memgraph windows``
or the artifact ingest put it there), one ``touches`` edge (profile artifact)
per changed file that has a module node. Through activity windows this answers
"what did the operator say that led to changes in this module".
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memgraph.documents.enums import AnchorKind, ProfileName
from memgraph.ids import anchor_id, edge_id
from profiles.repo_scan.keys import module_id

if TYPE_CHECKING:  # loaded only when there are commit nodes to link
    from memgraph.documents import GraphOp, MemoryEdge
    from memgraph.store.protocol import Store


def touches_edge(commit_id: str, repo: str, path: str, repo_path: str, sha: str) -> MemoryEdge:
    from memgraph.documents import MemoryAnchor, MemoryEdge

    target = module_id(repo, path)
    return MemoryEdge(
        id=edge_id("touches", commit_id, target),
        source_id=commit_id,
        target_id=target,
        kind="touches",
        profile=ProfileName.artifact,
        anchors=[
            MemoryAnchor(
                id=anchor_id("commit", repo_path, sha),
                kind=AnchorKind.commit,
                ref=repo_path,
                sha=sha,
                label=path,
            )
        ],
        lifecycle="observed",
        confidence=1.0,
        attributes={"repo": repo, "path": path, "sha": sha},
    )


def touches_ops(store: Store, root: Path, repo: str, paths: set[str]) -> list[GraphOp]:
    """Upserts for the missing ``touches`` edges (module nodes of ``paths`` exist
    in the store or earlier in the same patch)."""
    # No commit node in the store (commits never ingested): nothing to link. Checked
    # first so a rescan neither reads every ref's log nor imports the artifact
    # ingest path (yaml, vault pages) on every run (notes/repo.md, 2026-12-04 15:00).
    if next(store.iter_nodes(profile="artifact", kind="commit"), None) is None:
        return []
    from profiles.artifact.git import read_commits
    from profiles.artifact.ingest import commit_node_id

    read = read_commits(root)
    if not read.commits:
        return []
    top = Path(read.repo_path)
    prefix = "" if top == root else root.relative_to(top).as_posix() + "/"
    ids = {c.sha: commit_node_id(c.repo, c.sha) for c in read.commits}
    with store.reader() as reader:
        present = reader.existing_node_ids(list(ids.values()))
    if not present:
        return []
    edges: list[MemoryEdge] = []
    for c in read.commits:
        cid = ids[c.sha]
        if cid not in present:
            continue
        for f in c.files:
            rel = f[len(prefix) :] if f.startswith(prefix) else None
            if rel is not None and rel in paths:
                edges.append(touches_edge(cid, repo, rel, str(root), c.sha))
    with store.reader() as reader:
        known = set(reader.get_edges([e.id for e in edges]))
    from memgraph.documents import UpsertEdge

    return [UpsertEdge(edge=e) for e in edges if e.id not in known]
