"""Summary or descent, and staleness reaching the packet."""

from __future__ import annotations

from typing import Any

from context_cut import select_context_cut
from memgraph.documents import MemoryContextQuery
from memgraph.ops import mark_stale


def q(text: str, **kw: Any) -> MemoryContextQuery:
    return MemoryContextQuery(text=text, budget_tokens=kw.pop("budget_tokens", 4000), **kw)


def _cluster(graph: Any, mk: Any, confidence: float = 0.9) -> tuple[Any, Any, Any]:
    a = mk.node("repo_architecture", "Session cache", "The session cache keeps tokens in redis")
    b = mk.node("repo_architecture", "Cache eviction", "Eviction of cache entries runs hourly")
    other = mk.node(
        "repo_dataflow", "Billing export", "Billing rows export nightly to the warehouse"
    )
    graph.nodes(a, b, other)
    s = mk.summary("caching", "Caching is one redis-backed layer", [a, b], confidence=confidence)
    graph.summarize(s)
    return a, b, s


def test_fresh_confident_summary_stands_in_for_its_nodes(graph: Any, mk: Any) -> None:
    a, b, s = _cluster(graph, mk)
    # "cache redis hourly": no single covered node holds every term -> no strong hit
    packet = select_context_cut(graph.store, q("cache redis hourly"))
    assert [x.id for x in packet.summaries] == [s.id]
    assert not {a.id, b.id} & {n.id for n in packet.nodes}
    assert any(f"summary {s.id}: stand_in" in n for n in packet.notices)


def test_stale_summary_descends_to_covered_nodes_with_a_warning(graph: Any, mk: Any) -> None:
    a, b, s = _cluster(graph, mk)
    mark_stale(graph.store, a.id, source_hashes=["new-source"], reason="file changed")
    packet = select_context_cut(graph.store, q("cache redis hourly"))
    assert packet.summaries == []
    assert {a.id, b.id} <= {n.id for n in packet.nodes}
    assert any(w.startswith(f"stale summary: {s.id}") and a.id in w for w in packet.warnings)


def test_low_confidence_summary_descends(graph: Any, mk: Any) -> None:
    a, b, s = _cluster(graph, mk, confidence=0.3)
    packet = select_context_cut(graph.store, q("cache redis hourly"))
    assert packet.summaries == []
    assert {a.id, b.id} <= {n.id for n in packet.nodes}
    assert any("descend (confidence 0.30 < 0.60)" in n for n in packet.notices)
    # the threshold is the query's: lowered, the same summary stands in
    low = select_context_cut(graph.store, q("cache redis hourly", summary_confidence_threshold=0.2))
    assert [x.id for x in low.summaries] == [s.id]


def test_strong_hit_on_a_covered_node_descends(graph: Any, mk: Any) -> None:
    a, _b, _s = _cluster(graph, mk)
    packet = select_context_cut(graph.store, q("session cache tokens redis"))
    assert a.id in {n.id for n in packet.nodes}
    assert packet.summaries == []
    assert any(f"strong hit on {a.id}" in n for n in packet.notices)


def test_staleness_propagates_to_summaries_of_summaries(graph: Any, mk: Any) -> None:
    a, b, s1 = _cluster(graph, mk)
    c = mk.node("repo_architecture", "Cache warmup", "Warmup fills the cache at deploy")
    graph.nodes(c)
    s2 = mk.summary("warm", "Warmup is part of deploy", [c])
    graph.summarize(s2)
    top = mk.summary("cache layer", "All cache behaviour", summaries=[s1, s2])
    graph.summarize(top)
    fresh = select_context_cut(graph.store, q("cache redis hourly deploy"))
    assert [x.id for x in fresh.summaries] == [top.id]  # the top stands in for everything

    mark_stale(graph.store, a.id, source_hashes=["changed"], reason="source changed")
    packet = select_context_cut(graph.store, q("cache redis hourly deploy"))
    stale_ids = {w.split()[2] for w in packet.warnings if w.startswith("stale summary:")}
    assert {top.id, s1.id} <= stale_ids
    # the untouched sibling is still fresh, so it stands in below the stale top
    assert [x.id for x in packet.summaries] == [s2.id]
    assert {a.id, b.id} <= {n.id for n in packet.nodes}
    assert c.id not in {n.id for n in packet.nodes}


def test_summary_over_private_nodes_never_stands_in_for_a_persona(graph: Any, mk: Any) -> None:
    pub = mk.node("candidate_intervention", "Suggest retro", "Suggest a retro on the outage")
    priv = mk.node(
        "candidate_intervention", "Blame vendor", "Privately blame the vendor", visibility="private"
    )
    graph.nodes(pub, priv)
    s = mk.summary("outage talk", "What to say about the outage", [pub, priv])
    graph.summarize(s)
    packet = select_context_cut(graph.store, q("outage retro vendor", cut="persona"))
    assert packet.summaries == []
    assert [n.id for n in packet.nodes] == [pub.id]
    assert "vendor" not in packet.model_dump_json().replace("outage retro vendor", "")
