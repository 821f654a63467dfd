"""scan_repo on a small generated repo: nodes, edges, anchors, summaries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memgraph.store import open_store
from memgraph.store.memory import MemoryStore
from memgraph.validation import validate_snapshot
from profiles.repo_scan.graph import module_id
from profiles.repo_scan.scan import ScanRequest, scan_repo


def test_scan_writes_the_architecture_and_dataflow(shop: Path, kit: Any) -> None:
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=shop))
    assert result.repo == "shop" and result.git is False
    assert result.files == 13 and result.not_source == 1  # README.md is counted, not read
    assert result.unparsed == [] and result.ledger == []
    find = kit.by_title(store, "shop")
    orders = find("module", "shop/orders.py")
    assert orders.lifecycle == "observed"
    assert "create_order" in orders.claim and "Orders: create" in orders.claim
    assert "TODO" in orders.tension
    anchor = orders.anchors[0]
    assert anchor.ref == "shop/orders.py" and anchor.label == "shop/orders.py:1-16"
    assert anchor.content_hash == orders.source_hashes[0] and len(anchor.content_hash) == 64
    assert find("package", "package shop").anchors[0].ref == "shop/__init__.py"
    assert find("binary", "binary shop -> shop.cli:main").anchors[0].label == "pyproject.toml:6"
    assert find("schema", "schema Charge").anchors[0].label == "shop/payments.py:7-8"
    assert find("schema", "schema Report").attributes["schema"] == "Report"
    assert find("schema", "schema Receipt").attributes["path"] == "native/src/main.rs"
    assert find("runtime_contract", "env SHOP_DB").anchors[0].line == 13
    assert find("runtime_contract", "command order").anchors[0].ref == "shop/cli.py"
    assert find("runtime_contract", "env WEB_TOKEN").attributes["path"] == "web/app.ts"
    assert find("runtime_contract", "env GO_MODE").attributes["path"] == "go/main.go"
    assert find("store", "store sqlite: shop/orders.py").profile.value == "repo_dataflow"
    assert find("output", "output http: shop/payments.py").anchors[0].line == 12
    assert find("output", "output file: shop/report.py")
    seam = find("test_seam", "tests tests/test_orders.py")
    assert seam.attributes["targets"] == ["shop/orders.py"]
    assert find("binary", "binary native -> src/bin/native.rs")
    snap = store.export_snapshot()
    assert validate_snapshot(snap) == []
    edges = {(e.kind, e.source_id, e.target_id) for e in snap.edges}
    mid = lambda p: module_id("shop", p)  # noqa: E731
    assert ("imports", mid("shop/orders.py"), mid("shop/payments.py")) in edges
    assert ("imports", mid("shop/cli.py"), mid("shop/orders.py")) in edges
    assert ("imports", mid("native/src/main.rs"), mid("native/src/util.rs")) in edges
    assert ("imports", mid("web/app.ts"), mid("web/api.ts")) in edges
    assert ("tests", seam.id, mid("shop/orders.py")) in edges
    kinds = {e.kind for e in snap.edges}
    assert {"imports", "defines", "tests", "contains", "reads", "writes", "persists"} <= kinds
    assert "derives" in kinds and "depends_on" in kinds
    for e in snap.edges:  # every edge is anchored at a code location
        assert e.anchors and e.anchors[0].line is not None
    assert snap.summaries
    targets = {s.target for s in snap.summaries}
    assert "package shop (5 files)" in targets
    package = next(s for s in snap.summaries if s.target == "package shop (5 files)")
    assert "untested" in package.tension or "no test imports" in package.tension
    assert "TODO" in package.tension
    top = next(s for s in snap.summaries if s.covers_summary_ids)
    assert set(top.covers_summary_ids) == {s.id for s in snap.summaries if s.id != top.id}


def test_every_scanned_node_is_anchored_and_observed(shop: Path, kit: Any) -> None:
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop))
    for n in kit.live_nodes(store, "shop").values():
        assert n.lifecycle == "observed"
        if n.kind == "repo":
            continue
        assert n.source_hashes and n.anchors
        a = n.anchors[0]
        assert a.ref and a.line and a.content_hash == n.source_hashes[0] and a.label


def test_rescan_without_change_writes_nothing(shop: Path, tmp_path: Path) -> None:
    store = open_store(tmp_path / "g.db")
    first = scan_repo(store, ScanRequest(path=shop))
    assert first.receipts > 50
    before = store.counts()
    again = scan_repo(store, ScanRequest(path=shop))
    assert again.receipts == 0 and again.parsed_now == [] and again.rebuilt == []
    assert store.counts() == before
    store.close()


def test_scan_is_deterministic(shop: Path, kit: Any) -> None:
    a, b = MemoryStore(), MemoryStore()
    scan_repo(a, ScanRequest(path=shop))
    scan_repo(b, ScanRequest(path=shop))
    na, nb = kit.live_nodes(a, "shop"), kit.live_nodes(b, "shop")
    assert na.keys() == nb.keys()
    for nid, n in na.items():
        assert n.model_dump(exclude={"created_at", "updated_at", "ingested_at"}) == nb[
            nid
        ].model_dump(exclude={"created_at", "updated_at", "ingested_at"})
    assert {s.id for s in a.export_snapshot().summaries} == {
        s.id for s in b.export_snapshot().summaries
    }


def test_without_tree_sitter_files_still_get_module_nodes(
    shop: Path, kit: Any, monkeypatch: Any
) -> None:
    import profiles.repo_scan.other as other

    monkeypatch.setattr(other, "_parser", lambda lang: None)
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=shop))
    assert result.unparsed == [
        "go/main.go",
        "native/src/main.rs",
        "native/src/util.rs",
        "web/api.ts",
        "web/app.ts",
    ]
    assert any("not parsed" in n for n in result.notices)
    find = kit.by_title(store, "shop")
    rust = find("module", "native/src/main.rs")
    assert rust.attributes["parsed"] is False and "tree-sitter" in rust.claim
    assert all(line.path in result.unparsed for line in result.ledger)
    snap = store.export_snapshot()
    repo_summary = next(s for s in snap.summaries if s.covers_summary_ids)
    assert any("native/src/main.rs" in o for o in repo_summary.known_omissions)


def test_two_folders_of_the_same_name_get_their_own_repo(tmp_path: Path, kit: Any) -> None:
    a = kit.write_repo(tmp_path / "one" / "shop")
    b = kit.write_repo(tmp_path / "two" / "shop")
    store = MemoryStore()
    first = scan_repo(store, ScanRequest(path=a))
    second = scan_repo(store, ScanRequest(path=b))
    assert first.repo == "shop" and second.repo.startswith("shop-")
    assert second.added == first.added and second.deleted == []
    assert scan_repo(store, ScanRequest(path=b)).repo == second.repo  # found again by root


def test_env_reads_through_a_prefix_and_field_list_or_an_env_mapping() -> None:
    from profiles.repo_scan.facts import FileFacts
    from profiles.repo_scan.python import parse_python

    text = (
        'FIELDS = (\n    "home",\n    "mode",\n)\nENV_PREFIX = "APP_"\n\n\n'
        "def run(env: dict[str, str]) -> str:\n"
        '    return env.get("APP_TOKEN") or env["APP_USER"]  # APP_NOT_A_READ\n'
    )
    facts = FileFacts(path="app/config.py", lang="python", digest="d", sha=None)
    parse_python(facts.path, text, facts)
    assert facts.env == [["APP_HOME", 2], ["APP_MODE", 3], ["APP_TOKEN", 9], ["APP_USER", 9]]
