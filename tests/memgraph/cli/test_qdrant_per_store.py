"""A home from before each store had its own Qdrant collections: the shared ones
(``mg_<partition>_<model>_<dim>``, no store tag) are left where they are (every
store of the home wrote to them, so none can claim them), ``memgraph doctor`` says
they are there and how to remove them, and ``memgraph index`` fills the store's
own collection beside them."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_cut.embedders import HashEmbedder
from context_cut.vector_index import VectorIndex
from context_cut.vector_projection import collection_name, qdrant_collection
from memgraph.cli.app import app
from memgraph.documents import UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.store import open_store
from tests.memgraph.cli.test_context_cli import _node

runner = CliRunner()
SAID = "we should cache the tokens for longer"


def _qdrant_checks() -> list[dict[str, Any]]:
    out = runner.invoke(app, ["doctor", "--json"])
    return [c for c in json.loads(out.output)["checks"] if c["name"] == "qdrant"]


@pytest.mark.parametrize("engine", ["edge", "qdrant-client"])
def test_doctor_reports_the_shared_collections_from_before_and_index_rebuilds_beside(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    home = isolated_env / "mg-home"
    db = isolated_env / "a.db"
    store = open_store(db)
    node = _node("voice", "message", SAID, "captured", session_id="s1", project="alpha")
    apply_patch(store, new_patch([UpsertNode(node=node)]))
    store.close()
    monkeypatch.setenv("MEMGRAPH_STORE", str(db))
    monkeypatch.setenv("MEMGRAPH_EMBEDDER", "hash")
    monkeypatch.setenv("MEMGRAPH_QDRANT_ENGINE", engine)
    emb = HashEmbedder(256)
    shared = collection_name(emb.name, 256, "voice")  # as every store of the home wrote it
    index = VectorIndex.open(path=home / "qdrant", engine=engine)
    index.ensure_collection(shared, 256)
    index.upsert(shared, [node.id], emb.embed([SAID]))
    index.close()

    (check,) = _qdrant_checks()
    assert check["status"] == "warn" and shared in check["detail"], check
    assert "no store reads" in check["detail"] and "memgraph index" in check["detail"]
    fix = check["fix"]
    assert fix

    done = runner.invoke(app, ["index", "--json"])
    assert done.exit_code == 0, done.output
    own = qdrant_collection(emb.name, 256, "voice", store=store)  # (closed: its id stays)
    report = json.loads(done.stdout)
    assert report["collections"] == [own] and report["embedded"] == 1
    assert report["manifests"] == 1  # the store was never indexed: its first manifest
    index = VectorIndex.open(path=home / "qdrant", engine=engine)
    assert index.count(shared) == 1 and index.count(own) == 1  # the old one is left
    index.close()
    assert [c["status"] for c in _qdrant_checks()] == ["warn"]

    argv = shlex.split(fix)  # one command, every path in it absolute
    assert all(Path(a).is_absolute() for a in argv[3:]) if argv[0] == "rm" else len(argv) == 3
    if argv[0] == "python3":
        argv[0] = sys.executable
    subprocess.run(argv, check=True, capture_output=True, timeout=120, cwd=isolated_env)
    assert _qdrant_checks() == []
    index = VectorIndex.open(path=home / "qdrant", engine=engine)
    assert index.backend.collections() == [own]
    index.close()
    hit = runner.invoke(app, ["recall", "cache tokens", "--json"])
    assert hit.exit_code == 0, hit.output
    row = json.loads(hit.stdout.splitlines()[0])
    assert row["project"] == "alpha" and row["vector_rank"] == 1  # from the store's own
