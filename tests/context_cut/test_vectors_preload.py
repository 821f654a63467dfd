"""Edge shards loaded ahead of use (``preload_edge``, what the lean ``recall`` does)
answer exactly as shards loaded on demand; a preload that fails or is never
claimed changes nothing but its own cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_cut.embedders import HashEmbedder
from context_cut.vector_backends import preload_edge, release_preloads
from context_cut.vectors import VectorIndex, VectorNerve, collection_name, sync_index
from memgraph.cli import recall_fast

pytest.importorskip("qdrant_edge", reason="qdrant-edge-py (the qdrant extra) missing")

EMB = HashEmbedder()  # the CLI's `--embedder hash`
VOICE = collection_name(EMB.name, EMB.dimension, "voice")


@pytest.fixture
def voice_shard(graph: Any, mk: Any, tmp_path: Path) -> Path:
    graph.nodes(
        *(
            mk.node("voice", f"message {i}", f"we talked about {w} again", kind="message")
            for i, w in enumerate(["the cache", "a gateway", "retries", "cache tokens", "deploys"])
        )
    )
    root = tmp_path / "q"
    index = VectorIndex.open(path=root, engine="edge")
    sync_index(graph.store, index, EMB)
    index.close()
    return root


def _search(graph: Any, root: Path) -> list[tuple[str, float]]:
    nerve = VectorNerve(VectorIndex.open(path=root, engine="edge"), EMB)
    try:
        return nerve.search(graph.store, "cache tokens", 5, ["voice"])
    finally:
        nerve.index.close()


def test_a_preloaded_shard_answers_as_a_loaded_one(graph: Any, voice_shard: Path) -> None:
    plain = _search(graph, voice_shard)
    assert plain  # the query has neighbours
    assert preload_edge(voice_shard, [VOICE]) == [VOICE]
    assert _search(graph, voice_shard) == plain
    # claimed and closed with its index: the shard opens again afterwards
    assert _search(graph, voice_shard) == plain


def test_preload_starts_only_existing_shards(voice_shard: Path) -> None:
    assert preload_edge(voice_shard, ["mg_voice_nothing_here_8", "Bad/Name", "../x"]) == []
    assert preload_edge(voice_shard / "missing", [VOICE]) == []


def test_an_unclaimed_preload_releases_its_lock(graph: Any, voice_shard: Path) -> None:
    assert preload_edge(voice_shard, [VOICE]) == [VOICE]
    release_preloads()  # nobody took it: closed, so another opener gets the shard
    assert _search(graph, voice_shard)


def test_a_preload_that_fails_degrades_to_bm25(graph: Any, voice_shard: Path) -> None:
    from context_cut.api import RecallRequest, recall

    holder = VectorIndex.open(path=voice_shard, engine="edge")
    holder.count(VOICE)  # holds the shard (and its WAL lock)
    try:
        assert preload_edge(voice_shard, [VOICE]) == [VOICE]  # will fail: locked
        nerve = VectorNerve(VectorIndex.open(path=voice_shard, engine="edge"), EMB)
        result = recall(graph.store, RecallRequest(text="cache tokens"), nerve)
        assert result.hits  # BM25 still answers
        (notice,) = [n for n in result.notices if "BM25 only" in n]
        assert "qdrant at" in notice and "load failed" in notice and "\n" not in notice
        nerve.index.close()
    finally:
        holder.close()
        release_preloads()


def test_recall_preloads_the_shard_its_embedder_reads(voice_shard: Path) -> None:
    try:
        got = recall_fast.preload({"embedder": "hash", "qdrant_path": voice_shard})
        assert got == [VOICE]
    finally:
        release_preloads()
    minilm = recall_fast.preload({"embedder": "minilm", "qdrant_path": voice_shard})
    assert minilm == []  # no MiniLM shard there
    for parsed in (
        {"embedder": "none", "qdrant_path": voice_shard},
        {"embedder": "ollama", "qdrant_path": voice_shard},  # width unknown until loaded
        {"embedder": "hash", "qdrant_path": voice_shard, "qdrant_url": "http://127.0.0.1:9"},
    ):
        assert recall_fast.preload(parsed) == [], parsed


def test_recall_preload_follows_the_engine_setting(
    voice_shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGRAPH_QDRANT_ENGINE", "qdrant-client")
    assert recall_fast.preload({"embedder": "hash", "qdrant_path": voice_shard}) == []
    monkeypatch.setenv("MEMGRAPH_QDRANT_ENGINE", "edge")
    monkeypatch.setenv("MEMGRAPH_QDRANT_PATH", str(voice_shard))
    try:
        assert recall_fast.preload({"embedder": "hash"}) == [VOICE]
    finally:
        release_preloads()
