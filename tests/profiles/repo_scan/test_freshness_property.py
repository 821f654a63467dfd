"""Property: after any sequence of edits, adds and deletes, an incremental
rescan leaves exactly the graph a fresh scan of the same tree would build,
a second rescan writes nothing, and no fresh summary covers a changed node."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgraph.hashing import node_hash
from memgraph.store.memory import MemoryStore
from memgraph.store.protocol import Store
from profiles.repo_scan.scan import ScanRequest, scan_repo

NAMES = [f"pkg/m{i}.py" for i in range(6)]
BODIES = [
    '"""Module {i}: parses things."""\nfrom pkg.m{j} import f{j}\n\n\ndef f{i}() -> int:\n    return {v}\n',
    '"""Module {i} stores rows."""\nimport sqlite3\nimport os\n\n\ndef f{i}() -> None:\n    sqlite3.connect(os.getenv("DB_{v}"))\n',
    "from pydantic import BaseModel\nfrom pkg import m{j}\n\n\nclass Model{i}(BaseModel):\n    x: int = {v}\n\n\ndef f{i}() -> int:\n    return 1\n",
    "def f{i}(:\n  broken {v}\n",
]

op = st.tuples(
    st.sampled_from(["edit", "delete", "add"]),
    st.integers(0, len(NAMES) - 1),
    st.integers(0, len(BODIES) - 1),
    st.integers(0, 99),
)


def _write(root: Path, i: int, body: int, value: int) -> None:
    path = root / NAMES[i]
    path.parent.mkdir(parents=True, exist_ok=True)
    j = (i + 1) % len(NAMES)
    path.write_text(BODIES[body].format(i=i, j=j, v=value))


def _live(store: Store) -> tuple[dict[str, str], set[str]]:
    snap = store.export_snapshot()
    nodes = {
        n.id: node_hash(n)
        for n in snap.nodes
        if n.lifecycle != "retired" and n.kind != "repo" and n.domain_id == "repo:r"
    }
    edges = {e.id for e in snap.edges if e.lifecycle != "retired"}
    return nodes, edges


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(op, min_size=1, max_size=5))
def test_incremental_rescans_match_a_fresh_scan(steps: list[tuple[str, int, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "r"
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "__init__.py").write_text('"""The package."""\n')
        for i in range(4):
            _write(root, i, 0, i)
        store = MemoryStore()
        scan_repo(store, ScanRequest(path=root))
        for kind, i, body, value in steps:
            path = root / NAMES[i]
            if kind == "delete":
                path.unlink(missing_ok=True)
            else:
                _write(root, i, body, value)
            scan_repo(store, ScanRequest(path=root))
            # 1. a second rescan changes nothing
            assert scan_repo(store, ScanRequest(path=root)).receipts == 0
            # 2. the same live graph as a fresh scan of this tree
            fresh = MemoryStore()
            scan_repo(fresh, ScanRequest(path=root))
            assert _live(store) == _live(fresh)
            # 3. modules carry the hash of the file on disk
            snap = store.export_snapshot()
            for n in snap.nodes:
                if n.kind == "module" and n.lifecycle != "retired":
                    data = (root / str(n.attributes["path"])).read_bytes()
                    assert n.source_hashes == [hashlib.sha256(data).hexdigest()]
            # 4. no fresh summary covers a node that changed since it was written
            current = {n.id: node_hash(n) for n in snap.nodes}
            for s in snap.summaries:
                if s.freshness.state.value == "fresh":
                    for nid in s.covers_node_ids:
                        assert s.source_hashes[nid] == current[nid], (s.target, nid)
