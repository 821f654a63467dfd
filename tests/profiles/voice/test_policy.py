"""The voice profile's law, enforced by the engine for every writer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgraph.documents import (
    AnchorKind,
    MemoryAnchor,
    MemoryNode,
    NodeRevision,
    ReviseNode,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import PatchRejected
from memgraph.store import open_store

NOW = datetime(2026, 4, 14, 14, 32, tzinfo=UTC)


def _message(**attributes: object) -> MemoryNode:
    return MemoryNode(
        id="n-msg",
        domain_id="voice:atlas",
        profile="voice",
        kind="message",
        lifecycle="captured",
        claim="add exponential backoff",
        anchors=[MemoryAnchor(id="a-1", kind=AnchorKind.transcript, ref="/t.jsonl", line=3)],
        created_at=NOW,
        updated_at=NOW,
        attributes={"session_id": "s1", **attributes},
    )


@pytest.mark.parametrize(
    "attrs",
    [
        {"classification": "wish", "confidence": 0.5, "topics": []},
        {"classification": "decision", "confidence": 1.5, "topics": []},
        {"classification": "decision", "confidence": "high", "topics": []},
        {"classification": "decision", "confidence": 0.5, "topics": ["a", "b", "c", "d"]},
    ],
)
def test_bad_classification_is_rejected(attrs: dict[str, object]) -> None:
    store = open_store(":memory:")
    with pytest.raises(PatchRejected):
        apply_patch(store, new_patch([UpsertNode(node=_message(**attrs))]))
    assert store.counts()["nodes"] == 0


def test_valid_classification_and_verbatim_text() -> None:
    store = open_store(":memory:")
    good = _message(classification="directive", confidence=0.8, topics=["backoff"])
    apply_patch(store, new_patch([UpsertNode(node=good)]))
    with pytest.raises(PatchRejected, match="verbatim"):
        apply_patch(
            store,
            new_patch([ReviseNode(node_id="n-msg", changes=NodeRevision(claim="rewritten"))]),
        )


def test_message_needs_an_anchor() -> None:
    store = open_store(":memory:")
    node = _message().model_copy(update={"anchors": []})
    with pytest.raises(PatchRejected, match="anchor"):
        apply_patch(store, new_patch([UpsertNode(node=node)]))
