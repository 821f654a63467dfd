"""Context queries and the token-budgeted packets they produce."""

from pydantic import Field

from memgraph.documents.base import Temporal, UtcDatetime, new_list
from memgraph.documents.enums import CutName as CutName  # re-exported
from memgraph.documents.graph import MemoryAnchor, MemoryEdge, MemoryNode
from memgraph.documents.lifecycle import MemoryLifecycleReceipt
from memgraph.documents.summary import MemorySummary


class MemoryContextQuery(Temporal):
    text: str
    cut: CutName = CutName.repo
    budget_tokens: int = Field(default=2000, gt=0)
    domain_id: str | None = None
    # role/persona/coordinator: the project whose standing material leads the packet
    project: str | None = None
    as_of: UtcDatetime | None = None
    summary_confidence_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    limit: int = Field(default=50, gt=0)


class MemoryContextPacket(Temporal):
    query: MemoryContextQuery
    nodes: list[MemoryNode] = Field(default_factory=new_list)
    edges: list[MemoryEdge] = Field(default_factory=new_list)
    summaries: list[MemorySummary] = Field(default_factory=new_list)
    anchors: list[MemoryAnchor] = Field(default_factory=new_list)
    warnings: list[str] = Field(default_factory=new_list)
    contradiction_guards: list[str] = Field(default_factory=new_list)
    verification_seams: list[str] = Field(default_factory=new_list)
    receipts: list[MemoryLifecycleReceipt] = Field(default_factory=new_list)
    obligations: list[str] = Field(default_factory=new_list)
    # the ids of ``nodes`` and ``summaries`` in the order they were packed, most
    # relevant first: the two lists cannot say which of a summary and a node ranks
    # higher, and the output ceiling trims from the end of this order
    order: list[str] = Field(default_factory=new_list)
    omitted: list[str] = Field(default_factory=new_list)
    tokens_used: int = 0
    notices: list[str] = Field(default_factory=new_list)
