"""The token budget as a hard ceiling on what each surface returns.

The packer (``context_cut.budget``) fills the budget with item texts; but the
CLI lines, the JSON line, the markdown and the MCP reply each add their own
framing (keys, ids, timestamps, headings), so a packet packed to 2,000 tokens
could print as 8,000. ``fit_output`` renders the packet in the caller's format,
measures the rendered text with the same estimator (``estimate_tokens``) and,
while it is over the budget, trims the packet -- least important first:
the omitted list, receipts, anchors, edges, then nodes and summaries from the
lowest-ranked up, and only then warnings/guards/seams/obligations (a claim is
never returned without its caveats: those outlive the items they qualify; the
seams and guards naming a node that was cut go with it).
Each step keeps the longest prefix that fits (binary search). What was cut is
said in one notice, inside the measured text (a JSON reply trimmed to no nodes
must not look like "nothing found"); only when even that line does not fit is
it left out. If even the empty packet does not fit, ``UsageError`` says the
smallest budget that does.
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
    notices = list(packet.notices)
    before = {name: len(getattr(packet, name)) for (name,) in _STAGES}
    for (name,) in _STAGES:
        items = list(getattr(work, name))
        if not items:
            continue

        def fits(k: int, name: str = name, items: list[object] = items) -> bool:
            setattr(work, name, items[:k])
            if name == "nodes":  # a cut node's caveats qualify nothing returned: they go too
                _drop_caveats(work, packet, _ids(items[:k]), _ids(items[k:]))
            _recount(work)
            work.notices = [*notices, trim_notice(before, work, budget)]
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
        work.notices = notices  # too tight even to say what was cut
        text = render(work)
    if output_tokens(text) > budget:
        raise UsageError(
            f"budget {budget} tokens is below this output format's fixed overhead "
            f"({output_tokens(text)} tokens for an empty packet); raise --budget"
        )
    return work, text


def _ids(nodes: list[object]) -> list[str]:
    return [i for i in (getattr(n, "id", None) for n in nodes) if isinstance(i, str) and i]


def _drop_caveats(work: PacketView, packet: PacketView, kept: list[str], gone: list[str]) -> None:
    """``work``'s seams and guards: ``packet``'s, less those naming a node in ``gone``
    and none in ``kept`` (a guard between a node returned and one cut still
    qualifies the one returned)."""

    def stays(caveat: object) -> bool:
        text = str(caveat)
        return not any(i in text for i in gone) or any(i in text for i in kept)

    for field in ("verification_seams", "contradiction_guards"):
        setattr(work, field, [c for c in getattr(packet, field) if stays(c)])


_WORDS = {
    "omitted": ("left-out note", None),
    "verification_seams": ("seam", None),
    "contradiction_guards": ("guard", None),
    "summaries": ("summary", "summaries"),
}


def trim_notice(before: dict[str, int], packet: PacketView, budget: int) -> str:
    """One line: what the ceiling cut from ``packet`` (counts per kind)."""
    cut = []
    for (name,) in _STAGES:
        gone = before[name] - len(getattr(packet, name))
        if gone > 0:
            word, many = _WORDS.get(name, (name.rstrip("s"), None))
            cut.append(f"{gone} {word if gone == 1 else many or word + 's'}")
    return f"ceiling: {', '.join(cut)} cut to fit {budget} tokens in this format"


def _recount(packet: PacketView) -> None:
    packet.tokens_used = packet_tokens(packet)


__all__ = ["fit_output", "output_tokens", "trim_notice"]
