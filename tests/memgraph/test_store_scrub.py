"""The TextScrub store operation on every backend (memgraph.store.scrub)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.documents import SummarizeCluster, UpsertEdge, UpsertNode, to_json
from memgraph.engine import apply_patch, new_patch
from memgraph.store.interfaces import indexes
from memgraph.store.scrub import ScrubRequest, scrub_value

LONG = "the forgotten sentence with zebra-4411 in it"


def test_scrub_rewrites_history_edges_summaries_and_drops_manifests(
    mg_store: Any, mg_factory: Any
) -> None:
    a = mg_factory.node("a", claim=LONG)
    b = mg_factory.node("b", claim="ok")
    c = mg_factory.node("c", claim="ok")
    edge = mg_factory.edge(b, c, claim=f"quotes {LONG}")
    summary = mg_factory.summary(nodes=[b.id, c.id], claim=f"about {LONG}")
    apply_patch(
        mg_store,
        new_patch(
            [UpsertNode(node=n) for n in (a, b, c)]
            + [UpsertEdge(edge=edge), SummarizeCluster(summary=summary)]
        ),
    )
    # a revised a: its old version (with the text) goes to history
    apply_patch(mg_store, new_patch([UpsertNode(node=a.model_copy(update={"claim": "gone"}))]))
    apply_patch(mg_store, new_patch([UpsertNode(node=b.model_copy(update={"claim": "gone"}))]))
    assert "zebra-4411" in to_json(mg_store.export_snapshot())
    scrub = indexes(mg_store).scrub
    assert scrub is not None
    report = scrub.scrub(ScrubRequest(node_ids=(a.id, b.id), texts=(LONG, "ok")))
    snap = to_json(mg_store.export_snapshot())
    assert "zebra-4411" not in snap
    assert report.rows["node_history"] >= 1 and report.rows["edges"] == 1
    assert report.rows["summaries"] == 1 and report.rows["patches"] >= 1
    # the short text went only where it belonged: c (never named) keeps its "ok"
    with mg_store.reader() as r:
        assert r.get_nodes([c.id])[c.id].claim == "ok"
    got = mg_store.export_snapshot()
    assert any(n.claim == "ok" for n in got.nodes if n.id == c.id)
    assert all(h.claim != "ok" for h in got.node_history if h.id == b.id)
    # the store still works and still refuses edits of receipts afterwards
    apply_patch(mg_store, new_patch([UpsertNode(node=mg_factory.node("d"))]))
    assert len(mg_store.receipts()) == len(got.receipts) + 1


def test_probes_pre_filter_only_when_safe() -> None:
    req = ScrubRequest(node_ids=("n-1",), texts=(LONG, "yes"))
    assert req.probes() == ("n-1", LONG)
    quoted = ScrubRequest(node_ids=("n-1",), texts=('"\\"' * 10,))
    assert quoted.probes() == ()  # nothing JSON-safe to look for: scan every row


@given(
    texts=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=3),
    other=st.text(max_size=30),
)
@settings(max_examples=200, deadline=None)
def test_scoped_replacement_never_leaves_the_text_in_a_target(texts: list[str], other: str) -> None:
    doc = {
        "ops": [
            {"node": {"id": "n-t", "claim": " ".join(texts), "title": texts[0]}},
            {"node": {"id": "n-o", "claim": other}},
        ]
    }
    req = ScrubRequest(node_ids=("n-t",), texts=tuple(texts), marker="\x00")
    out = scrub_value(doc, req)
    target = out["ops"][0]["node"]
    for text in texts:
        if text.strip():
            assert text not in target["claim"].replace("\x00", "") or text in "\x00"
    long = [t for t in texts if len(t) >= req.min_global and t.strip()]
    if not long:
        assert out["ops"][1]["node"]["claim"] == other
