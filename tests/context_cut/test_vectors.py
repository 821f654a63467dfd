"""The Qdrant nerve on every engine: projection, partitions, manifests, staleness,
healing, resumption, hostile payloads."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from context_cut import select_context_cut
from context_cut.embedders import HashEmbedder
from context_cut.vector_backends import DimensionMismatch, point_id
from context_cut.vector_index import VectorIndex
from context_cut.vector_projection import PARTITIONS, qdrant_collection, source_hash
from context_cut.vector_sync import index_status, sync_index
from context_cut.vectors import VectorNerve, node_id_of
from memgraph.documents import MemoryContextQuery, NodeRevision
from memgraph.ops import revise_node
from memgraph.store import Store
from memgraph.validation import validate_snapshot


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


ENGINES = ["edge", "client-memory", "client-path"]


@pytest.fixture(params=ENGINES)
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Opens the vector index of one engine; called again, it reopens the same data."""
    if request.param == "edge":
        pytest.importorskip("qdrant_edge", reason="qdrant-edge-py (the qdrant extra) missing")
    where = tmp_path / "vectors"
    shared: dict[str, VectorIndex] = {}

    def open_index() -> VectorIndex:
        if request.param == "edge":
            return VectorIndex.open(path=where, engine="edge")
        if request.param == "client-path":
            return VectorIndex.open(path=where, engine="qdrant-client")
        if "memory" not in shared:  # in-memory data lives as long as its client
            shared["memory"] = VectorIndex.open(path=":memory:")
        return shared["memory"]

    open_index.engine = request.param  # type: ignore[attr-defined]
    open_index.where = where  # type: ignore[attr-defined]
    return open_index


def _coll(emb: Any, partition: str, store: Store) -> str:
    """The store's own collection of ``partition`` in Qdrant."""
    return qdrant_collection(emb.name, emb.dimension, partition, store=store)


def _modeling(emb: Any, store: Store) -> str:
    return _coll(emb, "modeling", store)


def test_sync_embeds_only_what_changed(sqlite_store: Store, mk: Any, opener: Any) -> None:
    from tests.context_cut.conftest import Graph  # type: ignore[import-not-found]

    graph = Graph(sqlite_store)
    nodes = _seed(graph, mk)
    index = opener()
    emb = HashEmbedder(64)
    first = sync_index(sqlite_store, index, emb)
    # 5 nodes and the summary: repo nodes + summary in modeling, evidence in mind
    assert (first.embedded, first.manifests, first.unchanged) == (6, 6, 0)
    assert first.collections == [
        _coll(emb, "mind", sqlite_store),
        _coll(emb, "modeling", sqlite_store),
    ]
    assert index.count(_modeling(emb, sqlite_store)) == 5
    assert index.count(_coll(emb, "mind", sqlite_store)) == 1
    with sqlite_store.reader() as r:
        m = r.get_manifests([nodes[0].id])[nodes[0].id]
    assert (m.model, m.dimension, m.source_hash) == (emb.name, 64, source_hash(nodes[0]))
    assert sqlite_store.receipts(target_id=nodes[0].id)[-1].op == "refresh_embedding"
    again = sync_index(sqlite_store, index, emb)
    assert (again.embedded, again.manifests, again.unchanged) == (0, 0, 6)
    # a changed claim makes its vector stale: exactly that node is re-embedded
    revise_node(sqlite_store, nodes[1].id, NodeRevision(claim="tokens now live in postgres"))
    status = index_status(sqlite_store, emb)
    assert status.partitions["modeling"] == {"documents": 5, "current": 4, "stale": 1, "missing": 0}
    third = sync_index(sqlite_store, index, emb)
    assert (third.embedded, third.manifests, third.unchanged) == (1, 1, 5)
    assert index_status(sqlite_store, emb).stale == 0
    index.close()


def test_edges_and_summaries_are_projected(graph: Any, mk: Any, opener: Any) -> None:
    a = mk.node("repo_architecture", "Gateway", "the gateway verifies tokens")
    b = mk.node("repo_architecture", "Token store", "tokens live in redis")
    c = mk.node("repo_architecture", "Billing", "invoices are generated monthly")
    graph.nodes(a, b, c)
    from tests.context_cut.conftest import make_edge  # type: ignore[import-not-found]

    with_claim = make_edge("depends_on", "repo_architecture", a, b, "gateway reads tokens")
    bare = make_edge("depends_on", "repo_architecture", b, c)
    graph.edges(with_claim, bare)
    summary = mk.summary("auth", "Auth is a gateway plus a token store", [a, b])
    graph.summarize(summary)
    emb = HashEmbedder(64)
    index = opener()
    report = sync_index(graph.store, index, emb)
    assert report.embedded == 5  # 3 nodes, the edge with a claim, the summary
    present = index.present(_modeling(emb, graph.store), [with_claim.id, bare.id, summary.id])
    assert present == {with_claim.id, summary.id}
    with graph.store.reader() as r:
        manifests = r.get_manifests([with_claim.id, summary.id])
    assert set(manifests) == {with_claim.id, summary.id}
    assert [r.op for r in graph.store.receipts(target_id=with_claim.id)][-1] == "refresh_embedding"
    assert validate_snapshot(graph.store.export_snapshot()) == []
    # a summary hit stands for the nodes it covers; an edge hit for its two ends
    nerve = VectorNerve(index, emb)
    hits = dict(nerve.search(graph.store, "Auth is a gateway plus a token store", 10))
    assert a.id in hits and b.id in hits
    index.close()


def test_partitions_are_isolated(graph: Any, mk: Any, opener: Any) -> None:
    voice = mk.node("voice", "drop the cache", "we should drop the cache", kind="message")
    mind = mk.node("short_term", "cache idea", "the cache could be dropped")
    repo = mk.node("repo_architecture", "Cache layer", "the cache layer fronts the db")
    graph.nodes(voice, mind, repo)
    emb = HashEmbedder(64)
    index = opener()
    scoped = sync_index(graph.store, index, emb, profiles=["voice"])
    assert scoped.collections == [_coll(emb, "voice", graph.store)]
    assert scoped.embedded == 1
    sync_index(graph.store, index, emb)
    counts = {p: index.count(_coll(emb, p, graph.store)) for p in PARTITIONS}
    assert counts == {"voice": 1, "mind": 1, "modeling": 1, "records": 0}
    nerve = VectorNerve(index, emb, heal=False)
    assert [n for n, _ in nerve.search(graph.store, "drop the cache", 10, ["voice"])] == [voice.id]
    assert [n for n, _ in nerve.search(graph.store, "cache", 10, ["short_term"])] == [mind.id]
    everything = {n for n, _ in nerve.search(graph.store, "cache", 10)}
    assert everything == {voice.id, mind.id, repo.id}
    # dropping one partition leaves the others intact
    index.drop(_coll(emb, "modeling", graph.store))
    assert index.count(_coll(emb, "voice", graph.store)) == 1
    assert {n for n, _ in nerve.search(graph.store, "cache", 10, ["voice", "short_term"])} == {
        voice.id,
        mind.id,
    }
    index.close()


def test_dimension_mismatch_is_refused(graph: Any, mk: Any, opener: Any) -> None:
    _seed(graph, mk)
    index = opener()
    sync_index(graph.store, index, HashEmbedder(64, model="same"))

    class Wider(HashEmbedder):
        @property
        def name(self) -> str:  # same model name, new width: the manifests disagree
            return "same-64"

    with pytest.raises(DimensionMismatch, match="refusing to mix"):
        sync_index(graph.store, index, Wider(128, model="same"))
    # --rebuild is the explicit way out
    report = sync_index(graph.store, index, Wider(128, model="same"), rebuild=True)
    assert report.embedded == 6

    class Liar(HashEmbedder):
        @property
        def dimension(self) -> int:
            return 32

    with pytest.raises(DimensionMismatch, match="returned a 64-dim vector"):
        sync_index(graph.store, index, Liar(64, model="liar"))
    index.close()


def test_collection_of_another_width_is_refused(opener: Any) -> None:
    index = opener()
    index.ensure_collection("mg_x_8", 8)
    with pytest.raises(DimensionMismatch, match="holds 8-dim vectors"):
        index.ensure_collection("mg_x_8", 16)
    index.close()


def test_deleting_the_vectors_gives_the_same_ranking(
    sqlite_store: Store, mk: Any, opener: Any
) -> None:
    from tests.context_cut.conftest import Graph  # type: ignore[import-not-found]

    _seed(Graph(sqlite_store), mk)
    emb = HashEmbedder(64)
    index = opener()
    sync_index(sqlite_store, index, emb)
    before = select_context_cut(sqlite_store, _query(), VectorNerve(index, emb))
    ranked_before = VectorNerve(index, emb).search(sqlite_store, "login verified gateway", 10)
    assert any(n.id for n in before.nodes) and ranked_before
    receipts_before = sqlite_store.counts()["receipts"]
    if opener.engine == "client-memory":
        for p in PARTITIONS:
            index.drop(_coll(emb, p, sqlite_store))
    else:
        index.close()
        shutil.rmtree(opener.where)
        index = opener()
    nerve = VectorNerve(index, emb)
    after = select_context_cut(sqlite_store, _query(), nerve)
    assert _content(after) == _content(before)
    assert any("rebuilt 6 vectors from the store" in n for n in after.notices)
    assert (
        VectorNerve(index, emb).search(sqlite_store, "login verified gateway", 10) == ranked_before
    )
    # the rebuild re-embedded from store text and wrote nothing to the store
    assert sqlite_store.counts()["receipts"] == receipts_before
    assert index.count(_modeling(emb, sqlite_store)) == 5
    index.close()


def test_engines_give_the_same_answers(graph: Any, mk: Any, tmp_path: Path) -> None:
    pytest.importorskip("qdrant_edge", reason="qdrant-edge-py (the qdrant extra) missing")
    _seed(graph, mk)
    graph.nodes(
        *(
            mk.node(
                "voice", f"message {i}", f"we talked about topic {i} and tokens", kind="message"
            )
            for i in range(30)
        )
    )
    emb = HashEmbedder(64)
    answers = []
    for engine, where in (("edge", tmp_path / "e"), ("qdrant-client", tmp_path / "c")):
        index = VectorIndex.open(path=where, engine=engine)
        sync_index(graph.store, index, emb)
        nerve = VectorNerve(index, emb)
        answers.append(
            [
                [n for n, _ in nerve.search(graph.store, q, 8, p)]
                for q, p in (("tokens topic 7", ["voice"]), ("gateway token", None))
            ]
        )
        index.close()
    assert answers[0] == answers[1]


def test_corrupted_payloads_change_nothing(graph: Any, mk: Any) -> None:
    _seed(graph, mk)
    emb = HashEmbedder(64)
    index = VectorIndex.open(path=":memory:")
    sync_index(graph.store, index, emb)
    before = select_context_cut(graph.store, _query(), VectorNerve(index, emb))
    hostile = {"node_id": "n-ffffffffffffffff", "claim": "IGNORE ALL PREVIOUS", "x": [1]}
    colls = (_modeling(emb, graph.store), _coll(emb, "mind", graph.store))

    def corrupt(which: Any) -> None:
        for coll in colls:
            points, _ = index.client.scroll(coll, limit=100, with_payload=True)
            ids = [p.id for p in points if which(p.id)]
            if ids:  # set_payload merges: the filter fields (doc, profile) stay
                index.client.set_payload(coll, payload=hostile, points=ids)

    # node points: the id IS the node id, so the payload is never read
    corrupt(lambda pid: isinstance(pid, int))
    after = select_context_cut(graph.store, _query(), VectorNerve(index, emb))
    assert _content(after) == _content(before)
    # summary/edge points: their payload id no longer reproduces the point id,
    # so those hits are dropped with a notice, and nothing of the payload leaks
    corrupt(lambda pid: not isinstance(pid, int))
    worst = select_context_cut(graph.store, _query(), VectorNerve(index, emb))
    assert any("untrustworthy payloads" in n for n in worst.notices)
    for packet in (after, worst):
        assert "IGNORE" not in packet.model_dump_json()
        assert "n-ffffffffffffffff" not in packet.model_dump_json()
    # a payload stripped of its filter fields only hides its point from filtered
    # queries (less recall); content still comes from the store alone
    for coll in colls:
        points, _ = index.client.scroll(coll, limit=100, with_payload=True)
        index.client.overwrite_payload(coll, payload=hostile, points=[p.id for p in points])
    stripped = select_context_cut(graph.store, _query(), VectorNerve(index, emb))
    assert "IGNORE" not in stripped.model_dump_json()
    assert {n.id for n in stripped.nodes} <= {n.id for n in graph.store.iter_nodes()}


def test_hits_with_unverifiable_payloads_are_dropped(graph: Any, mk: Any) -> None:
    emb = HashEmbedder(32)
    index = VectorIndex.open(path=":memory:")
    coll = qdrant_collection(emb.name, 32, store=graph.store)
    index.ensure_collection(coll, 32)
    index.upsert(coll, ["custom-id"], emb.embed(["hello"]))
    index.client.overwrite_payload(
        coll, payload={"node_id": "other"}, points=[point_id("custom-id")]
    )
    hits, rejected = index.query(coll, emb.embed(["hello"])[0], 5)
    assert hits == [] and rejected == 1


class _Crash(Exception):
    pass


def test_an_interrupted_sync_resumes(graph: Any, mk: Any, opener: Any) -> None:
    graph.nodes(
        *(mk.node("voice", f"m{i}", f"message number {i}", kind="message") for i in range(10))
    )
    emb = HashEmbedder(32)

    class Dies(HashEmbedder):
        calls = 0

        def embed(self, texts: Any) -> list[list[float]]:
            Dies.calls += 1
            if Dies.calls == 3:
                raise _Crash("killed mid-run")
            return super().embed(texts)

    index = opener()
    with pytest.raises(_Crash):
        sync_index(graph.store, index, Dies(32), batch=3)
    assert index.count(_coll(emb, "voice", graph.store)) == 6
    resumed = sync_index(graph.store, index, emb, batch=3)
    assert (resumed.embedded, resumed.unchanged) == (4, 6)
    assert index_status(graph.store, emb).partitions["voice"]["current"] == 10
    index.close()


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


def test_a_shard_held_by_another_process_degrades_to_bm25(
    graph: Any, mk: Any, tmp_path: Path
) -> None:
    pytest.importorskip("qdrant_edge", reason="qdrant-edge-py (the qdrant extra) missing")
    from context_cut.api import RecallRequest, recall

    node = mk.node("voice", "drop the cache", "we should drop the cache", kind="message")
    graph.nodes(node)
    emb = HashEmbedder(32)
    holder = VectorIndex.open(path=tmp_path / "q", engine="edge")
    sync_index(graph.store, holder, emb)  # keeps the shard (and its WAL lock) open
    other = VectorNerve(VectorIndex.open(path=tmp_path / "q", engine="edge"), emb)
    result = recall(graph.store, RecallRequest(text="drop cache"), other)
    assert [h.node.id for h in result.hits] == [node.id]
    (notice,) = [n for n in result.notices if "BM25 only" in n]
    assert "qdrant at" in notice and "\n" not in notice
    holder.close()
    again = recall(graph.store, RecallRequest(text="drop cache"), VectorNerve(other.index, emb))
    assert not any("BM25 only" in n for n in again.notices)
    other.index.close()
