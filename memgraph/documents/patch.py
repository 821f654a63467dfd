"""Graph operations as data, and the patch that batches them.

Each op is a pure description; ``memgraph.graph`` validates and applies them.
"""

from typing import Annotated, Literal

from pydantic import Field

from memgraph.documents.base import Confidence, Document, JsonValue, Temporal, UtcDatetime, new_list
from memgraph.documents.enums import PatchStatus as PatchStatus  # re-exported
from memgraph.documents.enums import SleepDisposition as SleepDisposition
from memgraph.documents.graph import MemoryAnchor, MemoryEdge, MemoryNode
from memgraph.documents.lifecycle import MemoryEmbeddingManifest
from memgraph.documents.summary import MemorySummary


class UpsertNode(Document):
    op: Literal["upsert_node"] = "upsert_node"
    node: MemoryNode


class UpsertEdge(Document):
    op: Literal["upsert_edge"] = "upsert_edge"
    edge: MemoryEdge


class RetireNode(Document):
    op: Literal["retire_node"] = "retire_node"
    node_id: str
    reason: str = ""


class NodeRevision(Document):
    """Fields a revision may change; ``None`` means unchanged."""

    title: str | None = None
    claim: str | None = None
    question: str | None = None
    tension: str | None = None
    action_implication: str | None = None
    salience: Confidence | None = None
    confidence: Confidence | None = None
    attributes: dict[str, JsonValue] | None = None
    source_hashes: list[str] | None = None
    valid_to: UtcDatetime | None = None


class ReviseNode(Document):
    op: Literal["revise_node"] = "revise_node"
    node_id: str
    changes: NodeRevision
    reason: str = ""


class TransitionNode(Document):
    op: Literal["transition_node"] = "transition_node"
    node_id: str
    to_state: str
    reason: str = ""
    # the state the proposer read: the transition is refused when the node has left
    # it meanwhile (another machine decided first); None: from whatever state it is in
    from_state: str | None = None


class ReviewNode(Document):
    """A review receipt: required before a repo candidate may be accepted."""

    op: Literal["review_node"] = "review_node"
    node_id: str
    reviewer: str
    verdict: Literal["approve", "reject"] = "approve"
    reason: str = ""


class MergeNodes(Document):
    op: Literal["merge_nodes"] = "merge_nodes"
    source_ids: list[str] = Field(min_length=1)
    target_id: str
    reason: str = ""


class AttachAnchor(Document):
    op: Literal["attach_anchor"] = "attach_anchor"
    node_id: str
    anchor: MemoryAnchor


class SummarizeCluster(Document):
    op: Literal["summarize_cluster"] = "summarize_cluster"
    summary: MemorySummary


class MarkStale(Document):
    """Mark a summary stale, or record that a node's sources changed."""

    op: Literal["mark_stale"] = "mark_stale"
    target_id: str
    source_hashes: list[str] | None = None
    reason: str = ""


class RefreshEmbedding(Document):
    op: Literal["refresh_embedding"] = "refresh_embedding"
    manifest: MemoryEmbeddingManifest


class ForcedSleep(Document):
    """End of a short-term window: every short_term node of the domain that is
    still active or clustered must be distilled, incubated or pruned."""

    op: Literal["forced_sleep"] = "forced_sleep"
    domain_id: str
    dispositions: dict[str, SleepDisposition]
    reason: str = ""


GraphOp = Annotated[
    UpsertNode
    | UpsertEdge
    | RetireNode
    | ReviseNode
    | TransitionNode
    | ReviewNode
    | MergeNodes
    | AttachAnchor
    | SummarizeCluster
    | MarkStale
    | RefreshEmbedding
    | ForcedSleep,
    Field(discriminator="op"),
]


class MemoryPatchCandidate(Temporal):
    """A batch of proposed ops, validated as a whole and applied all-or-nothing."""

    id: str
    proposer: str = "memgraph"
    reason: str = ""
    ops: list[GraphOp] = Field(default_factory=new_list)
    status: PatchStatus = PatchStatus.proposed
    created_at: UtcDatetime
