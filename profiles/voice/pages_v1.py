"""The voice page format written before issue 20 (``<!-- mg {...} -->`` markers).

Kept only so a page in that format, written before edits were recorded in a
sidecar, can be recognised as untouched (``pagekeep``): it is trusted when its
owned text is exactly what this renderer gives for its own parse. Parsing such
pages is ``profiles.voice.pages.parse_page``'s job; nothing writes this format.
"""

from __future__ import annotations

import json
import re
from datetime import UTC
from typing import Any

from profiles.voice.pagerender import _iso
from profiles.voice.pages import (
    CLASSIFICATIONS_HEADING,
    MESSAGES_HEADING,
    PAGE_TYPE,
    VoiceMessageEntry,
    VoicePage,
    _dump_yaml,
)
from profiles.voice.pagetext import escape_line

_MG_PREFIX = "<!-- mg "
_MG_SUFFIX = " -->"
_STUFFED = re.compile(r"^\\*(?:\*\*\d\d:\d\d\*\* —|<!--)")
_OLD_STATUS = {"active": "captured", "stable": "classified"}


def _quote_lines(text: str) -> list[str]:
    lines = text.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        esc = escape_line(line)
        if i and _STUFFED.match(esc):
            esc = "\\" + esc
        out.append((f"> {esc}" if esc else ">") if i else esc)
    return out


def _mg_json(entry: VoiceMessageEntry) -> str:
    data: dict[str, Any] = {"uuid": entry.record_uuid, "ts": _iso(entry.timestamp)}
    data["origin"] = entry.origin
    for key in ("transcript", "line", "harness", "branch", "cwd", "classification"):
        value = getattr(entry, key)
        if value is not None:
            data[key] = value
    if entry.confidence is not None:
        data["confidence"] = entry.confidence
    if entry.topics:
        data["topics"] = entry.topics
    if entry.ingested_at is not None:
        data["ingested_at"] = _iso(entry.ingested_at)
    if entry.version != 1:
        data["version"] = entry.version
    # ensure_ascii: no control char, newline or surrogate can reach the line;
    # <, > and & escaped so the JSON can never close the HTML comment early.
    raw = json.dumps(data, ensure_ascii=True, separators=(", ", ": "))
    return raw.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _cell(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    flat = escape_line(flat).replace("\\", "\\\\").replace("|", "\\|").replace("[", "\\[")
    return flat.replace("<", "&lt;").replace("%%", "%\u200b%") or " "


def frontmatter(page: VoicePage) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": page.title,
        "constellation": page.constellation,
        "type": PAGE_TYPE,
        "created": page.created,
        "updated": page.updated,
        "status": _OLD_STATUS.get(page.status, page.status),
        "session_id": page.session_id,
        "project": page.project,
        "valid_from": _iso(page.valid_from),
        "valid_to": _iso(page.valid_to),
        "message_count": page.message_count,
        "ingested_at": _iso(page.ingested_at),
        "sources": list(page.sources),
    }
    if page.activity_window:
        data["activity_window"] = [{"id": wid} for wid in page.activity_window]
    return data


def render_page(page: VoicePage) -> str:
    """The page's markdown; deterministic (same page -> same bytes)."""
    out = ["---", _dump_yaml(frontmatter(page)).rstrip("\n"), "---", ""]
    heading = escape_line(page.title.replace("\n", " ")).strip()
    out.append(f"# {heading or 'voice session'}")
    out += ["", MESSAGES_HEADING, ""]
    for entry in page.messages:
        lines = _quote_lines(entry.text)
        hhmm = entry.timestamp.astimezone(UTC).strftime("%H:%M")
        out.append(f"{_MG_PREFIX}{_mg_json(entry)}{_MG_SUFFIX}")
        out.append(f"> **{hhmm}** — {lines[0]}" if lines[0] else f"> **{hhmm}** —")
        out.extend(lines[1:])
        out.append("")
    out += [CLASSIFICATIONS_HEADING, ""]
    out.append("| # | Time | Message | Classification | Confidence | Topics |")
    out.append("|---|------|---------|----------------|------------|--------|")
    for n, entry in enumerate(page.messages, 1):
        conf = "" if entry.confidence is None else f"{entry.confidence:.2f}"
        topics = ", ".join(entry.topics)
        out.append(
            f"| {n} | {entry.timestamp.astimezone(UTC).strftime('%H:%M')} | {_cell(entry.text)} "
            f"| {_cell(entry.classification or '—', 40)} | {conf or '—'} | {_cell(topics, 80)} |"
        )
    out.append("")
    return "\n".join(out)
