"""The token budget as a hard ceiling on what each surface returns.

The packer (``context_cut.budget``) fills the budget with item texts; but the
CLI lines, the JSON line, the markdown and the MCP reply each add their own
framing (keys, ids, timestamps, headings), so a packet packed to 2,000 tokens
could print as 8,000. ``fit_output`` renders the packet in the caller's format,
measures the rendered text with the same estimator (``estimate_tokens``) and,
while it is over the budget, trims the packet -- least important first:
the omitted list, receipts, anchors, edges, then nodes and summaries together
from the lowest-ranked up (the packet's ``order``: a summary standing in for a
package ranks among the modules, so a --json packet at 4,000 tokens kept two
package summaries and none of the twelve modules ranked above them when nodes
went first), each node's spots with it (``_spots``: the file:line anchors a cut
adds into a node's own file go just before the node, not in the anchors step;
a --json repo packet kept none of them even at 4,000 tokens), and only then
warnings/guards/seams/obligations (a claim is
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

# the packet's nodes and summaries, trimmed as one ranked list (``_ranked``)
_ITEMS = "items"
# trimmed in this order, each list from its end
_STAGES: tuple[str, ...] = (
    "omitted",
    "receipts",
    "anchors",
    "edges",
    _ITEMS,
    "verification_seams",
    "obligations",
    "contradiction_guards",
    "warnings",
)
# what the notice counts, in the order it names them
_COUNTED: tuple[str, ...] = (
    "omitted",
    "receipts",
    "anchors",
    "edges",
    "nodes",
    "summaries",
    "verification_seams",
    "obligations",
    "contradiction_guards",
    "warnings",
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
    before = {name: len(getattr(packet, name)) for name in _COUNTED}
    spots = _spots(packet)
    # the anchors the anchors step left (a node's spots are kept or cut with it)
    kept_anchors = {id(a) for a in packet.anchors if id(a) not in spots}
    for name in _STAGES:
        if name == _ITEMS:
            items = _with_spots(packet, spots)
        elif name == "anchors":  # a node's spots go with the node, not here
            items = [a for a in work.anchors if id(a) not in spots]
        else:
            items = list(getattr(work, name))
        if not items:
            continue

        def fits(k: int, name: str = name, items: list[object] = items) -> bool:
            if name == _ITEMS:
                _keep_items(work, packet, [i for i in items[:k] if id(i) not in spots])
                kept = kept_anchors | {id(i) for i in items[:k]}
                work.anchors = [a for a in packet.anchors if id(a) in kept]
                # a cut node's caveats qualify nothing returned: they go too
                _drop_caveats(work, packet, _ids(work.nodes), _ids(_gone(packet.nodes, work)))
            elif name == "anchors":
                kept_anchors.clear()
                kept_anchors.update(id(a) for a in items[:k])
                work.anchors = [
                    a for a in packet.anchors if id(a) in kept_anchors or id(a) in spots
                ]
            else:
                setattr(work, name, items[:k])
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
    if output_tokens(text) > budget and notices:
        # a format that carries its notices (the MCP reply) cuts them last, oldest
        # kept, and says how many went; the CLI prints them on stderr, outside it
        from memgraph.terminal import plural

        for k in range(len(notices) - 1, -1, -1):
            work.notices = [*notices[:k], f"{plural(len(notices) - k, 'notice')} left out"]
            text = render(work)
            if output_tokens(text) <= budget:
                return work, text
        work.notices = []
        text = render(work)
    if output_tokens(text) > budget:
        from memgraph.terminal import plural

        # "the budget": the CLI's --budget, the MCP tool's budget, the hook's setting
        raise UsageError(
            f"a budget of {plural(budget, 'token')} is below this output format's fixed "
            f"overhead ({plural(output_tokens(text), 'token')} for an empty packet); "
            "raise the budget"
        )
    return work, text


def _ranked(packet: PacketView) -> list[object]:
    """The packet's nodes and summaries, most relevant first: as ``order`` lists
    them, then any it does not name (summaries before nodes, as the ceiling kept
    them before ``order`` existed)."""
    by_id: dict[str, object] = {}
    for item in (*packet.summaries, *packet.nodes):
        by_id.setdefault(str(getattr(item, "id", "")), item)
    ranked = [by_id.pop(i) for i in packet.order if i in by_id]
    placed = {id(item) for item in ranked}
    return ranked + [i for i in (*packet.summaries, *packet.nodes) if id(i) not in placed]


def _spots(packet: PacketView) -> dict[int, int]:
    """The packet's anchors that are not a node's own but point into one node's own
    file (the repo cut's ``path:4-9 name`` spots): id(anchor) -> id(that node), the
    first node in rank order whose own anchor has the same kind and ref."""
    own = {str(getattr(a, "id", "")) for n in packet.nodes for a in n.anchors}
    where: dict[tuple[str, str], int] = {}
    nodes = {id(n) for n in packet.nodes}
    for item in _ranked(packet):
        if id(item) in nodes:
            for a in getattr(item, "anchors", None) or []:
                where.setdefault((str(a.kind), str(a.ref)), id(item))
    return {
        id(a): where[(str(a.kind), str(a.ref))]
        for a in packet.anchors
        if str(a.id) not in own and (str(a.kind), str(a.ref)) in where
    }


def _with_spots(packet: PacketView, spots: dict[int, int]) -> list[object]:
    """The ranked items with each node's spots right after it (in packet order), so
    trimming from the end cuts the lowest-ranked node's spots, then that node, then
    the next one's spots."""
    by_owner: dict[int, list[object]] = {}
    for a in packet.anchors:
        if id(a) in spots:
            by_owner.setdefault(spots[id(a)], []).append(a)
    out: list[object] = []
    for item in _ranked(packet):
        out += [item, *by_owner.get(id(item), [])]
    return out


def _keep_items(work: PacketView, packet: PacketView, kept: list[object]) -> None:
    """``work`` holds only ``kept`` of ``packet``'s nodes and summaries, each list in
    its own order, and ``order`` names only those."""
    keep = {id(item) for item in kept}
    work.nodes = [n for n in packet.nodes if id(n) in keep]
    work.summaries = [s for s in packet.summaries if id(s) in keep]
    ids = {str(getattr(item, "id", "")) for item in kept}
    work.order = [i for i in packet.order if i in ids]


def _gone(nodes: list[object], work: PacketView) -> list[object]:
    kept = {id(n) for n in work.nodes}
    return [n for n in nodes if id(n) not in kept]


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
    for name in _COUNTED:
        gone = before[name] - len(getattr(packet, name))
        if gone > 0:
            word, many = _WORDS.get(name, (name.rstrip("s"), None))
            cut.append(f"{gone} {word if gone == 1 else many or word + 's'}")
    return f"ceiling: {', '.join(cut)} cut to fit {budget} tokens in this format"


def _recount(packet: PacketView) -> None:
    packet.tokens_used = packet_tokens(packet)


__all__ = ["fit_output", "output_tokens", "trim_notice"]
