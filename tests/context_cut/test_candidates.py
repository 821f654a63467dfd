"""Candidate ranking: OR-BM25 over content words, RRF, hostile queries, recall."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from context_cut import select_context_cut
from context_cut.api import RecallRequest, recall
from context_cut.candidates import bm25_ranking, gather, query_terms, rrf
from memgraph.documents import MemoryContextQuery


def test_query_terms_drop_stopwords_and_fold() -> None:
    assert query_terms("Why did we DROP the Café cache?") == ["drop", "cafe", "cache"]
    assert query_terms("what is it") == ["what", "is", "it"]  # only stopwords: keep them
    assert query_terms("") == []


def test_rrf_rewards_agreement() -> None:
    scores = rrf([["a", "b", "c"], ["c", "a"]])
    assert max(scores, key=lambda k: scores[k]) == "a"
    assert scores["c"] > scores["b"]


def test_bm25_is_an_or_over_terms(graph: Any, mk: Any) -> None:
    both = mk.node("repo_architecture", "Cache and queue", "cache in front of the queue")
    one = mk.node("repo_architecture", "Queue only", "the queue drains")
    graph.nodes(both, one)
    ranked = [n for n, _ in bm25_ranking(graph.store, ["cache", "queue", "nothing"], 10)]
    assert ranked == [both.id, one.id]  # AND would have found only the first


@given(st.text(max_size=200))
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_hostile_queries_never_raise(graph: Any, mk: Any, text: str) -> None:
    if not graph.store.counts()["nodes"]:
        graph.nodes(mk.node("repo_architecture", "Parser", 'the parser "quotes" NEAR( AND * ^'))
    result = gather(graph.store, text, 10)
    assert all(c.node_id.startswith("n-") for c in result.ranked)
    if text.strip():
        select_context_cut(graph.store, MemoryContextQuery(text=text, budget_tokens=100))


def _voice(mk: Any, text: str, session: str, project: str, minutes: int = 0) -> Any:
    node = mk.node(
        "voice",
        text,
        text,
        kind="message",
        session_id=session,
        project=project,
        record_uuid=f"u-{abs(hash(text))}",
    )
    return node.model_copy(update={"valid_from": mk.t0 + timedelta(minutes=minutes)})


def test_recall_returns_only_voice_messages_with_filters(graph: Any, mk: Any) -> None:
    m1 = _voice(mk, "let's rip out the retry loop in the uploader", "s1", "alpha")
    m2 = _voice(mk, "the retry loop should back off exponentially", "s2", "beta", 30)
    note = mk.node("repo_architecture", "Retry loop", "retry loop lives in uploader")
    graph.nodes(m1, m2, note)
    hits = recall(graph.store, RecallRequest(text="retry loop")).hits
    assert {h.node.id for h in hits} == {m1.id, m2.id}
    assert [h.rank for h in hits] == [1, 2]
    only = recall(graph.store, RecallRequest(text="retry loop", project="beta")).hits
    assert [h.node.id for h in only] == [m2.id]
    since = recall(
        graph.store, RecallRequest(text="retry", since=mk.t0 + timedelta(minutes=10))
    ).hits
    assert [h.node.id for h in since] == [m2.id]
    assert (
        recall(graph.store, RecallRequest(text="retry", session_id="s1")).hits[0].node.id == m1.id
    )


def test_recall_request_rejects_bad_input() -> None:
    with pytest.raises(ValidationError):
        RecallRequest(text="")
    with pytest.raises(ValidationError):
        RecallRequest(text="x", limit=0)
    with pytest.raises(ValidationError):
        RecallRequest(text="x", colour="red")  # type: ignore[call-arg]
