"""Deterministic rule classifier: weighted cue patterns, no model.

Each label has cue patterns with weights. A message scores the sum of the
weights of the cues it matches; the highest score wins, ties go to the label
listed first in ``PRIORITY``. Confidence grows with the winning score and with
its margin over the runner-up, so a message that matches one weak cue, or two
labels equally, comes out unsure. A message that matches nothing falls back by
shape: short imperative-looking text is a ``command``, anything else a
``directive`` at low confidence.

The cues and the label order: ``profiles.voice.classify.cues``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from profiles.voice.classify.cues import COMMAND_VERBS, CUES, IMPERATIVE_START, PRIORITY
from profiles.voice.classify.labels import (
    MAX_TOPICS,
    Classification,
    Label,
    Proposal,
    normalize_topics,
)

_STOPWORD_LINES = (
    "wrong right good bad fine better worse nice nicer cleaner prefer rather",
    "nothing something anything everything thing things does doing done way bit lot",
    "yet then than via per etc maybe perhaps",
    "a an and are as at be been but by can could did do does dont don't for from had",
    "has have i i'd i'm if in into is it it's its just let lets let's me my no not",
    "now of on or our out pls please so some still such than that thats that's the",
    "their them then there these they this those to too u up us use using was we",
    "we'll were what whats when where which while who why will with would you your",
    "youre you're ok okay yes also all any every always never again here there only",
    "more less much many very really actually about after before over under via get",
    "got go going make made want need like one two new old first last same other",
    "thing stuff run show fix check try sure btw fyi ever should must think know",
    "because since otherwise der die das und ist nicht ein eine mit für auf el la los",
    "las que de en con por para una |",
)
_STOPWORDS = frozenset(w for line in _STOPWORD_LINES for w in line.split()) | frozenset(
    COMMAND_VERBS.split("|")
)

_CODE_TOKEN = re.compile(
    r"`([^`\n]{2,40})`"  # backticked
    r"|((?<![\w.-])(?:[\w.-]{1,64}/){1,8}[\w.-]{1,64})"  # paths (bounded: no backtracking blowup)
    r"|(\b[a-z]+(?:_[a-z0-9]+)+\b)"  # snake_case
    r"|(\b[A-Za-z][a-z0-9]*(?:[A-Z]+[a-z0-9]+)+\b)"  # CamelCase, SQLiteStore
    r"|(\b[a-z]+\.[a-z_]+(?:\.[a-z_]+)*\b)"  # dotted.names
)
# Apostrophes stay inside a word so "don't" is one (contraction) token, which
# is then skipped, instead of leaving a topic "don".
_WORD = re.compile(r"[^\W\d_][\w'’+-]{2,}", re.UNICODE)


def extract_topics(text: str, limit: int = MAX_TOPICS) -> list[str]:
    """Up to ``limit`` topics: code-ish tokens first, then the most frequent content words."""
    topics: list[str] = []
    text = _window(text)
    for match in _CODE_TOKEN.finditer(text):
        token = next(g for g in match.groups() if g)
        topics.append(token.strip("./-"))
    words = [w.lower() for w in _WORD.findall(_CODE_TOKEN.sub(" ", text))]
    counts = Counter(
        w for w in words if w not in _STOPWORDS and len(w) >= 3 and "'" not in w and "’" not in w
    )
    # most frequent first; among equals, the earliest in the message
    order = {w: i for i, w in reversed(list(enumerate(words)))}
    topics.extend(sorted(counts, key=lambda w: (-counts[w], order[w])))
    return normalize_topics(topics)[:limit]


@dataclass(frozen=True)
class RuleScore:
    label: Label
    confidence: float
    scores: dict[Label, float]


# Cues sit near the start of a message (and a question mark at its end); a
# pasted log of megabytes adds nothing but regex time.
MAX_RULE_CHARS = 4000


def _window(text: str) -> str:
    if len(text) <= MAX_RULE_CHARS:
        return text
    return text[: MAX_RULE_CHARS - 200] + " " + text[-200:]


def score_text(text: str) -> RuleScore:
    """The winning label, its confidence, and every label's raw score."""
    clean = " ".join(_window(text).split())
    scores = {label: 0.0 for label in PRIORITY}
    for label, cues in CUES.items():
        for pattern, weight in cues:
            if pattern.search(clean):
                scores[label] += weight
    ranked = sorted(PRIORITY, key=lambda lab: (-scores[lab], PRIORITY.index(lab)))
    best, second = ranked[0], ranked[1]
    top, margin = scores[best], scores[best] - scores[second]
    if top <= 0.0:
        short = len(clean.split()) <= 6
        if short and (IMPERATIVE_START.search(clean) or not clean.endswith(".")):
            return RuleScore(Label.command, 0.35, scores)
        # a plain statement with no cue most often records how things will be
        return RuleScore(Label.decision if not short else Label.command, 0.25, scores)
    # 0.4 for a lone weak cue, approaching 0.95 for a strong, uncontested match
    confidence = 0.4 + 0.35 * min(top, 5.0) / 5.0 + 0.2 * min(margin, 3.0) / 3.0
    return RuleScore(best, round(min(confidence, 0.95), 3), scores)


def classify_text(message_id: str, text: str) -> Classification:
    """Classify one message deterministically (same text, same answer)."""
    result = score_text(text)
    return Classification(
        id=message_id,
        classification=result.label,
        confidence=result.confidence,
        topics=extract_topics(text),
    )


class RuleClassifier:
    """The deterministic classifier behind ``--classifier rules``."""

    name = "rules"

    def classify(self, items: Iterable[tuple[str, str]]) -> list[Classification]:
        """Classify ``(id, text)`` pairs; never fails, never calls out."""
        return [classify_text(message_id, text) for message_id, text in items]

    def propose(self, items: Iterable[tuple[str, str]]) -> list[Proposal]:
        """The night pass's view: the same answers, as proposals to validate."""
        return [Proposal.of(c) for c in self.classify(items)]
