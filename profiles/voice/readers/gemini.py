"""Gemini CLI chat files -> operator messages.

``~/.gemini/tmp/<project hash>/chats/session-*.json``: ONE JSON document
``{sessionId, projectHash, startTime, lastUpdated, messages: [...]}``; each message
``{id, timestamp, type, content}`` with ``type`` ``user`` (the operator), ``gemini``
(the model), ``info`` / ``error`` / ``warning`` (the CLI's own notices: never voice).
``content`` is a string or a list of parts (``{"text": ...}``). Rules 26-28 in
notes/prefilter.md. The file is rewritten whole while a session runs, so a half
written document is possible: it is counted as one bad line, never fatal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, BinaryIO

from memgraph.ids import digest
from profiles.voice.model import OperatorMessage, ReadStats, TranscriptRead
from profiles.voice.prefilter import PrefilterOptions, Verdict, apply_trivial
from profiles.voice.readers.jsonl import bad_line, clean_text, parse_timestamp, warn

HARNESS = "gemini"
# A chat file is one document; bigger than this is not read (counted, warned).
MAX_DOC_BYTES = 256 * 1024 * 1024
NOTICE_TYPES = frozenset({"info", "error", "warning"})
# @file expansion appends the files' contents to what was typed.
_REFERENCED = re.compile(
    r"\n*--- Content from referenced files ---.*?(?:--- End of content ---|\Z)", re.S
)


def looks_like_gemini(head: bytes, name: str) -> bool:
    start = head.lstrip()[:1]
    return start == b"{" and b'"projectHash"' in head[:65536] and b'"sessionId"' in head[:65536]


def is_chat_file(path: Path) -> bool:
    name = path.name
    return name.startswith("session-") and name.endswith(".json") and path.parent.name == "chats"


def _content_text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        parts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        parts += [p for p in content if isinstance(p, str)]
        return "".join(parts)
    return None


def classify_gemini(msg: dict[str, Any]) -> Verdict:
    kind = msg.get("type")
    if kind == "gemini":
        return Verdict(False, "model_output")
    if kind in NOTICE_TYPES:
        return Verdict(False, "gemini_notice")
    if kind != "user":
        return Verdict(False, "record_type")
    text = _content_text(msg.get("content"))
    if text is None:
        return Verdict(False, "malformed")
    if "--- Content from referenced files ---" in text:
        text = _REFERENCED.sub("", text)
    text = text.strip()
    if not text:
        return Verdict(False, "empty")
    origin = "slash_command" if re.match(r"/[A-Za-z]", text) else "prompt"
    return Verdict(True, "", text, origin)


def read_gemini(
    fh: BinaryIO,
    path: Path,
    options: PrefilterOptions,
    stats: ReadStats,
    *,
    max_line_bytes: int = MAX_DOC_BYTES,
    fast: bool = True,
) -> TranscriptRead:
    transcript = str(path)
    empty = TranscriptRead(transcript, HARNESS, None, [], stats)
    try:
        raw = fh.read(MAX_DOC_BYTES + 1)
    except OSError as exc:
        warn(stats, f"read error: {exc.strerror or exc}; stopped")
        return empty
    stats.lines = raw.count(b"\n") + (1 if raw and not raw.endswith(b"\n") else 0)
    if len(raw) > MAX_DOC_BYTES:
        bad_line(stats, 1, f"chat file larger than {MAX_DOC_BYTES} bytes")
        return empty
    try:
        doc = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        bad_line(stats, 1, "not a complete JSON document (truncated or still being written)")
        return empty
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        bad_line(stats, 1, "not a Gemini CLI chat document (no messages list)")
        return empty
    sid = doc.get("sessionId")
    session_id = sid if isinstance(sid, str) and sid.strip() else None
    final_sid = session_id or path.stem
    cwd = _project_root(path)
    messages: list[OperatorMessage] = []
    seen: set[str] = set()
    for index, msg in enumerate(doc["messages"]):
        if not isinstance(msg, dict):
            bad_line(stats, index + 1, "message is not an object")
            continue
        stats.records += 1
        kind = msg.get("type")
        if kind not in NOTICE_TYPES and kind not in ("user", "gemini"):
            stats.unknown(f"type={kind if isinstance(kind, str) else type(kind).__name__}")
        verdict = apply_trivial(classify_gemini(msg), options)
        if verdict.rule == "malformed":
            bad_line(stats, index + 1, "user message content has an unexpected type")
            continue
        if not verdict.keep:
            stats.drop(verdict.rule)
            continue
        ts = parse_timestamp(msg.get("timestamp"))
        if ts is None:
            bad_line(stats, index + 1, "missing or invalid timestamp on a human message")
            continue
        text = clean_text(verdict.text)
        mid = msg.get("id")
        if isinstance(mid, str) and mid:
            key = mid
        else:
            key = f"gm-{index}-{digest(str(msg.get('timestamp')), text, length=12)}"
        if key in seen:
            stats.drop("duplicate_uuid")
            continue
        seen.add(key)
        messages.append(
            OperatorMessage(
                session_id=final_sid,
                record_uuid=clean_text(key),
                timestamp=ts,
                text=text,
                transcript=transcript,
                line=index + 1,  # position in messages[] (1-based), not a file line
                harness=HARNESS,
                origin=verdict.origin,
                cwd=cwd,
            )
        )
    messages.sort(key=lambda m: (m.timestamp, m.line))
    stats.kept = len(messages)
    return TranscriptRead(transcript, HARNESS, session_id, messages, stats)


def _project_root(path: Path) -> str | None:
    """Newer Gemini CLI builds write the project directory next to ``chats/``."""
    marker = path.parent.parent / ".project_root"
    try:
        if marker.is_file() and marker.stat().st_size <= 4096:
            text = marker.read_text("utf-8", "replace").strip()
            return text if text.startswith("/") and "\n" not in text else None
    except OSError:
        return None
    return None
