"""Repo node ids and constants, pydantic-free: a rescan that changes nothing
imports neither pydantic nor the document models (``graph.py`` builds them)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memgraph.documents.enums import ProfileName
from memgraph.ids import digest, node_id

if TYPE_CHECKING:
    from memgraph.store.protocol import Store

ARCH = ProfileName.repo_architecture
FLOW = ProfileName.repo_dataflow
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # the engine stamps real times on write


def module_id(repo: str, path: str) -> str:
    return node_id(ARCH.value, "module", repo, path)


def repo_node_id(repo: str) -> str:
    return node_id(ARCH.value, "repo", repo)


def find_repo_key(store: Store, root: Path, name: str | None = None) -> str:
    """The repo key for ``root``: ``name``, else the key of an earlier scan of
    this same folder, else the folder name."""
    # imported when needed: the entities module loads the documents (pydantic)
    if name:
        from profiles.artifact.entities import norm_name

        return norm_name(name) or "repo"
    taken: set[str] = set()
    retired: str | None = None
    for node in store.iter_nodes(profile=ARCH.value, kind="repo"):
        key = str(node.attributes.get("repo") or node.title.removeprefix("repo "))
        if node.attributes.get("root") == str(root):
            if node.lifecycle != "retired":
                return key
            retired = key
        taken.add(key)
    if retired is not None:  # this folder's own record, retired (a review rejected it
        return retired  # before review refused to): the scan observes it again
    from profiles.artifact.entities import norm_name

    key = norm_name(root.name) or "repo"
    # another folder of the same name was scanned already: keep the two apart
    return f"{key}-{digest(str(root), length=8)}" if key in taken else key
