"""The twelve typed documents of the memory graph (pure pydantic data)."""

from memgraph.documents.base import (
    Document,
    ProfileName,
    Temporal,
    UtcDatetime,
    utcnow,
)
from memgraph.documents.context import CutName, MemoryContextPacket, MemoryContextQuery
from memgraph.documents.graph import AnchorKind, MemoryAnchor, MemoryDomain, MemoryEdge, MemoryNode
from memgraph.documents.lifecycle import MemoryEmbeddingManifest, MemoryLifecycleReceipt
from memgraph.documents.patch import (
    AttachAnchor,
    ForcedSleep,
    GraphOp,
    MarkStale,
    MemoryPatchCandidate,
    MergeNodes,
    NodeRevision,
    PatchStatus,
    RefreshEmbedding,
    RetireNode,
    ReviewNode,
    ReviseNode,
    SleepDisposition,
    SummarizeCluster,
    TransitionNode,
    UpsertEdge,
    UpsertNode,
)
from memgraph.documents.snapshot import SNAPSHOT_FORMAT, MemoryGraphSnapshot
from memgraph.documents.summary import FreshnessState, MemoryFreshness, MemorySummary

ALL_DOCUMENTS = (
    MemoryGraphSnapshot,
    MemoryDomain,
    MemoryNode,
    MemoryEdge,
    MemoryAnchor,
    MemorySummary,
    MemoryLifecycleReceipt,
    MemoryEmbeddingManifest,
    MemoryFreshness,
    MemoryContextQuery,
    MemoryContextPacket,
    MemoryPatchCandidate,
)

__all__ = [
    "ALL_DOCUMENTS",
    "SNAPSHOT_FORMAT",
    "AnchorKind",
    "AttachAnchor",
    "CutName",
    "Document",
    "ForcedSleep",
    "FreshnessState",
    "GraphOp",
    "MarkStale",
    "MemoryAnchor",
    "MemoryContextPacket",
    "MemoryContextQuery",
    "MemoryDomain",
    "MemoryEdge",
    "MemoryEmbeddingManifest",
    "MemoryFreshness",
    "MemoryGraphSnapshot",
    "MemoryLifecycleReceipt",
    "MemoryNode",
    "MemoryPatchCandidate",
    "MemorySummary",
    "MergeNodes",
    "NodeRevision",
    "PatchStatus",
    "ProfileName",
    "RefreshEmbedding",
    "RetireNode",
    "ReviewNode",
    "ReviseNode",
    "SleepDisposition",
    "SummarizeCluster",
    "Temporal",
    "TransitionNode",
    "UpsertEdge",
    "UpsertNode",
    "UtcDatetime",
    "utcnow",
]
