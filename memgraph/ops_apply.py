"""One handler per graph operation: validate against the working view, then
record the effect and its receipt there. Handlers return problems; they never
raise for bad input, so a patch reports every problem at once.

The handlers live by what they change: nodes and edges in ``memgraph.ops_node``,
summaries and embedding manifests in ``memgraph.ops_derived``; this is their table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memgraph.documents import GraphOp
from memgraph.ops_derived import mark_stale, refresh_embedding, summarize_cluster
from memgraph.ops_node import (
    Problems,
    attach_anchor,
    forced_sleep,
    merge_nodes,
    retire_node,
    review_node,
    revise_node,
    transition_node,
    upsert_edge,
    upsert_node,
)
from memgraph.working import Working

_HANDLERS: dict[str, Callable[[Working, Any], Problems]] = {
    "upsert_node": upsert_node,
    "upsert_edge": upsert_edge,
    "retire_node": retire_node,
    "revise_node": revise_node,
    "transition_node": transition_node,
    "review_node": review_node,
    "merge_nodes": merge_nodes,
    "attach_anchor": attach_anchor,
    "summarize_cluster": summarize_cluster,
    "mark_stale": mark_stale,
    "refresh_embedding": refresh_embedding,
    "forced_sleep": forced_sleep,
}


def apply_op(work: Working, index: int, op: GraphOp) -> Problems:
    return _HANDLERS[op.op](work, op)
