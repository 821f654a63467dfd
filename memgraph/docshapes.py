"""Node, edge and anchor documents as plain dicts, in the models' field order.

The sanctioned lean writers (decisions.md D9: ``memgraph note``'s and the voice
capture of new sessions) store rows without building the pydantic models, so the
JSON they write must be the JSON the models dump: same keys, same order, same
defaults. The shapes are spelled once, here (stdlib only: the lean paths import
this without pydantic); ``tests/memgraph/documents/test_shapes.py`` checks the
key order against ``MemoryNode``, ``MemoryEdge`` and ``MemoryAnchor``, and the
lean writers' own tests compare their stored rows with the engine's byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Doc = dict[str, Any]


@dataclass(frozen=True)
class NodeShape:
    """What varies between lean node documents; timestamps already as stored JSON."""

    id: str
    domain_id: str
    profile: str
    kind: str
    title: str
    claim: str
    lifecycle: str
    confidence: float
    now: str  # ingested_at, created_at and updated_at
    valid_from: str | None = None
    valid_to: str | None = None
    anchors: list[Doc] = field(default_factory=list)
    attributes: Doc = field(default_factory=dict)


def node_doc(shape: NodeShape) -> Doc:
    """A ``MemoryNode`` as ``to_json`` would dump it (field order is the model's)."""
    return {
        "valid_from": shape.valid_from,
        "valid_to": shape.valid_to,
        "ingested_at": shape.now,
        "id": shape.id,
        "domain_id": shape.domain_id,
        "profile": shape.profile,
        "kind": shape.kind,
        "title": shape.title,
        "claim": shape.claim,
        "question": "",
        "tension": "",
        "action_implication": "",
        "anchors": shape.anchors,
        "source_hashes": [],
        "lifecycle": shape.lifecycle,
        "salience": 0.5,
        "confidence": shape.confidence,
        "created_at": shape.now,
        "updated_at": shape.now,
        "attributes": shape.attributes,
        "superseded_by": None,
    }


@dataclass(frozen=True)
class EdgeShape:
    id: str
    source_id: str
    target_id: str
    kind: str
    profile: str
    lifecycle: str
    confidence: float
    valid_from: str | None = None
    # None when the engine stamps it (a patch op's edge), else the stored JSON time
    ingested_at: str | None = None


def edge_doc(shape: EdgeShape) -> Doc:
    """A ``MemoryEdge`` as ``to_json`` would dump it (no claim, anchors or attributes)."""
    return {
        "valid_from": shape.valid_from,
        "valid_to": None,
        "ingested_at": shape.ingested_at,
        "id": shape.id,
        "source_id": shape.source_id,
        "target_id": shape.target_id,
        "kind": shape.kind,
        "profile": shape.profile,
        "claim": "",
        "anchors": [],
        "lifecycle": shape.lifecycle,
        "confidence": shape.confidence,
        "attributes": {},
    }


def anchor_doc(aid: str, kind: str, ref: str, line: int | None, record_uuid: str | None) -> Doc:
    """A ``MemoryAnchor`` without sha, content hash or label, as ``to_json`` dumps it."""
    return {
        "valid_from": None,
        "valid_to": None,
        "ingested_at": None,
        "id": aid,
        "kind": kind,
        "ref": ref,
        "line": line,
        "record_uuid": record_uuid,
        "sha": None,
        "content_hash": None,
        "label": None,
    }
