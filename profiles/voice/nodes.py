"""OperatorMessage -> voice message node (the contract in notes/CONVENTIONS.md).

A message node's id is a pure function of (session_id, record_uuid), so capturing
the same transcript twice proposes identical upserts, which the engine turns
into no-ops. Project/constellation come from the session's working directory:
the git top-level's name when the directory is inside a repository (a linked
worktree counts as its main repository), else the directory's own name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName
from memgraph.ids import anchor_id, node_id
from profiles.voice.model import OperatorMessage

# a project's name (re-exported): lean read paths import these without the documents
from profiles.voice.project import UNKNOWN_PROJECT as UNKNOWN_PROJECT
from profiles.voice.project import resolve_project as resolve_project
from profiles.voice.project import safe_component as safe_component

TITLE_CHARS = 80
# Attributes capture owns; anything else on a stored node (classification,
# activity_window, ...) belongs to later passes and is kept on re-capture.
MESSAGE_KEYS = (
    "session_id",
    "record_uuid",
    "project",
    "constellation",
    "branch",
    "cwd",
    "harness",
    "origin",
    "voice_page",
)
SESSION_KEYS = (
    "session_id",
    "project",
    "constellation",
    "message_count",
    "voice_page",
    "transcript",
)
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` with lone surrogates (a JSON ``\\ud800`` escape in a transcript)
    replaced by U+FFFD: the store keeps UTF-8 JSON, which cannot hold them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def storable_path(path: str) -> str:
    """A path string for the store: undecodable filename bytes become escapes."""
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return storable(path)


def _opt(value: str | None) -> str | None:
    return None if value is None else storable(value)


@dataclass(frozen=True)
class NodeContext:
    """What every node of one session shares."""

    constellation: str
    project: str
    ingested_at: datetime
    voice_page: str | None = None


def message_node_id(session_id: str, record_uuid: str) -> str:
    return node_id("voice", "message", session_id, record_uuid)


def message_version_id(session_id: str, record_uuid: str, version: int) -> str:
    """Version 1 is ``message_node_id``; a record whose text changed after capture
    gets a new node per new text (2, 3, ...), the previous one superseded."""
    if version <= 1:
        return message_node_id(session_id, record_uuid)
    return node_id("voice", "message", session_id, record_uuid, f"v{version}")


def session_node_id(session_id: str) -> str:
    return node_id("voice", "voice_session", session_id)


def domain_id(constellation: str) -> str:
    return f"voice:{constellation}"


def message_title(text: str) -> str:
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…"


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
    attributes: dict[str, Any] = {
        "session_id": storable(msg.session_id),
        "record_uuid": storable(msg.record_uuid),
        "project": ctx.project,
        "constellation": ctx.constellation,
        "branch": _opt(msg.git_branch),
        "cwd": _opt(msg.cwd),
        "harness": storable(msg.harness),
        "origin": storable(msg.origin),
        "classification": None,
        "confidence": None,
        "topics": [],
        "voice_page": ctx.voice_page,
    }
    if msg.command:
        # the command/template the words were typed into (Codex custom prompt, aider /ask)
        attributes["command"] = storable(msg.command)
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
