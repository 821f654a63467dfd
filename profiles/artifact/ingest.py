"""Commit and vault-page nodes, applied through the engine (idempotent).

Ids come from natural keys (repo name + sha; page path), so re-reading the
same history is a no-op patch that writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import anchor_id, node_id
from memgraph.store.protocol import Store
from profiles.artifact.entities import entity_anchors, entity_keys, norm_name
from profiles.artifact.git import Commit
from profiles.artifact.vault import VaultPage

PROPOSER = "artifact"
# Bulk ingests go in slices so one patch (and its receipts) stays bounded.
BATCH = 5000


def commit_node_id(repo: str, sha: str) -> str:
    return node_id("artifact", "commit", norm_name(repo) or repo, sha)


def page_node_id(kind: str, ref: str) -> str:
    return node_id("artifact", kind, ref)


def commit_node(commit: Commit) -> MemoryNode:
    keys = entity_keys(
        project=commit.repo, repo=commit.repo, branch=commit.branch, paths=commit.files
    )
    anchors = [
        MemoryAnchor(
            id=anchor_id("commit", commit.repo_path, commit.sha),
            kind=AnchorKind.commit,
            ref=commit.repo_path,
            sha=commit.sha,
        ),
        *entity_anchors(keys),
    ]
    text = commit.subject if not commit.body else f"{commit.subject}\n\n{commit.body}"
    return MemoryNode(
        id=commit_node_id(commit.repo, commit.sha),
        domain_id=f"artifact:{norm_name(commit.repo) or 'repo'}",
        profile=ProfileName.artifact,
        kind="commit",
        title=commit.subject[:80],
        claim=text[:20_000],
        anchors=anchors,
        lifecycle="observed",
        created_at=commit.committed_at,
        updated_at=commit.committed_at,
        valid_from=commit.committed_at,
        attributes={
            "repo": commit.repo,
            "repo_path": commit.repo_path,
            "sha": commit.sha,
            "parents": list(commit.parents),
            "author": commit.author,
            "author_email": commit.author_email,
            "authored_at": commit.authored_at.isoformat(),
            "committer": commit.committer,
            "committer_email": commit.committer_email,
            "committed_at": commit.committed_at.isoformat(),
            "branch": commit.branch,
            "files": list(commit.files),
            "files_total": commit.files_total,
            "merge": commit.is_merge,
            "bot": commit.is_bot,
        },
    )


def page_node(page: VaultPage) -> MemoryNode:
    keys = entity_keys(
        session_id=page.session_id,
        project=page.project,
        repo=page.repo,
        branch=page.branch,
        paths=page.paths,
    )
    anchors = [
        MemoryAnchor(id=anchor_id("page", page.ref), kind=AnchorKind.page, ref=page.ref),
        *entity_anchors(keys),
    ]
    return MemoryNode(
        id=page_node_id(page.type, page.ref),
        domain_id="artifact:vault",
        profile=ProfileName.artifact,
        kind=page.type,
        title=page.title[:80],
        claim=page.title,
        anchors=anchors,
        lifecycle="observed",
        created_at=page.created or page.valid_time,
        updated_at=page.valid_time,
        valid_from=page.valid_time,
        attributes={
            "ref": page.ref,
            "session_id": page.session_id,
            "project": page.project,
            "repo": page.repo,
            "branch": page.branch,
            "paths": list(page.paths),
            "created": page.created.isoformat() if page.created else None,
            "updated": page.updated.isoformat() if page.updated else None,
        },
    )


@dataclass
class IngestResult:
    seen: int = 0
    written: int = 0


def ingest_nodes(store: Store, nodes: Iterable[MemoryNode], reason: str) -> IngestResult:
    """Upsert artifact nodes in bounded patches; unchanged nodes write nothing."""
    result = IngestResult()
    batch: list[MemoryNode] = []

    def flush() -> None:
        if batch:
            ops: list[UpsertNode] = [UpsertNode(node=n) for n in batch]
            applied = apply_patch(store, new_patch(list(ops), proposer=PROPOSER, reason=reason))
            result.written += applied.nodes_written
            batch.clear()

    for node in nodes:
        result.seen += 1
        batch.append(node)
        if len(batch) >= BATCH:
            flush()
    flush()
    return result


def ingest_commits(store: Store, commits: Iterable[Commit]) -> IngestResult:
    return ingest_nodes(store, (commit_node(c) for c in commits), "git log")


def ingest_pages(store: Store, pages: Iterable[VaultPage]) -> IngestResult:
    return ingest_nodes(store, (page_node(p) for p in pages), "vault frontmatter")


__all__ = [
    "IngestResult",
    "commit_node",
    "commit_node_id",
    "ingest_commits",
    "ingest_nodes",
    "ingest_pages",
    "page_node",
    "page_node_id",
]
