"""Assemble a context packet from a selection: caveats, receipts, budget.

Every selected unit becomes a bundle that carries its own caveats
(stale/missing warnings, contradiction guards, verification seams,
obligations) so a claim never enters a packet without them; bundles are then
packed in rank order under the token budget, and exact edges between packed
nodes are added last.

The packet is a ``memgraph.documents.plain_context.ContextPacket`` for a plain query
(the lean ``memgraph context``: no pydantic) and a ``MemoryContextPacket`` for a
``MemoryContextQuery``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from context_cut.budget import Bundle, Packer, estimate_tokens, node_text, summary_text
from context_cut.cuts import CutSpec
from context_cut.select import Selection, Unit
from memgraph.documents.enums import AnchorKind, ProfileName, utcnow
from memgraph.documents.plain_context import ContextPacket, ContextQuery, packet_document
from memgraph.terminal import plural

if TYPE_CHECKING:
    from memgraph.documents.views import (
        AnchorView,
        EdgeView,
        NodeView,
        QueryView,
        ReceiptView,
    )
    from memgraph.store.protocol import Store


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _label(node: NodeView | None, node_id: str) -> str:
    if node is None:
        return node_id
    return f"{node_id} «{_short(node.title or node.claim)}»"


def node_caveats(
    node: NodeView, spec: CutSpec, edges: Iterable[EdgeView], others: Mapping[str, NodeView]
) -> Bundle:
    b = Bundle(key=f"node:{node.id}", node=node)
    label = _label(node, node.id)
    if node.lifecycle == "stale":
        b.warnings.append(f"stale: {label} is marked stale; re-check it before relying on it")
    if node.profile is ProfileName.evidence and node.lifecycle == "contradicted":
        b.guards.append(f"guard: {label} is contradicted evidence; do not rely on it")
    for e in edges:
        if e.kind != "contradicts" or node.id not in (e.source_id, e.target_id):
            continue
        a, z = e.source_id, e.target_id
        b.guards.append(
            f"guard: {_label(others.get(a), a)} contradicts {_label(others.get(z), z)}; "
            "present neither as settled"
        )
    if node.profile in spec.seam_profiles:
        if node.lifecycle in spec.unverified_states:
            b.seams.append(f"verify: {label} is {node.lifecycle}, not reviewed")
        if not node.anchors and node.profile is not ProfileName.evidence:
            b.seams.append(f"verify: {label} has no evidence anchor")
        for anchor in node.anchors:
            if anchor.kind is AnchorKind.file and anchor.content_hash:
                b.seams.append(
                    f"verify: {anchor.ref} still hashes to {anchor.content_hash[:12]} ({node.id})"
                )
    if node.profile is ProfileName.agency_pressure and node.lifecycle in spec.obligation_states:
        implication = f": {_short(node.action_implication, 120)}" if node.action_implication else ""
        b.obligations.append(f"obligation: {label} ({node.lifecycle}){implication}")
    return b


def is_turn(node: NodeView) -> bool:
    return node.profile is ProfileName.voice and node.kind == "message"


def _anchors_for(spec: CutSpec, node: NodeView, withheld: list[int]) -> list[AnchorView]:
    if spec.allowed_anchor_kinds is None:
        return list(node.anchors)
    kept = [a for a in node.anchors if a.kind in spec.allowed_anchor_kinds]
    withheld[0] += len(node.anchors) - len(kept)
    return kept


def assemble(
    store: Store,
    query: QueryView,
    spec: CutSpec,
    selection: Selection,
    *,
    header_warnings: list[str],
    notices: list[str],
    extra_units: list[Unit] | None = None,
) -> Any:
    """Pack ``selection`` (plus ``extra_units`` first, e.g. domain obligations): a
    ``ContextPacket`` for a ``ContextQuery``, else a ``MemoryContextPacket``."""
    now = utcnow()
    packet = ContextPacket(query=query, ingested_at=now, notices=list(notices))
    packer = Packer(packet, query.budget_tokens)
    header = Bundle(key="warnings", warnings=list(header_warnings))
    if header.warnings:
        # each warning alone, so one long one cannot push out the rest
        for i, w in enumerate(header.warnings):
            packer.add(Bundle(key=f"warning:{i}", warnings=[w]))
    units = [*(extra_units or []), *selection.units]
    edges: dict[str, EdgeView] = {}
    withheld = [0]
    deferred: list[Bundle] = []
    for u in units:
        # A unit whose bare text cannot fit is listed without any store reads:
        # with a small budget most units end here, so the cut stays fast.
        if u.summary is not None:
            bare = estimate_tokens(summary_text(u.summary))
        else:
            assert u.node is not None
            bare = estimate_tokens(node_text(u.node))
        if bare > packer.left:
            packet.omitted.append(f"{u.key} ({bare}+ tokens)")
            continue
        if u.summary is not None:
            s = u.summary
            b = Bundle(key=u.key, summary=s)
            missing = [
                c for c, sid in selection.stood_in.items() if sid == s.id and c in selection.missing
            ]
            if missing:
                b.warnings.append(
                    f"missing: summary {s.id} covers {plural(len(missing), 'id')} the store lacks"
                )
            b.receipts = _last(store, s.id, spec.receipts_per_item)
        else:
            assert u.node is not None
            hood = store.neighbourhood(u.node.id, 1)
            edges.update(hood.edges)
            # a public cut names private neighbours by id only, never by title
            others = {
                i: m for i, m in hood.nodes.items() if not spec.public_surface or spec.admits(m)
            }
            b = node_caveats(u.node, spec, hood.edges.values(), others)
            b.anchors = _anchors_for(spec, u.node, withheld)
            b.receipts = _last(store, u.node.id, spec.receipts_per_item)
            if is_turn(u.node):
                # a verbatim turn's provenance waits until every ranked unit had
                # its chance: the budget goes to evidence before bookkeeping
                deferred.append(Bundle(key=b.key, anchors=b.anchors, receipts=b.receipts))
                b.anchors, b.receipts = [], []
        if packer.add(b) is False:
            deferred = [d for d in deferred if d.key != b.key]
    for d in deferred:
        packer.add(d)
    if withheld[0]:
        packet.notices.append(
            f"public surface: {plural(withheld[0], 'private anchor')} (transcript/file) withheld"
        )
    packed = {n.id for n in packet.nodes}
    for e in sorted(edges.values(), key=lambda e: e.id):
        if e.source_id in packed and e.target_id in packed:
            packer.add_edge(e)
    packer.finish()
    return packet if isinstance(query, ContextQuery) else packet_document(packet)


def _last(store: Store, target_id: str, n: int) -> list[ReceiptView]:
    if n <= 0:
        return []
    last: list[ReceiptView] = [*store.receipts(target_id=target_id)[-n:]]
    return last
