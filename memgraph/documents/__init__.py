"""The twelve typed documents of the memory graph (pure pydantic data).

Names resolve lazily (PEP 562): a short-lived command (the SessionEnd hook, a
note) pays only for the document modules it touches, not for the context and
snapshot models it never builds.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgraph.documents.base import (
        Document,
        ProfileName,
        Temporal,
        UtcDatetime,
        evolve,
        to_json,
        utcnow,
    )
    from memgraph.documents.context import CutName, MemoryContextPacket, MemoryContextQuery
    from memgraph.documents.graph import (
        AnchorKind,
        MemoryAnchor,
        MemoryDomain,
        MemoryEdge,
        MemoryNode,
    )
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

_WHERE: dict[str, str] = {
    "AnchorKind": "memgraph.documents.enums",
    "AttachAnchor": "memgraph.documents.patch",
    "CutName": "memgraph.documents.enums",
    "Document": "memgraph.documents.base",
    "ForcedSleep": "memgraph.documents.patch",
    "FreshnessState": "memgraph.documents.enums",
    "GraphOp": "memgraph.documents.patch",
    "MarkStale": "memgraph.documents.patch",
    "MemoryAnchor": "memgraph.documents.graph",
    "MemoryContextPacket": "memgraph.documents.context",
    "MemoryContextQuery": "memgraph.documents.context",
    "MemoryDomain": "memgraph.documents.graph",
    "MemoryEdge": "memgraph.documents.graph",
    "MemoryEmbeddingManifest": "memgraph.documents.lifecycle",
    "MemoryFreshness": "memgraph.documents.summary",
    "MemoryGraphSnapshot": "memgraph.documents.snapshot",
    "MemoryLifecycleReceipt": "memgraph.documents.lifecycle",
    "MemoryNode": "memgraph.documents.graph",
    "MemoryPatchCandidate": "memgraph.documents.patch",
    "MemorySummary": "memgraph.documents.summary",
    "MergeNodes": "memgraph.documents.patch",
    "NodeRevision": "memgraph.documents.patch",
    "PatchStatus": "memgraph.documents.enums",
    "ProfileName": "memgraph.documents.enums",
    "RefreshEmbedding": "memgraph.documents.patch",
    "RetireNode": "memgraph.documents.patch",
    "ReviewNode": "memgraph.documents.patch",
    "ReviseNode": "memgraph.documents.patch",
    "SNAPSHOT_FORMAT": "memgraph.documents.snapshot",
    "SleepDisposition": "memgraph.documents.enums",
    "SummarizeCluster": "memgraph.documents.patch",
    "Temporal": "memgraph.documents.base",
    "TransitionNode": "memgraph.documents.patch",
    "UpsertEdge": "memgraph.documents.patch",
    "UpsertNode": "memgraph.documents.patch",
    "UtcDatetime": "memgraph.documents.base",
    "evolve": "memgraph.documents.base",
    "to_json": "memgraph.documents.enums",
    "utcnow": "memgraph.documents.enums",
}


def __getattr__(name: str) -> Any:
    if name == "ALL_DOCUMENTS":
        return tuple(
            __getattr__(n)
            for n in (
                "MemoryGraphSnapshot",
                "MemoryDomain",
                "MemoryNode",
                "MemoryEdge",
                "MemoryAnchor",
                "MemorySummary",
                "MemoryLifecycleReceipt",
                "MemoryEmbeddingManifest",
                "MemoryFreshness",
                "MemoryContextQuery",
                "MemoryContextPacket",
                "MemoryPatchCandidate",
            )
        )
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value  # cache: the next lookup is a plain global
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "evolve",
    "to_json",
    "utcnow",
]
