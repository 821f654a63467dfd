"""Context cuts: query -> candidates (FTS5 BM25, Qdrant nerve) -> summary-or-descent
-> token-budgeted packet for a repo task, a role, a persona or a coordinator."""

from __future__ import annotations

import importlib
from typing import Any

# Lazy: opening a store imports ``context_cut.schema`` (its migrations); that must
# not drag in pydantic models, qdrant-client or numpy on every CLI start.
_EXPORTS = {
    "RecallHit": "context_cut.api",
    "RecallRequest": "context_cut.recall_request",
    "RecallResult": "context_cut.api",
    "recall": "context_cut.api",
    "select_context_cut": "context_cut.api",
    "estimate_tokens": "context_cut.budget",
    "packet_tokens": "context_cut.budget",
    "CUTS": "context_cut.cuts",
    "CutSpec": "context_cut.cuts",
    "get_cut": "context_cut.cuts",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(name)


__all__ = sorted(_EXPORTS)
