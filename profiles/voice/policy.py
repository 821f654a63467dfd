"""voice: what the operator said, verbatim.

Law: a message node keeps its text verbatim in ``claim`` and must carry a
transcript (or page) anchor; the text itself is never rewritten by a revision.
When a transcript record's text changes after capture, the new text is a new
node (version 2, 3, ...) and the old one moves to ``superseded`` with a receipt.
The one exception is ``memgraph forget`` (profiles.voice.forget): a node moves to
``forgotten`` (from any state; terminal) with its text replaced by ``FORGOTTEN``,
a tombstone whose receipt says who, when and why.
A classification, when present, is one of the eight labels with a confidence
in [0, 1] and at most three topics, whoever writes it (rules, Ollama, a user).
"""

from __future__ import annotations

from collections.abc import Iterable

from memgraph.documents import AnchorKind, MemoryNode, ProfileName
from profiles.base import Profile, RuleContext, table

FORGOTTEN = "[forgotten]"  # a tombstone's title and claim
FORGOTTEN_STATE = "forgotten"


def message_is_anchored_and_verbatim(
    before: MemoryNode | None, after: MemoryNode, ctx: RuleContext
) -> Iterable[str]:
    if after.kind != "message":
        return
    if not any(a.kind in (AnchorKind.transcript, AnchorKind.page) for a in after.anchors):
        yield f"{after.id}: a voice message needs a transcript or page anchor"
    if before is not None and before.claim != after.claim and after.lifecycle != FORGOTTEN_STATE:
        yield f"{after.id}: voice message text is verbatim and cannot be revised"


def forgotten_is_a_tombstone(
    before: MemoryNode | None, after: MemoryNode, ctx: RuleContext
) -> Iterable[str]:
    if after.lifecycle != FORGOTTEN_STATE:
        return
    if after.claim != FORGOTTEN or after.title != FORGOTTEN:
        yield f"{after.id}: a forgotten node keeps no text (title and claim {FORGOTTEN!r})"
    for key in ("forgotten_by", "forgotten_at"):
        if not after.attributes.get(key):
            yield f"{after.id}: a forgotten node records {key}"


def classification_is_valid(
    before: MemoryNode | None, after: MemoryNode, ctx: RuleContext
) -> Iterable[str]:
    if after.kind != "message" or after.attributes.get("classification") is None:
        return []
    from profiles.voice.classify.labels import classification_problems

    return classification_problems(after.id, after.attributes)


VOICE = Profile(
    name=ProfileName.voice,
    description="Operator messages pulled verbatim from agent transcripts; voice sessions.",
    node_kinds=frozenset({"message", "voice_session"}),
    edge_kinds=frozenset({"in_session", "follows"}),
    # superseded: the transcript record's text changed after capture; the newer text
    # is its own node (profiles.voice.capture) and this version stays searchable by as-of
    # forgotten: `memgraph forget` removed its text (a tombstone; terminal)
    states=("captured", "classified", "retired", "superseded", FORGOTTEN_STATE),
    initial=frozenset({"captured", "classified"}),
    transitions=table(
        captured={"classified", "retired", "superseded", FORGOTTEN_STATE},
        classified={"captured", "retired", "superseded", FORGOTTEN_STATE},
        superseded={"retired", FORGOTTEN_STATE},
        retired={FORGOTTEN_STATE},
    ),
    retired_state="retired",
    node_rules=(
        message_is_anchored_and_verbatim,
        classification_is_valid,
        forgotten_is_a_tombstone,
    ),
)
