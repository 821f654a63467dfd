"""Render a session's notes as YAML text (stdlib only, for the lean CLI path).

Every scalar is written as a double-quoted JSON string, which YAML reads back
verbatim; characters a YAML reader refuses raw (C0/C1 controls, BOM, U+FFFE/F)
are escaped. ``profiles.session.notes.parse_session_yaml`` is the reader.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

HEADER = (
    "# memgraph session notes: a view rendered from the store; "
    "notes appended here are imported into it\n"
)


@dataclass(frozen=True)
class NoteRow:
    timestamp: str  # UTC ISO-8601 with Z
    text: str
    harness: str
    id: str


def _allowed(ch: str) -> bool:
    o = ord(ch)
    # NEL, LS and PS are line breaks to YAML 1.1: raw, they would fold to spaces.
    if o in (0x09, 0x0A, 0x0D) or 0x20 <= o <= 0x7E:
        return True
    if o in (0x85, 0x2028, 0x2029, 0xFEFF):
        return False
    return 0xA0 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or o >= 0x10000


def quote(value: str) -> str:
    """A YAML double-quoted scalar holding exactly ``value``."""
    text = json.dumps(value, ensure_ascii=False)
    if all(_allowed(ch) for ch in text):
        return text
    return "".join(ch if _allowed(ch) else f"\\u{ord(ch):04x}" for ch in text)


def render_yaml(session_id: str, persona: str, started_at: str, notes: Iterable[NoteRow]) -> str:
    lines = [
        HEADER.rstrip("\n"),
        f"session_id: {quote(session_id)}",
        f"persona: {quote(persona)}",
        f"started_at: {quote(started_at)}",
    ]
    rows = list(notes)
    if not rows:
        lines.append("notes: []")
    else:
        lines.append("notes:")
        for row in rows:
            lines.append(f"- timestamp: {quote(row.timestamp)}")
            lines.append(f"  text: {quote(row.text)}")
            lines.append(f"  harness: {quote(row.harness)}")
            lines.append(f"  id: {quote(row.id)}")
    return "\n".join(lines) + "\n"
