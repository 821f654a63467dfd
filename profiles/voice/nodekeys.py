"""Voice node ids, names and text as stored: the pure half of ``profiles.voice.nodes``.

Stdlib only (no pydantic): the lean capture (``profiles.voice.lean``) builds the
same node documents as ``profiles.voice.nodes`` from these helpers, and
``profiles.voice.nodes`` re-exports them, so both paths share one definition.
"""

from __future__ import annotations

import re
from typing import Any

from memgraph.ids import node_id

# a project's name: one definition (profiles.voice.project), re-exported here
from profiles.voice.project import UNKNOWN_PROJECT as UNKNOWN_PROJECT
from profiles.voice.project import resolve_project as resolve_project
from profiles.voice.project import safe_component as safe_component

TYPE_CHECKING = False
if TYPE_CHECKING:
    from profiles.voice.model import OperatorMessage

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


def message_attributes(
    msg: OperatorMessage, project: str, constellation: str, voice_page: str | None
) -> dict[str, Any]:
    """A voice message node's attributes as capture sets them (``MESSAGE_KEYS``, and
    ``command`` when the words were typed into a command/template: a Codex custom
    prompt, aider ``/ask``); the engine's and the lean capture's node alike."""
    attributes: dict[str, Any] = {
        "session_id": storable(msg.session_id),
        "record_uuid": storable(msg.record_uuid),
        "project": project,
        "constellation": constellation,
        "branch": _opt(msg.git_branch),
        "cwd": _opt(msg.cwd),
        "harness": storable(msg.harness),
        "origin": storable(msg.origin),
        "classification": None,
        "confidence": None,
        "topics": [],
        "voice_page": voice_page,
    }
    if msg.command:
        attributes["command"] = storable(msg.command)
    return attributes
