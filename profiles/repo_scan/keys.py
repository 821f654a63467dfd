"""Repo node ids and constants, pydantic-free: a rescan that changes nothing
imports neither pydantic nor the document models (``graph.py`` builds them)."""

from __future__ import annotations

from datetime import UTC, datetime

from memgraph.documents.enums import ProfileName
from memgraph.ids import node_id

ARCH = ProfileName.repo_architecture
FLOW = ProfileName.repo_dataflow
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # the engine stamps real times on write


def module_id(repo: str, path: str) -> str:
    return node_id(ARCH.value, "module", repo, path)


def repo_node_id(repo: str) -> str:
    return node_id(ARCH.value, "repo", repo)
