"""Freshness: incremental rescans revise, retire and mark summaries stale;
the review law for scanned candidates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import ReviewNode, TransitionNode
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import PatchRejected, UsageError
from memgraph.store import open_store
from memgraph.store.memory import MemoryStore
from memgraph.store.protocol import Store
from profiles.repo_scan.graph import module_id, repo_node_id
from profiles.repo_scan.history import history_node_id
from profiles.repo_scan.scan import ScanRequest, scan_repo
from profiles.repo_scan.status import repo_status
from profiles.review import list_pending, review
from tests.repo_tree import git as _git


def _stale(store: Store) -> set[str]:
    return {s.id for s in store.export_snapshot().summaries if s.freshness.state.value == "stale"}


def _covering_closure(store: Store, node_ids: set[str]) -> set[str]:
    """Summaries covering ``node_ids``, and the summaries covering those."""
    summaries = store.export_snapshot().summaries
    hit = {s.id for s in summaries if node_ids & set(s.covers_node_ids)}
    while True:
        more = {s.id for s in summaries if hit & set(s.covers_summary_ids)} - hit
        if not more:
            return hit
        hit |= more


def test_edit_one_file_revises_only_its_nodes_and_stales_its_summaries(
    shop: Path, tmp_path: Path
) -> None:
    store = open_store(tmp_path / "g.db")
    scan_repo(store, ScanRequest(path=shop))
    assert _stale(store) == set()
    target = shop / "shop" / "payments.py"
    target.write_text(target.read_text() + "\n\ndef refund(amount: int) -> None:\n    pass\n")
    result = scan_repo(store, ScanRequest(path=shop))
    assert result.changed == ["shop/payments.py"] and result.parsed_now == ["shop/payments.py"]
    assert result.rebuilt == ["shop/payments.py"]
    receipts = store.receipts()
    latest = [r for r in receipts if r.patch_id == receipts[-1].patch_id]
    # the repo node holds the file manifest (hashes): it changes with any file
    node_targets = {r.target_id for r in latest if r.target_type == "node"}
    assert repo_node_id("shop") in node_targets
    node_targets.discard(repo_node_id("shop"))
    with store.reader() as reader:
        module = reader.get_nodes([module_id("shop", "shop/payments.py")])[
            module_id("shop", "shop/payments.py")
        ]
    mine = {module.id, *module.attributes["owned_nodes"]}
    assert node_targets <= mine  # only the edited file's nodes were written
    assert module.id in node_targets
    assert "refund" in module.claim
    # history keeps the earlier version
    history = store.export_snapshot().node_history
    assert any(n.id == module.id and "refund" not in n.claim for n in history)
    # exactly the summaries covering the revised nodes, and their parents, are stale
    expected = _covering_closure(store, node_targets)
    assert expected and _stale(store) == expected
    assert set(result.stale_summaries) == expected
    status = repo_status(store, shop)
    assert status.drift == 0 and {s[0] for s in status.stale_summaries} == expected
    store.close()


def test_delete_retires_and_restore_observes_again(shop: Path, kit: Any) -> None:
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop))
    report = shop / "shop" / "report.py"
    text = report.read_text()
    report.unlink()
    result = scan_repo(store, ScanRequest(path=shop))
    assert result.deleted == ["shop/report.py"]
    with store.reader() as reader:
        module = reader.get_nodes([module_id("shop", "shop/report.py")])[
            module_id("shop", "shop/report.py")
        ]
        owned = reader.get_nodes(module.attributes["owned_nodes"])
    assert module.lifecycle == "retired" and all(n.lifecycle == "retired" for n in owned.values())
    assert not any(
        n.attributes.get("path") == "shop/report.py" for n in kit.live_nodes(store, "shop").values()
    )
    package_summary = [
        s for s in store.export_snapshot().summaries if s.target.startswith("package shop ")
    ]
    assert package_summary[0].freshness.state.value == "stale"
    report.write_text(text)
    scan_repo(store, ScanRequest(path=shop))
    with store.reader() as reader:
        again = reader.get_nodes([module_id("shop", "shop/report.py")])[
            module_id("shop", "shop/report.py")
        ]
    assert again.lifecycle == "observed"


def test_added_file_gets_nodes_and_stales_its_package_summary(shop: Path, kit: Any) -> None:
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop))
    (shop / "shop" / "refunds.py").write_text('"""Refunds."""\nfrom shop.payments import charge\n')
    result = scan_repo(store, ScanRequest(path=shop))
    assert result.added == ["shop/refunds.py"]
    find = kit.by_title(store, "shop")
    assert find("module", "shop/refunds.py").attributes["derived"]["imports"] == [
        ["shop/payments.py", 2]
    ]
    package = next(
        s for s in store.export_snapshot().summaries if s.target.startswith("package shop ")
    )
    assert package.freshness.state.value == "stale"
    refreshed = scan_repo(store, ScanRequest(path=shop, refresh=True))
    assert refreshed.stale_summaries == []


def test_accepting_a_scanned_node_needs_a_review_receipt(shop: Path) -> None:
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop))
    mid = module_id("shop", "shop/orders.py")
    with pytest.raises(PatchRejected, match="review receipt"):
        apply_patch(store, new_patch([TransitionNode(node_id=mid, to_state="accepted")]))
    apply_patch(
        store,
        new_patch(
            [
                ReviewNode(node_id=mid, reviewer="operator", verdict="approve"),
                TransitionNode(node_id=mid, to_state="accepted"),
            ]
        ),
    )
    with store.reader() as reader:
        assert reader.get_nodes([mid])[mid].lifecycle == "accepted"
    # an accepted claim whose source changes goes stale (and needs review again)
    orders = shop / "shop" / "orders.py"
    orders.write_text(orders.read_text() + "\n# changed\n")
    scan_repo(store, ScanRequest(path=shop))
    with store.reader() as reader:
        assert reader.get_nodes([mid])[mid].lifecycle == "stale"
    with pytest.raises(PatchRejected, match="review receipt"):
        apply_patch(store, new_patch([TransitionNode(node_id=mid, to_state="accepted")]))


def test_a_review_keeps_the_summaries_over_a_node_fresh_a_retirement_does_not(
    shop: Path,
) -> None:
    """Accepting a scanned node changes how far its claim is trusted, not the claim
    (``profiles.repo.TRUST_MOVES``): the package summaries over it stay fresh and the
    next rescan writes nothing; retiring it still stales them."""
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop))
    assert _stale(store) == set()
    mid = module_id("shop", "shop/orders.py")
    covering = _covering_closure(store, {mid})
    assert covering  # the package summary, and the repo-wide ones over it
    accepted = apply_patch(
        store,
        new_patch(
            [
                ReviewNode(node_id=mid, reviewer="operator", verdict="approve"),
                TransitionNode(node_id=mid, to_state="accepted"),
            ]
        ),
    )
    assert [r.op for r in accepted.receipts] == ["review_node", "transition_node"]
    assert _stale(store) == set()
    again = scan_repo(store, ScanRequest(path=shop))
    assert (again.receipts, again.stale_summaries) == (0, [])
    with store.reader() as reader:
        assert reader.get_nodes([mid])[mid].lifecycle == "accepted"
    apply_patch(store, new_patch([TransitionNode(node_id=mid, to_state="retired")]))
    assert _stale(store) == covering


def test_the_scanners_own_records_are_not_offered_for_review_and_never_block_a_scan(
    shop: Path,
) -> None:
    """`review list` offered the repo node (the manifest) and the history node;
    accepting them made every later scan fail ("illegal lifecycle transition
    accepted -> observed"). Now they are not listed, `review` refuses them, and a
    store where they were accepted before still rescans."""
    store = MemoryStore()
    _git(shop, "init", "-q")
    _git(shop, "add", "-A")
    _git(shop, "commit", "-qm", "first")
    scan_repo(store, ScanRequest(path=shop))
    records = [repo_node_id("shop"), history_node_id("shop")]
    pending = {p.id for p in list_pending(store, domain_id="repo:shop", limit=10_000)}
    assert pending and not pending & set(records)
    for rid in records:
        with pytest.raises(UsageError, match="scanner's own"):
            review(store, rid, True)
    # as an older memgraph let a reviewer do: both accepted
    ops = [
        op
        for rid in records
        for op in (
            ReviewNode(node_id=rid, reviewer="operator", verdict="approve"),
            TransitionNode(node_id=rid, to_state="accepted"),
        )
    ]
    apply_patch(store, new_patch(ops))
    (shop / "shop" / "orders.py").write_text('"""Orders, changed."""\n')
    _git(shop, "commit", "-qam", "second")
    again = scan_repo(store, ScanRequest(path=shop))
    assert again.changed == ["shop/orders.py"] and again.receipts > 0
    with store.reader() as reader:
        history = reader.get_nodes([history_node_id("shop")])[history_node_id("shop")]
    assert history.attributes["head"] == _git(shop, "rev-parse", "HEAD")


def test_a_repo_record_rejected_by_an_older_memgraph_is_observed_again_not_replaced(
    shop: Path,
) -> None:
    """An older `review reject` retired the repo node; the next scan of the same folder
    took the key as taken and started a second repo `shop-<hash>` beside it. Now the
    folder's own retired record is scanned again under its key."""
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop))
    rid = repo_node_id("shop")
    apply_patch(store, new_patch([TransitionNode(node_id=rid, to_state="retired")]))
    again = scan_repo(store, ScanRequest(path=shop))
    assert again.repo == "shop"
    with store.reader() as reader:
        assert reader.get_nodes([rid])[rid].lifecycle == "observed"
    repos = [n.id for n in store.iter_nodes(profile="repo_architecture", kind="repo")]
    assert repos == [rid]
