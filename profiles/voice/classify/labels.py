"""The eight message categories and the validated shape of one classification.

A classification is a label, a confidence in [0, 1] and up to three topics.
``classification_problems`` is the check every proposer's output goes through
before it may touch a message node (rules and Ollama alike).
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memgraph.documents.base import Confidence, Document

MAX_TOPICS = 3
MAX_TOPIC_CHARS = 40


class Label(StrEnum):
    definition = "definition"  # what a term means here
    decision = "decision"  # a choice that settles something
    directive = "directive"  # a standing instruction: always / never / from now on
    correction = "correction"  # the agent got something wrong
    question = "question"
    rationale = "rationale"  # why something is (or must be) so
    preference = "preference"  # taste: I prefer / I'd rather
    command = "command"  # one-off operational request: run / commit / fix / show


LABELS: tuple[str, ...] = tuple(label.value for label in Label)

# Search ranks by what a message says about intent; a one-off "run the tests"
# says almost nothing, so readers multiply scores by this weight.
SEARCH_WEIGHT: dict[Label, float] = {
    Label.decision: 1.0,
    Label.directive: 1.0,
    Label.correction: 1.0,
    Label.definition: 0.95,
    Label.rationale: 0.95,
    Label.preference: 0.9,
    Label.question: 0.8,
    Label.command: 0.3,
}


def normalize_topics(topics: list[str]) -> list[str]:
    """Trimmed, lower-cased, de-duplicated, at most ``MAX_TOPICS`` of bounded length."""
    out: list[str] = []
    for raw in topics:
        topic = " ".join(str(raw).split()).lower()[:MAX_TOPIC_CHARS]
        if topic and topic not in out:
            out.append(topic)
        if len(out) == MAX_TOPICS:
            break
    return out


class Classification(Document):
    """One message's classification, as every classifier returns it."""

    id: str = Field(min_length=1, max_length=200)
    classification: Label
    confidence: Confidence
    topics: list[str] = Field(default_factory=list, max_length=MAX_TOPICS)

    @field_validator("topics", mode="before")
    @classmethod
    def _topics(cls, value: Any) -> Any:
        if isinstance(value, list):
            return normalize_topics([str(v) for v in value])
        return value

    def attributes(self) -> dict[str, Any]:
        """The message-node attributes this classification sets."""
        return {
            "classification": self.classification.value,
            "confidence": round(self.confidence, 3),
            "topics": list(self.topics),
        }


class Proposal(BaseModel):
    """What a classifier proposes for one message, before validation.

    Deliberately loose (any label string, any number): a model's wrong answer
    must reach validation and be rejected with a receipt, not vanish in parsing.
    """

    model_config = ConfigDict(extra="ignore")

    id: str
    classification: str
    confidence: float
    topics: list[str] = Field(default_factory=list)

    @field_validator("topics", mode="before")
    @classmethod
    def _loose_topics(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v) for v in value if isinstance(v, str | int | float)]
        return value

    def attributes(self) -> dict[str, Any]:
        """Attributes as proposed; labels are only trimmed/lower-cased, never guessed."""
        conf = self.confidence
        return {
            "classification": self.classification.strip().lower(),
            "confidence": round(conf, 3) if math.isfinite(conf) else conf,
            "topics": normalize_topics(self.topics),
        }

    @classmethod
    def of(cls, classification: Classification) -> Proposal:
        return cls(
            id=classification.id,
            classification=classification.classification.value,
            confidence=classification.confidence,
            topics=list(classification.topics),
        )


def classification_problems(node_id: str, attributes: dict[str, Any]) -> list[str]:
    """Why ``attributes`` are not a valid classification of a message (empty: valid).

    Checks the three contract attributes only; ``None`` classification means
    "not classified yet" and is valid, and a ``None`` confidence means unknown.
    """
    problems: list[str] = []
    label = attributes.get("classification")
    if label is None:
        return problems
    if not isinstance(label, str) or label not in LABELS:
        problems.append(f"{node_id}: unknown classification {str(label)[:40]!r}")
    conf = attributes.get("confidence")
    if conf is None:
        pass  # a hand-set label may come without a confidence: unknown, not wrong
    elif isinstance(conf, bool) or not isinstance(conf, int | float):
        problems.append(f"{node_id}: confidence must be a number, got {str(conf)[:40]!r}")
    elif math.isnan(conf) or not 0.0 <= conf <= 1.0:
        problems.append(f"{node_id}: confidence {conf!r} is outside [0, 1]")
    topics = attributes.get("topics", [])
    if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
        problems.append(f"{node_id}: topics must be a list of strings")
    elif len(topics) > MAX_TOPICS:
        problems.append(f"{node_id}: {len(topics)} topics, at most {MAX_TOPICS} allowed")
    return problems
