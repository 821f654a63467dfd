"""The twelve documents: minimum fields, bi-temporal fields, extra=forbid, and
an exact JSON round trip for arbitrary (hypothesis-generated) instances."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from memgraph.documents import (
    ALL_DOCUMENTS,
    AnchorKind,
    CutName,
    FreshnessState,
    MemoryAnchor,
    MemoryContextPacket,
    MemoryContextQuery,
    MemoryDomain,
    MemoryEdge,
    MemoryEmbeddingManifest,
    MemoryFreshness,
    MemoryGraphSnapshot,
    MemoryLifecycleReceipt,
    MemoryNode,
    MemoryPatchCandidate,
    MemorySummary,
    NodeRevision,
    PatchStatus,
    ProfileName,
    evolve,
    to_json,
)
from memgraph.documents import patch as patch_ops

# -- strategies ---------------------------------------------------------------

text = st.text(max_size=40)
ident = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-:", min_size=1, max_size=20)
offsets = st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-7))])
aware = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1), timezones=offsets
)
maybe_dt = st.none() | aware
unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
json_scalar = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text | unit
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
attributes = st.dictionaries(text, json_value, max_size=4)


def temporal() -> dict[str, Any]:
    return {"valid_from": maybe_dt, "valid_to": maybe_dt, "ingested_at": maybe_dt}


anchors = st.builds(
    MemoryAnchor,
    id=ident,
    kind=st.sampled_from(AnchorKind),
    ref=text,
    line=st.none() | st.integers(0, 10**6),
    record_uuid=st.none() | ident,
    sha=st.none() | ident,
    content_hash=st.none() | ident,
    label=st.none() | text,
    **temporal(),
)
domains = st.builds(
    MemoryDomain,
    id=ident,
    name=text,
    profiles=st.lists(st.sampled_from(ProfileName), max_size=3),
    description=text,
    **temporal(),
)
nodes = st.builds(
    MemoryNode,
    id=ident,
    domain_id=ident,
    profile=st.sampled_from(ProfileName),
    kind=ident,
    title=text,
    claim=text,
    question=text,
    tension=text,
    action_implication=text,
    anchors=st.lists(anchors, max_size=2),
    source_hashes=st.lists(ident, max_size=3),
    lifecycle=ident,
    salience=unit,
    confidence=unit,
    created_at=aware,
    updated_at=aware,
    attributes=attributes,
    superseded_by=st.none() | ident,
    **temporal(),
)
edges = st.builds(
    MemoryEdge,
    id=ident,
    source_id=ident,
    target_id=ident,
    kind=ident,
    profile=st.sampled_from(ProfileName),
    claim=text,
    anchors=st.lists(anchors, max_size=2),
    lifecycle=ident,
    confidence=unit,
    attributes=attributes,
    **temporal(),
)
freshness = st.builds(
    MemoryFreshness,
    state=st.sampled_from(FreshnessState),
    checked_at=maybe_dt,
    stale_ids=st.lists(ident, max_size=3),
    reason=text,
    **temporal(),
)
summaries = st.builds(
    MemorySummary,
    id=ident,
    domain_id=ident,
    covers_node_ids=st.lists(ident, max_size=3),
    covers_edge_ids=st.lists(ident, max_size=3),
    covers_summary_ids=st.lists(ident, max_size=3),
    target=text,
    claim=text,
    question=text,
    tension=text,
    action_implication=text,
    anchor_count=st.integers(0, 1000),
    source_hashes=st.dictionaries(ident, ident, max_size=3),
    freshness=freshness,
    confidence=unit,
    known_omissions=st.lists(text, max_size=3),
    **temporal(),
)
receipts = st.builds(
    MemoryLifecycleReceipt,
    id=ident,
    patch_id=ident,
    op=ident,
    target_id=ident,
    target_type=st.sampled_from(["node", "edge", "summary", "embedding", "patch"]),
    profile=st.none() | st.sampled_from([p.value for p in ProfileName]),
    actor=text,
    at=aware,
    before=st.none() | ident,
    after=st.none() | ident,
    reason=text,
    details=attributes,
    **temporal(),
)
manifests = st.builds(
    MemoryEmbeddingManifest,
    node_id=ident,
    model=text,
    dimension=st.integers(1, 4096),
    source_hash=ident,
    embedded_at=aware,
    collection=text,
    **temporal(),
)
queries = st.builds(
    MemoryContextQuery,
    text=text,
    cut=st.sampled_from(CutName),
    budget_tokens=st.integers(1, 10**6),
    domain_id=st.none() | ident,
    as_of=maybe_dt,
    summary_confidence_threshold=unit,
    limit=st.integers(1, 500),
    **temporal(),
)
packets = st.builds(
    MemoryContextPacket,
    query=queries,
    nodes=st.lists(nodes, max_size=2),
    edges=st.lists(edges, max_size=2),
    summaries=st.lists(summaries, max_size=2),
    anchors=st.lists(anchors, max_size=2),
    warnings=st.lists(text, max_size=2),
    receipts=st.lists(receipts, max_size=2),
    omitted=st.lists(ident, max_size=2),
    tokens_used=st.integers(0, 10**6),
    **temporal(),
)
ops = st.one_of(
    st.builds(patch_ops.UpsertNode, node=nodes),
    st.builds(patch_ops.UpsertEdge, edge=edges),
    st.builds(patch_ops.RetireNode, node_id=ident, reason=text),
    st.builds(
        patch_ops.ReviseNode,
        node_id=ident,
        changes=st.builds(NodeRevision, title=st.none() | text, attributes=st.none() | attributes),
    ),
    st.builds(patch_ops.TransitionNode, node_id=ident, to_state=ident),
    st.builds(patch_ops.ReviewNode, node_id=ident, reviewer=text),
    st.builds(
        patch_ops.MergeNodes, source_ids=st.lists(ident, min_size=1, max_size=3), target_id=ident
    ),
    st.builds(patch_ops.AttachAnchor, node_id=ident, anchor=anchors),
    st.builds(patch_ops.SummarizeCluster, summary=summaries),
    st.builds(patch_ops.MarkStale, target_id=ident, source_hashes=st.none() | st.lists(ident)),
    st.builds(patch_ops.RefreshEmbedding, manifest=manifests),
    st.builds(
        patch_ops.ForcedSleep,
        domain_id=ident,
        dispositions=st.dictionaries(
            ident, st.sampled_from(patch_ops.SleepDisposition), max_size=3
        ),
    ),
)
patches = st.builds(
    MemoryPatchCandidate,
    id=ident,
    proposer=text,
    reason=text,
    ops=st.lists(ops, max_size=4),
    status=st.sampled_from(PatchStatus),
    created_at=aware,
    **temporal(),
)
snapshots = st.builds(
    MemoryGraphSnapshot,
    exported_at=maybe_dt,
    domains=st.lists(domains, max_size=2),
    nodes=st.lists(nodes, max_size=2),
    edges=st.lists(edges, max_size=2),
    summaries=st.lists(summaries, max_size=2),
    receipts=st.lists(receipts, max_size=2),
    embeddings=st.lists(manifests, max_size=2),
    patches=st.lists(patches, max_size=1),
    node_history=st.lists(nodes, max_size=2),
    **temporal(),
)

STRATEGIES: dict[type[BaseModel], st.SearchStrategy[Any]] = {
    MemoryGraphSnapshot: snapshots,
    MemoryDomain: domains,
    MemoryNode: nodes,
    MemoryEdge: edges,
    MemoryAnchor: anchors,
    MemorySummary: summaries,
    MemoryLifecycleReceipt: receipts,
    MemoryEmbeddingManifest: manifests,
    MemoryFreshness: freshness,
    MemoryContextQuery: queries,
    MemoryContextPacket: packets,
    MemoryPatchCandidate: patches,
}


def test_there_are_twelve_documents_and_each_has_a_strategy() -> None:
    assert len(ALL_DOCUMENTS) == 12
    assert set(ALL_DOCUMENTS) == set(STRATEGIES)


@pytest.mark.parametrize("model", ALL_DOCUMENTS, ids=lambda m: m.__name__)
def test_every_document_forbids_extra_fields_and_is_bitemporal(model: type[BaseModel]) -> None:
    assert model.model_config.get("extra") == "forbid"
    assert {"valid_from", "valid_to", "ingested_at"} <= set(model.model_fields)


@pytest.mark.parametrize("model", ALL_DOCUMENTS, ids=lambda m: m.__name__)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_json_round_trip_is_exact(model: type[BaseModel], data: st.DataObject) -> None:
    doc = data.draw(STRATEGIES[model])
    text1 = doc.model_dump_json()
    back = model.model_validate_json(text1)
    assert back == doc  # aware datetimes compare by instant
    assert back.model_dump_json() == text1  # and the JSON is a fixed point
    assert to_json(doc) == text1  # the store's fast path writes the very same text
    # extra keys are refused, never silently dropped
    with pytest.raises(ValidationError):
        model.model_validate_json(text1[:-1] + ',"surprise":1}')


def test_node_minimum_fields() -> None:
    want = {
        "id", "domain_id", "profile", "kind", "title", "claim", "question", "tension",
        "action_implication", "anchors", "source_hashes", "lifecycle", "salience",
        "confidence", "created_at", "updated_at", "valid_from", "valid_to", "ingested_at",
    }  # fmt: skip
    assert want <= set(MemoryNode.model_fields)


def test_edge_and_summary_minimum_fields() -> None:
    assert {
        "id", "source_id", "target_id", "kind", "profile", "claim", "anchors", "lifecycle",
        "confidence", "valid_from", "valid_to", "ingested_at",
    } <= set(MemoryEdge.model_fields)  # fmt: skip
    assert {
        "id", "domain_id", "covers_node_ids", "covers_edge_ids", "target", "claim", "tension",
        "action_implication", "anchor_count", "source_hashes", "freshness", "confidence",
        "known_omissions",
    } <= set(MemorySummary.model_fields)  # fmt: skip


def test_naive_datetimes_are_rejected() -> None:
    with pytest.raises(ValidationError):
        MemoryFreshness(checked_at=datetime(2026, 1, 1))


def test_datetimes_are_normalised_to_utc_and_serialised_with_z() -> None:
    plus2 = timezone(timedelta(hours=2))
    f = MemoryFreshness(checked_at=datetime(2026, 1, 1, 2, 0, tzinfo=plus2))
    assert f.checked_at is not None and f.checked_at.tzinfo is UTC
    assert '"checked_at":"2026-01-01T00:00:00Z"' in f.model_dump_json()


def test_confidence_is_bounded() -> None:
    with pytest.raises(ValidationError):
        MemoryFreshness.model_validate({"state": "rotten"})
    with pytest.raises(ValidationError):
        MemoryEmbeddingManifest(
            node_id="n", model="m", dimension=0, source_hash="h", embedded_at=datetime.now(UTC)
        )


def test_unknown_op_is_rejected_by_the_discriminator() -> None:
    with pytest.raises(ValidationError):
        MemoryPatchCandidate.model_validate(
            {"id": "p", "created_at": "2026-01-01T00:00:00Z", "ops": [{"op": "drop_table"}]}
        )


def test_evolve_matches_model_copy() -> None:
    f = MemoryFreshness(reason="a")
    now = datetime.now(UTC)
    a = evolve(f, {"checked_at": now})
    b = f.model_copy(update={"checked_at": now})
    assert a == b and a.model_fields_set == b.model_fields_set
    assert f.checked_at is None  # the original is untouched
