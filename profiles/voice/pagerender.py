"""Rendering a voice page (stdlib + yaml: no pydantic).

``render_page`` takes any page with the fields of ``profiles.voice.pages.VoicePage``
(``PageLike``): the validated document, or ``PlainPage`` built by the lean
capture (``profiles.voice.leanpage``), which must not import pydantic. The page
format itself is described in ``profiles.voice.pages``, which re-exports all of
this and holds the parser.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Protocol

from profiles.voice.frontmatter import _dump_yaml
from profiles.voice.pagetext import display_escape, escape_line, md_escape

PAGE_TYPE = "voice"
MESSAGES_HEADING = "## Messages"
CLASSIFICATIONS_HEADING = "## Classifications"
MG_V1 = "<!-- mg "  # pages written before issue 20
MG_V2 = "<!-- mg2 "
_MG_SUFFIX = " -->"
DAY_HEADING = re.compile(r"^### (\d{4}-\d\d-\d\d)$")
# status words the wiki validator knows (profiles.voice.wiki.STATUSES): a session
# still being captured is ``active``, one whose messages are all classified ``stable``
ACTIVE, STABLE = "active", "stable"
_SHARED = ("harness", "branch", "cwd")  # frontmatter defaults a marker may override


class EntryLike(Protocol):
    """One message of a page (``VoiceMessageEntry``'s fields, read-only)."""

    @property
    def record_uuid(self) -> str: ...
    @property
    def timestamp(self) -> datetime: ...
    @property
    def text(self) -> str: ...
    @property
    def origin(self) -> str: ...
    @property
    def line(self) -> int | None: ...
    @property
    def transcript(self) -> str | None: ...
    @property
    def classification(self) -> str | None: ...
    @property
    def confidence(self) -> float | None: ...
    @property
    def topics(self) -> list[str]: ...
    @property
    def harness(self) -> str | None: ...
    @property
    def branch(self) -> str | None: ...
    @property
    def cwd(self) -> str | None: ...
    @property
    def ingested_at(self) -> datetime | None: ...
    @property
    def version(self) -> int: ...


class PageLike(Protocol):
    """A page (``VoicePage``'s fields, read-only)."""

    @property
    def title(self) -> str: ...
    @property
    def constellation(self) -> str: ...
    @property
    def project(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def created(self) -> date: ...
    @property
    def updated(self) -> date: ...
    @property
    def status(self) -> str: ...
    @property
    def valid_from(self) -> datetime: ...
    @property
    def valid_to(self) -> datetime: ...
    @property
    def ingested_at(self) -> datetime: ...
    @property
    def sources(self) -> list[str]: ...
    @property
    def messages(self) -> Sequence[EntryLike]: ...
    @property
    def activity_window(self) -> list[str]: ...
    @property
    def message_count(self) -> int: ...


def entry_version(value: object) -> int:
    """A message's ``version`` attribute as a page entry's (1 unless an int > 1)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 1 else 1


@dataclass(frozen=True)
class PlainEntry:
    """``VoiceMessageEntry`` without validation: built from stored documents."""

    record_uuid: str
    timestamp: datetime
    text: str
    origin: str = "prompt"
    line: int | None = None
    transcript: str | None = None
    classification: str | None = None
    confidence: float | None = None
    topics: list[str] = field(default_factory=list)
    harness: str | None = None
    branch: str | None = None
    cwd: str | None = None
    ingested_at: datetime | None = None
    version: int = 1


@dataclass(frozen=True)
class PlainPage:
    """``VoicePage`` without validation: built from stored documents."""

    title: str
    constellation: str
    project: str
    session_id: str
    created: date
    updated: date
    status: str
    valid_from: datetime
    valid_to: datetime
    ingested_at: datetime
    sources: list[str]
    messages: list[PlainEntry]
    activity_window: list[str] = field(default_factory=list)

    @property
    def message_count(self) -> int:
        return len(self.messages)


def window_ids(value: object) -> list[str]:
    """Window ids from an ``activity_window`` value of any generation: a list of ids
    (``[[id]]`` links on a page), one ``{id, artifacts}`` mapping or a list of them."""
    items = value if isinstance(value, list) else [] if value is None else [value]
    out: list[str] = []
    for item in items:
        wid = item.get("id") if isinstance(item, dict) else item
        if wid is None or isinstance(wid, dict | list):
            continue
        text = str(wid)
        if text.startswith("[[") and text.endswith("]]") and len(text) >= 4:
            text = text[2:-2]
        out.append(text)
    return out


def page_tags(project: str, classifications: list[str | None]) -> list[str]:
    """Obsidian tags: the project, then each classification on the page."""
    out: list[str] = []
    for raw in [project, *sorted({c for c in classifications if c})]:
        tag = re.sub(r"[^\w/-]+", "-", raw).strip("-/")
        if tag and not tag.isdigit() and tag not in out:
            out.append(tag)
    return out


# -- render -----------------------------------------------------------------


def _quote_lines(text: str) -> list[str]:
    lines = [md_escape(escape_line(line)) for line in text.split("\n")]
    return [lines[0], *[f"> {esc}" if esc else ">" for esc in lines[1:]]]


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _short_iso(dt: datetime) -> str:
    """``_iso`` without a zero fraction (the marker's time: whole seconds are common)."""
    when = dt.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ" if not when.microsecond else "%Y-%m-%dT%H:%M:%S.%fZ")


def shared_values(page: PageLike) -> dict[str, str]:
    """The page-level ``harness``/``branch``/``cwd``: each one's most common value
    over the messages (first seen wins a tie), when it is not None."""
    out: dict[str, str] = {}
    for key in _SHARED:
        values = [getattr(e, key) for e in page.messages]
        counts = Counter(values)
        best = max(values, key=lambda v: counts[v], default=None)
        if best is not None:
            out[key] = best
    return out


def _mg_json(entry: EntryLike, page: PageLike, shared: dict[str, str]) -> str:
    data: dict[str, Any] = {"uuid": entry.record_uuid, "ts": _short_iso(entry.timestamp)}
    if entry.line is not None:
        data["line"] = entry.line
    if entry.origin != "prompt":
        data["origin"] = entry.origin
    default_src = page.sources[0] if page.sources else None
    if entry.transcript != default_src:
        if entry.transcript is not None and entry.transcript in page.sources:
            data["src"] = page.sources.index(entry.transcript)
        else:
            data["transcript"] = entry.transcript
    for key in _SHARED:
        if getattr(entry, key) != shared.get(key):
            data[key] = getattr(entry, key)
    if entry.classification is not None:
        data["classification"] = entry.classification
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
    return display_escape(flat) or " "


def frontmatter(page: PageLike) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": page.title,
        "type": PAGE_TYPE,
        "project": page.project,
        "constellation": page.constellation,  # the seed's key, kept for compatibility
        "tags": page_tags(page.project, [e.classification for e in page.messages]),
        "created": page.created,
        "updated": page.updated,
        "status": page.status,
        "session_id": page.session_id,
        "valid_from": _iso(page.valid_from),
        "valid_to": _iso(page.valid_to),
        "message_count": page.message_count,
        "ingested_at": _iso(page.ingested_at),
        **shared_values(page),
        "sources": list(page.sources),
    }
    if page.activity_window:
        data["activity_window"] = [f"[[{wid}]]" for wid in page.activity_window]
    return data


def render_page(page: PageLike) -> str:
    """The page's markdown; deterministic (same page -> same bytes)."""
    out = ["---", _dump_yaml(frontmatter(page)).rstrip("\n"), "---", ""]
    heading = display_escape(" ".join(page.title.split()))
    out.append(f"# {heading or 'voice session'}")
    out += ["", MESSAGES_HEADING, ""]
    shared = shared_values(page)
    days = {e.timestamp.astimezone(UTC).date() for e in page.messages}
    day: date | None = None
    for entry in page.messages:
        when = entry.timestamp.astimezone(UTC)
        if len(days) > 1 and when.date() != day:
            day = when.date()
            out += [f"### {day.isoformat()}", ""]
        lines = _quote_lines(entry.text)
        hhmm = when.strftime("%H:%M")
        out.append(f"{MG_V2}{_mg_json(entry, page, shared)}{_MG_SUFFIX}")
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


def marker_version(line: str) -> int:
    """2 or 1 for a message marker line, 0 for any other line."""
    if not line.endswith(_MG_SUFFIX):
        return 0
    if line.startswith(MG_V2):
        return 2
    return 1 if line.startswith(MG_V1) else 0
