"""Content hashes of documents: what "changed" means for staleness."""

from __future__ import annotations

from memgraph.documents import MemoryEdge, MemoryNode, MemorySummary
from memgraph.ids import content_hash

# Timestamps of bookkeeping and evidence pointers do not change what a node
# claims; everything else does (including lifecycle: a retired claim makes a
# summary over it stale).
_NODE_VOLATILE = {"ingested_at", "updated_at", "created_at", "anchors"}
_SUMMARY_VOLATILE = {"ingested_at", "freshness"}


def node_hash(node: MemoryNode) -> str:
    return content_hash(node.model_dump(mode="json", exclude=_NODE_VOLATILE))


def edge_hash(edge: MemoryEdge) -> str:
    return content_hash(edge.model_dump(mode="json", exclude={"ingested_at", "anchors"}))


def summary_hash(summary: MemorySummary) -> str:
    return content_hash(summary.model_dump(mode="json", exclude=_SUMMARY_VOLATILE))


def same_node_content(a: MemoryNode, b: MemoryNode) -> bool:
    """True when an upsert of ``b`` over ``a`` would change nothing that matters."""
    volatile = {"ingested_at", "updated_at", "created_at"}
    return a.model_dump(exclude=volatile) == b.model_dump(exclude=volatile)
