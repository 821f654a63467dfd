"""The pydantic-free read path gives what the documents give, byte for byte.

A store marked with ``memgraph.store.decode.use_plain`` decodes rows into
``memgraph.documents.plain`` objects; the same library calls (``select_context_cut``,
``recall``, the ceiling, every renderer) over them must produce the same text,
and the plain packet must become the same ``MemoryContextPacket``.
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from context_cut.api import PlainRecall, plain_recall, recall, select_context_cut
from context_cut.ceiling import fit_output
from context_cut.prompt import prompt_block
from context_cut.recall_request import RecallRequest
from context_cut.render import packet_json, packet_lines, packet_markdown
from memgraph.documents import (
    AnchorKind,
    CutName,
    MarkStale,
    MemoryAnchor,
    MemoryContextPacket,
    MemoryContextQuery,
    MemoryEdge,
    MemoryLifecycleReceipt,
    MemoryNode,
    MemorySummary,
)
from memgraph.documents.plain_context import ContextPacket, ContextQuery, packet_document
from memgraph.ids import anchor_id
from memgraph.store import open_store
from memgraph.store.decode import use_plain
from tests.context_cut.conftest import Graph, make_edge, make_node, make_summary


def _bench_context() -> Any:
    path = Path(__file__).resolve().parents[2] / "bench" / "bench_context.py"
    spec = importlib.util.spec_from_file_location("bench_context", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bench/bench_context.py's graph (1,500 nodes, summaries of summaries,
    contradictions) plus the cases it lacks: file anchors with hashes, stale
    summaries and nodes, obligations, private persona material, spoken turns."""
    path = tmp_path_factory.mktemp("plain") / "mg.db"
    _bench_context().build(path, 1500)
    store = open_store(path)
    g = Graph(store)
    file_anchor = MemoryAnchor(
        id=anchor_id("file", "src/gateway.py"),
        kind=AnchorKind.file,
        ref="src/gateway.py",
        content_hash="0123456789abcdef0123",
    )
    url = MemoryAnchor(id=anchor_id("url", "u"), kind=AnchorKind.url, ref="https://x.test/a")
    gate = make_node("repo_architecture", "Gateway verifies tokens", anchors=[file_anchor])
    flow = make_node("repo_dataflow", "Tokens flow from gateway to cache")
    ev1 = make_node("evidence", "Cache keeps tokens ten minutes")
    ev2 = make_node("evidence", "Cache keeps tokens one hour")
    must = make_node(
        "agency_pressure",
        "Rotate the gateway tokens",
        action_implication="rotate before the cache expires",
    )
    idea = make_node("incubation", "Gateway cache as a service", public=True, anchors=[url])
    secret = make_node("incubation", "Gateway cache private plan", visibility="private")
    role = make_node("role_self", "I review gateway tokens", lifecycle="proposed")
    turns = [
        make_node(
            "voice",
            f"turn {i} about the gateway cache tokens",
            domain="voice:alpha",
            session_id="s1",
            project="alpha",
            constellation="alpha",
            speaker="Ana" if i % 2 else "Bo",
            **({"prev_turn": f"n-prev{i}"} if i else {}),
        )
        for i in range(4)
    ]
    g.nodes(gate, flow, ev1, ev2, must, idea, secret, role, *turns)
    g.edges(
        make_edge("contradicts", "evidence", ev1, ev2, "ten minutes vs one hour"),
        make_edge("depends_on", "repo_architecture", gate, flow),
    )
    inner = make_summary("gateway", "the gateway checks tokens", [gate, flow])
    outer = make_summary("auth", "auth in one place", summaries=[inner], confidence=0.95)
    cache = make_summary("cache", "the cache policy", [ev1, ev2], confidence=0.9)
    g.summarize(inner, outer, cache)
    g.apply(MarkStale(target_id=cache.id, reason="sources changed"))
    g.apply(MarkStale(target_id=flow.id, source_hashes=["h2"], reason="the flow changed"))
    store.close()
    return path


QUERIES = [
    ("gateway tokens", "repo", 2000, None, None),
    ("gateway tokens cache", "repo", 120, None, None),
    ("cache tokens", "coordinator", 1500, "d1", None),
    ("gateway cache", "persona", 800, None, "alpha"),
    ("gateway tokens review", "role", 1500, None, "alpha"),
    ("gateway cache tokens", "repo", 3000, "voice:alpha", None),
]


def _bench_queries(path: Path) -> list[tuple[str, str, int, str | None, str | None]]:
    conn = sqlite3.connect(path)
    titles = [r[0] for r in conn.execute("SELECT title FROM nodes ORDER BY id LIMIT 12")]
    conn.close()
    out: list[tuple[str, str, int, str | None, str | None]] = []
    for i, title in enumerate(titles):
        words = " ".join(title.split()[:3])
        cut = ("repo", "role", "persona", "coordinator")[i % 4]
        out.append((words, cut, (300, 1500, 4000)[i % 3], None, "p1" if i % 2 else None))
    return out


def _render_all(packet: Any) -> dict[str, str]:
    return {
        "lines": "\n".join(packet_lines(packet)),
        "markdown": packet_markdown(packet),
        "prompt": prompt_block(packet, [], packet.query.project),
        "json": _unstamped(packet_json(packet)),
    }


def _unstamped(text: str) -> str:
    data = json.loads(text)
    data.pop("ingested_at")
    return json.dumps(data)


def test_context_packets_are_the_same(db: Path) -> None:
    docs, plain = open_store(db), open_store(db, for_reading=True)
    use_plain(plain)
    try:
        for text, cut, budget, domain, project in [*QUERIES, *_bench_queries(db)]:
            fields = dict(
                text=text, cut=CutName(cut), budget_tokens=budget, domain_id=domain, project=project
            )
            a = select_context_cut(docs, MemoryContextQuery(**fields))
            b = select_context_cut(plain, ContextQuery(**fields))
            assert isinstance(a, MemoryContextPacket) and isinstance(b, ContextPacket)
            assert b.nodes or b.summaries or b.obligations or text == "gateway tokens cache"
            assert all(type(n).__name__ == "PlainNode" for n in b.nodes)
            assert _render_all(a) == _render_all(b), (text, cut)
            same = packet_document(b).model_dump(exclude={"ingested_at"})
            assert same == a.model_dump(exclude={"ingested_at"})
            for tight in (budget // 3, 60):  # the ceiling trims both alike
                for render in (packet_markdown, lambda p: "\n".join(packet_lines(p))):
                    ta, out_a = fit_output(a, render, tight)
                    before = (len(b.nodes), len(b.receipts), b.tokens_used)
                    tb, out_b = fit_output(b, render, tight)
                    assert out_a == out_b and ta.tokens_used == tb.tokens_used
                    assert type(tb) is ContextPacket  # trimmed on a copy:
                    assert (len(b.nodes), len(b.receipts), b.tokens_used) == before
    finally:
        docs.close()
        plain.close()


def test_a_document_query_on_a_plain_store_gets_a_document_packet(db: Path) -> None:
    plain = open_store(db, for_reading=True)
    use_plain(plain)
    try:
        q = MemoryContextQuery(text="gateway tokens", cut=CutName.repo)
        packet = select_context_cut(plain, q)
        assert isinstance(packet, MemoryContextPacket)
        assert packet.nodes and all(isinstance(n, MemoryNode) for n in packet.nodes)
    finally:
        plain.close()


def test_every_stored_row_decodes_to_the_same_document(db: Path) -> None:
    from memgraph.store.docpack import unpack  # nodes, edges, receipts are stored packed

    conn = sqlite3.connect(db)
    plain = open_store(db, for_reading=True)
    use_plain(plain)
    try:
        for table, model, read in (
            ("nodes", MemoryNode, lambda r, ids: r.get_nodes(ids)),
            ("edges", MemoryEdge, lambda r, ids: r.get_edges(ids)),
            ("summaries", MemorySummary, lambda r, ids: r.get_summaries(ids)),
        ):
            rows = dict(conn.execute(f"SELECT id, doc FROM {table}"))
            with plain.reader() as reader:
                got = read(reader, list(rows))
            assert got.keys() == rows.keys()
            for key, obj in got.items():
                stored = model.model_validate_json(unpack(rows[key]))
                assert model.model_validate(obj.as_dict()) == stored
        some = next(iter(dict(conn.execute("SELECT target_id, 1 FROM receipts LIMIT 1"))))
        receipts = plain.receipts(target_id=some)
        stored_receipts = [
            MemoryLifecycleReceipt.model_validate_json(unpack(d))
            for (d,) in conn.execute(
                "SELECT doc FROM receipts WHERE target_id = ? ORDER BY seq", (some,)
            )
        ]
        assert [
            MemoryLifecycleReceipt.model_validate(r.as_dict()) for r in receipts
        ] == stored_receipts
    finally:
        conn.close()
        plain.close()


def test_recall_is_the_same(db: Path) -> None:
    docs, plain = open_store(db), open_store(db, for_reading=True)
    use_plain(plain)
    try:
        for text, project in (("gateway cache tokens", None), ("turn tokens", "alpha")):
            a = recall(docs, RecallRequest(text=text, limit=5, project=project))
            b = recall(plain, PlainRecall(text=text, limit=5, project=project))
            assert a.hits and a.notices == b.notices
            assert [(h.rank, h.score, h.node.id, h.bm25_rank) for h in a.hits] == [
                (h.rank, h.score, h.node.id, h.bm25_rank) for h in b.hits
            ]
            assert [h.node.attributes for h in a.hits] == [h.node.attributes for h in b.hits]
            assert [h.node.valid_from for h in a.hits] == [h.node.valid_from for h in b.hits]
    finally:
        docs.close()
        plain.close()


@pytest.mark.parametrize(
    ("text", "limit", "mode"),
    [
        ("a", 1, "hybrid"),
        ("a", 1000, "bm25"),
        ("a", 10, "vectors"),
        ("", 10, "hybrid"),
        ("a", 0, "hybrid"),
        ("a", 1001, "hybrid"),
        ("a", -3, "bm25"),
        ("a", 10, "dense"),
    ],
)
def test_plain_recall_accepts_exactly_what_the_model_accepts(
    text: str, limit: int, mode: str
) -> None:
    from pydantic import ValidationError

    plain = plain_recall(text, limit, "p", None, mode)
    try:
        model = RecallRequest(text=text, limit=limit, project="p", mode=mode)  # type: ignore[arg-type]
    except ValidationError:
        assert plain is None
    else:
        assert plain is not None and plain.__dict__ == {
            k: getattr(model, k) for k in plain.__dict__
        }
