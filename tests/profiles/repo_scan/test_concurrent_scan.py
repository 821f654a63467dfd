"""Scans of one repository running at once (a post-commit hook firing while a person
runs ``memgraph repo scan``, two harnesses' hooks): each process ends with exit 0 or
one line, the store stays valid, and nothing is lost: a scan afterwards finds the
graph already matching the files it sees, so it writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memgraph.store import open_store


def _scan(repo: Path, db: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memgraph.cli",
            "repo",
            "scan",
            str(repo),
            "--json",
            "--store",
            str(db),
        ],
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
    assert _scan(shop, db).wait(timeout=120) == 0  # report.py is in the graph
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
    again = subprocess.run(
        [sys.executable, "-m", "memgraph.cli", "repo", "scan", str(shop), "--store", db],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert "0 added, 0 changed, 0 deleted" in again.stdout and " 0 receipts" in again.stdout
    check = subprocess.run(
        [sys.executable, "-m", "memgraph.cli", "validate", db],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    store = open_store(db)
    try:
        modules = [n for n in store.iter_nodes(profile="repo_architecture") if n.kind == "module"]
    finally:
        store.close()
    live = {n.title for n in modules if n.lifecycle != "retired"}
    assert "shop/orders.py" in live and "shop/report.py" not in live
    assert "shop/report.py" in {n.title for n in modules}  # retired, its history kept
