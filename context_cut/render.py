"""Packet output: terse lines, one JSON object, a compact object, or markdown.

Markdown uses the same item texts the budget counted (``context_cut.budget``),
so what a prompt receives is what was measured.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from context_cut.budget import (
    anchor_text,
    anchor_where,
    edge_text,
    node_text,
    receipt_text,
    summary_text,
)
from context_cut.packet import is_turn
from memgraph.terminal import plural

if TYPE_CHECKING:
    from memgraph.documents.views import PacketView


def packet_json(packet: PacketView) -> str:
    """The whole packet as one line of JSON (of its ``MemoryContextPacket``)."""
    from memgraph.documents.plain_context import packet_document

    data: Any = packet_document(packet).model_dump(mode="json")
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def packet_compact(packet: PacketView) -> dict[str, Any]:
    """The packet as the texts the budget counted, one string per item (the MCP
    ``context`` reply). The whole document (``packet_json``) spends ~30x the
    tokens of an item's text on its fields (timestamps, nulls, attributes), so a
    2,000-token reply held 2 of a packet's 60 items; this form holds them all.
    Empty lists are left out; ids stay (a turn's text has none, as in the lines)."""
    q = packet.query
    out: dict[str, Any] = {
        "query": q.text,
        "cut": q.cut.value,
        "project": q.project,
        "budget_tokens": q.budget_tokens,
        "tokens_used": packet.tokens_used,
    }
    items: dict[str, list[str]] = {
        "warnings": list(packet.warnings),
        "contradiction_guards": list(packet.contradiction_guards),
        "obligations": list(packet.obligations),
        "summaries": [summary_text(s) for s in packet.summaries],
        "nodes": [f"{n.id} {node_text(n)}" if is_turn(n) else node_text(n) for n in packet.nodes],
        "edges": [edge_text(e) for e in packet.edges],
        "verification_seams": list(packet.verification_seams),
        "anchors": [anchor_text(a) for a in packet.anchors],
        "receipts": [receipt_text(r) for r in packet.receipts],
        "omitted": list(packet.omitted),
        "notices": list(packet.notices),
    }
    out.update((name, texts) for name, texts in items.items() if texts)
    return out


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def packet_lines(packet: PacketView) -> list[str]:
    """Terse output: one line per item, kind first."""
    lines: list[str] = []
    lines += [f"warning  {w}" for w in packet.warnings]
    lines += [f"guard    {g}" for g in packet.contradiction_guards]
    lines += [f"oblig    {o}" for o in packet.obligations]
    lines += [f"summary  {_first_line(summary_text(s))}" for s in packet.summaries]
    # a turn's line in the packet has no id (context_cut.budget.turn_text): the
    # terse listing adds it, so `memgraph show <id>` stays one copy away
    lines += [
        f"node     {n.id} {_first_line(node_text(n))}"
        if is_turn(n)
        else f"node     {_first_line(node_text(n))}"
        for n in packet.nodes
    ]
    # the anchors a cut adds beside its nodes' own (the repo cut's file:line of the
    # public names the task mentions); a node's own anchor is its line above
    lines += [f"anchor   {anchor_where(a)}" for a in extra_anchors(packet)]
    lines += [f"edge     {edge_text(e)}" for e in packet.edges]
    lines += [f"seam     {s}" for s in packet.verification_seams]
    lines.append(
        f"-- {packet.query.cut.value} cut: {plural(len(packet.nodes), 'node')}, "
        f"{plural(len(packet.summaries), 'summary')}, {plural(len(packet.edges), 'edge')}, "
        f"{packet.tokens_used}/{packet.query.budget_tokens} tokens, "
        f"{len(packet.omitted)} omitted"
    )
    return lines


def extra_anchors(packet: PacketView) -> list[Any]:
    """The packet's anchors that are not one of its nodes' own."""
    own = {a.id for n in packet.nodes for a in n.anchors}
    return [a for a in packet.anchors if a.id not in own]


def packet_markdown(packet: PacketView) -> str:
    q = packet.query
    out = [
        f"# Context: {q.text}",
        "",
        f"cut `{q.cut.value}`, {packet.tokens_used}/{q.budget_tokens} tokens",
        "",
    ]

    def section(title: str, items: list[str]) -> None:
        if items:
            out.append(f"## {title}")
            out.extend(f"- {i}" for i in items)
            out.append("")

    section("Warnings", packet.warnings)
    section("Contradiction guards", packet.contradiction_guards)
    section("Obligations", packet.obligations)
    if packet.summaries:
        out.append("## Summaries")
        for s in packet.summaries:
            out += [summary_text(s), ""]
    if packet.nodes:
        out.append("## Nodes")
        for n in packet.nodes:
            out += [node_text(n), ""]
    section("Edges", [edge_text(e) for e in packet.edges])
    section("Verification seams", packet.verification_seams)
    section("Anchors", [anchor_text(a) for a in packet.anchors])
    section("Receipts", [receipt_text(r) for r in packet.receipts])
    section("Left out (budget)", packet.omitted)
    return "\n".join(out).rstrip() + "\n"


def mcp_reply_text(packet: Any) -> str:
    """The text the MCP SDK sends for an ``as_json`` packet reply (indent=2 JSON)."""
    return json.dumps(packet.model_dump(mode="json"), indent=2, ensure_ascii=False)


def mcp_compact_text(packet: Any) -> str:
    """The text the MCP SDK sends for a compact packet reply (indent=2 JSON)."""
    return json.dumps(packet_compact(packet), indent=2, ensure_ascii=False)


def mcp_fitted_reply(packet: Any, budget: int, full: bool) -> dict[str, Any]:
    """The MCP context tool's reply: a dict the SDK sends as indented JSON, whose
    text the budget caps (``memgraph.mcp_server``)."""
    from context_cut.ceiling import fit_output

    packet, _ = fit_output(packet, mcp_reply_text if full else mcp_compact_text, budget)
    data: dict[str, Any] = packet.model_dump(mode="json") if full else packet_compact(packet)
    return data
