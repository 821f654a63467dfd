"""kill -9 in the middle of `sync_index` on Qdrant Edge: the next run resumes.

The child prints one line per embedded batch; the parent kills it after a few
batches, so the kill provably lands mid-run (asserted on the store's manifests),
then resumes in-process and checks the vectors and manifests are complete.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from context_cut.embedders import HashEmbedder
from context_cut.vector_index import VectorIndex
from context_cut.vector_projection import qdrant_collection
from context_cut.vector_sync import index_status, sync_index
from memgraph.documents import UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.store import open_store

pytest.importorskip("qdrant_edge", reason="qdrant-edge-py (the qdrant extra) missing")

N = 300
BATCH = 20

CHILD = textwrap.dedent(
    """
    import sys, time
    from context_cut.embedders import HashEmbedder
    from context_cut.vector_index import VectorIndex
    from context_cut.vector_sync import sync_index
    from memgraph.store import open_store

    class Slow(HashEmbedder):
        def embed(self, texts):
            out = super().embed(texts)
            print("batch", flush=True)
            time.sleep(0.05)
            return out

    store = open_store(sys.argv[1])
    index = VectorIndex.open(path=sys.argv[2], engine="edge")
    sync_index(store, index, Slow(32), batch=int(sys.argv[3]))
    print("done", flush=True)
    """
)


@pytest.mark.slow
def test_kill_9_mid_sync_resumes(tmp_path: Path) -> None:
    from tests.context_cut.conftest import make_node  # type: ignore[import-not-found]

    db, qdir = tmp_path / "mg.db", tmp_path / "q"
    store = open_store(db)
    nodes = [make_node("voice", f"m{i}", f"message number {i}", kind="message") for i in range(N)]
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes], proposer="test"))
    store.close()

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(qdir), str(BATCH)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    for seen, line in enumerate(child.stdout, start=1):
        assert line.strip() == "batch", line
        if seen == 5:
            child.send_signal(signal.SIGKILL)
            break
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL

    store = open_store(db)
    emb = HashEmbedder(32)
    done_before = index_status(store, emb).partitions["voice"]["current"]
    assert 0 < done_before < N  # the kill landed in the middle of the run
    index = VectorIndex.open(path=qdir, engine="edge")
    resumed = sync_index(store, index, emb, batch=BATCH)
    assert resumed.unchanged >= done_before
    assert resumed.embedded + resumed.unchanged == N
    assert resumed.embedded < N  # work done before the kill was kept
    assert index.count(qdrant_collection(emb.name, 32, "voice", store=store)) == N
    assert index_status(store, emb).partitions["voice"] == {
        "documents": N,
        "current": N,
        "stale": 0,
        "missing": 0,
    }
    index.close()
    store.close()
