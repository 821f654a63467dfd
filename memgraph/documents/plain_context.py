"""The context query and packet as plain classes (``memgraph.documents.plain``).

``memgraph context`` builds a ``ContextQuery``; ``context_cut`` then packs a
``ContextPacket`` of plain rows, never importing pydantic. ``packet_document``
turns one into the ``MemoryContextPacket`` a ``--json`` line or MCP reply dumps.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from memgraph.documents.enums import CutName
from memgraph.documents.plain import NONE, TEMPORAL, Plain

if TYPE_CHECKING:
    from memgraph.documents.context import MemoryContextPacket


class ContextQuery(Plain):
    """``MemoryContextQuery``'s fields; the caller validates (``memgraph context``
    checks the budget and limit before building one)."""

    FIELDS = (
        *TEMPORAL,
        "text",
        "cut",
        "budget_tokens",
        "domain_id",
        "project",
        "as_of",
        "summary_confidence_threshold",
        "limit",
    )
    __slots__ = FIELDS
    DEFAULTS: ClassVar[dict[str, Any]] = {
        **NONE,
        "cut": CutName.repo,
        "budget_tokens": 2000,
        "domain_id": None,
    }
    DEFAULTS |= {"project": None, "as_of": None, "summary_confidence_threshold": 0.6, "limit": 50}
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    text: str
    cut: CutName
    budget_tokens: int
    domain_id: str | None
    project: str | None
    as_of: datetime | None
    summary_confidence_threshold: float
    limit: int


class ContextPacket(Plain):
    """``MemoryContextPacket``'s fields; ``packet_document`` makes it one."""

    FIELDS = (
        *TEMPORAL,
        "query",
        "nodes",
        "edges",
        "summaries",
        "anchors",
        "warnings",
        "contradiction_guards",
        "verification_seams",
        "receipts",
        "obligations",
        "order",
        "omitted",
        "tokens_used",
        "notices",
    )
    __slots__ = FIELDS
    DEFAULTS: ClassVar[dict[str, Any]] = {
        **NONE,
        **{name: [] for name in FIELDS[4:-2]},
        "tokens_used": 0,
        "notices": [],
    }
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    query: Any
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


def packet_document(packet: Any) -> MemoryContextPacket:
    """A packet as the pydantic ``MemoryContextPacket`` (``--json``, MCP): the plain
    members validate into their documents; a document is returned as it is."""
    from memgraph.documents.context import MemoryContextPacket

    if isinstance(packet, MemoryContextPacket):
        return packet
    return MemoryContextPacket.model_validate(packet.as_dict())
