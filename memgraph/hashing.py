"""Content hashes of documents: what "changed" means for staleness."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

from memgraph.documents import MemoryEdge, MemoryNode, MemorySummary
from memgraph.ids import content_hash

# Timestamps of bookkeeping and evidence pointers do not change what a node
# claims; everything else does (including lifecycle: a retired claim makes a
# summary over it stale).
_NODE_VOLATILE = {"ingested_at", "updated_at", "created_at", "anchors"}
_SUMMARY_VOLATILE = {"ingested_at", "freshness"}


# Every other node field, in declaration order: computed from the model so a
# field added later is hashed automatically.
_NODE_HASHED = tuple(f for f in MemoryNode.model_fields if f not in _NODE_VOLATILE)
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=lambda v: _json_default(v)
)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    raise TypeError(f"cannot hash {type(value).__name__}")


def node_hash(node: MemoryNode) -> str:
    """sha256 of the node's claim-bearing fields, as canonical (key-sorted) JSON.

    Fast on purpose: every upsert receipt carries this hash, so it encodes the
    field values with the C JSON encoder instead of a pydantic dump.
    """
    values = [getattr(node, f) for f in _NODE_HASHED]
    data = _ENCODER.encode(values).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def edge_hash(edge: MemoryEdge) -> str:
    return content_hash(edge.model_dump(mode="json", exclude={"ingested_at", "anchors"}))


def summary_hash(summary: MemorySummary) -> str:
    return content_hash(summary.model_dump(mode="json", exclude=_SUMMARY_VOLATILE))


def same_node_content(a: MemoryNode, b: MemoryNode) -> bool:
    """True when an upsert of ``b`` over ``a`` would change nothing that matters."""
    volatile = {"ingested_at", "updated_at", "created_at"}
    return a.model_dump(exclude=volatile) == b.model_dump(exclude=volatile)
