"""Fixtures for the substrate tests: a document factory and both store backends.

Fixture names are prefixed (``mg_``) so they never shadow fixtures other test
modules in this folder define for themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import (
    AnchorKind,
    MemoryAnchor,
    MemoryEdge,
    MemoryNode,
    MemorySummary,
    ProfileName,
)
from memgraph.ids import anchor_id, edge_id, node_id, summary_id
from memgraph.store import Store
from memgraph.store.memory import MemoryStore
from memgraph.store.sqlite import SQLiteStore

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

# profile -> (a node kind, an edge kind, an initial state) for building valid docs
DEFAULTS: dict[str, tuple[str, str, str]] = {
    "repo_architecture": ("component", "depends_on", "observed"),
    "repo_dataflow": ("flow", "flows_to", "observed"),
    "role_self": ("trait", "supports", "proposed"),
    "short_term": ("observation", "clusters", "active"),
    "incubation": ("idea", "relates_to", "active"),
    "agency_pressure": ("pressure", "relates_to", "active"),
    "candidate_intervention": ("suggestion", "relates_to", "queued"),
    "evidence": ("observation", "supports", "observed"),
    "voice": ("voice_session", "follows", "captured"),
    "artifact": ("commit", "touches", "observed"),
    "session": ("session", "in_session", "active"),
    "activity": ("window", "in_window", "current"),
}


class Factory:
    """Builds valid documents with stable ids; keyword overrides win."""

    def __init__(self) -> None:
        self.clock = T0

    def tick(self) -> datetime:
        self.clock += timedelta(seconds=1)
        return self.clock

    def anchor(
        self, kind: AnchorKind = AnchorKind.url, ref: str = "https://x.test/a"
    ) -> MemoryAnchor:
        return MemoryAnchor(id=anchor_id(kind.value, ref), kind=kind, ref=ref)

    def node(self, key: str, profile: str = "repo_architecture", **kw: Any) -> MemoryNode:
        from profiles import get_profile

        kind, _edge, state = DEFAULTS[profile]
        if kw.get("kind"):
            kind = kw.pop("kind")
        kinds = get_profile(profile).node_kinds
        if kind not in kinds:
            kind = sorted(kinds)[0]
        at = self.tick()
        data: dict[str, Any] = {
            "id": node_id(profile, kind, key),
            "domain_id": "repo:demo",
            "profile": ProfileName(profile),
            "kind": kind,
            "title": f"{key} title",
            "claim": f"{key} claims something",
            "lifecycle": state,
            "created_at": at,
            "updated_at": at,
            "valid_from": at,
        }
        if profile == "evidence":
            data["anchors"] = [self.anchor(ref=f"https://x.test/{key}")]
        data.update(kw)
        return MemoryNode(**data)

    def edge(self, src: MemoryNode, dst: MemoryNode, **kw: Any) -> MemoryEdge:
        from profiles import get_profile

        profile = kw.pop("profile", src.profile.value)
        _kind, kind, _state = DEFAULTS[profile]
        kind = kw.pop("kind", kind)
        if kind not in get_profile(profile).edge_kinds:
            kind = sorted(get_profile(profile).edge_kinds)[0]
        state = kw.pop("lifecycle", DEFAULTS[profile][2])
        data: dict[str, Any] = {
            "id": edge_id(kind, src.id, dst.id),
            "source_id": src.id,
            "target_id": dst.id,
            "kind": kind,
            "profile": ProfileName(profile),
            "lifecycle": state,
        }
        data.update(kw)
        return MemoryEdge(**data)

    def summary(
        self,
        nodes: list[str] = (),  # type: ignore[assignment]
        edges: list[str] = (),  # type: ignore[assignment]
        summaries: list[str] = (),  # type: ignore[assignment]
        **kw: Any,
    ) -> MemorySummary:
        covered = [*nodes, *edges, *summaries]
        data: dict[str, Any] = {
            "id": summary_id("repo:demo", *covered),
            "domain_id": "repo:demo",
            "covers_node_ids": list(nodes),
            "covers_edge_ids": list(edges),
            "covers_summary_ids": list(summaries),
            "target": "the demo repo",
            "claim": "these belong together",
            "tension": "maybe not",
            "action_implication": "read them together",
            "known_omissions": ["tests"],
        }
        data.update(kw)
        return MemorySummary(**data)


@pytest.fixture
def mg_factory() -> Factory:
    return Factory()


def open_backend(kind: str, tmp_path: Path, request: pytest.FixtureRequest | None = None) -> Store:
    if kind == "sqlite":
        return SQLiteStore(tmp_path / "mg.db")
    if kind == "postgres":
        assert request is not None
        from memgraph.store.postgres import open_postgres

        return open_postgres(request.getfixturevalue("pg_url"))
    return MemoryStore()


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def mg_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Each backend in turn: the contract every Store must keep."""
    store = open_backend(request.param, tmp_path, request)
    yield store
    store.close()


@pytest.fixture
def mg_sqlite(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "mg.db")
    yield store
    store.close()
