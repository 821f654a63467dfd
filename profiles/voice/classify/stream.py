"""Classify a stream of ``{"id", "text"}`` JSON lines without touching the store.

Bad lines (not JSON, not an object, id/text missing or not strings, empty id)
are counted and described, never fatal: the good lines still get answers.
With Ollama, an answer that fails validation (unknown label, confidence out of
[0, 1], an id that was not asked, no answer at all) is replaced by the rule
classifier's answer for that message and counted as a fallback.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import ValidationError

from profiles.voice.classify.labels import Classification, Proposal
from profiles.voice.classify.night import Proposer
from profiles.voice.classify.rules import RuleClassifier

MAX_ID_CHARS = 200


@dataclass
class StreamResult:
    classified: list[Classification] = field(default_factory=list)
    bad_lines: list[str] = field(default_factory=list)  # "line N: why"
    fallbacks: list[str] = field(default_factory=list)  # "<id>: why the model answer was dropped"


def parse_lines(lines: Iterable[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """(``(id, text)`` pairs, ``"line N: why"`` for every bad non-blank line)."""
    items: list[tuple[str, str]] = []
    bad: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            bad.append(f"line {number}: not JSON")
            continue
        if not isinstance(obj, dict):
            bad.append(f"line {number}: not a JSON object")
            continue
        message_id, text = obj.get("id"), obj.get("text")
        if not isinstance(message_id, str) or not message_id.strip():
            bad.append(f"line {number}: id must be a non-empty string")
        elif len(message_id) > MAX_ID_CHARS:
            bad.append(f"line {number}: id longer than {MAX_ID_CHARS} characters")
        elif not isinstance(text, str):
            bad.append(f"line {number}: text must be a string")
        else:
            items.append((message_id, text))
    return items, bad


def validated(
    items: Sequence[tuple[str, str]], proposals: Sequence[Proposal]
) -> tuple[dict[str, Classification], list[str]]:
    """Model proposals that pass validation, by id, and why the others did not."""
    asked = {message_id for message_id, _ in items}
    good: dict[str, Classification] = {}
    problems: list[str] = []
    reported: set[str] = set()
    for proposal in proposals:
        reported.add(proposal.id)
        if proposal.id not in asked:
            problems.append(f"{proposal.id[:80]}: not one of the messages sent")
            continue
        try:
            good[proposal.id] = Classification.model_validate(
                {"id": proposal.id, **proposal.attributes()}
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            problems.append(f"{proposal.id}: {first['loc'][0]}: {first['msg']}")
    problems.extend(f"{i}: no answer" for i, _ in items if i not in reported)
    return good, problems


def classify_stream(lines: Iterable[str], proposer: Proposer | None = None) -> StreamResult:
    """Classify every good line with ``proposer`` (None: the rules), rules as fallback."""
    items, bad = parse_lines(lines)
    result = StreamResult(bad_lines=bad)
    rules = RuleClassifier()
    if proposer is None or isinstance(proposer, RuleClassifier):
        result.classified = rules.classify(items)
        return result
    good, result.fallbacks = validated(items, proposer.propose(items))
    for message_id, text in items:
        if message_id in good:
            result.classified.append(good[message_id])
        else:
            result.classified.append(rules.classify([(message_id, text)])[0])
    return result
