"""``memgraph.doctor_store.check_server_collections``: with a Qdrant server
configured (``qdrant_url``), doctor asks it for its collections and lists those
named before each store had its own, with the HTTP call deleting each; a server
not reached is a warning, never a failure. The server here is qdrant-client's
local mode behind ``VectorIndex.open`` (the same client calls a server answers)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_cut.embedders import HashEmbedder
from context_cut.vector_index import VectorIndex
from context_cut.vector_projection import collection_name, qdrant_collection
from memgraph.cli.app import app
from memgraph.home_dirs import StoreAt

runner = CliRunner()


def _qdrant_checks() -> list[dict[str, Any]]:
    out = runner.invoke(app, ["doctor", "--json"])
    assert out.exit_code in (0, 1), out.output
    return [c for c in json.loads(out.stdout)["checks"] if c["name"] == "qdrant"]


def test_doctor_lists_a_servers_collections_from_before_and_only_those(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("qdrant_client")
    emb = HashEmbedder(64)
    shared = collection_name(emb.name, 64, "voice")
    own = qdrant_collection(emb.name, 64, "voice", store=StoreAt(str(tmp_path / "a.db")))
    server = VectorIndex.open(path=tmp_path / "server", engine="qdrant-client")
    for name in (shared, own, "mg_voice_but not ours; rm -rf ~"):
        server.ensure_collection(name, 64)
    server.close()
    asked: list[str | None] = []
    real = VectorIndex.open

    def served(cls: type[VectorIndex], **kw: Any) -> VectorIndex:
        asked.append(kw.get("url"))
        return real(path=tmp_path / "server", engine="qdrant-client")

    monkeypatch.setattr(VectorIndex, "open", classmethod(served))
    monkeypatch.setenv("MEMGRAPH_QDRANT_URL", "http://me:key@qdrant.example:6333/?x=1")
    (check,) = _qdrant_checks()
    assert asked == ["http://me:key@qdrant.example:6333/?x=1"]
    assert check["status"] == "warn" and shared in check["detail"]
    assert own not in check["detail"] and "rm -rf" not in check["detail"]
    assert "key" not in check["detail"] + check["fix"]
    assert shlex.split(check["fix"]) == [
        "curl", "-X", "DELETE", f"http://qdrant.example:6333/collections/{shared}"
    ]  # fmt: skip


def test_a_server_not_reached_is_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("qdrant_client")
    monkeypatch.setenv("MEMGRAPH_QDRANT_URL", "http://127.0.0.1:9")  # nothing listens
    (check,) = _qdrant_checks()
    assert check["status"] == "warn" and "not reached" in check["detail"]
