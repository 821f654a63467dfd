"""Voice node ids, names and text as stored: the pure half of ``profiles.voice.nodes``.

Stdlib only (no pydantic): the lean capture (``profiles.voice.lean``) builds the
same node documents as ``profiles.voice.nodes`` from these helpers, and
``profiles.voice.nodes`` re-exports them, so both paths share one definition.
"""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from pathlib import PurePath

from memgraph.ids import is_safe_name, node_id

UNKNOWN_PROJECT = "unknown"
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
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]+")
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


def safe_component(name: str, fallback: str = UNKNOWN_PROJECT) -> str:
    """``name`` as one safe path component (``memgraph.ids.is_safe_name``)."""
    cleaned = _UNSAFE.sub("-", name).strip("-.")
    cleaned = re.sub(r"\.{2,}", ".", cleaned)[:128].rstrip("-.")
    return cleaned if cleaned and is_safe_name(cleaned) else fallback


@lru_cache(maxsize=1024)
def _git_top_name(cwd: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) < 2:
        return None
    top, common = PurePath(lines[0]), PurePath(lines[1])
    # a linked worktree's common dir is <main repo>/.git: name the main repo
    if common.name == ".git" and common.parent != top:
        return common.parent.name
    return top.name


def resolve_project(cwd: str | None) -> str:
    """Project name for a working directory, safe as a path component."""
    if not cwd:
        return UNKNOWN_PROJECT
    name = _git_top_name(cwd) if os.path.isdir(cwd) else None
    if name is None:
        name = PurePath(cwd.rstrip("/\\") or "/").name
    return safe_component(name)


def message_title(text: str) -> str:
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…"
