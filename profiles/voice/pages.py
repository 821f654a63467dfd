"""Voice pages: the markdown view of one session's operator messages.

A page is rendered from the graph and parsed back into the same data, losslessly
for ANY message text. Layout (column 0 matters)::

    ---
    <YAML frontmatter, written by yaml.safe_dump, never by hand>
    ---

    # atlas Session 80166115 — hook, settings, install

    ## Messages

    ### 2026-04-14                      (only when the session crosses midnight)
    <!-- mg2 {"uuid": ..., "ts": ..., "line": 17} -->
    > **14:32** — first line of the message
    > continuation line

    ## Classifications

    | # | Time | Message | Classification | Confidence | Topics |

The ``<!-- mg2 ... -->`` line (invisible in Obsidian) starts a message and carries
what the node needs that the frontmatter does not already say: record uuid, full
timestamp, transcript line, and only the fields that differ from the page's
(``sources[0]``, ``cwd``, ``branch``, ``harness``, origin ``prompt``). Every text
line sits behind ``> `` and is escaped by ``profiles.voice.pagetext`` (``md_escape``
over ``escape_line``), so no message can produce a column-0 line, nor restyle the
page (no heading, math, HTML, list, table or fence from pasted text).

Pages written before issue 20 (``<!-- mg {...} -->`` markers with every field,
continuation lines only "stuffed") still parse; the next render writes the new
form. The ``## Classifications`` table is a human view; the parser never reads it.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from typing import Any

from pydantic import Field, ValidationError

from memgraph.documents.base import Confidence, Document, UtcDatetime
from profiles.voice.frontmatter import PageError, _dump_yaml, split_frontmatter
from profiles.voice.pagepath import page_relpath
from profiles.voice.pagerender import (
    _MG_SUFFIX,
    _SHARED,
    ACTIVE,
    CLASSIFICATIONS_HEADING,
    DAY_HEADING,
    MESSAGES_HEADING,
    MG_V1,
    MG_V2,
    PAGE_TYPE,
    STABLE,
    frontmatter,
    marker_version,
    page_tags,
    render_page,
    shared_values,
    window_ids,
)
from profiles.voice.pagetext import (
    display_escape,
    escape_line,
    md_escape,
    md_unescape,
    unescape_line,
)

# re-exported: rendering (profiles.voice.pagerender), the per-line escaping and
# the frontmatter reader
__all__ = [
    "ACTIVE",
    "CLASSIFICATIONS_HEADING",
    "DAY_HEADING",
    "MESSAGES_HEADING",
    "MG_V1",
    "MG_V2",
    "PAGE_TYPE",
    "STABLE",
    "PageError",
    "VoiceMessageEntry",
    "VoicePage",
    "_dump_yaml",
    "display_escape",
    "escape_line",
    "frontmatter",
    "marker_version",
    "md_escape",
    "page_relpath",
    "page_tags",
    "parse_page",
    "render_page",
    "shared_values",
    "split_frontmatter",
    "unescape_line",
    "window_ids",
]

_HEADER = re.compile(r"^> \*\*(\d\d):(\d\d)\*\* — ?(.*)$")
# v1 continuation lines that would read as a message header or an HTML comment
# got one extra leading backslash; parsing removes one.
_UNSTUFF = re.compile(r"^\\+(?:\*\*\d\d:\d\d\*\* —|<!--)")
_OLD_STATUS = {"captured": ACTIVE, "classified": STABLE}


class VoiceMessageEntry(Document):
    record_uuid: str
    timestamp: UtcDatetime
    text: str
    origin: str = "prompt"
    line: int | None = None
    transcript: str | None = None
    classification: str | None = None
    confidence: Confidence | None = None
    topics: list[str] = Field(default_factory=list)
    # Optional extras so a page rebuilds the node's attributes, not just its text.
    harness: str | None = None
    branch: str | None = None
    cwd: str | None = None
    ingested_at: UtcDatetime | None = None  # set only when it differs from the page's
    # 2, 3, ...: the text of this transcript record changed after it was captured and
    # this is its newer version (profiles.voice.capture); 1 is the original
    version: int = Field(default=1, ge=1)


class VoicePage(Document):
    title: str
    constellation: str
    project: str
    session_id: str
    created: date
    updated: date
    status: str = ACTIVE
    valid_from: UtcDatetime
    valid_to: UtcDatetime
    ingested_at: UtcDatetime
    sources: list[str] = Field(default_factory=list)
    messages: list[VoiceMessageEntry] = Field(default_factory=list)
    # ids of the activity windows the session took part in (the window's artifacts
    # live in the store: ``memgraph windows show ID``)
    activity_window: list[str] = Field(default_factory=list)

    @property
    def message_count(self) -> int:
        return len(self.messages)


# -- parse ------------------------------------------------------------------


_V1_KEYS = frozenset(
    {"origin", "transcript", "line", "harness", "branch", "cwd"}
    | {"classification", "confidence", "topics", "ingested_at", "version"}
)
_V2_KEYS = _V1_KEYS | {"src"}


def _entry(raw: str, version: int, defaults: dict[str, Any], source: str, lineno: int) -> Any:
    prefix = MG_V2 if version == 2 else MG_V1
    try:
        data = json.loads(raw[len(prefix) : -len(_MG_SUFFIX)])
    except (ValueError, RecursionError):
        raise PageError(f"{source}:{lineno}: message marker holds invalid JSON") from None
    if not isinstance(data, dict):
        raise PageError(f"{source}:{lineno}: message marker is not a JSON object")
    known = _V2_KEYS if version == 2 else _V1_KEYS
    out: dict[str, Any] = dict(defaults) if version == 2 else {}
    for key, value in data.items():
        if key in ("uuid", "ts"):
            out["record_uuid" if key == "uuid" else "timestamp"] = value
        elif key == "src":
            sources = defaults.get("_sources", [])
            if value is not None and not (
                isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(sources)
            ):
                raise PageError(f"{source}:{lineno}: message marker src is not a sources index")
            out["transcript"] = None if value is None else sources[value]
        elif key in known:
            out[key] = value
        else:
            raise PageError(f"{source}:{lineno}: unknown message marker key {key[:40]!r}")
    out.pop("_sources", None)
    return out


def _v1_line(body: str) -> str:
    if _UNSTUFF.match(body):
        body = body[1:]
    return unescape_line(body)


def _v2_line(body: str) -> str:
    return unescape_line(md_unescape(body))


def _marker_defaults(data: dict[str, Any]) -> dict[str, Any]:
    """What a v2 marker leaves out: the first source and the page-level shared values."""
    sources = data.get("sources")
    srcs = sources if isinstance(sources, list) else []
    out: dict[str, Any] = {"_sources": srcs, "transcript": srcs[0] if srcs else None}
    for key in _SHARED:
        out[key] = data.get(key)
    return out


def _parse_messages(
    lines: list[str], first: int, source: str, defaults: dict[str, Any]
) -> list[VoiceMessageEntry]:
    try:
        start = lines.index(MESSAGES_HEADING)
    except ValueError:
        raise PageError(f"{source}: no '{MESSAGES_HEADING}' section") from None
    entries: list[VoiceMessageEntry] = []
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if line == CLASSIFICATIONS_HEADING:
            break  # a heading a person added between messages is their text, not an end
        version = marker_version(line)
        if not version:
            i += 1  # blank lines, day headings and anything a person added
            continue
        lineno = first + i
        data = _entry(line, version, defaults, source, lineno)
        header = _HEADER.match(lines[i + 1]) if i + 1 < len(lines) else None
        if header is None:
            raise PageError(
                f"{source}:{lineno + 1}: message marker not followed by '> **HH:MM** —'"
            )
        decode = _v2_line if version == 2 else unescape_line
        # the first line is never stuffed: it follows the header on the same line
        text_lines = [decode(header.group(3))]
        decode = _v2_line if version == 2 else _v1_line
        i += 2
        while i < len(lines) and (lines[i] == ">" or lines[i].startswith("> ")):
            text_lines.append(decode(lines[i][2:]))
            i += 1
        data["text"] = "\n".join(text_lines)
        try:
            entry = VoiceMessageEntry.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise PageError(f"{source}:{lineno}: bad message field {where}: {err['msg']}") from None
        hhmm = entry.timestamp.astimezone(UTC).strftime("%H:%M")
        if hhmm != f"{header.group(1)}:{header.group(2)}":
            raise PageError(f"{source}:{lineno + 1}: shown time does not match the message time")
        entries.append(entry)
    return entries


_PAGE_KEYS = (
    "title",
    "constellation",
    "project",
    "session_id",
    "created",
    "updated",
    "status",
    "valid_from",
    "valid_to",
    "ingested_at",
    "sources",
)


def parse_page(text: str, source: str = "page") -> VoicePage:
    """Read a rendered voice page back; ``PageError`` (one line) when malformed."""
    data, body, first = split_frontmatter(text, source)
    if data.get("type") != PAGE_TYPE:
        raise PageError(f"{source}: not a voice page (type: {str(data.get('type'))[:40]!r})")
    messages = _parse_messages(body, first, source, _marker_defaults(data))
    count = data.get("message_count")
    if count != len(messages):
        raise PageError(
            f"{source}: message_count {str(count)[:20]} but {len(messages)} messages found "
            "(truncated or edited page)"
        )
    fields = {k: data[k] for k in _PAGE_KEYS if k in data}
    for key in ("created", "updated"):
        if isinstance(fields.get(key), datetime):
            raise PageError(f"{source}: {key} must be a date (YYYY-MM-DD)")
    status = fields.get("status")
    if isinstance(status, str):
        fields["status"] = _OLD_STATUS.get(status, status)
    if "activity_window" in data:
        fields["activity_window"] = window_ids(data["activity_window"])
    try:
        return VoicePage.model_validate({**fields, "messages": messages})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise PageError(f"{source}: bad frontmatter field {where}: {err['msg']}") from None
