"""Packet contents: guards, seams, obligations, receipts, cuts and filters."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from context_cut import packet_tokens, select_context_cut
from context_cut.cuts import CUTS, get_cut
from memgraph.documents import AnchorKind, CutName, MemoryAnchor, MemoryContextQuery
from memgraph.errors import UsageError
from memgraph.ops import review_node, transition_node


def q(text: str, cut: str = "repo", **kw: Any) -> MemoryContextQuery:
    return MemoryContextQuery(text=text, cut=CutName(cut), budget_tokens=4000, **kw)


def test_contradicts_edge_becomes_a_guard_on_both_sides(graph: Any, mk: Any) -> None:
    a = mk.node("evidence", "Latency is fine", "p99 latency stays under 80ms")
    b = mk.node("evidence", "Latency regressed", "p99 latency rose to 400ms after deploy")
    graph.nodes(a, b)
    graph.edges(mk.edge("contradicts", "evidence", b, a))
    packet = select_context_cut(graph.store, q("p99 latency"))
    assert {n.id for n in packet.nodes} == {a.id, b.id}
    assert len(packet.contradiction_guards) == 1  # one edge, one guard, not two copies
    guard = packet.contradiction_guards[0]
    assert a.id in guard and b.id in guard and "contradicts" in guard
    assert [e.kind for e in packet.edges] == ["contradicts"]


def test_contradicted_evidence_is_guarded(graph: Any, mk: Any) -> None:
    a = mk.node("evidence", "Queue drains", "the queue drains in minutes")
    graph.nodes(a)
    transition_node(graph.store, a.id, "contradicted", reason="new measurement")
    packet = select_context_cut(graph.store, q("queue drains"))
    assert any("contradicted evidence" in g and a.id in g for g in packet.contradiction_guards)


def test_unreviewed_and_file_anchored_claims_get_seams(graph: Any, mk: Any) -> None:
    anchor = MemoryAnchor(
        id="a-file1", kind=AnchorKind.file, ref="src/router.py", content_hash="abcdef0123456789"
    )
    a = mk.node("repo_architecture", "Router module", "router owns dispatch", anchors=[anchor])
    graph.nodes(a)
    packet = select_context_cut(graph.store, q("router dispatch"))
    seams = packet.verification_seams
    assert any("is observed, not reviewed" in s for s in seams)
    assert any("src/router.py still hashes to abcdef012345" in s for s in seams)
    review_node(graph.store, a.id, reviewer="lead")
    transition_node(graph.store, a.id, "accepted")
    reviewed = select_context_cut(graph.store, q("router dispatch"))
    assert not any("not reviewed" in s for s in reviewed.verification_seams)
    # the acceptance is visible as a lifecycle receipt
    assert reviewed.receipts[-1].after == "accepted"


def test_stale_node_warns(graph: Any, mk: Any) -> None:
    a = mk.node("repo_dataflow", "Event bus", "events flow through the bus")
    graph.nodes(a)
    transition_node(graph.store, a.id, "stale", reason="code moved")
    packet = select_context_cut(graph.store, q("event bus"))
    assert any(w.startswith("stale:") and a.id in w for w in packet.warnings)


def test_same_graph_different_cuts(graph: Any, mk: Any) -> None:
    nodes = {
        p: mk.node(p, f"deploy {p}", f"deploy pipeline note for {p}")
        for p in (
            "repo_architecture",
            "role_self",
            "short_term",
            "incubation",
            "agency_pressure",
            "candidate_intervention",
        )
    }
    graph.nodes(*nodes.values())
    seen = {}
    for cut in CutName:
        packet = select_context_cut(graph.store, q("deploy pipeline", cut=cut.value))
        seen[cut] = {n.profile.value for n in packet.nodes}
        assert seen[cut] <= {p.value for p in get_cut(cut).profiles}
    assert seen[CutName.repo] == {"repo_architecture"}
    assert seen[CutName.role] == {"role_self", "short_term", "incubation", "agency_pressure"}
    assert "candidate_intervention" in seen[CutName.persona]
    assert "role_self" not in seen[CutName.persona]
    assert "agency_pressure" in seen[CutName.coordinator]


def test_persona_public_surface(graph: Any, mk: Any) -> None:
    public = mk.node("candidate_intervention", "Offer demo", "offer a demo of the launch")
    private = mk.node(
        "candidate_intervention",
        "Mention layoffs",
        "launch delayed by layoffs",
        visibility="private",
    )
    idea = mk.node("incubation", "Launch theme", "launch around a theme")
    shown_idea = mk.node("incubation", "Launch party", "launch party idea", public=True)
    transcript = MemoryAnchor(id="a-t", kind=AnchorKind.transcript, ref="/secret/t.jsonl", line=1)
    url = MemoryAnchor(id="a-u", kind=AnchorKind.url, ref="https://example.org/launch")
    with_anchors = mk.node(
        "candidate_intervention",
        "Share launch post",
        "share the launch post",
        anchors=[transcript, url],
    )
    graph.nodes(public, private, idea, shown_idea, with_anchors)
    packet = select_context_cut(graph.store, q("launch", cut="persona"))
    ids = {n.id for n in packet.nodes}
    assert {public.id, shown_idea.id, with_anchors.id} <= ids
    assert private.id not in ids and idea.id not in ids
    assert [a.id for a in packet.anchors] == ["a-u"]
    assert any("private anchor" in n for n in packet.notices)


def test_coordinator_lists_domain_obligations_and_more_receipts(graph: Any, mk: Any) -> None:
    hit = mk.node(
        "agency_pressure",
        "Fix flaky deploy",
        "deploy flakes on friday",
        action_implication="pin the runner",
    )
    other = mk.node(
        "agency_pressure", "Answer vendor", "vendor asked for numbers", lifecycle="obligated"
    )
    elsewhere = mk.node("agency_pressure", "Other team ask", "unrelated", domain="d2")
    graph.nodes(hit, other, elsewhere)
    transition_node(graph.store, hit.id, "obligated")
    packet = select_context_cut(graph.store, q("deploy", cut="coordinator", domain_id="d1"))
    text = "\n".join(packet.obligations)
    assert hit.id in text and "pin the runner" in text
    assert other.id in text  # not hit by the query, but open in the domain
    assert elsewhere.id not in text
    receipts_for_hit = [r for r in packet.receipts if r.target_id == hit.id]
    assert len(receipts_for_hit) == 2  # coordinator keeps up to 3 per item
    repo = select_context_cut(graph.store, q("deploy", cut="repo"))
    assert repo.obligations == []


def test_retired_and_out_of_time_nodes_are_left_out(graph: Any, mk: Any) -> None:
    old = mk.node("repo_architecture", "Old gateway", "gateway in perl")
    now = mk.node("repo_architecture", "New gateway", "gateway in go")
    graph.nodes(old, now)
    transition_node(graph.store, old.id, "retired")
    packet = select_context_cut(graph.store, q("gateway"))
    assert [n.id for n in packet.nodes] == [now.id]
    before = select_context_cut(graph.store, q("gateway", as_of=mk.t0 - timedelta(days=1)))
    assert before.nodes == []


def test_domain_filter(graph: Any, mk: Any) -> None:
    a = mk.node("repo_architecture", "Cache", "cache layer", domain="alpha")
    b = mk.node("repo_architecture", "Cache", "cache layer", domain="beta")
    graph.nodes(a, b)
    packet = select_context_cut(graph.store, q("cache", domain_id="beta"))
    assert [n.id for n in packet.nodes] == [b.id]


def test_budget_too_small_lists_everything_left_out(graph: Any, mk: Any) -> None:
    nodes = [
        mk.node("repo_architecture", f"Module {i}", f"module {i} handles parsing") for i in range(6)
    ]
    graph.nodes(*nodes)
    query = MemoryContextQuery(text="parsing", budget_tokens=60)
    packet = select_context_cut(graph.store, query)
    assert packet.tokens_used == packet_tokens(packet) <= 60
    left = {o.split()[0] for o in packet.omitted}
    for n in nodes:
        assert n.id in {x.id for x in packet.nodes} or f"node:{n.id}" in left


def test_unknown_cut_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown cut"):
        get_cut("everything")
    assert set(CUTS) == set(CutName)
