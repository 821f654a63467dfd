"""A store marked for plain reads (``use_plain``: how ``memgraph repo scan``
opens it, so a rescan that writes nothing never loads pydantic) scans exactly
as a documents store: the scan switches it back to documents before it
builds ops from stored nodes and before the engine validates its patch."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents.plain import Plain
from memgraph.store import open_store
from memgraph.store.decode import use_plain
from memgraph.store.protocol import Store
from profiles.repo_scan.scan import ScanRequest, scan_repo

VOLATILE = {"created_at", "updated_at", "ingested_at"}


def _commit(root: Path, message: str) -> None:
    for args in (["add", "-A"], ["commit", "-qm", message]):
        subprocess.run(
            ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
            check=True,
            capture_output=True,
        )


def _open(backend: str, tmp_path: Path, name: str, request: pytest.FixtureRequest) -> Store:
    if backend == "sqlite":
        return open_store(tmp_path / f"{name}.db")
    from memgraph.store.postgres import open_postgres

    return open_postgres(str(request.getfixturevalue("pg_server").create_database()))


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_plain_marked_store_scans_like_a_documents_store(
    backend: str, shop: Path, tmp_path: Path, request: pytest.FixtureRequest, kit: Any
) -> None:
    subprocess.run(["git", "-C", str(shop), "init", "-q"], check=True)
    _commit(shop, "first")
    docs = _open(backend, tmp_path, "docs", request)
    plain = _open(backend, tmp_path, "plain", request)

    def both() -> tuple[Any, Any]:
        use_plain(plain)  # each scan as a new `memgraph repo scan` process does
        return scan_repo(docs, ScanRequest(path=shop)), scan_repo(plain, ScanRequest(path=shop))

    first = both()
    assert first[0].receipts == first[1].receipts > 50
    again = both()
    assert again[0].receipts == again[1].receipts == 0
    assert isinstance(next(plain.iter_nodes()), Plain)  # nothing written: still plain
    (shop / "README.md").write_text("# shop, again\n")
    _commit(shop, "readme")  # HEAD moved, no source changed: the history node only
    moved = both()
    assert moved[0].rebuilt == moved[1].rebuilt == []
    assert moved[0].receipts == moved[1].receipts > 0
    orders = shop / "shop" / "orders.py"
    orders.write_text(orders.read_text().replace("return 1", "return 2"))
    edited = both()
    assert edited[0].rebuilt == edited[1].rebuilt == ["shop/orders.py"]
    assert edited[0].receipts == edited[1].receipts > 0
    (shop / "shop" / "report.py").unlink()
    gone = both()
    assert gone[0].deleted == gone[1].deleted == ["shop/report.py"]
    assert gone[0].receipts == gone[1].receipts > 0
    assert gone[0].stale_summaries == gone[1].stale_summaries != []
    _commit(shop, "edit and delete")
    last = both()  # HEAD moved again: the history node
    assert last[0].receipts == last[1].receipts > 0
    a, b = kit.live_nodes(docs, "shop"), kit.live_nodes(plain, "shop")
    assert a.keys() == b.keys()
    for nid, n in a.items():
        assert n.model_dump(exclude=VOLATILE) == b[nid].model_dump(exclude=VOLATILE)
    docs.close()
    plain.close()
