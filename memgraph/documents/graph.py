"""Nodes, edges, anchors, domains."""

from pydantic import Field

from memgraph.documents.base import (
    Confidence,
    JsonValue,
    ProfileName,
    Temporal,
    UtcDatetime,
    new_dict,
    new_list,
)
from memgraph.documents.enums import AnchorKind as AnchorKind  # re-exported


class MemoryAnchor(Temporal):
    id: str
    kind: AnchorKind
    ref: str = Field(description="path, repo, URL or entity key the anchor points at")
    line: int | None = None
    record_uuid: str | None = None
    sha: str | None = None
    content_hash: str | None = None
    label: str | None = None


class MemoryDomain(Temporal):
    id: str
    name: str
    profiles: list[ProfileName] = Field(default_factory=new_list)
    description: str = ""


class MemoryNode(Temporal):
    id: str
    domain_id: str
    profile: ProfileName
    kind: str
    title: str = ""
    claim: str = ""
    question: str = ""
    tension: str = ""
    action_implication: str = ""
    anchors: list[MemoryAnchor] = Field(default_factory=new_list)
    source_hashes: list[str] = Field(default_factory=new_list)
    lifecycle: str
    salience: Confidence = 0.5
    confidence: Confidence = 0.5
    created_at: UtcDatetime
    updated_at: UtcDatetime
    # Profile-specific structured facts (session_id, project, classification...).
    attributes: dict[str, JsonValue] = Field(default_factory=new_dict)
    superseded_by: str | None = None


class MemoryEdge(Temporal):
    id: str
    source_id: str
    target_id: str
    kind: str
    profile: ProfileName
    claim: str = ""
    anchors: list[MemoryAnchor] = Field(default_factory=new_list)
    lifecycle: str
    confidence: Confidence = 0.5
    attributes: dict[str, JsonValue] = Field(default_factory=new_dict)
