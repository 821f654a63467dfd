"""The token budget: never exceeded, and whatever is left out is listed."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_cut import estimate_tokens, packet_tokens, select_context_cut
from context_cut.candidates import query_terms
from context_cut.cuts import get_cut
from memgraph.documents import (
    CutName,
    MemoryContextQuery,
    MemoryEdge,
    MemorySummary,
    ProfileName,
    SummarizeCluster,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import edge_id, summary_id
from memgraph.store import open_store

WORDS = ["cache", "token", "deploy", "queue", "auth", "billing", "retry", "schema", "lock"]
PROFILES = ["repo_architecture", "repo_dataflow", "evidence", "agency_pressure", "incubation"]


def test_estimate_is_additive_over_whitespace_and_positive() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("hello") == 2  # 5 bytes -> ceil(5/4)
    assert estimate_tokens("a, b") == 3
    assert estimate_tokens("日本語") == 3  # 9 utf-8 bytes
    a, b = "refresh tokens rotate", "on every use!"
    assert estimate_tokens(f"{a} {b}") == estimate_tokens(a) + estimate_tokens(b)


@given(st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_estimate_never_undercounts_pieces(text: str) -> None:
    # at least one token per word or symbol, never negative
    assert estimate_tokens(text) >= len(text.split()) if text.isascii() else True
    assert estimate_tokens(text) >= 0


graph_spec = st.fixed_dictionaries(
    {
        "nodes": st.lists(
            st.tuples(
                st.sampled_from(PROFILES),
                st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
                st.integers(0, 3),  # claim repetitions: long and short nodes
            ),
            min_size=1,
            max_size=14,
        ),
        "summaries": st.lists(
            st.tuples(st.sets(st.integers(0, 13), min_size=1, max_size=5), st.floats(0, 1)),
            max_size=4,
        ),
        "contradicts": st.lists(st.tuples(st.integers(0, 13), st.integers(0, 13)), max_size=4),
        "budget": st.integers(1, 900),
        "cut": st.sampled_from(list(CutName)),
        "query": st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    }
)


def _build(mk: Any, spec: dict[str, Any]) -> tuple[Any, list[Any]]:
    store = open_store(":memory:")
    nodes = []
    for i, (profile, words, reps) in enumerate(spec["nodes"]):
        claim = " ".join(words * (reps + 1))
        nodes.append(mk.node(profile, f"n{i} {' '.join(words)}", claim))
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
    ops: list[Any] = []
    for a, b in spec["contradicts"]:
        if a < len(nodes) and b < len(nodes) and a != b:
            s, t = nodes[a], nodes[b]
            if s.profile is ProfileName.evidence and t.profile is ProfileName.evidence:
                e = MemoryEdge(
                    id=edge_id("contradicts", s.id, t.id),
                    source_id=s.id,
                    target_id=t.id,
                    kind="contradicts",
                    profile=ProfileName.evidence,
                    lifecycle="observed",
                )
                ops.append(UpsertEdge(edge=e))
    for members, conf in spec["summaries"]:
        covered = sorted({nodes[i].id for i in members if i < len(nodes)})
        if covered:
            s = MemorySummary(
                id=summary_id("d1", *covered),
                domain_id="d1",
                covers_node_ids=covered,
                target="cluster",
                claim="a cluster " + " ".join(WORDS[:3]),
                confidence=conf,
            )
            ops.append(SummarizeCluster(summary=s))
    if ops:
        apply_patch(store, new_patch(ops))
    return store, nodes


@given(spec=graph_spec)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_packets_never_exceed_the_budget_and_list_what_is_left_out(
    mk: Any, spec: dict[str, Any]
) -> None:
    store, nodes = _build(mk, spec)
    text = " ".join(spec["query"])
    query = MemoryContextQuery(text=text, cut=spec["cut"], budget_tokens=spec["budget"])
    packet = select_context_cut(store, query)
    assert packet.tokens_used == packet_tokens(packet) <= spec["budget"]

    with store.reader() as r:
        summaries = r.get_summaries([s.id for s in store.export_snapshot().summaries])
    omitted = {o.split()[0] for o in packet.omitted}
    shown_summaries = {s.id for s in packet.summaries} | {
        o.split(":", 1)[1] for o in omitted if o.startswith("summary:")
    }
    stood_in = {n for sid in shown_summaries for n in summaries[sid].covers_node_ids}
    cut = get_cut(spec["cut"])
    terms = set(query_terms(text))
    for n in nodes:
        hit = terms & set(n.claim.split())
        if not hit or not cut.admits(n):
            continue
        accounted = (
            n.id in {x.id for x in packet.nodes} or f"node:{n.id}" in omitted or n.id in stood_in
        )
        assert accounted, f"{n.id} ({n.profile.value}) neither packed, omitted nor summarised"
    for line in packet.omitted:
        assert line.split()[0].split(":", 1)[0] in {
            "node",
            "summary",
            "edge",
            "anchor",
            "receipt",
            "warning",
        }
