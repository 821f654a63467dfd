"""MemoryPatchCandidate: validated as a whole, applied or rejected all-or-nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memgraph.documents import (
    PatchStatus,
    RetireNode,
    TransitionNode,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import (
    MAX_STORED_OPS,
    apply_or_reject,
    apply_patch,
    check_patch,
    new_patch,
    reject_patch,
)
from memgraph.errors import PatchAlreadyDecided, PatchRejected, UsageError


def test_one_bad_op_rejects_the_whole_patch(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = mg_factory.node("a"), mg_factory.node("b")
    before = mg_store.export_snapshot()
    patch = new_patch(
        [
            UpsertNode(node=a),
            UpsertNode(node=b),
            UpsertEdge(edge=mg_factory.edge(a, mg_factory.node("ghost"))),
            RetireNode(node_id="n-missing"),
        ]
    )
    with pytest.raises(PatchRejected) as err:
        apply_patch(mg_store, patch)
    # every problem is reported, each prefixed by its op
    assert len(err.value.problems) == 2
    assert err.value.problems[0].startswith("ops[2] upsert_edge: ")
    assert err.value.problems[1].startswith("ops[3] retire_node: n-missing: no such node")
    assert "(+1 more)" in str(err.value)
    after = mg_store.export_snapshot()
    assert after.model_copy(update={"exported_at": None}) == before.model_copy(
        update={"exported_at": None}
    )
    assert mg_store.counts()["patches"] == 0


def test_applied_patch_is_stored_with_status_and_ops(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a")
    patch = new_patch([UpsertNode(node=a)], proposer="ingest", reason="first")
    res = apply_patch(mg_store, patch)
    assert res.patch_id == patch.id and res.nodes_written == 1 and res.changed
    [stored] = mg_store.export_snapshot().patches
    assert stored.status == PatchStatus.applied and stored.ops == patch.ops
    assert all(r.patch_id == patch.id for r in mg_store.receipts(patch_id=patch.id))
    assert res.receipts[0].reason == "first"


def test_a_patch_is_decided_once(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    patch = new_patch([UpsertNode(node=mg_factory.node("a"))], patch_id="p-fixed")
    apply_patch(mg_store, patch)
    with pytest.raises(PatchAlreadyDecided, match="p-fixed: patch was already applied"):
        apply_patch(mg_store, patch)
    with pytest.raises(PatchAlreadyDecided):
        reject_patch(mg_store, patch, ["too late"])
    with pytest.raises(PatchAlreadyDecided):
        apply_or_reject(mg_store, patch)
    assert [r.op for r in mg_store.receipts()] == ["upsert_node"]


def test_reject_patch_writes_one_receipt_and_no_graph_change(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    patch = new_patch([UpsertNode(node=mg_factory.node("a"))], proposer="llm")
    receipt = reject_patch(mg_store, patch, ["looks wrong", "no anchor"])
    assert (receipt.op, receipt.target_type, receipt.before, receipt.after) == (
        "reject_patch",
        "patch",
        "proposed",
        "rejected",
    )
    assert receipt.actor == "llm" and receipt.reason == "looks wrong; no anchor"
    assert receipt.details == {"problems": ["looks wrong", "no anchor"], "op_count": 1}
    assert mg_store.counts()["nodes"] == 0
    [stored] = mg_store.export_snapshot().patches
    assert stored.status == PatchStatus.rejected
    assert mg_store.receipts(target_id=patch.id) == [receipt]
    with pytest.raises(PatchAlreadyDecided, match="already rejected"):
        apply_patch(mg_store, patch)


def test_apply_or_reject_records_the_rejection(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    patch = new_patch([TransitionNode(node_id="n-x", to_state="accepted")])
    with pytest.raises(PatchRejected):
        apply_or_reject(mg_store, patch)
    [r] = mg_store.receipts()
    assert r.op == "reject_patch" and "no such node" in r.reason


def test_check_patch_is_a_dry_run(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    good = new_patch([UpsertNode(node=mg_factory.node("a"))])
    bad = new_patch([RetireNode(node_id="n-x")])
    assert check_patch(mg_store, good) == []
    assert check_patch(mg_store, bad) == ["ops[0] retire_node: n-x: no such node"]
    assert mg_store.counts()["receipts"] == 0 and mg_store.counts()["nodes"] == 0


def test_empty_and_noop_patches_write_nothing(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    assert apply_patch(mg_store, new_patch([])).receipts == []
    n = mg_factory.node("a")
    apply_patch(mg_store, new_patch([UpsertNode(node=n)]))
    counts = mg_store.counts()
    assert apply_patch(mg_store, new_patch([UpsertNode(node=n)] * 3)).receipts == []
    assert mg_store.counts() == counts


def test_large_patches_are_stored_without_their_ops(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    nodes = [mg_factory.node(f"n{i}") for i in range(MAX_STORED_OPS + 1)]
    patch = new_patch([UpsertNode(node=n) for n in nodes])
    res = apply_patch(mg_store, patch)
    assert len(res.receipts) == len(nodes)
    [stored] = mg_store.export_snapshot().patches
    assert stored.ops == [] and stored.status == PatchStatus.applied
    assert len({r.id for r in res.receipts}) == len(nodes)  # receipt ids are unique


def test_now_is_normalised_to_utc_and_must_be_aware(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    plus9 = timezone(timedelta(hours=9))
    res = apply_patch(
        mg_store, new_patch([UpsertNode(node=n)]), now=datetime(2026, 5, 1, 9, tzinfo=plus9)
    )
    assert res.receipts[0].at == datetime(2026, 5, 1, 0, tzinfo=UTC)
    assert res.receipts[0].at.tzinfo is UTC
    with pytest.raises(UsageError, match="timezone-aware"):
        apply_patch(mg_store, new_patch([RetireNode(node_id=n.id)]), now=datetime(2026, 5, 1))


def test_receipt_ids_are_stable_per_patch_and_position(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    from memgraph.ids import stable_id

    patch = new_patch([UpsertNode(node=mg_factory.node(f"n{i}")) for i in range(3)])
    res = apply_patch(mg_store, patch)
    assert [r.id for r in res.receipts] == [stable_id("r", patch.id, str(i)) for i in (1, 2, 3)]


LONE = "\ud800"  # what a JSON "\ud800" escape decodes to; UTF-8 cannot hold it


@pytest.mark.parametrize(
    "where",
    ["claim", "attributes", "patch_reason"],
)
def test_text_utf8_cannot_hold_is_rejected_and_nothing_is_written(  # type: ignore[no-untyped-def]
    mg_store, mg_factory, where: str
) -> None:
    apply_patch(mg_store, new_patch([UpsertNode(node=mg_factory.node("kept"))]))
    before = mg_store.export_snapshot().model_copy(update={"exported_at": None})
    good = mg_factory.node("good")
    if where == "claim":
        bad, reason = mg_factory.node("bad", claim=f"half a pair {LONE} here"), ""
    elif where == "attributes":
        bad, reason = mg_factory.node("bad", attributes={"k": [{"deep": LONE}]}), ""
    else:  # not in any node: the patch and its receipts carry it
        bad, reason = mg_factory.node("bad"), f"because {LONE}"
    patch = new_patch([UpsertNode(node=good), UpsertNode(node=bad)], reason=reason)
    with pytest.raises(PatchRejected, match="cannot be stored as UTF-8 JSON") as err:
        apply_patch(mg_store, patch)
    message = str(err.value)
    message.encode("utf-8")  # printable: the offending character is escaped
    assert "\\ud800" in message
    assert mg_store.export_snapshot().model_copy(update={"exported_at": None}) == before
    assert check_patch(mg_store, patch) == err.value.problems  # a dry run says the same


def test_unstorable_patch_is_recorded_as_rejected_without_its_ops(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    patch = new_patch([UpsertNode(node=mg_factory.node("bad", claim=f"x {LONE}"))])
    with pytest.raises(PatchRejected, match="UTF-8"):
        apply_or_reject(mg_store, patch)
    [stored] = mg_store.export_snapshot().patches
    assert stored.status == PatchStatus.rejected and stored.ops == []
    [receipt] = mg_store.receipts(patch_id=patch.id)
    assert receipt.op == "reject_patch" and "\\ud800" in receipt.reason
    assert mg_store.counts()["nodes"] == 0


def test_unstorable_op_reason_fails_at_write_time_and_rolls_back(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = mg_factory.node("a"), mg_factory.node("b")
    apply_patch(mg_store, new_patch([UpsertNode(node=a)]))
    before = mg_store.export_snapshot().model_copy(update={"exported_at": None})
    # planning never serialises an op's free-text reason; the receipt row does,
    # after the node rows of this very patch were written in the transaction
    patch = new_patch([UpsertNode(node=b), RetireNode(node_id=a.id, reason=LONE)])
    with pytest.raises(PatchRejected, match="UTF-8"):
        apply_patch(mg_store, patch)
    assert mg_store.export_snapshot().model_copy(update={"exported_at": None}) == before
