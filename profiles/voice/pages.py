"""Voice pages: the markdown view of one session's operator messages.

A page is rendered from the graph and parsed back into the same data, losslessly
for ANY message text. Layout (column 0 matters)::

    ---
    <YAML frontmatter, written by yaml.safe_dump, never by hand>
    ---

    # <title>

    ## Messages

    <!-- mg {"uuid": ..., "ts": ..., ...} -->
    > **14:32** — first line of the message
    > continuation line

    ## Classifications

    | # | Time | Message | Classification | Confidence | Topics |

The ``<!-- mg ... -->`` line (invisible in Obsidian) is what starts a message and
carries what the node needs (record uuid, full timestamp, origin, anchor). Every
text line sits behind ``> ``, so no message can produce a column-0 line and fake
a frontmatter fence, a heading or another message. Characters a markdown line
cannot hold (controls, CR, NUL, lone surrogates, line separators) are written as
``\\u{hex}``; a literal backslash that would start such a sequence is itself
written ``\\u{5c}``. The ``## Classifications`` table is a human view rebuilt
from the same entries; the parser never reads it.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from pathlib import PurePosixPath
from typing import Any

import yaml
from pydantic import Field, ValidationError

from memgraph.documents.base import Confidence, Document, JsonValue, UtcDatetime
from memgraph.errors import ReaderError

PAGE_TYPE = "voice"
MESSAGES_HEADING = "## Messages"
CLASSIFICATIONS_HEADING = "## Classifications"
_MG_PREFIX = "<!-- mg "
_MG_SUFFIX = " -->"
_HEADER = re.compile(r"^> \*\*(\d\d):(\d\d)\*\* — ?(.*)$")
# Continuation lines that would read as a message header or an HTML comment get
# one extra leading backslash (markdown shows ``\*`` as ``*``); parsing removes one.
_STUFFED = re.compile(r"^\\*(?:\*\*\d\d:\d\d\*\* —|<!--)")
_UNSTUFF = re.compile(r"^\\+(?:\*\*\d\d:\d\d\*\* —|<!--)")
_CODE = re.compile(r"\\u\{([0-9a-f]{1,6})\}")
_MAX_FRONTMATTER = 1 << 20


class PageError(ReaderError):
    """A voice page cannot be parsed (malformed, truncated or tampered)."""


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
    status: str = "captured"
    valid_from: UtcDatetime
    valid_to: UtcDatetime
    ingested_at: UtcDatetime
    sources: list[str] = Field(default_factory=list)
    messages: list[VoiceMessageEntry] = Field(default_factory=list)
    activity_window: JsonValue | None = None

    @property
    def message_count(self) -> int:
        return len(self.messages)


def page_relpath(constellation: str, day: date, session_id: str) -> PurePosixPath:
    """``<constellation>/voice/<YYYY-MM-DD>-<sid8>.md`` (both names must be path-safe)."""
    return PurePosixPath(constellation, "voice", f"{day.isoformat()}-{session_id[:8]}.md")


# -- escaping ---------------------------------------------------------------


# controls (not tab), DEL/C1, lone surrogates, line/paragraph separators, BOM and
# non-characters; plus a backslash that would otherwise read as an escape
_SPECIAL = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\ufeff\ufffe\uffff]|\\(?=u\{)"
)


def escape_line(text: str) -> str:
    """Make one logical line safe for a markdown line, reversibly."""
    return _SPECIAL.sub(lambda m: f"\\u{{{ord(m.group(0)):x}}}", text)


def unescape_line(text: str) -> str:
    def decode(m: re.Match[str]) -> str:
        code = int(m.group(1), 16)
        return chr(code) if code <= 0x10FFFF else m.group(0)

    return _CODE.sub(decode, text)


def _quote_lines(text: str) -> list[str]:
    lines = text.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        esc = escape_line(line)
        if i and _STUFFED.match(esc):
            esc = "\\" + esc
        out.append((f"> {esc}" if esc else ">") if i else esc)
    return out


def _unquote_line(body: str) -> str:
    if _UNSTUFF.match(body):
        body = body[1:]
    return unescape_line(body)


# -- render -----------------------------------------------------------------


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _dump_yaml(data: dict[str, Any]) -> str:
    text = yaml.dump(
        data,
        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
        sort_keys=False,
        allow_unicode=True,
        width=1 << 30,
        default_flow_style=False,
    )
    # Top-level values are indented by the emitter, so a fence line cannot occur;
    # check anyway, since a fake fence would cut the frontmatter short.
    if any(line in ("---", "...") for line in text.split("\n")):
        raise PageError("frontmatter would contain a document marker line")
    return text


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
        "status": page.status,
        "session_id": page.session_id,
        "project": page.project,
        "valid_from": _iso(page.valid_from),
        "valid_to": _iso(page.valid_to),
        "message_count": page.message_count,
        "ingested_at": _iso(page.ingested_at),
        "sources": list(page.sources),
    }
    if page.activity_window is not None:
        data["activity_window"] = page.activity_window
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


# -- parse ------------------------------------------------------------------


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader without anchors/aliases: a page's frontmatter never needs them,
    and alias bombs would blow up validation downstream."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise PageError("frontmatter uses YAML aliases, which voice pages never contain")
        return super().compose_node(parent, index)


def split_frontmatter(text: str, source: str = "page") -> tuple[dict[str, Any], list[str], int]:
    """(frontmatter mapping, body lines, line number of the first body line)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0] != "---":
        raise PageError(f"{source}: no YAML frontmatter (a page starts with a '---' line)")
    try:
        end = lines.index("---", 1)
    except ValueError:
        raise PageError(f"{source}: frontmatter is not closed by a '---' line") from None
    raw = "\n".join(lines[1:end])
    if len(raw) > _MAX_FRONTMATTER:
        raise PageError(f"{source}: frontmatter larger than {_MAX_FRONTMATTER} bytes")
    try:
        data = yaml.load(raw, Loader=_NoAliasLoader)
    except PageError as exc:
        raise PageError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        first = " ".join(str(exc).split())[:200]
        raise PageError(f"{source}: frontmatter is not valid YAML: {first}") from None
    except RecursionError:
        raise PageError(f"{source}: frontmatter is nested too deeply") from None
    if not isinstance(data, dict):
        raise PageError(f"{source}: frontmatter is not a YAML mapping")
    return data, lines[end + 1 :], end + 2


def _entry(raw: str, source: str, lineno: int) -> dict[str, Any]:
    try:
        data = json.loads(raw[len(_MG_PREFIX) : -len(_MG_SUFFIX)])
    except (ValueError, RecursionError):
        raise PageError(f"{source}:{lineno}: message marker holds invalid JSON") from None
    if not isinstance(data, dict):
        raise PageError(f"{source}:{lineno}: message marker is not a JSON object")
    keys = {"uuid": "record_uuid", "ts": "timestamp"}
    known = {"origin", "transcript", "line", "harness", "branch", "cwd"}
    known |= {"classification", "confidence", "topics", "ingested_at", "version"}
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in keys:
            out[keys[key]] = value
        elif key in known:
            out[key] = value
        else:
            raise PageError(f"{source}:{lineno}: unknown message marker key {key[:40]!r}")
    return out


def _parse_messages(lines: list[str], first: int, source: str) -> list[VoiceMessageEntry]:
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
        if not (line.startswith(_MG_PREFIX) and line.endswith(_MG_SUFFIX)):
            i += 1  # blank lines and anything a person added outside a message
            continue
        lineno = first + i
        data = _entry(line, source, lineno)
        header = _HEADER.match(lines[i + 1]) if i + 1 < len(lines) else None
        if header is None:
            raise PageError(
                f"{source}:{lineno + 1}: message marker not followed by '> **HH:MM** —'"
            )
        # the first line is never stuffed: it follows the header on the same line
        text_lines = [unescape_line(header.group(3))]
        i += 2
        while i < len(lines) and (lines[i] == ">" or lines[i].startswith("> ")):
            text_lines.append(_unquote_line(lines[i][2:]))
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
    "activity_window",
)


def parse_page(text: str, source: str = "page") -> VoicePage:
    """Read a rendered voice page back; ``PageError`` (one line) when malformed."""
    data, body, first = split_frontmatter(text, source)
    if data.get("type") != PAGE_TYPE:
        raise PageError(f"{source}: not a voice page (type: {str(data.get('type'))[:40]!r})")
    messages = _parse_messages(body, first, source)
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
    try:
        return VoicePage.model_validate({**fields, "messages": messages})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise PageError(f"{source}: bad frontmatter field {where}: {err['msg']}") from None
