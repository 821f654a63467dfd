"""Each graph operation: its effect, its receipt, its no-op and its refusals,
on both store backends. Nothing is deleted: revised versions go to history."""

from __future__ import annotations

from typing import Any

import pytest

from memgraph import ops
from memgraph.documents import (
    AnchorKind,
    FreshnessState,
    GraphOp,
    MemoryEmbeddingManifest,
    NodeRevision,
    SummarizeCluster,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import ApplyResult, apply_patch, new_patch
from memgraph.errors import PatchRejected
from memgraph.store import Store


def apply(store: Store, *graph_ops: GraphOp, **kw: Any) -> ApplyResult:
    return apply_patch(store, new_patch(list(graph_ops), **kw))


def node_of(store: Store, node_id: str) -> Any:
    with store.reader() as r:
        return r.get_nodes([node_id]).get(node_id)


def summary_of(store: Store, summary_id: str) -> Any:
    with store.reader() as r:
        return r.get_summaries([summary_id])[summary_id]


def history(store: Store, node_id: str) -> list[Any]:
    return [n for n in store.export_snapshot().node_history if n.id == node_id]


# -- upsert ---------------------------------------------------------------------


def test_upsert_node_writes_one_receipt_and_reupsert_is_a_noop(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    res = ops.upsert_node(mg_store, n, actor="tester")
    [r] = res.receipts
    assert (r.op, r.target_id, r.target_type, r.before, r.after) == (
        "upsert_node",
        n.id,
        "node",
        None,
        "observed",
    )
    assert r.actor == "tester" and r.profile == "repo_architecture" and r.details["hash"]
    counts = mg_store.counts()
    again = ops.upsert_node(mg_store, n.model_copy(update={"updated_at": mg_factory.tick()}))
    assert again.receipts == [] and not again.changed
    assert mg_store.counts() == counts  # no receipt, no patch row, nothing
    stored = node_of(mg_store, n.id)
    assert stored.ingested_at is not None and stored.created_at == n.created_at


def test_upsert_changed_node_keeps_previous_version_in_history(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    ops.upsert_node(mg_store, n)
    ops.upsert_node(mg_store, n.model_copy(update={"claim": "new claim"}))
    assert node_of(mg_store, n.id).claim == "new claim"
    assert node_of(mg_store, n.id).created_at == n.created_at
    assert [h.claim for h in history(mg_store, n.id)] == [n.claim]


def test_upsert_node_cannot_change_profile(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    ops.upsert_node(mg_store, n)
    moved = n.model_validate({**n.model_dump(), "profile": "repo_dataflow", "kind": "claim"})
    with pytest.raises(PatchRejected, match="profile cannot change"):
        ops.upsert_node(mg_store, moved)


def test_upsert_node_refuses_unknown_kind_and_state(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PatchRejected, match="kind 'spaceship'"):
        ops.upsert_node(
            mg_store, mg_factory.node("a", kind="x").model_copy(update={"kind": "spaceship"})
        )
    with pytest.raises(PatchRejected, match="lifecycle 'nirvana'"):
        ops.upsert_node(mg_store, mg_factory.node("b", lifecycle="nirvana"))
    with pytest.raises(PatchRejected, match="valid_to is before valid_from"):
        n = mg_factory.node("c")
        ops.upsert_node(
            mg_store, n.model_copy(update={"valid_to": n.created_at.replace(year=2000)})
        )


def test_upsert_edge_needs_both_endpoints(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = mg_factory.node("a"), mg_factory.node("b")
    ops.upsert_node(mg_store, a)
    with pytest.raises(PatchRejected, match=r"target .* does not exist"):
        ops.upsert_edge(mg_store, mg_factory.edge(a, b))
    ops.upsert_node(mg_store, b)
    [r] = ops.upsert_edge(mg_store, mg_factory.edge(a, b)).receipts
    assert (r.op, r.target_type, r.after) == ("upsert_edge", "edge", "observed")
    assert ops.upsert_edge(mg_store, mg_factory.edge(a, b)).receipts == []


def test_edge_and_its_endpoints_in_one_patch(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = mg_factory.node("a"), mg_factory.node("b")
    res = apply(
        mg_store, UpsertNode(node=a), UpsertNode(node=b), UpsertEdge(edge=mg_factory.edge(a, b))
    )
    assert [r.op for r in res.receipts] == ["upsert_node", "upsert_node", "upsert_edge"]


def test_upsert_edge_refuses_kinds_outside_its_profile(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = mg_factory.node("a"), mg_factory.node("b")
    edge = mg_factory.edge(a, b).model_copy(update={"kind": "teleports"})
    with pytest.raises(PatchRejected, match="not part of profile"):
        apply(mg_store, UpsertNode(node=a), UpsertNode(node=b), UpsertEdge(edge=edge))
    bad_state = mg_factory.edge(a, b).model_copy(update={"lifecycle": "zombie"})
    with pytest.raises(PatchRejected, match="edge state"):
        apply(mg_store, UpsertNode(node=a), UpsertNode(node=b), UpsertEdge(edge=bad_state))


# -- retire / revise / transition -----------------------------------------------


def test_retire_keeps_the_node_and_records_before_after(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    ops.upsert_node(mg_store, n)
    [r] = ops.retire_node(mg_store, n.id, reason="obsolete").receipts
    assert (r.op, r.before, r.after, r.reason) == ("retire_node", "observed", "retired", "obsolete")
    stored = node_of(mg_store, n.id)
    assert stored.lifecycle == "retired" and stored.valid_to is not None
    assert [h.lifecycle for h in history(mg_store, n.id)] == ["observed"]
    assert ops.retire_node(mg_store, n.id).receipts == []  # retiring twice changes nothing


def test_retire_missing_node_is_refused(mg_store) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PatchRejected, match="no such node"):
        ops.retire_node(mg_store, "n-missing")


def test_revise_records_fields_and_moves_role_self_to_revised(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("habit", profile="role_self")
    ops.upsert_node(mg_store, n)
    ops.transition_node(mg_store, n.id, "accepted")
    res = ops.revise_node(mg_store, n.id, NodeRevision(claim="sharper", confidence=0.9), "learned")
    [r] = res.receipts
    assert (r.before, r.after, r.details["fields"]) == (
        "accepted",
        "revised",
        ["claim", "confidence"],
    )
    stored = node_of(mg_store, n.id)
    assert (stored.claim, stored.confidence, stored.lifecycle) == ("sharper", 0.9, "revised")
    assert [h.lifecycle for h in history(mg_store, n.id)] == ["proposed", "accepted"]


def test_revise_noops_and_refusals(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    ops.upsert_node(mg_store, n)
    with pytest.raises(PatchRejected, match="revision changes nothing"):
        ops.revise_node(mg_store, n.id, NodeRevision())
    assert ops.revise_node(mg_store, n.id, NodeRevision(claim=n.claim)).receipts == []
    with pytest.raises(PatchRejected, match="no such node"):
        ops.revise_node(mg_store, "n-nope", NodeRevision(claim="x"))


def test_transition_follows_the_table(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("idea", profile="incubation")
    ops.upsert_node(mg_store, n)
    [r] = ops.transition_node(mg_store, n.id, "deepening").receipts
    assert (r.before, r.after) == ("active", "deepening")
    assert ops.transition_node(mg_store, n.id, "deepening").receipts == []
    ops.transition_node(mg_store, n.id, "promoted")
    with pytest.raises(PatchRejected, match="illegal lifecycle transition promoted -> active"):
        ops.transition_node(mg_store, n.id, "active")
    with pytest.raises(PatchRejected, match="'no-such-state' unknown to profile incubation"):
        ops.transition_node(mg_store, n.id, "no-such-state")


# -- merge ------------------------------------------------------------------------


def test_merge_folds_sources_into_target(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    t = mg_factory.node("t", source_hashes=["h1"])
    a = mg_factory.node("a", source_hashes=["h2"], anchors=[mg_factory.anchor(ref="https://a")])
    b = mg_factory.node(
        "b", source_hashes=["h1", "h3"], anchors=[mg_factory.anchor(ref="https://b")]
    )
    apply(mg_store, UpsertNode(node=t), UpsertNode(node=a), UpsertNode(node=b))
    res = ops.merge_nodes(mg_store, [a.id, b.id], t.id, reason="duplicates")
    assert [(r.op, r.target_id, r.after) for r in res.receipts] == [
        ("merge_nodes", a.id, "retired"),
        ("merge_nodes", b.id, "retired"),
        ("merge_nodes", t.id, "observed"),
    ]
    assert res.receipts[2].details["merged_from"] == [a.id, b.id]
    merged = node_of(mg_store, t.id)
    assert merged.source_hashes == ["h1", "h2", "h3"]
    assert {x.ref for x in merged.anchors} == {"https://a", "https://b"}
    for src in (a, b):
        stored = node_of(mg_store, src.id)
        assert stored.superseded_by == t.id and stored.lifecycle == "retired"
    assert mg_store.counts()["nodes"] == 3  # nothing deleted


@pytest.mark.parametrize(
    ("sources", "target", "message"),
    [
        (["t"], "t", "into itself"),
        (["a", "a"], "t", "more than once"),
        (["x"], "t", "no such node"),
        (["a"], "x", "no such node"),
        (["f"], "t", "across profiles"),
    ],
)
def test_merge_refusals(mg_store, mg_factory, sources, target, message) -> None:  # type: ignore[no-untyped-def]
    nodes = {
        "t": mg_factory.node("t"),
        "a": mg_factory.node("a"),
        "f": mg_factory.node("f", profile="repo_dataflow"),
    }
    apply(mg_store, *[UpsertNode(node=n) for n in nodes.values()])

    def nid(key: str) -> str:
        return nodes[key].id if key in nodes else f"n-{key}"

    with pytest.raises(PatchRejected, match=message):
        ops.merge_nodes(mg_store, [nid(s) for s in sources], nid(target))


def test_merge_refuses_merged_and_retired_nodes(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    t, a, b, c = (mg_factory.node(k) for k in "tabc")
    apply(mg_store, *[UpsertNode(node=n) for n in (t, a, b, c)])
    ops.merge_nodes(mg_store, [a.id], t.id)
    with pytest.raises(PatchRejected, match="already merged"):
        ops.merge_nodes(mg_store, [a.id], b.id)
    with pytest.raises(PatchRejected, match="retired or merged"):
        ops.merge_nodes(mg_store, [b.id], a.id)
    ops.retire_node(mg_store, c.id)
    with pytest.raises(PatchRejected, match="retired or merged"):
        ops.merge_nodes(mg_store, [b.id], c.id)
    with pytest.raises(PatchRejected, match="was merged into"):
        ops.revise_node(mg_store, a.id, NodeRevision(claim="zombie"))


# -- anchors, reviews, embeddings ---------------------------------------------------


def test_attach_anchor_once(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    ops.upsert_node(mg_store, n)
    anchor = mg_factory.anchor(AnchorKind.commit, "repo@abc")
    [r] = ops.attach_anchor(mg_store, n.id, anchor).receipts
    assert r.op == "attach_anchor" and r.details["anchor_id"] == anchor.id
    assert ops.attach_anchor(mg_store, n.id, anchor).receipts == []
    assert [x.id for x in node_of(mg_store, n.id).anchors] == [anchor.id]


def test_review_receipt_records_verdict_without_changing_state(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    ops.upsert_node(mg_store, n)
    [r] = ops.review_node(mg_store, n.id, "alice", reason="looks right").receipts
    assert (r.op, r.actor, r.before, r.after) == ("review_node", "alice", "observed", "observed")
    assert r.details == {"verdict": "approve", "reviewer": "alice"}


def test_refresh_embedding_receipt_and_noop(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    ops.upsert_node(mg_store, n)
    m = MemoryEmbeddingManifest(
        node_id=n.id, model="hash", dimension=8, source_hash="h", embedded_at=mg_factory.tick()
    )
    [r] = ops.refresh_embedding(mg_store, m).receipts
    assert (r.op, r.target_type, r.details) == (
        "refresh_embedding",
        "embedding",
        {"model": "hash", "dimension": 8},
    )
    assert ops.refresh_embedding(mg_store, m).receipts == []
    assert mg_store.counts()["embeddings"] == 1
    with pytest.raises(PatchRejected, match="no such node"):
        ops.refresh_embedding(mg_store, m.model_copy(update={"node_id": "n-x"}))


# -- summaries and staleness ----------------------------------------------------------


def _three_level(store: Store, f: Any) -> tuple[Any, Any, Any, Any]:
    a, b = f.node("a"), f.node("b")
    edge = f.edge(a, b)
    s1 = f.summary(nodes=[a.id], edges=[edge.id])
    s2 = f.summary(summaries=[s1.id], nodes=[b.id])
    s3 = f.summary(summaries=[s2.id])
    apply(
        store,
        UpsertNode(node=a),
        UpsertNode(node=b),
        UpsertEdge(edge=edge),
        SummarizeCluster(summary=s1),
        SummarizeCluster(summary=s2),
        SummarizeCluster(summary=s3),
    )
    return a, s1, s2, s3


def test_summarize_records_hashes_anchor_count_and_freshness(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a", anchors=[mg_factory.anchor(), mg_factory.anchor(ref="https://2")])
    ops.upsert_node(mg_store, a)
    s = mg_factory.summary(nodes=[a.id])
    [r] = ops.summarize_cluster(mg_store, s).receipts
    assert (r.op, r.target_type, r.before, r.after) == (
        "summarize_cluster",
        "summary",
        None,
        "fresh",
    )
    stored = summary_of(mg_store, s.id)
    assert set(stored.source_hashes) == {a.id} and stored.anchor_count == 2
    assert stored.freshness.state == FreshnessState.fresh
    # the same summary again is a no-op (and does not make anything stale)
    assert ops.summarize_cluster(mg_store, s).receipts == []


def test_summary_cannot_cover_missing_ids(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PatchRejected, match="covers missing id n-ghost"):
        ops.summarize_cluster(mg_store, mg_factory.summary(nodes=["n-ghost"]))
    with pytest.raises(PatchRejected, match="covers missing id"):
        ops.summarize_cluster(mg_store, mg_factory.summary(summaries=["s-ghost"]))


def test_summary_needs_target_claim_and_coverage(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a")
    ops.upsert_node(mg_store, a)
    with pytest.raises(PatchRejected, match="needs a target"):
        ops.summarize_cluster(mg_store, mg_factory.summary(nodes=[a.id], target=" "))
    with pytest.raises(PatchRejected, match="claim or a question"):
        ops.summarize_cluster(mg_store, mg_factory.summary(nodes=[a.id], claim="", question=""))
    with pytest.raises(PatchRejected, match="at least one id"):
        ops.summarize_cluster(mg_store, mg_factory.summary(id="s-empty"))


def test_summary_cycles_are_refused(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    _a, s1, s2, s3 = _three_level(mg_store, mg_factory)
    looped = s1.model_copy(update={"covers_summary_ids": [s3.id]})
    with pytest.raises(PatchRejected, match="cycle"):
        ops.summarize_cluster(mg_store, looped)
    with pytest.raises(PatchRejected, match=r"cannot cover itself|cycle"):
        ops.summarize_cluster(mg_store, s2.model_copy(update={"covers_summary_ids": [s2.id]}))


def test_summary_with_wrong_declared_hashes_is_refused(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a")
    ops.upsert_node(mg_store, a)
    with pytest.raises(PatchRejected, match="source_hashes do not match"):
        ops.summarize_cluster(mg_store, mg_factory.summary(nodes=[a.id], source_hashes={a.id: "0"}))


def test_changed_node_makes_summaries_of_summaries_stale(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, s1, s2, s3 = _three_level(mg_store, mg_factory)
    res = ops.revise_node(mg_store, a.id, NodeRevision(claim="changed"))
    stale = [(r.op, r.target_id) for r in res.receipts if r.op == "mark_stale"]
    assert stale == [("mark_stale", s1.id), ("mark_stale", s2.id), ("mark_stale", s3.id)]
    for sid, why in ((s1.id, a.id), (s2.id, s1.id), (s3.id, s2.id)):
        stored = summary_of(mg_store, sid)
        assert stored.freshness.state == FreshnessState.stale
        assert why in stored.freshness.stale_ids


def test_anchor_only_change_does_not_make_summaries_stale(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, s1, _s2, _s3 = _three_level(mg_store, mg_factory)
    res = ops.attach_anchor(mg_store, a.id, mg_factory.anchor(ref="https://more"))
    assert [r.op for r in res.receipts] == ["attach_anchor"]
    assert summary_of(mg_store, s1.id).freshness.state == FreshnessState.fresh


def test_changed_edge_makes_its_summary_stale(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = mg_factory.node("a"), mg_factory.node("b")
    e = mg_factory.edge(a, b)
    s = mg_factory.summary(edges=[e.id])
    apply(
        mg_store,
        UpsertNode(node=a),
        UpsertNode(node=b),
        UpsertEdge(edge=e),
        SummarizeCluster(summary=s),
    )
    ops.upsert_edge(mg_store, e.model_copy(update={"claim": "now it says more"}))
    assert summary_of(mg_store, s.id).freshness.state == FreshnessState.stale


def test_mark_stale_on_node_source_hashes_propagates(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, s1, s2, s3 = _three_level(mg_store, mg_factory)
    assert ops.mark_stale(mg_store, a.id, source_hashes=a.source_hashes).receipts == []
    res = ops.mark_stale(mg_store, a.id, source_hashes=["new-file-hash"], reason="file changed")
    assert [r.target_id for r in res.receipts] == [a.id, s1.id, s2.id, s3.id]
    assert node_of(mg_store, a.id).source_hashes == ["new-file-hash"]
    with pytest.raises(PatchRejected, match="needs its new source_hashes"):
        ops.mark_stale(mg_store, a.id)
    with pytest.raises(PatchRejected, match="no such node or summary"):
        ops.mark_stale(mg_store, "x-missing", source_hashes=[])


def test_mark_stale_on_summary_propagates_upward_only(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    _a, s1, s2, s3 = _three_level(mg_store, mg_factory)
    res = ops.mark_stale(mg_store, s2.id, reason="operator doubts it")
    assert [(r.target_id, r.before, r.after) for r in res.receipts] == [
        (s2.id, "fresh", "stale"),
        (s3.id, "fresh", "stale"),
    ]
    assert summary_of(mg_store, s1.id).freshness.state == FreshnessState.fresh
    assert ops.mark_stale(mg_store, s2.id).receipts == []  # already stale


def test_resummarising_refreshes_and_stales_the_parents(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, s1, s2, _s3 = _three_level(mg_store, mg_factory)
    ops.revise_node(mg_store, a.id, NodeRevision(claim="changed"))
    res = ops.summarize_cluster(mg_store, s1.model_copy(update={"claim": "rewritten"}))
    assert res.receipts[0].op == "summarize_cluster" and res.receipts[0].before == "stale"
    assert summary_of(mg_store, s1.id).freshness.state == FreshnessState.fresh
    assert summary_of(mg_store, s2.id).freshness.state == FreshnessState.stale


def test_ops_in_one_patch_see_earlier_ops(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    from memgraph.documents import ReviseNode, SummarizeCluster

    a = mg_factory.node("a")
    s = mg_factory.summary(nodes=[a.id])
    res = apply(
        mg_store,
        UpsertNode(node=a),
        SummarizeCluster(summary=s),
        ReviseNode(node_id=a.id, changes=NodeRevision(claim="later in the same patch")),
    )
    assert [r.op for r in res.receipts] == [
        "upsert_node",
        "summarize_cluster",
        "revise_node",
        "mark_stale",
    ]
    assert summary_of(mg_store, s.id).freshness.state == FreshnessState.stale
