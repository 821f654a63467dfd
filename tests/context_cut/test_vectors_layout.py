"""The Edge shard layout: new shards are WAL-less (flushed after every write, one
process per shard through a lock file); shards made by the older layout (with a
write-ahead log) still open, and both answer the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from context_cut.vector_backends import FILTER_FIELDS, VectorPoint, VectorQuery
from context_cut.vector_edge import EdgeBackend
from memgraph.errors import BackendUnavailable

qdrant_edge = pytest.importorskip("qdrant_edge", reason="qdrant-edge-py (the qdrant extra) missing")

DIM = 8
PROFILES = ("voice", "short_term", "repo_architecture")


def _points(n: int = 60) -> list[VectorPoint]:
    import random

    rnd = random.Random(5)
    return [
        VectorPoint(
            f"n-{i + 1:016x}" if i % 7 else f"custom:{i}",  # stable and hashed ids both
            [rnd.uniform(-1, 1) for _ in range(DIM)],
            "node",
            PROFILES[i % 3],
        )
        for i in range(n)
    ]


def _old_layout(root: Path, collection: str) -> None:
    """A shard exactly as the previous EdgeBackend made it: default config (with a
    WAL), keyword indexes, a record holding only the dimension."""
    q = qdrant_edge
    root.mkdir(parents=True, exist_ok=True)
    config = q.EdgeConfig(vectors=q.EdgeVectorParams(size=DIM, distance=q.Distance.Cosine))
    shard = q.EdgeShard.create(str(root / collection), config)
    for name in FILTER_FIELDS:
        shard.update(q.UpdateOperation.create_field_index(name, q.PayloadSchemaType.Keyword))
    shard.close()
    (root / f"{collection}.json").write_text(json.dumps({"dimension": DIM}) + "\n")


def _answers(backend: EdgeBackend, collection: str) -> list[object]:
    import random

    rnd = random.Random(9)
    out: list[object] = []
    for i in range(12):
        vector = [rnd.uniform(-1, 1) for _ in range(DIM)]
        where = {"profile": [PROFILES[i % 3]]} if i % 2 else {}
        hits, bad = backend.query(collection, VectorQuery(vector, 10, where))
        out.append(([(d, round(s, 5)) for d, s in hits], bad))
    return out


def test_new_shards_are_wal_less_and_answer_as_old_ones(tmp_path: Path) -> None:
    points = _points()
    new = EdgeBackend.open(tmp_path / "new")
    new.ensure_collection("mg_voice_t_8", DIM)
    new.upsert("mg_voice_t_8", points)
    record = json.loads((tmp_path / "new" / "mg_voice_t_8.json").read_text())
    assert record == {"dimension": DIM, "wal": False, "layout": 2}
    assert not (tmp_path / "new" / "mg_voice_t_8" / "wal").exists()
    edge = json.loads((tmp_path / "new" / "mg_voice_t_8" / "edge_config.json").read_text())
    assert (edge["wal_enabled"], edge["max_search_threads"]) == (False, 1)
    indexes = {
        p.name.split("-")[1]
        for p in (tmp_path / "new" / "mg_voice_t_8").glob("segments/*/payload_index/*-*")
    }
    assert indexes == {"profile"}  # `doc` is stored, never filtered on: not indexed

    _old_layout(tmp_path / "old", "mg_voice_t_8")
    old = EdgeBackend.open(tmp_path / "old")
    assert old.dimension_of("mg_voice_t_8") == DIM
    old.upsert("mg_voice_t_8", points)
    assert (tmp_path / "old" / "mg_voice_t_8" / "wal").is_dir()  # still logged

    answers = _answers(new, "mg_voice_t_8")
    assert answers == _answers(old, "mg_voice_t_8")
    # hashed ids (no payload read with the hits) are vouched for by their payload
    assert all(bad == 0 for _, bad in answers)  # type: ignore[misc]
    assert any(d.startswith("custom:") for hits, _ in answers for d, _ in hits)  # type: ignore[misc, attr-defined]
    assert new.count("mg_voice_t_8") == old.count("mg_voice_t_8") == len(points)
    new.close()
    old.close()
    # both reopen (the old one replays its log) and still agree
    again_new, again_old = EdgeBackend.open(tmp_path / "new"), EdgeBackend.open(tmp_path / "old")
    assert _answers(again_new, "mg_voice_t_8") == _answers(again_old, "mg_voice_t_8")
    again_new.delete("mg_voice_t_8", [points[0].doc_id])
    again_old.delete("mg_voice_t_8", [points[0].doc_id])
    assert again_new.count("mg_voice_t_8") == again_old.count("mg_voice_t_8") == len(points) - 1
    again_new.close()
    again_old.close()


CHILD = textwrap.dedent(
    """
    import os, sys
    from context_cut.vector_backends import VectorPoint
    from context_cut.vector_edge import EdgeBackend
    from pathlib import Path
    b = EdgeBackend.open(Path(sys.argv[1]))
    b.ensure_collection("mg_voice_t_8", 8)
    b.upsert("mg_voice_t_8", [VectorPoint(f"n-{i + 1:016x}", [1.0] * 8) for i in range(25)])
    os._exit(0)  # no close, no flush: as if killed right after the write returned
    """
)


def test_a_returned_write_survives_the_process_dying(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], check=True, env=env)
    backend = EdgeBackend.open(tmp_path)
    assert backend.count("mg_voice_t_8") == 25
    backend.close()


def test_one_process_per_shard(tmp_path: Path) -> None:
    first = EdgeBackend.open(tmp_path)
    first.ensure_collection("mg_voice_t_8", DIM)
    first.upsert("mg_voice_t_8", _points(5))
    second = EdgeBackend.open(tmp_path)
    with pytest.raises(BackendUnavailable, match="held by another process"):
        second.count("mg_voice_t_8")
    first.close()  # releases the lock
    assert second.count("mg_voice_t_8") == 5
    second.drop("mg_voice_t_8")
    assert second.dimension_of("mg_voice_t_8") is None
    third = EdgeBackend.open(tmp_path)  # a dropped shard holds no lock either
    third.ensure_collection("mg_voice_t_8", DIM)
    assert third.count("mg_voice_t_8") == 0
    third.close()
    second.close()


def test_sync_rewrites_an_old_shard_without_re_embedding(
    graph: object, mk: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from context_cut.embedders import HashEmbedder
    from context_cut.vector_index import VectorIndex
    from context_cut.vector_projection import qdrant_collection
    from context_cut.vector_sync import sync_index
    from context_cut.vectors import VectorNerve

    g, m = graph, mk
    g.nodes(  # type: ignore[attr-defined]
        *(
            m.node("voice", f"m{i}", f"we said {w} about it", kind="message")  # type: ignore[attr-defined]
            for i, w in enumerate(["the cache", "a gateway", "retries", "cache tokens", "deploys"])
        )
    )
    store = g.store  # type: ignore[attr-defined]
    emb = HashEmbedder(DIM)
    voice = qdrant_collection(emb.name, DIM, "voice", store=store)
    root = tmp_path / "q"
    _old_layout(root, voice)
    index = VectorIndex.open(path=root, engine="edge")
    with monkeypatch.context() as patched:  # filled as the previous code did
        patched.setattr(EdgeBackend, "relayout", lambda self, collection: False)
        assert sync_index(store, index, emb).embedded == 5
    before = VectorNerve(index, emb).search(store, "cache tokens", 5, ["voice"])
    assert before
    index.close()
    assert (root / voice / "wal").is_dir()
    assert json.loads((root / f"{voice}.json").read_text()) == {"dimension": DIM}
    index = VectorIndex.open(path=root, engine="edge")
    second = sync_index(store, index, emb)
    assert second.relaid == [voice] and second.embedded == 0 and second.unchanged == 5
    assert "WAL-less layout" in second.line()
    assert not (root / voice / "wal").exists()
    record = json.loads((root / f"{voice}.json").read_text())
    assert record == {"dimension": DIM, "wal": False, "layout": 2}
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".")) == [f".{voice}.lock"]
    assert VectorNerve(index, emb).search(store, "cache tokens", 5, ["voice"]) == before
    assert sync_index(store, index, emb).relaid == []  # once
    index.close()


def test_a_hashed_hit_whose_payload_does_not_vouch_for_it_is_rejected(tmp_path: Path) -> None:
    from context_cut.vector_backends import point_id

    backend = EdgeBackend.open(tmp_path)
    backend.ensure_collection("mg_voice_t_8", DIM)
    backend.upsert(
        "mg_voice_t_8",
        [VectorPoint("custom:a", [1.0] * DIM), VectorPoint("n-0000000000000001", [1.0] * DIM)],
    )
    hits, bad = backend.query("mg_voice_t_8", VectorQuery([1.0] * DIM, 5))
    assert (sorted(d for d, _ in hits), bad) == (["custom:a", "n-0000000000000001"], 0)
    forged = qdrant_edge.UpdateOperation.overwrite_payload(
        [point_id("custom:a")], {"node_id": "custom:b", "doc": "node", "profile": ""}
    )
    backend._shard("mg_voice_t_8").update(forged)
    hits, bad = backend.query("mg_voice_t_8", VectorQuery([1.0] * DIM, 5))
    assert ([d for d, _ in hits], bad) == (["n-0000000000000001"], 1)
    backend.close()
