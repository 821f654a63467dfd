"""``use_plain``: every backend's reads (own and snapshot) give plain objects that
validate into exactly the documents the same reads give without it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from memgraph.documents import MemoryEdge, MemoryLifecycleReceipt, MemoryNode, MemorySummary
from memgraph.documents.plain import Plain
from memgraph.store.decode import use_documents, use_plain
from tests.memgraph.test_store_contract import build


def _reads(store: Any, ids: list[str], edge_ids: list[str], summary_id: str) -> list[Any]:
    with store.reader() as r:
        out: list[Any] = [
            r.get_nodes(ids),
            r.get_edges(edge_ids),
            r.get_summaries([summary_id]),
            r.summaries_covering([ids[0]]),
            r.nodes_in_domain("repo:demo", "repo_architecture", ["observed"]),
            r.receipts_for(ids[0]),
        ]
    hood = store.neighbourhood(ids[0], 2)
    out += [hood.nodes, hood.edges, store.receipts(target_id=ids[0]), list(store.iter_nodes())]
    return out


def _documents(value: Any, model: type[BaseModel]) -> Any:
    if isinstance(value, dict):
        return {k: _documents(v, model) for k, v in value.items()}
    if isinstance(value, list):
        return [_documents(v, model) for v in value]
    if isinstance(value, Plain):
        return model.model_validate(value.as_dict())
    return value


def test_plain_reads_are_the_documents(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    g = build(mg_store, mg_factory)
    ids = [n.id for n in g["nodes"].values()]
    edge_ids = [e.id for e in g["edges"]]
    before = _reads(mg_store, ids, edge_ids, g["summary"].id)
    use_plain(mg_store)
    after = _reads(mg_store, ids, edge_ids, g["summary"].id)
    models = [MemoryNode, MemoryEdge, MemorySummary, MemorySummary, MemoryNode]
    models += [MemoryLifecycleReceipt, MemoryNode, MemoryEdge, MemoryLifecycleReceipt, MemoryNode]
    for doc, plain, model in zip(before, after, models, strict=True):
        assert doc and _documents(plain, model) == doc
    plain_backend = type(mg_store).__name__ != "MemoryStore"  # it holds documents
    assert any(isinstance(n, Plain) for n in after[0].values()) is plain_backend


def test_use_documents_undoes_use_plain(mg_store, mg_factory) -> None:  # type: ignore[no-untyped-def]
    g = build(mg_store, mg_factory)
    ids = [n.id for n in g["nodes"].values()]
    edge_ids = [e.id for e in g["edges"]]
    before = _reads(mg_store, ids, edge_ids, g["summary"].id)
    use_plain(mg_store)
    use_documents(mg_store)
    after = _reads(mg_store, ids, edge_ids, g["summary"].id)
    assert after == before
    assert not any(isinstance(n, Plain) for n in [*after[0].values(), *after[-1]])
