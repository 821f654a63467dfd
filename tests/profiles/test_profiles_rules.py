"""The profile rules as pure functions over a RuleContext (no store at all)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

import pytest

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName
from profiles.agent import REPO_TRUTH_ATTRIBUTES, SHORT_TERM_OPEN_STATES, no_repo_truth
from profiles.evidence import needs_anchor
from profiles.repo import accepted_needs_review

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class Ctx:
    def __init__(self, approved: Iterable[str] = ()) -> None:
        self.approved = set(approved)

    def node(self, node_id: str) -> MemoryNode | None:
        return None

    def nodes_in_domain(
        self, domain_id: str, profile: str, states: Iterable[str]
    ) -> list[MemoryNode]:
        return []

    def has_approving_review(self, node_id: str) -> bool:
        return node_id in self.approved


def node(profile: str, lifecycle: str, **kw: object) -> MemoryNode:
    data: dict[str, object] = {
        "id": "n-1",
        "domain_id": "d",
        "profile": ProfileName(profile),
        "kind": "claim",
        "lifecycle": lifecycle,
        "created_at": NOW,
        "updated_at": NOW,
    }
    data.update(kw)
    return MemoryNode(**data)  # type: ignore[arg-type]


@pytest.mark.parametrize("profile", ["repo_architecture", "repo_dataflow"])
def test_accepted_needs_review(profile: str) -> None:
    proposed, accepted = node(profile, "proposed"), node(profile, "accepted")
    assert list(accepted_needs_review(proposed, accepted, Ctx())) != []
    assert list(accepted_needs_review(None, accepted, Ctx())) != []
    assert list(accepted_needs_review(proposed, accepted, Ctx({"n-1"}))) == []
    # staying accepted (e.g. an anchor added) needs no new review
    assert list(accepted_needs_review(accepted, accepted, Ctx())) == []
    assert list(accepted_needs_review(None, proposed, Ctx())) == []


@pytest.mark.parametrize("attr", sorted(REPO_TRUTH_ATTRIBUTES))
def test_role_self_refuses_each_repo_attribute(attr: str) -> None:
    n = node("role_self", "proposed", kind="trait", attributes={attr: "x", "tone": "dry"})
    [problem] = list(no_repo_truth(None, n, Ctx()))
    assert f"attributes: {attr}" in problem


@pytest.mark.parametrize("kind", list(AnchorKind))
def test_role_self_anchor_kinds(kind: AnchorKind) -> None:
    n = node(
        "role_self", "proposed", kind="trait", anchors=[MemoryAnchor(id="a", kind=kind, ref="r")]
    )
    problems = list(no_repo_truth(None, n, Ctx()))
    assert bool(problems) == (kind in (AnchorKind.commit, AnchorKind.file))


def test_evidence_needs_an_anchor() -> None:
    bare = node("evidence", "observed", kind="quote")
    assert list(needs_anchor(None, bare, Ctx())) == ["n-1: evidence must carry at least one anchor"]
    anchored = bare.model_copy(
        update={"anchors": [MemoryAnchor(id="a", kind=AnchorKind.transcript, ref="t")]}
    )
    assert list(needs_anchor(None, anchored, Ctx())) == []


def test_short_term_open_states() -> None:
    assert {"active", "clustered"} == SHORT_TERM_OPEN_STATES
