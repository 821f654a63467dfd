"""Token estimation and budget packing.

The estimator is deterministic and conservative, a word-piece approximation:
text is split into words (``\\w+``) and single other non-space characters;
each piece costs ceil(utf-8 bytes / 4) tokens, at least 1. English prose comes
out near real BPE counts (a bit above), CJK and emoji above them, so a packet
that fits the estimate fits a real tokenizer's budget too.

What counts against the budget is the text each packet item renders as
(``item_text``): nodes, summaries, edges, anchors, warnings, guards, seams,
receipts and obligations. ``omitted`` and ``notices`` are bookkeeping about
the packet, not context, and are outside the budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgraph.documents.views import (
        AnchorView,
        EdgeView,
        NodeView,
        PacketView,
        ReceiptView,
        SummaryView,
    )

_PIECE = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def estimate_tokens(text: str) -> int:
    total = 0
    for piece in _PIECE.findall(text):
        total += max(1, -(-len(piece.encode("utf-8", "surrogatepass")) // 4))
    return total


def node_text(n: NodeView) -> str:
    if n.profile.value == "voice" and n.kind == "message" and n.claim:
        return turn_text(n)
    parts = [f"[{n.profile.value}/{n.kind} {n.lifecycle}] {n.id} {n.title}"]
    for label, value in (
        ("claim", n.claim),
        ("question", n.question),
        ("tension", n.tension),
        ("implies", n.action_implication),
    ):
        if value and value != n.title:
            parts.append(f"{label}: {value}")
    return "\n".join(parts)


def turn_text(n: NodeView) -> str:
    """A voice message as evidence: when, who, the verbatim text. Nothing else: its
    title is only a cut copy of the text, and its id, profile tag and provenance
    are in the packet's node and anchor lists (a third of a short turn's tokens
    went to ``[voice] n-<16 hex>``, which a reader of the evidence does not need)."""
    when = n.valid_from or n.created_at
    speaker = n.attributes.get("speaker")
    who = f" {speaker}:" if isinstance(speaker, str) and speaker else ""
    return f"{when:%Y-%m-%d %H:%M}{who} {n.claim}"


def summary_text(s: SummaryView) -> str:
    parts = [
        f"[summary {s.freshness.state.value} conf {s.confidence:.2f}] {s.id} {s.target}",
        f"covers {len(s.covered_ids())} ({s.anchor_count} anchors)",
    ]
    for label, value in (
        ("claim", s.claim),
        ("question", s.question),
        ("tension", s.tension),
        ("implies", s.action_implication),
    ):
        if value:
            parts.append(f"{label}: {value}")
    if s.known_omissions:
        parts.append("omits: " + "; ".join(s.known_omissions))
    return "\n".join(parts)


def edge_text(e: EdgeView) -> str:
    claim = f": {e.claim}" if e.claim else ""
    return f"{e.source_id} -{e.kind}-> {e.target_id}{claim}"


SHORT_HASH = 12  # hex digits of a sha or content hash in a text form (the JSON has all)


def anchor_where(a: AnchorView) -> str:
    """Where an anchor points, as a reader looks it up: ``path:line`` or the label
    when it starts with the ref (the repo scanner's ``path:12-30`` spans and the
    repo cut's ``path:12-30 name``); any other label follows in parentheses."""
    where = a.ref if a.line is None else f"{a.ref}:{a.line}"
    if a.label:
        where = a.label if a.label.startswith(a.ref) else f"{where} ({a.label})"
    return where


def anchor_text(a: AnchorView) -> str:
    # a 40-hex sha and a 64-hex hash cost ~26 tokens an anchor and a reader looks up
    # neither by more than a prefix: the text forms show 12 hex digits of each
    bits = [f"{a.kind.value} {anchor_where(a)}"]
    if a.sha:
        bits.append(f"sha {a.sha[:SHORT_HASH]}")
    if a.record_uuid:
        bits.append(f"uuid {a.record_uuid}")
    if a.content_hash:
        bits.append(f"hash {a.content_hash[:SHORT_HASH]}")
    return f"{a.id} " + " ".join(bits)


def receipt_text(r: ReceiptView) -> str:
    moved = f" {r.before or '(new)'}->{r.after}" if r.after is not None else ""
    reason = f" ({r.reason})" if r.reason else ""
    return f"{r.at.date().isoformat()} {r.op} {r.target_id}{moved} by {r.actor}{reason}"


def packet_tokens(packet: PacketView) -> int:
    """Recount a packet from its contents (what the budget is checked against)."""
    texts: list[str] = []
    texts += (node_text(n) for n in packet.nodes)
    texts += (summary_text(s) for s in packet.summaries)
    texts += (edge_text(e) for e in packet.edges)
    texts += (anchor_text(a) for a in packet.anchors)
    texts += (receipt_text(r) for r in packet.receipts)
    texts += packet.warnings
    texts += packet.contradiction_guards
    texts += packet.verification_seams
    texts += packet.obligations
    return sum(estimate_tokens(t) for t in texts)


@dataclass
class Bundle:
    """One unit of context (a node or a summary) with what travels with it.

    ``core`` goes in whole or not at all (the item and its guards, warnings,
    seams and obligations: a claim never travels without its caveats);
    ``extras`` (anchors, receipts) are added when they still fit.
    """

    key: str  # "node:<id>" / "summary:<id>" / "warning" ...
    node: NodeView | None = None
    summary: SummaryView | None = None
    warnings: list[str] = field(default_factory=list)
    guards: list[str] = field(default_factory=list)
    seams: list[str] = field(default_factory=list)
    obligations: list[str] = field(default_factory=list)
    anchors: list[AnchorView] = field(default_factory=list)
    receipts: list[ReceiptView] = field(default_factory=list)


class Packer:
    """Greedy packing in priority order; everything that does not fit is listed."""

    def __init__(self, packet: PacketView, budget: int) -> None:
        self.packet = packet
        self.budget = budget
        self.used = 0
        self._anchor_ids: set[str] = set()
        self._receipt_ids: set[str] = set()
        self._lines: set[str] = set()

    @property
    def left(self) -> int:
        return self.budget - self.used

    def _fresh_lines(self, lines: Iterable[str]) -> list[str]:
        out: list[str] = []
        for line in lines:
            if line not in self._lines and line not in out:
                out.append(line)
        return out

    def _core_cost(self, b: Bundle) -> tuple[int, dict[str, list[str]]]:
        lines = {
            "warnings": self._fresh_lines(b.warnings),
            "guards": self._fresh_lines(b.guards),
            "seams": self._fresh_lines(b.seams),
            "obligations": self._fresh_lines(b.obligations),
        }
        cost = sum(estimate_tokens(t) for group in lines.values() for t in group)
        if b.node is not None:
            cost += estimate_tokens(node_text(b.node))
        if b.summary is not None:
            cost += estimate_tokens(summary_text(b.summary))
        return cost, lines

    def add(self, b: Bundle) -> bool:
        cost, lines = self._core_cost(b)
        if cost > self.left:
            self.packet.omitted.append(f"{b.key} ({cost} tokens)")
            return False
        p = self.packet
        if b.node is not None:
            p.nodes.append(b.node)
            p.order.append(b.node.id)
        if b.summary is not None:
            p.summaries.append(b.summary)
            p.order.append(b.summary.id)
        p.warnings += lines["warnings"]
        p.contradiction_guards += lines["guards"]
        p.verification_seams += lines["seams"]
        p.obligations += lines["obligations"]
        self._lines.update(t for group in lines.values() for t in group)
        self.used += cost
        for a in b.anchors:
            if a.id in self._anchor_ids:
                continue
            c = estimate_tokens(anchor_text(a))
            if c > self.left:
                p.omitted.append(f"anchor:{a.id} of {b.key} ({c} tokens)")
                continue
            self._anchor_ids.add(a.id)
            p.anchors.append(a)
            self.used += c
        for r in b.receipts:
            if r.id in self._receipt_ids:
                continue
            c = estimate_tokens(receipt_text(r))
            if c > self.left:
                p.omitted.append(f"receipt:{r.id} of {b.key} ({c} tokens)")
                continue
            self._receipt_ids.add(r.id)
            p.receipts.append(r)
            self.used += c
        return True

    def add_edge(self, e: EdgeView) -> bool:
        c = estimate_tokens(edge_text(e))
        if c > self.left:
            self.packet.omitted.append(f"edge:{e.id} ({c} tokens)")
            return False
        self.packet.edges.append(e)
        self.used += c
        return True

    def finish(self) -> Any:  # the packet given (a document or a plain one)
        self.packet.tokens_used = self.used
        return self.packet
