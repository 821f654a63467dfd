"""The lean writers' document shapes dump exactly like the pydantic models."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from memgraph.docshapes import EdgeShape, NodeShape, anchor_doc, edge_doc, node_doc
from memgraph.documents import MemoryAnchor, MemoryEdge, MemoryNode, to_json

NOW = "2026-01-02T03:04:05.678901Z"


def _dump(doc: dict[str, object]) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def test_node_shape_is_the_models_dump() -> None:
    anchor = anchor_doc("a-1", "transcript", "x/y.jsonl", 7, "u-1")
    doc = node_doc(
        NodeShape(
            id="n-1",
            domain_id="d-1",
            profile="voice",
            kind="message",
            title="t",
            claim="c é",
            lifecycle="captured",
            confidence=0.5,
            now=NOW,
            valid_from=NOW,
            anchors=[anchor],
            attributes={"k": [1, "v"]},
        )
    )
    assert list(doc) == list(MemoryNode.model_fields)
    assert list(anchor) == list(MemoryAnchor.model_fields)
    model = MemoryNode.model_validate(doc)
    assert to_json(model) == _dump(doc)


def test_edge_shape_is_the_models_dump() -> None:
    doc = edge_doc(EdgeShape("e-1", "n-1", "n-2", "in_session", "voice", "captured", 0.5))
    assert list(doc) == list(MemoryEdge.model_fields)
    stamped = edge_doc(
        EdgeShape("e-1", "n-1", "n-2", "note_of", "session", "active", 1.0, NOW, NOW)
    )
    model = MemoryEdge.model_validate(stamped)
    assert model.ingested_at == datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert to_json(model) == _dump(stamped)
