"""Graph builders for context-cut tests: every write goes through the engine."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from memgraph.documents import (
    AnchorKind,
    GraphOp,
    MemoryAnchor,
    MemoryEdge,
    MemoryNode,
    MemorySummary,
    ProfileName,
    SummarizeCluster,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import anchor_id, edge_id, node_id, summary_id
from memgraph.store import Store, open_store

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

DEFAULT_STATE = {
    "repo_architecture": "observed",
    "repo_dataflow": "observed",
    "role_self": "proposed",
    "short_term": "active",
    "incubation": "active",
    "agency_pressure": "active",
    "candidate_intervention": "queued",
    "evidence": "observed",
    "voice": "captured",
    "artifact": "observed",
    "session": "active",
    "activity": "current",
}
DEFAULT_KIND = {
    "repo_architecture": "component",
    "repo_dataflow": "flow",
    "role_self": "stance",
    "short_term": "observation",
    "incubation": "idea",
    "agency_pressure": "obligation",
    "candidate_intervention": "suggestion",
    "evidence": "observation",
    "voice": "message",
    "artifact": "commit",
    "session": "note",
    "activity": "window",
}


def make_node(
    profile: str,
    title: str,
    claim: str = "",
    *,
    kind: str | None = None,
    lifecycle: str | None = None,
    domain: str = "d1",
    anchors: list[MemoryAnchor] | None = None,
    action_implication: str = "",
    **attributes: Any,
) -> MemoryNode:
    kind = kind or DEFAULT_KIND[profile]
    if anchors is None and profile in ("evidence", "voice"):
        anchors = [
            MemoryAnchor(
                id=anchor_id("transcript", title),
                kind=AnchorKind.transcript,
                ref="/t/session.jsonl",
                line=3,
            )
        ]
    return MemoryNode(
        id=node_id(profile, kind, domain, title),
        domain_id=domain,
        profile=ProfileName(profile),
        kind=kind,
        title=title,
        claim=claim or title,
        action_implication=action_implication,
        lifecycle=lifecycle or DEFAULT_STATE[profile],
        anchors=anchors or [],
        created_at=T0,
        updated_at=T0,
        valid_from=T0,
        attributes=attributes,
    )


def make_edge(kind: str, profile: str, a: MemoryNode, b: MemoryNode, claim: str = "") -> MemoryEdge:
    return MemoryEdge(
        id=edge_id(kind, a.id, b.id),
        source_id=a.id,
        target_id=b.id,
        kind=kind,
        profile=ProfileName(profile),
        claim=claim,
        lifecycle=DEFAULT_STATE[profile],
    )


def make_summary(
    target: str,
    claim: str,
    nodes: list[MemoryNode] = (),  # type: ignore[assignment]
    summaries: list[MemorySummary] = (),  # type: ignore[assignment]
    *,
    confidence: float = 0.9,
    domain: str = "d1",
) -> MemorySummary:
    covered = [n.id for n in nodes] + [s.id for s in summaries]
    return MemorySummary(
        id=summary_id(domain, *covered),
        domain_id=domain,
        covers_node_ids=[n.id for n in nodes],
        covers_summary_ids=[s.id for s in summaries],
        target=target,
        claim=claim,
        confidence=confidence,
    )


class Graph:
    def __init__(self, store: Store) -> None:
        self.store = store

    def apply(self, *ops: GraphOp) -> None:
        apply_patch(self.store, new_patch(list(ops), proposer="test"))

    def nodes(self, *nodes: MemoryNode) -> None:
        self.apply(*(UpsertNode(node=n) for n in nodes))

    def edges(self, *edges: MemoryEdge) -> None:
        self.apply(*(UpsertEdge(edge=e) for e in edges))

    def summarize(self, *summaries: MemorySummary) -> None:
        self.apply(*(SummarizeCluster(summary=s) for s in summaries))


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Any) -> Store:
    s = open_store(tmp_path / "mg.db") if request.param == "sqlite" else open_store(":memory:")
    yield s  # type: ignore[misc]
    s.close()


@pytest.fixture
def sqlite_store(tmp_path: Any) -> Store:
    s = open_store(tmp_path / "mg.db")
    yield s  # type: ignore[misc]
    s.close()


@pytest.fixture
def graph(store: Store) -> Graph:
    return Graph(store)


GraphFactory = Callable[[Store], Graph]


class Makers:
    """The builders, for tests (conftest modules are not importable)."""

    node = staticmethod(make_node)
    edge = staticmethod(make_edge)
    summary = staticmethod(make_summary)
    t0 = T0


@pytest.fixture
def mk() -> type[Makers]:
    return Makers
