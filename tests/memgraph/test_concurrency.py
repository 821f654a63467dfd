"""Eight processes apply patches to one store (a SQLite file, a PostgreSQL
database) at the same time: no lost receipts, exact counts, and no "database
is locked" ever reaches a caller."""

from __future__ import annotations

import multiprocessing
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memgraph import ops
from memgraph.documents import MemoryNode, ProfileName
from memgraph.store import open_store
from memgraph.validation import validate_snapshot

WORKERS = 8
PATCHES = 25
HUB = "n-hub"

# Written to a file so spawned children can import it by name (they inherit
# sys.path from the parent, not pytest's importlib-mode test modules).
WORKER_SOURCE = textwrap.dedent(
    """
    from datetime import UTC, datetime

    def worker(path, wid, patches, barrier, results):
        errors, receipt_ids, patch_ids = [], [], []
        try:
            from memgraph.documents import (
                MemoryEdge, MemoryNode, NodeRevision, ReviseNode, UpsertEdge, UpsertNode,
            )
            from memgraph.engine import apply_patch, new_patch
            from memgraph.ids import edge_id, node_id
            from memgraph.store import open_store

            store = open_store(path)
            barrier.wait(timeout=120)  # everyone starts writing at once
            for i in range(patches):
                now = datetime.now(UTC)
                a = MemoryNode(id=node_id("incubation", "idea", str(wid), str(i), "a"),
                               domain_id=f"w{wid}", profile="incubation", kind="idea",
                               claim=f"worker {wid} patch {i}", lifecycle="active",
                               created_at=now, updated_at=now)
                b = a.model_copy(update={"id": node_id("incubation", "idea", str(wid), str(i), "b")})
                e = MemoryEdge(id=edge_id("relates_to", a.id, "n-hub"), source_id=a.id,
                               target_id="n-hub", kind="relates_to", profile="incubation",
                               lifecycle="active")
                patch = new_patch([
                    UpsertNode(node=a), UpsertNode(node=b), UpsertEdge(edge=e),
                    ReviseNode(node_id="n-hub", changes=NodeRevision(claim=f"hub {wid}/{i}")),
                ], proposer=f"worker-{wid}")
                result = apply_patch(store, patch)
                patch_ids.append(patch.id)
                receipt_ids.extend(r.id for r in result.receipts)
            store.close()
        except BaseException as exc:  # report everything: the test asserts none
            errors.append(f"{type(exc).__name__}: {exc}")
        results.put((wid, errors, receipt_ids, patch_ids))
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_eight_processes_apply_patches_concurrently(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    path: Any = tmp_path / "shared.db" if backend == "sqlite" else request.getfixturevalue("pg_url")
    now = datetime.now(UTC)
    store = open_store(path)
    with store:
        hub = MemoryNode(
            id=HUB,
            domain_id="shared",
            profile=ProfileName.incubation,
            kind="idea",
            claim="the hub",
            lifecycle="active",
            created_at=now,
            updated_at=now,
        )
        ops.upsert_node(store, hub)

    (tmp_path / "mg_conc_worker.py").write_text(WORKER_SOURCE)
    sys.path.insert(0, str(tmp_path))
    try:
        import mg_conc_worker  # type: ignore[import-not-found]

        ctx = multiprocessing.get_context("spawn")
        barrier = ctx.Barrier(WORKERS)
        results = ctx.Queue()
        procs = [
            ctx.Process(
                target=mg_conc_worker.worker, args=(str(path), w, PATCHES, barrier, results)
            )
            for w in range(WORKERS)
        ]
        for p in procs:
            p.start()
        got = [results.get(timeout=600) for _ in procs]
        for p in procs:
            p.join(timeout=60)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("mg_conc_worker", None)

    errors = [e for _w, errs, _r, _p in got for e in errs]
    assert errors == []  # in particular no StoreBusy / "database is locked"
    assert all(p.exitcode == 0 for p in procs)
    receipt_ids = [r for _w, _e, rids, _p in got for r in rids]
    patch_ids = [p for _w, _e, _r, pids in got for p in pids]
    assert len(receipt_ids) == WORKERS * PATCHES * 4 and len(set(receipt_ids)) == len(receipt_ids)

    store = open_store(path)
    with store:
        stored = {r.id for r in store.receipts()}
        assert set(receipt_ids) <= stored  # no lost receipts
        assert len(stored) == 1 + len(receipt_ids)  # and nothing extra
        counts = store.counts()
        assert counts["nodes"] == 1 + WORKERS * PATCHES * 2
        assert counts["edges"] == WORKERS * PATCHES
        assert counts["patches"] == 1 + len(patch_ids)
        snap = store.export_snapshot()
        # every concurrent revision of the hub kept the version it replaced
        assert len([h for h in snap.node_history if h.id == HUB]) == WORKERS * PATCHES
        assert validate_snapshot(snap) == []
        if backend == "sqlite":
            assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
