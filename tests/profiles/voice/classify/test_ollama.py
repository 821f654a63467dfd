"""The Ollama proposer against a loopback Ollama-protocol server (real HTTP)."""

from __future__ import annotations

import contextlib
import json
import socket
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.config import load_settings
from profiles.voice.classify.labels import LABELS
from profiles.voice.classify.ollama import (
    OllamaClassifier,
    OllamaConfig,
    OllamaOutputError,
    OllamaRefused,
    OllamaUnavailable,
    answer_schema,
    batches,
    parse_answer,
)

ITEMS = [("m1", "run the tests"), ("m2", "why is ci red?"), ("m3", "never push to main")]


def classifier(fake: Any, **kw: Any) -> OllamaClassifier:
    config = OllamaConfig(host=fake.host, timeout=kw.pop("timeout", 5.0), backoff=0.0, **kw)
    return OllamaClassifier(config)


def test_good_answer_becomes_proposals_and_request_is_structured(
    ollama_server: Any,
) -> None:
    proposals = classifier(ollama_server, model="gemma4:e2b").propose(ITEMS)
    assert [(p.id, p.classification) for p in proposals] == [
        ("m1", "command"),
        ("m2", "question"),
        ("m3", "directive"),
    ]
    [request] = ollama_server.requests
    assert request["model"] == "gemma4:e2b"
    assert request["stream"] is False
    assert request["format"] == answer_schema()
    assert request["format"]["properties"]["items"]["items"]["properties"]["classification"][
        "enum"
    ] == list(LABELS)
    sent = json.loads(request["messages"][-1]["content"])
    assert sent == [{"id": i, "text": t} for i, t in ITEMS]
    assert request["messages"][0]["role"] == "system"


def test_batches_of_about_500_tokens(ollama_server: Any) -> None:
    items = [(f"m{i}", "please run the whole test suite again " * 5) for i in range(40)]
    proposals = classifier(ollama_server, batch_tokens=500).propose(items)
    assert [p.id for p in proposals] == [i for i, _ in items]
    assert len(ollama_server.requests) > 1
    for request in ollama_server.requests:
        sent = json.loads(request["messages"][-1]["content"])
        assert sum(len(m["text"]) // 4 + 12 for m in sent) <= 500


def test_malformed_json_is_retried_then_reported(ollama_server: Any) -> None:
    ollama_server.default = ollama_server.content("{not json at all")
    with pytest.raises(OllamaOutputError, match=r"not the expected JSON.*after 3 attempts"):
        classifier(ollama_server, retries=2).propose(ITEMS)
    assert len(ollama_server.requests) == 3


def test_schema_violating_shape_is_malformed(ollama_server: Any) -> None:
    ollama_server.default = ollama_server.content(json.dumps({"answers": [{"id": "m1"}]}))
    with pytest.raises(OllamaOutputError):
        classifier(ollama_server, retries=0).propose(ITEMS)
    assert len(ollama_server.requests) == 1


def test_schema_violating_values_are_passed_on_for_validation(ollama_server: Any) -> None:
    # labels and ranges are validation's business, not the parser's: a rejected
    # patch must record what the model actually said
    bad = {"items": [{"id": "m1", "classification": "shout", "confidence": 7, "topics": []}]}
    ollama_server.default = ollama_server.good(lambda items: bad)
    [proposal] = classifier(ollama_server).propose(ITEMS)
    assert (proposal.classification, proposal.confidence) == ("shout", 7.0)


def test_retry_recovers_after_a_bad_answer(ollama_server: Any) -> None:
    ollama_server.script(ollama_server.content("garbage"), ollama_server.status(503))
    proposals = classifier(ollama_server, retries=2).propose(ITEMS)
    assert len(proposals) == 3
    assert len(ollama_server.requests) == 3


def test_server_error_is_unavailable_after_bounded_retries(ollama_server: Any) -> None:
    ollama_server.default = ollama_server.status(500)
    with pytest.raises(OllamaUnavailable, match=r"failed.*after 2 attempts"):
        classifier(ollama_server, retries=1).propose(ITEMS)
    assert len(ollama_server.requests) == 2


def test_unknown_model_is_not_retried(ollama_server: Any) -> None:
    ollama_server.default = ollama_server.status(404, '{"error":"model \\"nope\\" not found"}')
    with pytest.raises(OllamaRefused, match="not found"):
        classifier(ollama_server, retries=3).propose(ITEMS)
    assert len(ollama_server.requests) == 1


def test_slow_answer_times_out(ollama_server: Any) -> None:
    ollama_server.default = ollama_server.slow(3.0)
    with pytest.raises(OllamaUnavailable, match=r"did not answer within 0\.3s"):
        classifier(ollama_server, timeout=0.3, retries=1).propose(ITEMS)
    assert len(ollama_server.requests) == 2


def test_unreachable_host() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = OllamaConfig(host=f"http://127.0.0.1:{port}", timeout=2, retries=1, backoff=0)
    with pytest.raises(OllamaUnavailable, match="unreachable"):
        OllamaClassifier(config).propose(ITEMS)


def test_config_from_settings_reads_ollama_host_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("MEMGRAPH_OLLAMA_RETRIES", "4")
    config = OllamaConfig.from_settings(load_settings())
    assert config.host == "http://127.0.0.1:9"
    assert (config.model, config.retries, config.batch_tokens) == ("gemma4:e2b", 4, 500)


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_parse_answer_never_crashes(text: str) -> None:
    try:
        proposals = parse_answer(text)
    except OllamaOutputError as exc:
        assert "\n" not in str(exc)
    else:
        assert all(isinstance(p.id, str) for p in proposals)


@given(
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=12,
    )
)
@settings(max_examples=200, deadline=None)
def test_parse_answer_on_hostile_json(value: Any) -> None:
    with contextlib.suppress(OllamaOutputError):
        parse_answer(json.dumps({"items": [value]}))


def test_parse_answer_deeply_nested() -> None:
    with pytest.raises(OllamaOutputError):
        parse_answer("[" * 100_000 + "]" * 100_000)


@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=5), st.text(max_size=3000)), max_size=30),
    st.integers(min_value=1, max_value=2000),
)
@settings(max_examples=100, deadline=None)
def test_batches_keep_order_and_budget(items: list[tuple[str, str]], budget: int) -> None:
    out = batches(items, budget)
    assert [i for batch in out for i, _ in batch] == [i for i, _ in items]
    for batch in out:
        cost = sum(len(t) // 4 + 12 for _, t in batch)
        assert cost <= budget or len(batch) == 1
        assert all(len(t) <= 2000 for _, t in batch)
