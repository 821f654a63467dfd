"""``memgraph context --prompt``: the packet as one block ready for a role prompt.

The block holds the cut's standing sections (``profiles.wakeup.standing``; an
empty one says why) and then the query's own hits from the packet that are not
already listed, every line counted against the query's budget: the whole block,
tags included, never exceeds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from context_cut.budget import anchor_where, estimate_tokens
from memgraph.terminal import plural

if TYPE_CHECKING:
    from memgraph.documents.views import PacketView

SUMMARY_CHARS = 240  # a summary covers several nodes; each node line gets 160


def prompt_block(packet: PacketView, sections: list[object], project: str | None) -> str:
    from profiles.wakeup.standing import Item, Section, render

    q = packet.query
    where = f' project="{project}"' if project else ""
    open_tag = f'<memgraph-context cut="{q.cut.value}"{where}>'
    close_tag = "</memgraph-context>"
    listed = {i.id for s in sections if isinstance(s, Section) for i in s.items}
    related = Section("related", f"Related to: {' '.join(q.text.split())[:80]}")
    for s in packet.summaries:
        if s.id not in listed:
            # A summary stands in for what it covers: its claim (a package's modules and
            # their public names or docstrings) is what the reader gets instead of them.
            claim = "; ".join(line.strip() for line in s.claim.splitlines() if line.strip())
            text = f"{s.target}: {claim}" if claim else s.target
            related.items.append(Item(s.id, "summary", "summary", text[:SUMMARY_CHARS], ""))
    from context_cut.render import extra_anchors

    extra = extra_anchors(packet)
    for n in packet.nodes:
        if n.id not in listed:
            anchor = n.anchors[0] if n.anchors else None
            ref = f"{anchor.kind.value} {anchor_where(anchor)}" if anchor is not None else ""
            # the file:line of the names the task mentions, where the cut added them
            spots = [anchor_where(a) for a in extra if anchor is not None and a.ref == anchor.ref]
            if spots and anchor is not None:  # the path once: "a.py:4-9 f, :12-20 g"
                rest = [w.removeprefix(anchor.ref) for w in spots[1:]]
                ref = ", ".join([spots[0], *rest])
            text = " ".join((n.claim or n.title).split())[:160]
            related.items.append(
                Item(n.id, "node", f"{n.profile.value}/{n.kind} {n.lifecycle}", text, ref)
            )
    if not related.items:
        related.empty = "no further hits for the query"
    chosen = [s for s in sections if isinstance(s, Section)] + [related]
    budget = q.budget_tokens - estimate_tokens(open_tag) - estimate_tokens(close_tag) - 2
    header = [f"obligation: {o}" for o in packet.obligations]
    header += [f"warning: {w}" for w in packet.warnings]
    body, _, left = render(chosen, max(budget, 0), header)
    footer = f"({plural(left, 'item')} left out for the budget)\n" if left else ""
    if footer and estimate_tokens(body + footer) > budget:
        footer = ""
    return f"{open_tag}\n{body}{footer}{close_tag}\n"
