"""Chat exports -> conversation turns: ChatGPT, Claude.ai and a plain JSONL shape.

Readers are pure: bytes in, ``Turn`` records and one problem line per bad record
out. Nothing here touches the store. The format is detected from the content
(``detect``); a caller may name it instead.

Shapes read (notes/formats-read.md, "Conversation exports"):

- ``chatgpt``: ``conversations.json`` from a ChatGPT data export: a JSON list
  of conversations ``{id|conversation_id, title, create_time, mapping}``;
  ``mapping`` is a tree of nodes ``{id, parent, children, message}`` whose
  ``message`` has ``id``, ``author.role`` (user, assistant, system, tool),
  ``author.name``, ``create_time`` (epoch seconds) and ``content.parts``
  (strings; other parts, e.g. images, are not text). Every node with text is a
  turn, edited branches too. The ``user`` is the operator.
- ``claude``: ``conversations.json`` from a Claude.ai export: a JSON list of
  ``{uuid, name, created_at, chat_messages}``; each message has ``uuid``,
  ``sender`` (human, assistant), ``text`` and/or ``content`` (a list of
  ``{type: "text", text}``) and ``created_at`` (ISO 8601). The ``human`` is the
  operator.
- ``jsonl``: one JSON object per line: ``session`` (string), ``speaker``
  (string), ``ts`` (ISO 8601, naive = UTC, or epoch seconds), ``text``
  (string), optional ``id`` (string or integer; else the record's content is its
  key) and optional ``operator`` (true when this speaker is the operator).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memgraph.ids import digest

FORMATS = ("chatgpt", "claude", "jsonl")
HARNESS = {"chatgpt": "chatgpt", "claude": "claude.ai", "jsonl": "jsonl"}
MAX_TEXT = 1_000_000  # characters in one message; longer is a bad record
MAX_NAME = 256  # session ids, speakers, record ids
MAX_PROBLEMS = 1000  # problem lines kept (all are counted)
DUPLICATE = "duplicate"  # a message id read again with the same speaker and text
CONFLICTING_DUPLICATE = "bad_conflicting_duplicate"  # read again with other text


@dataclass(frozen=True)
class Turn:
    """One message of a conversation, verbatim."""

    session_id: str
    record_id: str
    speaker: str
    timestamp: datetime  # timezone-aware UTC
    text: str
    line: int  # JSONL line, or position of the message in the export (1-based)
    operator: bool | None = None  # None: the export does not say
    title: str | None = None  # the conversation's title, when it has one


@dataclass
class ParseResult:
    format: str
    turns: list[Turn] = field(default_factory=list)
    conversations: int = 0
    records: int = 0  # message records seen (bad ones included)
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    problems: list[str] = field(default_factory=list)  # one line per bad record
    # (session, record id) -> where it was read and the turn kept under it
    seen: dict[tuple[str, str], tuple[str, Turn]] = field(default_factory=dict, repr=False)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def bad(self, where: str, reason: str, detail: str) -> None:
        self.skip(reason)
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(f"{where}: {detail}")

    @property
    def bad_records(self) -> int:
        return sum(v for k, v in self.skipped.items() if k.startswith("bad_"))


class FormatError(ValueError):
    """The input is not any export shape we read (one line, for the user)."""


def _clean(text: str) -> str:
    return "".join(" " if ch in "\r\n\t" else ch for ch in text)[:80]


def detect(data: bytes) -> str:
    """The format of ``data``, from its content alone."""
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head == b"[" or head == b"{":
        try:
            whole = json.loads(data.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            whole = None
        first = (whole[0] if whole else None) if isinstance(whole, list) else whole
        if isinstance(first, dict):
            if "mapping" in first:
                return "chatgpt"
            if "chat_messages" in first:
                return "claude"
            if head == b"{" and isinstance(whole, dict) and "text" in whole:
                return "jsonl"  # a one-line JSONL file
        if isinstance(whole, list) and not whole:
            raise FormatError("the export holds no conversations (an empty JSON list)")
        if head == b"{" and whole is None:
            return "jsonl"
    raise FormatError(
        "not a conversation export this reads (ChatGPT or Claude.ai conversations.json, "
        "or JSONL of session/speaker/ts/text); name it with --format if it is one"
    )


def parse(data: bytes, fmt: str) -> ParseResult:
    readers = {"chatgpt": _chatgpt, "claude": _claude, "jsonl": _jsonl}
    result = ParseResult(format=fmt)
    readers[fmt](data, result)
    return result


# -- field helpers -----------------------------------------------------------


def to_utc(value: Any) -> datetime | None:
    """An export's time (ISO 8601 string or epoch seconds) as aware UTC, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not math.isfinite(value) or not 0 <= value < 253402300800:  # year 1970..9999
            return None
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str) and 0 < len(value) <= 64:
        text = value.strip()
        if text.endswith("Z") or text.endswith("z"):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            return None
        return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)
    return None


def _name(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        value = str(value)
    if not isinstance(value, str):
        return None
    value = value.strip()
    # a NUL ends the text in the store's SQL indexes: "s\x00x" would be session "s"
    return value if value and len(value) <= MAX_NAME and "\x00" not in value else None


def _no_time(key: str, message: dict[str, Any], form: str) -> str:
    """Why a message has no time: none given, or one that is not a time."""
    value = message.get(key)
    if value is None:
        return f"no {key} on the message or conversation"
    scalar = isinstance(value, str | int | float | bool)
    shown = _clean(json.dumps(value))[:40] if scalar else f"(a JSON {type(value).__name__})"
    return f"{key} {shown} is not a time ({form})"


def _load_json(data: bytes, result: ParseResult) -> list[Any]:
    try:
        whole = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        raise FormatError(f"not valid JSON: {_clean(str(exc))}") from None
    if isinstance(whole, dict):
        whole = [whole]
    if not isinstance(whole, list):
        raise FormatError("expected a JSON list of conversations")
    return whole


def _add(result: ParseResult, where: str, turn: Turn) -> None:
    if not turn.text.strip():
        result.skip("empty_text")
        return
    if len(turn.text) > MAX_TEXT:
        result.bad(where, "bad_text_too_long", f"text longer than {MAX_TEXT} characters")
        return
    key = (turn.session_id, turn.record_id)
    first = result.seen.get(key)
    if first is not None:
        # one id, one message: the first one read is kept, the repeat is counted
        kept_at, kept = first
        if (kept.speaker, kept.text) == (turn.speaker, turn.text):
            result.skip(DUPLICATE)
        else:
            result.bad(
                where,
                CONFLICTING_DUPLICATE,
                f"message id {_clean(turn.record_id)!r} was already read at {kept_at} with "
                "other text or speaker; the first one is kept",
            )
        return
    result.seen[key] = (where, turn)
    result.turns.append(turn)


# -- ChatGPT -----------------------------------------------------------------

SPEAKING_ROLES = frozenset({"user", "assistant"})


def _chatgpt_text(message: dict[str, Any]) -> str | None:
    content = message.get("content")
    if not isinstance(content, dict):
        return None
    parts = content.get("parts")
    if isinstance(parts, list):
        texts = [p for p in parts if isinstance(p, str)]
        return "\n".join(texts) if texts or not parts else None
    text = content.get("text")
    return text if isinstance(text, str) else None


def _chatgpt(data: bytes, result: ParseResult) -> None:
    for c_index, conv in enumerate(_load_json(data, result), start=1):
        where_c = f"conversation {c_index}"
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            result.bad(where_c, "bad_conversation", "not a conversation (no mapping object)")
            continue
        result.conversations += 1
        sid = _name(conv.get("conversation_id")) or _name(conv.get("id"))
        title = conv.get("title") if isinstance(conv.get("title"), str) else None
        started = to_utc(conv.get("create_time"))
        if sid is None:
            sid = "chatgpt-" + digest(str(title), str(conv.get("create_time")), length=16)
        for position, (key, node) in enumerate(conv["mapping"].items(), start=1):
            message = node.get("message") if isinstance(node, dict) else None
            if message is None:
                continue  # the tree's root and placeholder nodes carry no message
            result.records += 1
            where = f"{where_c} message {_clean(str(key))}"
            if not isinstance(message, dict):
                result.bad(where, "bad_record", "message is not an object")
                continue
            author = message.get("author")
            role = author.get("role") if isinstance(author, dict) else None
            if not isinstance(role, str):
                result.bad(where, "bad_author", "no author.role")
                continue
            if role not in SPEAKING_ROLES:
                result.skip(f"role_{_clean(role)[:20]}")
                continue
            text = _chatgpt_text(message)
            if text is None:
                result.skip("no_text_parts")
                continue
            when = to_utc(message.get("create_time")) or started
            if when is None:
                result.bad(where, "bad_time", _no_time("create_time", message, "epoch seconds"))
                continue
            rid = _name(message.get("id")) or _name(key)
            if rid is None:
                result.bad(where, "bad_id", "no usable message id")
                continue
            named = author.get("name") if isinstance(author, dict) else None
            speaker = _name(named) or role
            turn = Turn(sid, rid, speaker, when, text, position, role == "user", title)
            _add(result, where, turn)


# -- Claude.ai ---------------------------------------------------------------


def _claude_text(message: dict[str, Any]) -> str | None:
    text = message.get("text")
    if isinstance(text, str) and text.strip():
        return text
    content = message.get("content")
    if isinstance(content, list):
        parts = [
            p["text"]
            for p in content
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        ]
        if parts:
            return "\n".join(parts)
    return text if isinstance(text, str) else None


def _claude(data: bytes, result: ParseResult) -> None:
    for c_index, conv in enumerate(_load_json(data, result), start=1):
        where_c = f"conversation {c_index}"
        if not isinstance(conv, dict) or not isinstance(conv.get("chat_messages"), list):
            result.bad(where_c, "bad_conversation", "not a conversation (no chat_messages list)")
            continue
        result.conversations += 1
        title = conv.get("name") if isinstance(conv.get("name"), str) else None
        started = to_utc(conv.get("created_at"))
        sid = _name(conv.get("uuid")) or "claude-" + digest(str(title), str(started), length=16)
        for position, message in enumerate(conv["chat_messages"], start=1):
            result.records += 1
            where = f"{where_c} message {position}"
            if not isinstance(message, dict):
                result.bad(where, "bad_record", "message is not an object")
                continue
            sender = _name(message.get("sender"))
            if sender is None:
                result.bad(where, "bad_author", "no sender")
                continue
            text = _claude_text(message)
            if text is None:
                result.bad(where, "bad_text", "no text")
                continue
            when = to_utc(message.get("created_at")) or started
            if when is None:
                result.bad(where, "bad_time", _no_time("created_at", message, "ISO 8601"))
                continue
            rid = _name(message.get("uuid")) or f"{position}"
            turn = Turn(sid, rid, sender, when, text, position, sender == "human", title)
            _add(result, where, turn)


# -- JSONL -------------------------------------------------------------------


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.strip():
            yield number, raw


def _jsonl(data: bytes, result: ParseResult) -> None:
    sessions: set[str] = set()
    for number, raw in _lines(data):
        result.records += 1
        where = f"line {number}"
        try:
            row = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            result.bad(where, "bad_json", "not a JSON object")
            continue
        if not isinstance(row, dict):
            result.bad(where, "bad_json", "not a JSON object")
            continue
        sid, speaker, text = _name(row.get("session")), _name(row.get("speaker")), row.get("text")
        if sid is None:
            result.bad(where, "bad_session", "session must be a non-empty string without NUL")
            continue
        if speaker is None:
            result.bad(where, "bad_speaker", "speaker must be a non-empty string without NUL")
            continue
        if not isinstance(text, str):
            result.bad(where, "bad_text", "text must be a string")
            continue
        when = to_utc(row.get("ts"))
        if when is None:
            result.bad(where, "bad_time", "ts must be ISO 8601 or epoch seconds")
            continue
        if "id" in row:
            rid = _name(row["id"])
            if rid is None:
                result.bad(where, "bad_id", "id must be a non-empty string or integer")
                continue
        else:  # no id: the record's content is its key (re-import stays idempotent)
            rid = "c-" + digest(sid, speaker, when.isoformat(), text)
        operator = row.get("operator")
        if operator is not None and not isinstance(operator, bool):
            result.bad(where, "bad_operator", "operator must be true or false")
            continue
        sessions.add(sid)
        _add(result, where, Turn(sid, rid, speaker, when, text, number, operator))
    result.conversations = len(sessions)
