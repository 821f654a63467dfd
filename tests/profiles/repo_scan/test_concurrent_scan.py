"""Scans of one repository running at once (a post-commit hook firing while a person
runs ``memgraph repo scan``, two harnesses' hooks): each process ends with exit 0 or
one line, the store stays valid, and nothing is lost: a scan afterwards finds the
graph already matching the files it sees, so it writes nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memgraph.store import open_store
from tests.process import COMMAND, memgraph


def _scan(repo: Path, db: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*COMMAND, "repo", "scan", str(repo), "--json", "--store", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_scans_at_once_lose_nothing(
    shop: Path, tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    """On PostgreSQL these are the machines of a fleet scanning one repository."""
    db = str(tmp_path / "store.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    assert memgraph("repo", "scan", str(shop), "--store", db).returncode == 0  # puts report.py in
    first = [_scan(shop, db) for _ in range(3)]
    # edit while they run: whichever version a process read, the last scan settles it
    (shop / "shop" / "orders.py").write_text(
        '"""Orders, rewritten."""\n\ndef make() -> int:\n    return 2\n'
    )
    (shop / "shop" / "report.py").unlink()
    second = [_scan(shop, db) for _ in range(2)]
    for proc in first + second:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
        assert isinstance(json.loads(out), dict)  # --json: one JSON line, whatever it did
    settle = _scan(shop, db)
    settle.communicate(timeout=120)
    again = memgraph("repo", "scan", str(shop), "--store", db)
    assert again.returncode == 0, again.stderr
    assert "0 added, 0 changed, 0 deleted" in again.stdout and " 0 receipts" in again.stdout
    check = memgraph("validate", db)
    assert check.returncode == 0, check.stdout + check.stderr
    store = open_store(db)
    try:
        modules = [n for n in store.iter_nodes(profile="repo_architecture") if n.kind == "module"]
    finally:
        store.close()
    live = {n.title for n in modules if n.lifecycle != "retired"}
    assert "shop/orders.py" in live and "shop/report.py" not in live
    assert "shop/report.py" in {n.title for n in modules}  # retired, its history kept
