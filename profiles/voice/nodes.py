"""OperatorMessage -> voice message node (the contract in notes/CONVENTIONS.md).

A message node's id is a pure function of (session_id, record_uuid), so capturing
the same transcript twice proposes identical upserts, which the engine turns
into no-ops. Project/constellation come from the session's working directory:
the git top-level's name when the directory is inside a repository (a linked
worktree counts as its main repository), else the directory's own name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName
from memgraph.ids import anchor_id
from profiles.voice.model import OperatorMessage
from profiles.voice.nodekeys import (
    MESSAGE_KEYS,
    SESSION_KEYS,
    TITLE_CHARS,
    UNKNOWN_PROJECT,
    domain_id,
    message_attributes,
    message_node_id,
    message_title,
    message_version_id,
    resolve_project,
    safe_component,
    session_node_id,
    storable,
    storable_path,
)


@dataclass(frozen=True)
class NodeContext:
    """What every node of one session shares."""

    constellation: str
    project: str
    ingested_at: datetime
    voice_page: str | None = None


def transcript_anchor(msg: OperatorMessage) -> MemoryAnchor:
    ref, uuid = storable_path(msg.transcript), storable(msg.record_uuid)
    return MemoryAnchor(
        id=anchor_id("transcript", ref, str(msg.line), uuid),
        kind=AnchorKind.transcript,
        ref=ref,
        line=msg.line,
        record_uuid=uuid,
    )


def message_node(msg: OperatorMessage, ctx: NodeContext) -> MemoryNode:
    text = storable(msg.text)
    attributes = message_attributes(msg, ctx.project, ctx.constellation, ctx.voice_page)
    return MemoryNode(
        id=message_node_id(msg.session_id, msg.record_uuid),
        domain_id=domain_id(ctx.constellation),
        profile=ProfileName.voice,
        kind="message",
        title=message_title(text),
        claim=text,
        anchors=[transcript_anchor(msg)],
        lifecycle="captured",
        created_at=ctx.ingested_at,
        updated_at=ctx.ingested_at,
        valid_from=msg.timestamp,
        ingested_at=ctx.ingested_at,
        attributes=attributes,
    )


def session_node(
    session_id: str,
    ctx: NodeContext,
    *,
    message_count: int,
    transcript: str | None,
    valid_from: datetime | None,
    valid_to: datetime | None,
) -> MemoryNode:
    attributes: dict[str, Any] = {
        "session_id": storable(session_id),
        "project": ctx.project,
        "constellation": ctx.constellation,
        "message_count": message_count,
        "voice_page": ctx.voice_page,
        "transcript": storable_path(transcript) if transcript else None,
    }
    anchors = []
    if transcript:
        transcript = storable_path(transcript)
        anchors.append(
            MemoryAnchor(id=anchor_id("file", transcript), kind=AnchorKind.file, ref=transcript)
        )
    return MemoryNode(
        id=session_node_id(session_id),
        domain_id=domain_id(ctx.constellation),
        profile=ProfileName.voice,
        kind="voice_session",
        title=f"voice session {session_id[:8]} ({ctx.project})",
        anchors=anchors,
        lifecycle="captured",
        created_at=ctx.ingested_at,
        updated_at=ctx.ingested_at,
        valid_from=valid_from,
        valid_to=valid_to,
        ingested_at=ctx.ingested_at,
        attributes=attributes,
    )


def merge_with_stored(
    new: MemoryNode, stored: MemoryNode | None, owned: tuple[str, ...]
) -> MemoryNode:
    """``new`` as an update of ``stored``: keep what later passes set.

    Classification, topics, lifecycle, extra attributes, earlier anchors (a page
    anchor from import-vault) and the first ingestion time survive a re-capture;
    only the attributes capture owns are replaced.
    """
    if stored is None:
        return new
    attributes = dict(stored.attributes)
    attributes.update({k: new.attributes.get(k) for k in owned})
    for key, value in new.attributes.items():
        attributes.setdefault(key, value)
    anchors = list(stored.anchors)
    known = {a.id for a in anchors}
    anchors += [a for a in new.anchors if a.id not in known]
    return new.model_copy(
        update={
            "attributes": attributes,
            "anchors": anchors,
            "lifecycle": stored.lifecycle,
            "salience": stored.salience,
            "confidence": stored.confidence,
            "ingested_at": stored.ingested_at or new.ingested_at,
            "created_at": stored.created_at,
            "title": new.title if new.kind == "message" else stored.title or new.title,
        }
    )


# the pure helpers live in profiles.voice.nodekeys (no pydantic); re-exported here
__all__ = [
    "MESSAGE_KEYS",
    "SESSION_KEYS",
    "TITLE_CHARS",
    "UNKNOWN_PROJECT",
    "NodeContext",
    "domain_id",
    "merge_with_stored",
    "message_node",
    "message_node_id",
    "message_title",
    "message_version_id",
    "resolve_project",
    "safe_component",
    "session_node",
    "session_node_id",
    "storable",
    "storable_path",
    "transcript_anchor",
]
