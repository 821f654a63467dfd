"""Content hashes of documents: what "changed" means for staleness."""

from __future__ import annotations

import hashlib
from typing import Any

from memgraph.documents import MemoryEdge, MemoryNode, MemorySummary, evolve
from memgraph.ids import content_hash

# Timestamps of bookkeeping and evidence pointers do not change what a node
# claims; everything else does (including lifecycle: a retired claim makes a
# summary over it stale).
_NODE_VOLATILE = {"ingested_at", "updated_at", "created_at", "anchors"}
_SUMMARY_VOLATILE = {"ingested_at", "freshness"}


def node_hash(node: MemoryNode) -> str:
    """sha256 of the node's claim-bearing fields.

    Serialised by pydantic-core in field order (fast: every upsert receipt
    carries this hash); the only free-form mapping, ``attributes``, is
    key-sorted first so equal content always hashes equally.
    ``profiles.session.records.node_content_hash`` reproduces this exactly for
    the lean CLI path: change both together.
    """
    if node.attributes and not _is_sorted(node.attributes):
        node = evolve(node, {"attributes": _sorted(node.attributes)})
    # the serializer itself, not model_dump_json: same bytes, no str round trip
    data = MemoryNode.__pydantic_serializer__.to_json(node, exclude=_NODE_VOLATILE)
    return hashlib.sha256(data).hexdigest()


def _is_sorted(value: Any) -> bool:
    # plain loops, no generator: this runs for every upserted node's attributes
    if type(value) is dict:
        if len(value) > 1:
            keys = list(value)
            if keys != sorted(keys, key=str):
                return False
        children: Any = value.values()
    elif type(value) is list:
        children = value
    else:
        return True
    for v in children:
        t = type(v)
        if (t is dict or t is list) and not _is_sorted(v):
            return False
    return True


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def edge_hash(edge: MemoryEdge) -> str:
    return content_hash(edge.model_dump(mode="json", exclude={"ingested_at", "anchors"}))


def summary_hash(summary: MemorySummary) -> str:
    return content_hash(summary.model_dump(mode="json", exclude=_SUMMARY_VOLATILE))


def same_node_content(a: MemoryNode, b: MemoryNode) -> bool:
    """True when an upsert of ``b`` over ``a`` would change nothing that matters."""
    volatile = {"ingested_at", "updated_at", "created_at"}
    return a.model_dump(exclude=volatile) == b.model_dump(exclude=volatile)
