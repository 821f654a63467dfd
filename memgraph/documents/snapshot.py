"""The whole graph as one document: the export/import format."""

from pydantic import Field

from memgraph.documents.base import Temporal, UtcDatetime, new_list
from memgraph.documents.graph import MemoryDomain, MemoryEdge, MemoryNode
from memgraph.documents.lifecycle import MemoryEmbeddingManifest, MemoryLifecycleReceipt
from memgraph.documents.patch import MemoryPatchCandidate
from memgraph.documents.summary import MemorySummary

SNAPSHOT_FORMAT = "memgraph.snapshot/1"


class MemoryGraphSnapshot(Temporal):
    format: str = SNAPSHOT_FORMAT
    exported_at: UtcDatetime | None = None
    schema_version: int = 1
    domains: list[MemoryDomain] = Field(default_factory=new_list)
    nodes: list[MemoryNode] = Field(default_factory=new_list)
    edges: list[MemoryEdge] = Field(default_factory=new_list)
    summaries: list[MemorySummary] = Field(default_factory=new_list)
    receipts: list[MemoryLifecycleReceipt] = Field(default_factory=new_list)
    embeddings: list[MemoryEmbeddingManifest] = Field(default_factory=new_list)
    patches: list[MemoryPatchCandidate] = Field(default_factory=new_list)
    # earlier versions of revised nodes, oldest first: nothing is ever lost
    node_history: list[MemoryNode] = Field(default_factory=new_list)
    # replaced versions of edges and summaries, oldest first (same rule)
    edge_history: list[MemoryEdge] = Field(default_factory=new_list)
    summary_history: list[MemorySummary] = Field(default_factory=new_list)
