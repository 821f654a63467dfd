"""Labels, the classification check, and the evaluation harness."""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from memgraph.errors import ReaderError
from profiles.voice.classify.evaluate import (
    LabeledMessage,
    evaluate,
    format_confusion,
    load_labeled,
    parse_labeled,
)
from profiles.voice.classify.labels import (
    LABELS,
    SEARCH_WEIGHT,
    Classification,
    Label,
    Proposal,
    classification_problems,
)
from profiles.voice.classify.rules import RuleClassifier

HERE = Path(__file__).parent
SAMPLES = [HERE / f"{n}.jsonl" for n in ("labeled", "labeled_blind", "labeled_blind2")]


def test_eight_categories_and_command_ranks_lowest() -> None:
    assert LABELS == (
        "definition",
        "decision",
        "directive",
        "correction",
        "question",
        "rationale",
        "preference",
        "command",
    )
    assert min(SEARCH_WEIGHT, key=lambda lab: SEARCH_WEIGHT[lab]) is Label.command
    assert set(SEARCH_WEIGHT) == set(Label)


def test_classification_model_validates() -> None:
    c = Classification(id="m", classification="decision", confidence=0.5, topics=[" A ", "a", "b"])
    assert c.topics == ["a", "b"]
    assert c.attributes() == {"classification": "decision", "confidence": 0.5, "topics": ["a", "b"]}
    for bad in (
        {"classification": "shout", "confidence": 0.5},
        {"classification": "decision", "confidence": 1.01},
        {"classification": "decision", "confidence": 0.5, "extra": 1},
    ):
        with pytest.raises(ValidationError):
            Classification.model_validate({"id": "m", **bad})


@pytest.mark.parametrize(
    ("attrs", "problem"),
    [
        ({"classification": None}, None),
        ({"classification": "decision", "confidence": 0.2, "topics": []}, None),
        ({"classification": "Decision", "confidence": 0.2}, "unknown classification"),
        ({"classification": 3, "confidence": 0.2}, "unknown classification"),
        ({"classification": "decision", "confidence": "high"}, "must be a number"),
        ({"classification": "decision", "confidence": True}, "must be a number"),
        ({"classification": "decision", "confidence": math.nan}, "outside"),
        ({"classification": "decision", "confidence": 0.5, "topics": "x"}, "list of strings"),
        ({"classification": "decision", "confidence": 0.5, "topics": list("abcd")}, "at most 3"),
    ],
)
def test_classification_problems(attrs: dict[str, Any], problem: str | None) -> None:
    found = classification_problems("n-1", attrs)
    if problem is None:
        assert found == []
    else:
        assert found and problem in found[0]


@given(
    st.dictionaries(
        st.sampled_from(["classification", "confidence", "topics"]), st.from_type(object)
    )
)
@settings(max_examples=200, deadline=None)
def test_classification_problems_never_crash(attrs: dict[str, Any]) -> None:
    assert isinstance(classification_problems("n", attrs), list)


def test_proposal_keeps_wrong_answers_for_validation() -> None:
    p = Proposal.model_validate(
        {"id": "m", "classification": " Decision ", "confidence": 3, "topics": ["x", 1, None]}
    )
    attrs = p.attributes()
    assert attrs == {"classification": "decision", "confidence": 3, "topics": ["x", "1"]}
    assert classification_problems("m", attrs) == ["m: confidence 3.0 is outside [0, 1]"]


@pytest.mark.parametrize("path", SAMPLES)
def test_labeled_samples_are_well_formed_and_balanced(path: Path) -> None:
    items = load_labeled(path)
    counts = Counter(i.label for i in items)
    assert set(counts) == set(Label)
    assert max(counts.values()) == min(counts.values())
    assert len({i.text for i in items}) == len(items)


def test_labeled_sample_size() -> None:
    assert len(load_labeled(SAMPLES[0])) >= 60


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"id": "a", "text": "x", "label": "decision"}\nnot json\n', ":2:"),
        ('{"id": "a", "text": "x", "label": "bogus"}\n', ":1:"),
        ('{"id": "a", "text": "x"}\n', ":1:"),
        ("[1, 2]\n", ":1:"),
        ('{"id": "a", "text": "x", "label": "question"}\n' * 2, "duplicate"),
        ('{"id": "a", "text": "x", "label": "question", "x": 1}\n', ":1:"),
    ],
)
def test_parse_labeled_rejects_bad_lines(text: str, where: str) -> None:
    with pytest.raises(ReaderError, match=where):
        parse_labeled(text, "s.jsonl")


def test_truncated_sample_file(tmp_path: Path) -> None:
    good = SAMPLES[0].read_text(encoding="utf-8")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(good[: len(good) // 2 - 7], encoding="utf-8")
    with pytest.raises(ReaderError, match=r"cut\.jsonl:"):
        load_labeled(cut)
    with pytest.raises(ReaderError, match="cannot read"):
        load_labeled(tmp_path / "missing.jsonl")


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_parse_labeled_never_crashes(text: str) -> None:
    try:
        parse_labeled(text)
    except ReaderError as exc:
        assert "\n" not in str(exc)


def test_confusion_matrix_counts() -> None:
    items = [
        LabeledMessage(id="1", text="run the tests", label=Label.command),
        LabeledMessage(id="2", text="why?", label=Label.question),
        LabeledMessage(id="3", text="run the tests", label=Label.directive),
    ]
    report = evaluate(RuleClassifier().classify, items)
    assert (report.total, report.correct) == (3, 2)
    assert report.confusion["directive"]["command"] == 1
    assert report.errors == [("3", "directive", "command", "run the tests")]
    table = format_confusion(report)
    assert table.count("\n") == len(LABELS) + 2
    assert "| directive | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 0.00 |" in table
    precision, recall = report.per_label()["command"]
    assert (precision, recall) == (0.5, 1.0)


def test_evaluate_needs_an_answer_for_every_item() -> None:
    items = [LabeledMessage(id="1", text="x", label=Label.command)]
    with pytest.raises(ReaderError, match="no answer"):
        evaluate(lambda pairs: [], items)


def test_sample_lines_are_json_objects() -> None:
    for path in SAMPLES:
        for line in path.read_text(encoding="utf-8").splitlines():
            assert set(json.loads(line)) == {"id", "text", "label", "split"}


def test_a_labeled_sample_that_is_not_a_file_is_one_reader_error(tmp_path: Path) -> None:
    fifo = tmp_path / "sample.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ReaderError, match=r"labeled sample .*not a regular file"):
        load_labeled(fifo)
    with pytest.raises(ReaderError, match="no such file"):
        load_labeled(tmp_path / "missing.jsonl")
