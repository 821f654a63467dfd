"""What a read path needs of a document, as protocols both kinds satisfy.

``context_cut`` (cuts, select, packet, budget, ceiling, render) and ``recall``
read the pydantic documents (``MemoryNode``...) and the plain slotted objects
of ``memgraph.documents.plain`` (a store opened for a lean read decodes rows
into those, without importing pydantic) alike: both carry the same attribute
names with the same value types. Containers are read-only properties here so
``list[MemoryAnchor]`` and ``list[PlainAnchor]`` both fit ``Sequence[AnchorView]``.
No pydantic import: these are typing only.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from memgraph.documents.enums import AnchorKind, CutName, FreshnessState, ProfileName


class AnchorView(Protocol):
    id: str
    kind: AnchorKind
    ref: str
    line: int | None
    record_uuid: str | None
    sha: str | None
    content_hash: str | None
    label: str | None


class NodeView(Protocol):
    id: str
    domain_id: str
    profile: ProfileName
    kind: str
    title: str
    claim: str
    question: str
    tension: str
    action_implication: str
    lifecycle: str
    salience: float
    confidence: float
    created_at: datetime
    updated_at: datetime
    superseded_by: str | None
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    attributes: dict[str, Any]

    @property
    def anchors(self) -> Sequence[AnchorView]: ...


class EdgeView(Protocol):
    id: str
    source_id: str
    target_id: str
    kind: str
    profile: ProfileName
    claim: str
    lifecycle: str
    confidence: float
    attributes: dict[str, Any]

    @property
    def anchors(self) -> Sequence[AnchorView]: ...


class FreshnessView(Protocol):
    state: FreshnessState
    reason: str
    checked_at: datetime | None

    @property
    def stale_ids(self) -> Sequence[str]: ...


class SummaryView(Protocol):
    id: str
    domain_id: str
    target: str
    claim: str
    question: str
    tension: str
    action_implication: str
    anchor_count: int
    confidence: float

    @property
    def covers_node_ids(self) -> Sequence[str]: ...
    @property
    def covers_edge_ids(self) -> Sequence[str]: ...
    @property
    def covers_summary_ids(self) -> Sequence[str]: ...
    @property
    def freshness(self) -> FreshnessView: ...
    @property
    def known_omissions(self) -> Sequence[str]: ...

    def covered_ids(self) -> list[str]: ...


class ReceiptView(Protocol):
    id: str
    patch_id: str
    op: str
    target_id: str
    target_type: str
    profile: str | None
    actor: str
    at: datetime
    before: str | None
    after: str | None
    reason: str


class QueryView(Protocol):
    """``MemoryContextQuery`` or ``memgraph.documents.plain_context.ContextQuery``."""

    text: str
    cut: CutName
    budget_tokens: int
    domain_id: str | None
    project: str | None
    as_of: datetime | None
    summary_confidence_threshold: float
    limit: int


class PacketView(Protocol):
    """``MemoryContextPacket`` or ``memgraph.documents.plain_context.ContextPacket``: the
    packer appends to the lists, the ceiling replaces them."""

    nodes: list[Any]
    edges: list[Any]
    summaries: list[Any]
    anchors: list[Any]
    warnings: list[str]
    contradiction_guards: list[str]
    verification_seams: list[str]
    receipts: list[Any]
    obligations: list[str]
    order: list[str]
    omitted: list[str]
    tokens_used: int
    notices: list[str]

    @property
    def query(self) -> QueryView: ...
