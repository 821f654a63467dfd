"""Classifying a JSON-lines stream: bad lines counted, model answers validated."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from profiles.voice.classify.ollama import OllamaClassifier, OllamaConfig
from profiles.voice.classify.stream import classify_stream, parse_lines


def test_parse_lines_counts_every_kind_of_bad_line() -> None:
    lines = [
        '{"id": "a", "text": "run it"}',
        "",
        "not json",
        "[1]",
        '{"id": "", "text": "x"}',
        '{"id": 5, "text": "x"}',
        '{"id": "b"}',
        '{"id": "' + "x" * 300 + '", "text": "x"}',
        '{"id": "c", "text": "why?", "extra": true}',
        '{"id": "d", "te',  # truncated
    ]
    items, bad = parse_lines(lines)
    assert items == [("a", "run it"), ("c", "why?")]
    assert [b.split(":")[0] for b in bad] == [f"line {n}" for n in (3, 4, 5, 6, 7, 8, 10)]


@given(st.lists(st.text(max_size=80), max_size=20))
@settings(max_examples=200, deadline=None)
def test_parse_lines_never_crashes(lines: list[str]) -> None:
    items, bad = parse_lines(lines)
    assert len(items) + len(bad) <= len(lines)
    assert all("\n" not in b for b in bad)


def test_rules_stream() -> None:
    result = classify_stream(['{"id": "a", "text": "show me the diff"}', "{"])
    assert [(c.id, c.classification.value) for c in result.classified] == [("a", "command")]
    assert len(result.bad_lines) == 1 and not result.fallbacks


def test_invalid_model_answers_fall_back_to_rules(ollama_server: Any) -> None:
    def answer(items: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "items": [
                {"id": "a", "classification": "decision", "confidence": 0.7, "topics": ["t"]},
                {"id": "b", "classification": "yelling", "confidence": 0.7, "topics": []},
                {"id": "zzz", "classification": "question", "confidence": 0.7, "topics": []},
            ]
        }

    ollama_server.default = ollama_server.good(answer)
    lines = [json.dumps({"id": i, "text": t}) for i, t in [("a", "x"), ("b", "why?"), ("c", "y")]]
    proposer = OllamaClassifier(OllamaConfig(host=ollama_server.host, timeout=5, backoff=0))
    result = classify_stream(lines, proposer)
    got = {c.id: (c.classification.value, c.topics) for c in result.classified}
    assert got["a"] == ("decision", ["t"])  # the model's valid answer
    assert got["b"][0] == "question"  # rules, after the model's invalid label
    assert [c.id for c in result.classified] == ["a", "b", "c"]
    assert len(result.fallbacks) == 3  # b: bad label, zzz: not asked, c: no answer
