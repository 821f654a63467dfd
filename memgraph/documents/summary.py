"""Conservative summaries and their freshness."""

from pydantic import Field

from memgraph.documents.base import Confidence, Temporal, UtcDatetime, new_dict, new_list
from memgraph.documents.enums import FreshnessState as FreshnessState  # re-exported


class MemoryFreshness(Temporal):
    state: FreshnessState = FreshnessState.fresh
    checked_at: UtcDatetime | None = None
    stale_ids: list[str] = Field(default_factory=new_list)
    reason: str = ""


class MemorySummary(Temporal):
    """A summary keeps target, claim/question, tension, implication, anchors,
    freshness and known omissions; it may cover nodes, edges and other summaries."""

    id: str
    domain_id: str
    covers_node_ids: list[str] = Field(default_factory=new_list)
    covers_edge_ids: list[str] = Field(default_factory=new_list)
    covers_summary_ids: list[str] = Field(default_factory=new_list)
    target: str
    claim: str = ""
    question: str = ""
    tension: str = ""
    action_implication: str = ""
    anchor_count: int = Field(default=0, ge=0)
    # covered id -> content hash of that document when the summary was written
    source_hashes: dict[str, str] = Field(default_factory=new_dict)
    freshness: MemoryFreshness = Field(default_factory=MemoryFreshness)
    confidence: Confidence = 0.5
    known_omissions: list[str] = Field(default_factory=new_list)

    def covered_ids(self) -> list[str]:
        return [*self.covers_node_ids, *self.covers_edge_ids, *self.covers_summary_ids]
