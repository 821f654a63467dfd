"""``RecallRequest``: a recall's arguments as a validated pydantic model.

Out of ``context_cut.api``'s import path (``from context_cut.api import
RecallRequest`` still works, lazily): the lean ``memgraph recall`` builds a plain
``context_cut.api.PlainRecall`` when its arguments are valid and this model only
to word the error when they are not.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memgraph.documents.base import UtcDatetime


class RecallRequest(BaseModel):
    """A semantic voice recall: what did I say about <text>?"""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    limit: int = Field(default=10, gt=0, le=1000)
    project: str | None = None
    session_id: str | None = None
    since: UtcDatetime | None = None
    # hybrid: BM25 fused with vectors (BM25 alone when no nerve); bm25; vectors only
    mode: Literal["hybrid", "bm25", "vectors"] = "hybrid"
