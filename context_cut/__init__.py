"""Context cuts: query -> candidates (FTS5 BM25, Qdrant nerve) -> summary-or-descent
-> token-budgeted packet for a repo task, a role, a persona or a coordinator."""

from context_cut.api import (
    RecallHit,
    RecallRequest,
    RecallResult,
    recall,
    select_context_cut,
)
from context_cut.budget import estimate_tokens, packet_tokens
from context_cut.cuts import CUTS, CutSpec, get_cut

__all__ = [
    "CUTS",
    "CutSpec",
    "RecallHit",
    "RecallRequest",
    "RecallResult",
    "estimate_tokens",
    "get_cut",
    "packet_tokens",
    "recall",
    "select_context_cut",
]
