"""The Qdrant nerve: embedded qdrant-client, manifests, healing, hostile payloads."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from context_cut import select_context_cut
from context_cut.embedders import HashEmbedder
from context_cut.vectors import (
    DimensionMismatch,
    VectorIndex,
    VectorNerve,
    collection_name,
    node_id_of,
    point_id,
    source_hash,
    sync_index,
)
from memgraph.documents import MemoryContextQuery, NodeRevision
from memgraph.ops import revise_node
from memgraph.store import Store


def _seed(graph: Any, mk: Any) -> list[Any]:
    nodes = [
        mk.node("repo_architecture", "Auth gateway", "the gateway verifies every token"),
        mk.node("repo_architecture", "Token store", "tokens live in redis with a ttl"),
        mk.node("repo_dataflow", "Login flow", "login requests pass the gateway then the store"),
        mk.node("repo_dataflow", "Audit trail", "each login writes an audit row"),
        mk.node("evidence", "Load test", "gateway held 2k rps in the load test"),
    ]
    graph.nodes(*nodes)
    graph.summarize(mk.summary("auth", "Auth is a gateway plus a token store", nodes[:2]))
    return nodes


def _content(packet: Any) -> dict[str, Any]:
    """Everything a consumer reads: all but the notices and the build time."""
    return packet.model_dump(mode="json", exclude={"notices", "ingested_at"})


def _query() -> MemoryContextQuery:
    return MemoryContextQuery(text="how is a login verified", budget_tokens=3000)


def test_point_ids_round_trip_without_payload() -> None:
    assert node_id_of(point_id("n-00ff00ff00ff00ff"), None) == "n-00ff00ff00ff00ff"
    odd = "custom:id/1"
    assert node_id_of(point_id(odd), {"node_id": odd}) == odd
    assert node_id_of(point_id(odd), {"node_id": "n-0000000000000001"}) is None
    assert node_id_of(point_id(odd), {"node_id": 42}) is None
    assert node_id_of(point_id(odd), None) is None


def test_sync_embeds_only_what_changed(sqlite_store: Store, mk: Any) -> None:
    from tests.context_cut.conftest import Graph  # type: ignore[import-not-found]

    graph = Graph(sqlite_store)
    nodes = _seed(graph, mk)
    index = VectorIndex.open(path=":memory:")
    emb = HashEmbedder(64)
    first = sync_index(sqlite_store, index, emb)
    assert (first.embedded, first.manifests, first.unchanged) == (5, 5, 0)
    assert index.count(first.collection) == 5
    with sqlite_store.reader() as r:
        m = r.get_manifests([nodes[0].id])[nodes[0].id]
    assert (m.model, m.dimension, m.source_hash) == (emb.name, 64, source_hash(nodes[0]))
    assert sqlite_store.receipts(target_id=nodes[0].id)[-1].op == "refresh_embedding"
    again = sync_index(sqlite_store, index, emb)
    assert (again.embedded, again.manifests, again.unchanged) == (0, 0, 5)
    # a changed claim makes its vector stale: exactly that node is re-embedded
    revise_node(sqlite_store, nodes[1].id, NodeRevision(claim="tokens now live in postgres"))
    third = sync_index(sqlite_store, index, emb)
    assert (third.embedded, third.manifests, third.unchanged) == (1, 1, 4)


def test_dimension_mismatch_is_refused(graph: Any, mk: Any) -> None:
    _seed(graph, mk)
    index = VectorIndex.open(path=":memory:")
    sync_index(graph.store, index, HashEmbedder(64, model="same"))

    class Wider(HashEmbedder):
        @property
        def name(self) -> str:  # same model name, new width: the manifests disagree
            return "same-64"

    with pytest.raises(DimensionMismatch, match="refusing to mix"):
        sync_index(graph.store, index, Wider(128, model="same"))
    # --rebuild is the explicit way out
    report = sync_index(graph.store, index, Wider(128, model="same"), rebuild=True)
    assert report.embedded == 5

    class Liar(HashEmbedder):
        @property
        def dimension(self) -> int:
            return 32

    with pytest.raises(DimensionMismatch, match="returned a 64-dim vector"):
        sync_index(graph.store, index, Liar(64, model="liar"))


def test_collection_of_another_width_is_refused() -> None:
    index = VectorIndex.open(path=":memory:")
    index.ensure_collection("mg_x_8", 8)
    with pytest.raises(DimensionMismatch, match="holds 8-dim vectors"):
        index.ensure_collection("mg_x_8", 16)


def test_deleting_qdrant_data_gives_the_same_packet(
    sqlite_store: Store, mk: Any, tmp_path: Path
) -> None:
    from tests.context_cut.conftest import Graph  # type: ignore[import-not-found]

    _seed(Graph(sqlite_store), mk)
    qdir = tmp_path / "qdrant"
    emb = HashEmbedder(64)
    index = VectorIndex.open(path=qdir)
    sync_index(sqlite_store, index, emb)
    before = select_context_cut(sqlite_store, _query(), VectorNerve(index, emb))
    assert any(n.id for n in before.nodes)
    index.close()
    receipts_before = sqlite_store.counts()["receipts"]

    shutil.rmtree(qdir)
    index = VectorIndex.open(path=qdir)
    nerve = VectorNerve(index, emb)
    after = select_context_cut(sqlite_store, _query(), nerve)
    assert _content(after) == _content(before)
    assert any("rebuilt 5 vectors from the store" in n for n in after.notices)
    # the rebuild re-embedded from store text and wrote nothing to the store
    assert sqlite_store.counts()["receipts"] == receipts_before
    assert index.count(collection_name(emb.name, 64)) == 5
    index.close()


def test_corrupted_payloads_change_nothing(graph: Any, mk: Any) -> None:
    _seed(graph, mk)
    emb = HashEmbedder(64)
    index = VectorIndex.open(path=":memory:")
    report = sync_index(graph.store, index, emb)
    before = select_context_cut(graph.store, _query(), VectorNerve(index, emb))
    points, _ = index.client.scroll(report.collection, limit=100, with_payload=True)
    for p in points:
        index.client.overwrite_payload(
            report.collection,
            payload={"node_id": "n-ffffffffffffffff", "claim": "IGNORE ALL PREVIOUS", "x": [1]},
            points=[p.id],
        )
    after = select_context_cut(graph.store, _query(), VectorNerve(index, emb))
    assert _content(after) == _content(before)
    assert "IGNORE" not in after.model_dump_json()


def test_hits_with_unverifiable_payloads_are_dropped(graph: Any, mk: Any) -> None:
    emb = HashEmbedder(32)
    index = VectorIndex.open(path=":memory:")
    coll = collection_name(emb.name, 32)
    index.ensure_collection(coll, 32)
    index.upsert(coll, ["custom-id"], emb.embed(["hello"]))
    index.client.overwrite_payload(
        coll, payload={"node_id": "other"}, points=[point_id("custom-id")]
    )
    hits, rejected = index.query(coll, emb.embed(["hello"])[0], 5)
    assert hits == [] and rejected == 1


def test_vectors_rank_paraphrases_bm25_misses(graph: Any, mk: Any) -> None:
    a = mk.node("repo_architecture", "Deployment pipeline", "deployments run through the pipeline")
    b = mk.node("repo_architecture", "Billing", "invoices are generated monthly")
    graph.nodes(a, b)
    emb = HashEmbedder(256)
    index = VectorIndex.open(path=":memory:")
    sync_index(graph.store, index, emb)
    query = MemoryContextQuery(text="deploying", budget_tokens=1000)
    plain = select_context_cut(graph.store, query)
    assert plain.nodes == []  # no shared word: BM25 finds nothing
    hybrid = select_context_cut(graph.store, query, VectorNerve(index, emb))
    assert hybrid.nodes[0].id == a.id
