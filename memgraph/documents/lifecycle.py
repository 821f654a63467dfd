"""Lifecycle receipts and embedding manifests."""

from pydantic import Field

from memgraph.documents.base import JsonValue, Temporal, UtcDatetime, new_dict


class MemoryLifecycleReceipt(Temporal):
    """Append-only record of one applied (or rejected) operation."""

    id: str
    patch_id: str
    op: str
    target_id: str
    target_type: str  # node | edge | summary | anchor | embedding | patch
    profile: str | None = None
    actor: str
    at: UtcDatetime
    before: str | None = None
    after: str | None = None
    reason: str = ""
    details: dict[str, JsonValue] = Field(default_factory=new_dict)


class MemoryEmbeddingManifest(Temporal):
    """Which model embedded which node, from which source text hash."""

    node_id: str
    model: str
    dimension: int = Field(gt=0)
    source_hash: str
    embedded_at: UtcDatetime
    collection: str = "memgraph"
