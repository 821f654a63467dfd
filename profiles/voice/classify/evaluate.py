"""Accuracy and a confusion matrix of a classifier on a human-labeled sample.

The sample is JSON lines ``{"id", "text", "label", "split"?}``; ``split`` is
``dev`` (rules were tuned looking at these) or ``holdout`` (never looked at
while tuning). A malformed line is an error naming the line: a labeled sample
is curated data, so silently skipping part of it would misreport accuracy.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field, ValidationError

from memgraph.documents.base import Document
from memgraph.errors import ReaderError
from profiles.voice.classify.labels import LABELS, Classification, Label

MAX_LABELED_BYTES = 64 * 1024 * 1024  # a labeled sample is a few MB at most


class LabeledMessage(Document):
    id: str = Field(min_length=1)
    text: str
    label: Label
    split: str = "dev"


def parse_labeled(text: str, source: str = "<labeled>") -> list[LabeledMessage]:
    """Parse a labeled sample; raises ``ReaderError`` naming the first bad line."""
    items: list[LabeledMessage] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = LabeledMessage.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError, TypeError) as exc:
            first = str(exc).splitlines()[0][:120]
            raise ReaderError(f"{source}:{number}: not a labeled message ({first})") from None
        if item.id in seen:
            raise ReaderError(f"{source}:{number}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def load_labeled(path: Path) -> list[LabeledMessage]:
    from memgraph.inputs import read_bounded

    data = read_bounded(path, MAX_LABELED_BYTES, "labeled sample")  # regular files only
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReaderError(f"cannot read labeled sample {path}: {exc}") from None
    return parse_labeled(text, str(path))


@dataclass
class EvalReport:
    total: int = 0
    correct: int = 0
    # confusion[truth][predicted] = count
    confusion: dict[str, dict[str, int]] = field(
        default_factory=lambda: {t: dict.fromkeys(LABELS, 0) for t in LABELS}
    )
    errors: list[tuple[str, str, str, str]] = field(default_factory=list)  # id, truth, got, text

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def per_label(self) -> dict[str, tuple[float, float]]:
        """label -> (precision, recall)."""
        out: dict[str, tuple[float, float]] = {}
        for label in LABELS:
            tp = self.confusion[label][label]
            predicted = sum(self.confusion[t][label] for t in LABELS)
            actual = sum(self.confusion[label].values())
            out[label] = (tp / predicted if predicted else 0.0, tp / actual if actual else 0.0)
        return out


Classify = Callable[[Sequence[tuple[str, str]]], list[Classification]]


def evaluate(classify: Classify, items: Iterable[LabeledMessage]) -> EvalReport:
    """Run ``classify`` over ``items`` and compare with the human labels."""
    items = list(items)
    got = {c.id: c.classification.value for c in classify([(i.id, i.text) for i in items])}
    report = EvalReport()
    for item in items:
        predicted = got.get(item.id)
        if predicted is None:
            raise ReaderError(f"classifier returned no answer for {item.id}")
        report.total += 1
        report.confusion[item.label.value][predicted] += 1
        if predicted == item.label.value:
            report.correct += 1
        else:
            report.errors.append((item.id, item.label.value, predicted, item.text))
    return report


def format_confusion(report: EvalReport) -> str:
    """A markdown confusion matrix: rows are the human label, columns the prediction."""
    short = {label: label[:4] for label in LABELS}
    header = "| truth \\ predicted | " + " | ".join(short[c] for c in LABELS) + " | recall |"
    lines = [header, "|" + "---|" * (len(LABELS) + 2)]
    per = report.per_label()
    for truth in LABELS:
        row = " | ".join(str(report.confusion[truth][c]) for c in LABELS)
        lines.append(f"| {truth} | {row} | {per[truth][1]:.2f} |")
    precision = " | ".join(f"{per[c][0]:.2f}" for c in LABELS)
    lines.append(f"| precision | {precision} | |")
    return "\n".join(lines)
