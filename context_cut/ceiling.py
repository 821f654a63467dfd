"""The token budget as a hard ceiling on what each surface returns.

The packer (``context_cut.budget``) fills the budget with item texts; but the
CLI lines, the JSON line, the markdown and the MCP reply each add their own
framing (keys, ids, timestamps, headings), so a packet packed to 2,000 tokens
could print as 8,000. ``fit_output`` renders the packet in the caller's format,
measures the rendered text with the same estimator (``estimate_tokens``) and,
while it is over the budget, trims the packet -- least important first:
the omitted list, receipts, anchors, edges, then nodes and summaries from the
lowest-ranked up, and only then warnings/guards/seams/obligations (a claim is
never returned without its caveats: those outlive the items they qualify).
Each step keeps the longest prefix that fits (binary search). If even the
empty packet does not fit, ``UsageError`` says the smallest budget that does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from context_cut.budget import estimate_tokens, packet_tokens
from memgraph.errors import UsageError

if TYPE_CHECKING:
    from memgraph.documents.views import PacketView

P = TypeVar("P", bound="PacketView")
Render = Callable[[P], str]

# trimmed in this order (the last field named in each stage goes first)
_STAGES: tuple[tuple[str, ...], ...] = (
    ("omitted",),
    ("receipts",),
    ("anchors",),
    ("edges",),
    ("nodes",),
    ("summaries",),
    ("verification_seams",),
    ("obligations",),
    ("contradiction_guards",),
    ("warnings",),
)


def output_tokens(text: str) -> int:
    """How every surface measures what it returns."""
    return estimate_tokens(text)


def fit_output(packet: P, render: Render[P], budget: int) -> tuple[P, str]:
    """(packet, its rendering), trimmed until ``output_tokens(text) <= budget``."""
    text = render(packet)
    if output_tokens(text) <= budget:
        return packet, text
    # a shallow copy: trimming replaces the copy's lists, never edits an item
    work = copy.copy(packet)
    for (name,) in _STAGES:
        items = list(getattr(work, name))
        if not items:
            continue

        def fits(k: int, name: str = name, items: list[object] = items) -> bool:
            setattr(work, name, items[:k])
            _recount(work)
            return output_tokens(render(work)) <= budget

        if fits(len(items)):
            continue
        lo, hi = 0, len(items)  # fits(lo) unknown; find the largest k that fits
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid - 1
        if fits(lo) and lo > 0:
            return work, render(work)
        if lo == 0 and fits(0):
            return work, render(work)
    text = render(work)
    if output_tokens(text) > budget:
        raise UsageError(
            f"budget {budget} tokens is below this output format's fixed overhead "
            f"({output_tokens(text)} tokens for an empty packet); raise --budget"
        )
    return work, text


def _recount(packet: PacketView) -> None:
    packet.tokens_used = packet_tokens(packet)


__all__ = ["fit_output", "output_tokens"]
