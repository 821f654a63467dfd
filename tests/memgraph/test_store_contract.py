"""The Store contract, run against every backend (SQLiteStore and MemoryStore)."""

from __future__ import annotations

from typing import Any

import pytest

from memgraph.documents import (
    MemoryDomain,
    MemoryEmbeddingManifest,
    RefreshEmbedding,
    SummarizeCluster,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import MemgraphError, SnapshotError
from memgraph.store import Store


def build(store: Store, f: Any) -> dict[str, Any]:
    """a - b - c - d chain plus an isolated e; a summary and an embedding."""
    nodes = {
        k: f.node(k, claim=f"{k} handles the login flow" if k == "b" else f"{k} text")
        for k in "abcde"
    }
    edges = [f.edge(nodes[x], nodes[y]) for x, y in ("ab", "cb", "cd")]
    summary = f.summary(nodes=[nodes["a"].id, nodes["b"].id])
    manifest = MemoryEmbeddingManifest(
        node_id=nodes["a"].id, model="hash", dimension=4, source_hash="h", embedded_at=f.tick()
    )
    apply_patch(
        store,
        new_patch(
            [UpsertNode(node=n) for n in nodes.values()]
            + [UpsertEdge(edge=e) for e in edges]
            + [SummarizeCluster(summary=summary), RefreshEmbedding(manifest=manifest)]
        ),
    )
    return {"nodes": nodes, "edges": edges, "summary": summary}


def test_reads_return_what_was_written(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    g = build(mg_store, mg_factory)
    ids = [n.id for n in g["nodes"].values()]
    with mg_store.reader() as r:
        got = r.get_nodes([*ids, "n-missing", ids[0]])
        assert set(got) == set(ids)
        assert got[ids[1]].claim == "b handles the login flow"
        assert set(r.get_edges([e.id for e in g["edges"]])) == {e.id for e in g["edges"]}
        assert r.existing_node_ids([ids[0], "n-missing"]) == {ids[0]}
        assert [s.id for s in r.summaries_covering([ids[0]])] == [g["summary"].id]
        assert r.summaries_covering(["n-missing"]) == []
        assert len(r.nodes_in_domain("repo:demo", "repo_architecture", ["observed"])) == 5
        assert r.nodes_in_domain("repo:demo", "repo_architecture", ["retired"]) == []
        assert set(r.get_manifests([ids[0], ids[1]])) == {ids[0]}
        assert r.receipts_for(ids[0], "upsert_node")[0].op == "upsert_node"
        assert r.get_nodes([]) == {}


def test_many_ids_are_read_in_chunks(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    nodes = [mg_factory.node(f"n{i}") for i in range(1200)]
    apply_patch(mg_store, new_patch([UpsertNode(node=n) for n in nodes]))
    with mg_store.reader() as r:
        assert len(r.get_nodes([n.id for n in nodes])) == 1200
        assert len(r.existing_node_ids([n.id for n in nodes])) == 1200


def test_iter_nodes_filters_and_sorts(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    build(mg_store, mg_factory)
    apply_patch(mg_store, new_patch([UpsertNode(node=mg_factory.node("i", profile="incubation"))]))
    ids = [n.id for n in mg_store.iter_nodes()]
    assert ids == sorted(ids) and len(ids) == 6
    assert [n.profile for n in mg_store.iter_nodes(profile="incubation")] == ["incubation"]
    assert len(list(mg_store.iter_nodes(profile="repo_architecture", kind="component"))) == 5
    assert list(mg_store.iter_nodes(kind="nothing")) == []


def test_neighbourhood_two_hops_both_directions(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    g = build(mg_store, mg_factory)
    n = {k: v.id for k, v in g["nodes"].items()}
    hood = mg_store.neighbourhood(n["a"], 2)
    assert hood.distance == {n["a"]: 0, n["b"]: 1, n["c"]: 2}
    assert set(hood.nodes) == set(hood.distance)
    assert {(e.source_id, e.target_id) for e in hood.edges.values()} == {
        (n["a"], n["b"]),
        (n["c"], n["b"]),
    }
    assert mg_store.neighbourhood(n["a"], 3).distance[n["d"]] == 3
    assert mg_store.neighbourhood(n["e"], 2).distance == {n["e"]: 0}
    assert mg_store.neighbourhood("n-missing", 2).nodes == {}


def test_search_finds_words_and_prefixes_and_survives_hostile_queries(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    g = build(mg_store, mg_factory)
    b = g["nodes"]["b"].id
    assert [h.node_id for h in mg_store.search("login flow")] == [b]
    assert [h.node_id for h in mg_store.search("logi*")] == [b]
    assert [h.node_id for h in mg_store.search("login", profile="incubation")] == []
    for hostile in ('"', "NEAR(", "a:b", "*", "-", "AND OR NOT", "'; DROP TABLE nodes;--", ""):
        mg_store.search(hostile)  # never raises
    assert mg_store.counts()["nodes"] == 5


def test_counts(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    build(mg_store, mg_factory)
    assert mg_store.counts() == {
        "nodes": 5,
        "edges": 3,
        "summaries": 1,
        "receipts": 10,
        "patches": 1,
        "embeddings": 1,
        "domains": 0,
    }


def test_receipts_filter_by_target_and_patch(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    g = build(mg_store, mg_factory)
    a = g["nodes"]["a"].id
    all_r = mg_store.receipts()
    assert len(all_r) == 10
    assert [r.op for r in mg_store.receipts(target_id=a)] == ["upsert_node", "refresh_embedding"]
    pid = all_r[0].patch_id
    assert len(mg_store.receipts(target_id=a, patch_id=pid)) == 2
    assert mg_store.receipts(patch_id="p-none") == []


def test_failed_transaction_leaves_the_store_unchanged(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    build(mg_store, mg_factory)
    before = mg_store.export_snapshot()
    with pytest.raises(RuntimeError), mg_store.transaction() as txn:
        txn.put_nodes([mg_factory.node("zz")], [])
        txn.append_receipts(before.receipts[:0])
        raise RuntimeError("crash mid-transaction")
    assert mg_store.export_snapshot() == before


def test_receipts_are_append_only(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    build(mg_store, mg_factory)
    existing = mg_store.receipts()[0]
    with pytest.raises(MemgraphError, match=r"append-only|UNIQUE"), mg_store.transaction() as txn:
        txn.append_receipts([existing.model_copy(update={"reason": "rewritten history"})])
    assert mg_store.receipts()[0] == existing


def test_snapshot_round_trip_between_stores(mg_store, mg_factory, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from memgraph.store.memory import MemoryStore
    from memgraph.store.sqlite import SQLiteStore

    build(mg_store, mg_factory)
    with mg_store.transaction() as txn:
        txn.put_domains([MemoryDomain(id="repo:demo", name="demo", profiles=["repo_architecture"])])
    snap = mg_store.export_snapshot()
    for target in (MemoryStore(), SQLiteStore(tmp_path / "copy.db")):
        target.import_snapshot(snap)
        again = target.export_snapshot()
        assert again.model_copy(update={"schema_version": 0}) == snap.model_copy(
            update={"schema_version": 0}
        )
        assert target.search("login")[0].node_id == next(
            n.id for n in snap.nodes if "login" in n.claim
        )
        with pytest.raises(SnapshotError, match="not empty"):
            target.import_snapshot(snap)
        target.close()


def test_export_is_deterministic(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    build(mg_store, mg_factory)
    first = mg_store.export_snapshot()
    assert first.exported_at == max(r.at for r in first.receipts)
    assert mg_store.export_snapshot().model_dump_json() == first.model_dump_json()


def test_nodes_in_period_bounds(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta

    from memgraph.store import PeriodQuery

    t0 = mg_factory.tick()
    hour = timedelta(hours=1)
    made = {
        key: mg_factory.node(key, valid_from=t0 + i * hour, valid_to=t0 + i * hour + hour / 2)
        for i, key in enumerate("pqrs")
    }
    no_time = mg_factory.node("t", valid_from=None)
    apply_patch(mg_store, new_patch([UpsertNode(node=n) for n in [*made.values(), no_time]]))
    kind = made["p"].kind

    def keys(**bounds: Any) -> list[str]:
        query = PeriodQuery("repo_architecture", kind, **bounds)
        found = {n.id for n in mg_store.nodes_in_period(query)}
        return sorted(k for k, n in made.items() if n.id in found) + (
            ["t"] if no_time.id in found else []
        )

    assert keys() == ["p", "q", "r", "s", "t"]
    assert keys(starts_at_or_after=t0 + hour, starts_before=t0 + 3 * hour) == ["q", "r"]
    assert keys(starts_at_or_before=t0 + hour) == ["p", "q"]
    assert keys(ends_at_or_after=t0 + 2 * hour) == ["r", "s"]
    assert keys(lifecycle="retired") == []
    assert mg_store.nodes_in_period(PeriodQuery("voice", "message")) == []


def test_iter_edges_and_summaries(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    g = build(mg_store, mg_factory)
    ids = [e.id for e in mg_store.iter_edges()]
    assert ids == sorted(e.id for e in g["edges"])
    assert [e.id for e in mg_store.iter_edges(profile="repo_architecture")] == ids
    assert list(mg_store.iter_edges(profile="incubation")) == []
    assert [s.id for s in mg_store.iter_summaries()] == [g["summary"].id]
