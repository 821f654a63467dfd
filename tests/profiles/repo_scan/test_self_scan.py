"""Scan of this project itself (a copy of its tracked files, so edits stay in tmp)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memgraph.snapshot import validate_path
from memgraph.store import open_store
from profiles.repo_scan.graph import module_id, repo_node_id
from profiles.repo_scan.scan import ScanRequest, scan_repo

PROJECT = Path(__file__).resolve().parents[3]


def _copy_project(dest: Path) -> Path:
    proc = subprocess.run(
        ["git", "-C", str(PROJECT), "ls-files", "-z"], capture_output=True, check=False
    )
    if proc.returncode != 0:
        pytest.skip("the project is not a git checkout here (git ls-files failed)")
    for name in proc.stdout.decode().split("\0"):
        src = PROJECT / name
        if name and src.is_file() and not src.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest / name)
    return dest


@pytest.mark.slow
def test_scan_of_this_project(tmp_path: Path, kit: Any) -> None:
    root = _copy_project(tmp_path / "memgraph")
    db = tmp_path / "g.db"
    store = open_store(db)
    first = scan_repo(store, ScanRequest(path=root))
    assert first.repo == "memgraph" and first.unparsed == [] and first.ledger == []
    find = kit.by_title(store, "memgraph")
    for package in ("memgraph", "memgraph.cli", "profiles", "context_cut", "profiles.repo_scan"):
        node = find("package", f"package {package}")
        assert node.anchors[0].ref.endswith("__init__.py")
    engine = find("module", "memgraph/engine.py")
    assert "apply_patch" in engine.claim and engine.anchors[0].content_hash
    seam = find("test_seam", "tests tests/memgraph/test_ids.py")
    assert "memgraph/ids.py" in seam.attributes["targets"]
    script = find("binary", "binary memgraph -> memgraph.cli:main")
    assert script.anchors[0].ref == "pyproject.toml" and script.anchors[0].line
    for schema in ("MemoryNode", "MemoryPatchCandidate", "Settings", "ScanRequest"):
        anchor = find("schema", f"schema {schema}").anchors[0]
        assert anchor.label.startswith(f"{anchor.ref}:{anchor.line}")
        defined = (root / anchor.ref).read_text().splitlines()[anchor.line - 1]
        assert defined.startswith((f"class {schema}(", f"class {schema}:"))
    nodes = kit.live_nodes(store, "memgraph").values()
    contracts = {(n.title, n.anchors[0].ref) for n in nodes if n.kind == "runtime_contract"}
    assert ("env MEMGRAPH_HOME", "memgraph/config.py") in contracts
    assert ("command scan", "memgraph/cli/repo.py") in contracts
    assert ("command context", "memgraph/cli/context.py") in contracts
    store.close()
    assert validate_path(db) == []
    # rescan with no change writes nothing
    store = open_store(db)
    before = store.counts()
    assert scan_repo(store, ScanRequest(path=root)).receipts == 0
    assert store.counts() == before
    # edit one file: only its nodes are revised, exactly the covering summaries go stale
    target = root / "memgraph" / "hashing.py"
    target.write_text(target.read_text() + "\n# an edit\n")
    result = scan_repo(store, ScanRequest(path=root))
    assert result.changed == ["memgraph/hashing.py"] and result.rebuilt == ["memgraph/hashing.py"]
    receipts = store.receipts()
    last = receipts[-1].patch_id
    written = {r.target_id for r in receipts if r.patch_id == last and r.target_type == "node"}
    mid = module_id("memgraph", "memgraph/hashing.py")
    with store.reader() as reader:
        module = reader.get_nodes([mid])[mid]
    assert written - {repo_node_id("memgraph")} <= {mid, *module.attributes["owned_nodes"]}
    snap = store.export_snapshot()
    covering = {s.id for s in snap.summaries if mid in s.covers_node_ids}
    parents = {s.id for s in snap.summaries if covering & set(s.covers_summary_ids)}
    stale = {s.id for s in snap.summaries if s.freshness.state.value == "stale"}
    assert len(covering) >= 2  # its package and its import community
    assert stale == covering | parents
    store.close()
    assert validate_path(db) == []
