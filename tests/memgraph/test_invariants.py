"""Every invariant DESIGN.md lists, one named test each (index in notes/substrate.md)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest
from pydantic import ValidationError

from memgraph import ops
from memgraph.documents import (
    AnchorKind,
    AttachAnchor,
    ForcedSleep,
    MemoryAnchor,
    MemoryEmbeddingManifest,
    MemoryGraphSnapshot,
    MemoryLifecycleReceipt,
    MemoryNode,
    NodeRevision,
    ProfileName,
    ReviewNode,
    SleepDisposition,
    SummarizeCluster,
    TransitionNode,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_or_reject, apply_patch, new_patch
from memgraph.errors import PatchRejected
from memgraph.store import Store
from memgraph.store.memory import MemoryStore
from memgraph.validation import validate_snapshot
from profiles import REGISTRY, UNIFIED_PLAN


def apply(store: Store, *graph_ops: Any, **kw: Any) -> Any:
    return apply_patch(store, new_patch(list(graph_ops), **kw))


# -- one substrate owns typed claims -------------------------------------------------


def test_one_substrate_owns_typed_claims(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    """Nodes of every profile live in the same store, written by the same engine."""
    nodes = [mg_factory.node(f"k-{p.value}", profile=p.value) for p in ProfileName]
    nodes = [n for n in nodes if n.profile != ProfileName.session]  # needs a session node first
    res = apply(mg_store, *[UpsertNode(node=n) for n in nodes])
    assert len(res.receipts) == len(nodes)
    assert {n.profile for n in mg_store.iter_nodes()} == {n.profile for n in nodes}
    with pytest.raises(ValidationError):
        MemoryNode.model_validate({**nodes[0].model_dump(), "profile": "private_silo"})


def test_profile_enum_covers_repo_agent_and_capture_domains() -> None:
    names = {p.value for p in ProfileName}
    assert {"repo_architecture", "repo_dataflow"} <= names
    assert {"role_self", "short_term", "incubation", "agency_pressure"} <= names
    assert {"candidate_intervention", "evidence"} <= names
    assert {"voice", "artifact", "session", "activity"} <= names
    assert set(REGISTRY) == set(ProfileName)


# -- profiles own lifecycle ------------------------------------------------------------


def test_profiles_own_lifecycle(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    """The same move is legal in one profile and illegal in another: the table decides."""
    idea = mg_factory.node("idea", profile="incubation")
    note = mg_factory.node("note", profile="short_term")
    apply(mg_store, UpsertNode(node=idea), UpsertNode(node=note))
    assert ops.transition_node(mg_store, idea.id, "cooling").receipts
    with pytest.raises(PatchRejected, match="lifecycle 'cooling' unknown to profile short_term"):
        ops.transition_node(mg_store, note.id, "cooling")
    with pytest.raises(PatchRejected, match="illegal lifecycle transition"):
        ops.upsert_node(
            mg_store, mg_factory.node("born-done", profile="short_term", lifecycle="distilled")
        )


# -- Qdrant holds vectors, never canonical documents --------------------------------------


def test_qdrant_holds_vectors_never_canonical_documents() -> None:
    """The substrate runs without any vector store, and an embedding manifest
    records which text was embedded (a hash), never the text or claim."""
    fields = set(MemoryEmbeddingManifest.model_fields)
    assert not fields & {"claim", "title", "text", "payload", "vector"}
    code = textwrap.dedent(
        """
        import sys
        from datetime import UTC, datetime
        from memgraph.documents import MemoryNode, UpsertNode
        from memgraph.engine import apply_patch, new_patch
        from memgraph.store import open_store
        now = datetime.now(UTC)
        s = open_store(sys.argv[1])
        n = MemoryNode(id="n-1", domain_id="d", profile="incubation", kind="idea",
                       lifecycle="active", created_at=now, updated_at=now, claim="x")
        apply_patch(s, new_patch([UpsertNode(node=n)]))
        s.export_snapshot(); s.search("x"); s.neighbourhood("n-1")
        bad = [m for m in sys.modules if m.startswith(("qdrant_client", "ollama"))]
        print("IMPORTED" if bad else "CLEAN", bad)
        """
    )
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-c", code, f"{tmp}/s.db"], capture_output=True, text=True, check=True
        )
    assert out.stdout.startswith("CLEAN"), out.stdout + out.stderr


# -- model output proposes, core validation applies or rejects --------------------------------


def test_model_output_proposes_core_validation_applies_or_rejects(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("claim")
    ops.upsert_node(mg_store, n)
    before = mg_store.export_snapshot()
    # an LLM proposes accepting a repo claim without review, plus a harmless anchor
    proposal = new_patch(
        [
            AttachAnchor(node_id=n.id, anchor=mg_factory.anchor(ref="https://llm")),
            TransitionNode(node_id=n.id, to_state="accepted"),
        ],
        proposer="ollama:gemma",
        reason="night classification",
    )
    with pytest.raises(PatchRejected, match="without an approving review"):
        apply_or_reject(mg_store, proposal)
    after = mg_store.export_snapshot()
    assert after.nodes == before.nodes  # nothing of the proposal applied
    [rej] = mg_store.receipts(target_id=proposal.id)
    assert (rej.op, rej.actor, rej.after) == ("reject_patch", "ollama:gemma", "rejected")
    good = new_patch(
        [AttachAnchor(node_id=n.id, anchor=mg_factory.anchor(ref="https://ok"))],
        proposer="ollama:gemma",
    )
    [r] = apply_or_reject(mg_store, good).receipts
    assert r.actor == "ollama:gemma"


# -- short-term memory cannot survive forced sleep unaccounted ----------------------------------


def _short_term(store: Store, f: Any, n: int = 3, domain: str = "session:s1") -> list[MemoryNode]:
    nodes = [f.node(f"{domain}-{i}", profile="short_term", domain_id=domain) for i in range(n)]
    apply(store, *[UpsertNode(node=x) for x in nodes])
    return nodes


def test_short_term_cannot_survive_forced_sleep_unaccounted(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b, c = _short_term(mg_store, mg_factory)
    ops.transition_node(mg_store, b.id, "clustered")  # clustered is still open
    with pytest.raises(PatchRejected, match=r"leaves 1 short_term node\(s\) unaccounted: " + c.id):
        ops.forced_sleep(
            mg_store,
            "session:s1",
            {a.id: SleepDisposition.distilled, b.id: SleepDisposition.pruned},
        )
    assert {n.lifecycle for n in mg_store.iter_nodes(profile="short_term")} == {
        "active",
        "clustered",
    }


def test_forced_sleep_accounts_every_node_with_a_receipt(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b, c = _short_term(mg_store, mg_factory)
    other = _short_term(mg_store, mg_factory, 1, domain="session:other")[0]
    disp = {
        a.id: SleepDisposition.distilled,
        b.id: SleepDisposition.incubated,
        c.id: SleepDisposition.pruned,
    }
    res = ops.forced_sleep(mg_store, "session:s1", disp, reason="end of window")
    assert sorted((r.target_id, r.op, r.before, r.after) for r in res.receipts) == sorted(
        (nid, "forced_sleep", "active", d.value) for nid, d in disp.items()
    )
    stored = {n.id: n.lifecycle for n in mg_store.iter_nodes(profile="short_term")}
    assert stored == {a.id: "distilled", b.id: "incubated", c.id: "pruned", other.id: "active"}
    # a second sleep finds nothing open: a no-op, and naming closed nodes is refused
    assert ops.forced_sleep(mg_store, "session:s1", {}).receipts == []
    with pytest.raises(PatchRejected, match="not open short_term nodes"):
        ops.forced_sleep(mg_store, "session:s1", {a.id: SleepDisposition.pruned})


def test_forced_sleep_sees_nodes_added_earlier_in_the_same_patch(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    (a,) = _short_term(mg_store, mg_factory, 1)
    late = mg_factory.node("late", profile="short_term", domain_id="session:s1")
    with pytest.raises(PatchRejected, match="unaccounted: " + late.id):
        apply(
            mg_store,
            UpsertNode(node=late),
            ForcedSleep(domain_id="session:s1", dispositions={a.id: SleepDisposition.pruned}),
        )


# -- repo candidates cannot become accepted without a review receipt -------------------------------


@pytest.mark.parametrize("profile", ["repo_architecture", "repo_dataflow"])
def test_repo_candidate_cannot_be_accepted_without_review_receipt(
    mg_store, mg_factory, profile
) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("c", profile=profile, lifecycle="proposed")
    with pytest.raises(PatchRejected, match=r"illegal lifecycle transition \(new\) -> accepted"):
        ops.upsert_node(
            mg_store, n.model_copy(update={"lifecycle": "accepted"})
        )  # never born accepted
    ops.upsert_node(mg_store, n)
    with pytest.raises(PatchRejected, match="without an approving review receipt"):
        ops.transition_node(mg_store, n.id, "accepted")
    ops.review_node(mg_store, n.id, "alice")
    [r] = ops.transition_node(mg_store, n.id, "accepted").receipts
    assert (r.before, r.after) == ("proposed", "accepted")


def test_review_in_the_same_patch_counts_and_latest_verdict_wins(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("c", lifecycle="proposed")
    m = mg_factory.node("d", lifecycle="proposed")
    apply(mg_store, UpsertNode(node=n), UpsertNode(node=m))
    res = apply(
        mg_store,
        ReviewNode(node_id=n.id, reviewer="bob"),
        TransitionNode(node_id=n.id, to_state="accepted"),
    )
    assert [r.op for r in res.receipts] == ["review_node", "transition_node"]
    ops.review_node(mg_store, m.id, "bob")
    ops.review_node(mg_store, m.id, "carol", approve=False, reason="wrong module")
    with pytest.raises(PatchRejected, match="without an approving review"):
        ops.transition_node(mg_store, m.id, "accepted")
    with pytest.raises(PatchRejected, match="without an approving review"):
        apply(
            mg_store,
            ReviewNode(node_id=m.id, reviewer="x"),
            ReviewNode(node_id=m.id, reviewer="y", verdict="reject"),
            TransitionNode(node_id=m.id, to_state="accepted"),
        )


def test_reaccepting_a_stale_repo_node_needs_a_fresh_review(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("c", lifecycle="proposed")
    ops.upsert_node(mg_store, n)
    ops.review_node(mg_store, n.id, "alice")
    ops.transition_node(mg_store, n.id, "accepted")
    ops.transition_node(mg_store, n.id, "stale", reason="code moved")
    with pytest.raises(PatchRejected, match="without an approving review"):
        ops.transition_node(mg_store, n.id, "accepted")  # alice reviewed the old code
    with pytest.raises(PatchRejected, match="without an approving review"):
        apply(  # a review voided again within one patch does not count either
            mg_store,
            ReviewNode(node_id=n.id, reviewer="bob"),
            TransitionNode(node_id=n.id, to_state="accepted"),
            TransitionNode(node_id=n.id, to_state="stale"),
            TransitionNode(node_id=n.id, to_state="accepted"),
        )
    ops.review_node(mg_store, n.id, "bob")
    assert ops.transition_node(mg_store, n.id, "accepted").receipts
    assert validate_snapshot(mg_store.export_snapshot()) == []


def test_snapshot_validation_flags_accepted_repo_node_without_review(mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("c", lifecycle="accepted")
    problems = validate_snapshot(MemoryGraphSnapshot(nodes=[n]))
    assert any("without an approving review receipt" in p for p in problems)
    # a review that a later exit from accepted voided does not count either
    store = MemoryStore()
    ops.upsert_node(store, n.model_copy(update={"lifecycle": "proposed"}))
    ops.review_node(store, n.id, "alice")
    ops.transition_node(store, n.id, "accepted")
    ops.transition_node(store, n.id, "stale")
    snap = store.export_snapshot()
    forged = snap.model_copy(
        update={"nodes": [snap.nodes[0].model_copy(update={"lifecycle": "accepted"})]}
    )
    assert any("without an approving review receipt" in p for p in validate_snapshot(forged))


# -- role memory cannot store project truth ------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "what"),
    [
        (
            {"anchors": [MemoryAnchor(id="a-1", kind=AnchorKind.commit, ref="repo@abc")]},
            "anchors: commit",
        ),
        (
            {"anchors": [MemoryAnchor(id="a-2", kind=AnchorKind.file, ref="src/x.py")]},
            "anchors: file",
        ),
        ({"attributes": {"repo": "memgraph", "branch": "main"}}, "attributes: branch, repo"),
    ],
)
def test_role_memory_cannot_store_project_truth(mg_store, mg_factory, kw, what) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PatchRejected, match=f"cannot carry repo truth \\({what}\\)"):
        ops.upsert_node(mg_store, mg_factory.node("r", profile="role_self", **kw))


def test_role_memory_cannot_gain_project_truth_later(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("r", profile="role_self", attributes={"tone": "terse"})
    ops.upsert_node(mg_store, n)
    with pytest.raises(PatchRejected, match="cannot carry repo truth"):
        ops.attach_anchor(mg_store, n.id, MemoryAnchor(id="a-c", kind=AnchorKind.commit, ref="r@1"))
    with pytest.raises(PatchRejected, match="cannot carry repo truth"):
        ops.revise_node(mg_store, n.id, NodeRevision(attributes={"file_path": "src/a.py"}))
    with pytest.raises(PatchRejected, match="not part of profile role_self"):
        ops.upsert_node(
            mg_store,
            mg_factory.node("c2", profile="role_self").model_copy(update={"kind": "component"}),
        )


# -- evidence anchors stay distinguishable from remembered claims -------------------------------------


def test_evidence_anchors_stay_distinguishable_from_claims(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PatchRejected, match="evidence must carry at least one anchor"):
        ops.upsert_node(mg_store, mg_factory.node("e", profile="evidence", anchors=[]))
    ev = mg_factory.node("e", profile="evidence")
    ops.upsert_node(mg_store, ev)
    stored = next(iter(mg_store.iter_nodes(profile="evidence")))
    assert stored.anchors and stored.anchors[0].kind == AnchorKind.url
    # an anchor is a typed pointer, it has no claim of its own
    assert "claim" not in MemoryAnchor.model_fields
    # a remembered claim may have no anchor at all
    assert ops.upsert_node(mg_store, mg_factory.node("remembered", profile="incubation")).receipts


# -- summaries keep target, claim/question, tension, implication, anchors, freshness, omissions --------


def test_summaries_keep_their_required_parts(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a", anchors=[mg_factory.anchor()])
    ops.upsert_node(mg_store, a)
    s = mg_factory.summary(nodes=[a.id], question="why?", known_omissions=["perf", "tests"])
    ops.summarize_cluster(mg_store, s)
    [stored] = mg_store.export_snapshot().summaries
    assert stored.target == s.target and stored.claim == s.claim and stored.question == "why?"
    assert stored.tension == s.tension and stored.action_implication == s.action_implication
    assert stored.anchor_count == 1 and stored.freshness.state == "fresh"
    assert stored.known_omissions == ["perf", "tests"]


# -- staleness -----------------------------------------------------------------------------------


def test_summary_whose_covered_source_hash_changed_is_stale(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a", source_hashes=["file-v1"])
    ops.upsert_node(mg_store, a)
    s = mg_factory.summary(nodes=[a.id])
    ops.summarize_cluster(mg_store, s)
    ops.mark_stale(mg_store, a.id, source_hashes=["file-v2"])
    [stored] = mg_store.export_snapshot().summaries
    assert stored.freshness.state == "stale" and stored.freshness.stale_ids == [a.id]


def test_staleness_propagates_to_summaries_of_summaries(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a", source_hashes=["v1"])
    ops.upsert_node(mg_store, a)
    chain = [mg_factory.summary(nodes=[a.id])]
    for _ in range(4):
        chain.append(mg_factory.summary(summaries=[chain[-1].id]))
    for s in chain:
        ops.summarize_cluster(mg_store, s)
    ops.mark_stale(mg_store, a.id, source_hashes=["v2"])
    states = {s.id: s.freshness.state for s in mg_store.export_snapshot().summaries}
    assert set(states.values()) == {"stale"} and len(states) == 5


# -- nothing is deleted; re-ingest is idempotent ---------------------------------------------------------


def test_nothing_is_deleted(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = mg_factory.node("a"), mg_factory.node("b")
    edge = mg_factory.edge(a, b)
    summary = mg_factory.summary(edges=[edge.id])
    apply(mg_store, UpsertNode(node=a), UpsertNode(node=b))
    apply(mg_store, UpsertEdge(edge=edge), SummarizeCluster(summary=summary))
    ops.upsert_edge(mg_store, edge.model_copy(update={"claim": "edge v2"}))  # summary goes stale
    edge_history = mg_store.export_snapshot().edge_history
    assert edge_history == [edge.model_copy(update={"ingested_at": edge_history[0].ingested_at})]
    [old_summary] = mg_store.export_snapshot().summary_history
    assert old_summary.freshness.state == "fresh" and old_summary.id == summary.id
    ops.revise_node(mg_store, a.id, NodeRevision(claim="v2"))
    ops.merge_nodes(mg_store, [b.id], a.id)
    ops.retire_node(mg_store, a.id)
    snap = mg_store.export_snapshot()
    assert {n.id for n in snap.nodes} == {a.id, b.id}
    assert [h.claim for h in snap.node_history if h.id == a.id] == [a.claim, "v2", "v2"]
    # upserts 2 + edge/summary 2 + edge v2 and its stale summary 2 + revise/merge/retire 4
    assert len(snap.receipts) == 2 + 2 + 2 + 1 + 2 + 1


def test_reingest_is_idempotent(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    nodes = [mg_factory.node(f"n{i}") for i in range(5)]
    apply(mg_store, *[UpsertNode(node=n) for n in nodes])
    first = mg_store.export_snapshot()
    res = apply(mg_store, *[UpsertNode(node=n) for n in nodes])
    assert res.receipts == []
    again = mg_store.export_snapshot()
    assert again.model_copy(update={"exported_at": None}) == first.model_copy(
        update={"exported_at": None}
    )


def test_receipts_name_who_when_op_before_after_and_reason(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    ops.upsert_node(mg_store, n)
    [r] = ops.retire_node(mg_store, n.id, reason="dup", actor="carol").receipts
    receipt: MemoryLifecycleReceipt = r
    assert receipt.actor == "carol" and receipt.at is not None and receipt.op == "retire_node"
    assert (receipt.before, receipt.after, receipt.reason) == ("observed", "retired", "dup")


def test_unified_plan_lists_the_eight_profiles() -> None:
    assert len(UNIFIED_PLAN) == 8 and all(p in REGISTRY for p in UNIFIED_PLAN)
