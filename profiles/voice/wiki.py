"""Wiki page validator: frontmatter and structure of vault pages.

Page types: overview, service, decision, process, analysis, and voice (whose
frontmatter is extended and whose body must parse as a voice page). Errors make
a page invalid; warnings flag things a person probably did not mean (unknown
keys, odd status). A page memgraph renders yields neither. A voice page in the
design's own format (``> **HH:MM** — text`` messages without memgraph's hidden
``<!-- mg -->`` markers: written by hand or by another tool) is valid with a
warning: memgraph cannot import it losslessly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from memgraph.errors import ReaderError
from profiles.voice.pages import (
    MESSAGES_HEADING,
    PAGE_TYPE,
    PageError,
    marker_version,
    parse_page,
    split_frontmatter,
)

# an activity window's note (profiles.activity.winnote: the target of a page's [[aw-...]])
WINDOW_TYPE = "activity_window"
WINDOW_REQUIRED = ("window_id", "start", "end")
WINDOW_OPTIONAL = ("repos", "sessions", "counts")
PAGE_TYPES = ("overview", "service", "decision", "process", "analysis", PAGE_TYPE)
KNOWN_TYPES = (*PAGE_TYPES, WINDOW_TYPE)
BASE_REQUIRED = ("title", "type", "created", "updated")
BASE_OPTIONAL = ("status", "tags", "aliases", "sources", "related", "description", "constellation")
VOICE_REQUIRED = (
    "constellation",
    "session_id",
    "project",
    "valid_from",
    "valid_to",
    "message_count",
    "ingested_at",
    "sources",
)
VOICE_OPTIONAL = ("activity_window", "harness", "branch", "cwd")
STATUSES = ("draft", "active", "stable", "stale", "deprecated", "superseded", "archived")
# memgraph writes active/stable (issue 20); captured/classified: pages written before
VOICE_STATUSES = ("active", "stable", "captured", "classified")
_DESIGN_HEADER = re.compile(r"^> \*\*\d\d:\d\d\*\* —")
_LIST_KEYS = ("tags", "aliases", "sources", "related")
_MAX_PAGE_BYTES = 64 << 20
# vault bookkeeping files, not pages: skipped when a directory is walked
NOT_PAGES = ("log.md", "index.md")


@dataclass(frozen=True)
class WikiProblem:
    level: str  # "error" | "warning"
    message: str
    line: int | None = None  # 1-based line of the page, when known

    def __str__(self) -> str:
        return f"{self.level}: {self.message}"


def _err(message: str, line: int | None = None) -> WikiProblem:
    return WikiProblem("error", message, line)


def _warn(message: str, line: int | None = None) -> WikiProblem:
    return WikiProblem("warning", message, line)


def _is_iso_datetime(value: Any) -> bool:
    if isinstance(value, datetime):
        return value.tzinfo is not None
    if not isinstance(value, str):
        return False
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).tzinfo is not None
    except ValueError:
        return False


def _pure_date(value: Any) -> bool:
    """A date that is not a datetime (they cannot be compared with each other)."""
    return isinstance(value, date) and not isinstance(value, datetime)


def _check_base(data: dict[str, Any]) -> list[WikiProblem]:
    problems: list[WikiProblem] = []
    for key in BASE_REQUIRED:
        if key not in data:
            problems.append(_err(f"missing frontmatter key '{key}'"))
    title = data.get("title")
    if "title" in data and (not isinstance(title, str) or not title.strip()):
        problems.append(_err("title must be a non-empty string"))
    kind = data.get("type")
    if "type" in data and kind not in KNOWN_TYPES:
        problems.append(_err(f"type {str(kind)[:40]!r} is not one of {', '.join(KNOWN_TYPES)}"))
    for key in ("created", "updated"):
        value = data.get(key)
        if key in data and (not isinstance(value, date) or isinstance(value, datetime)):
            problems.append(_err(f"{key} must be a date (YYYY-MM-DD)"))
    created, updated = data.get("created"), data.get("updated")
    if (
        isinstance(created, date)
        and isinstance(updated, date)
        and _pure_date(created)
        and _pure_date(updated)
        and updated < created
    ):
        problems.append(_err("updated is before created"))
    for key in _LIST_KEYS:
        value = data.get(key)
        if key in data and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            problems.append(_err(f"{key} must be a list of strings"))
    return problems


def _check_voice(data: dict[str, Any], text: str, source: str) -> list[WikiProblem]:
    problems = [_err(f"voice page misses '{k}'") for k in VOICE_REQUIRED if k not in data]
    for key in ("valid_from", "valid_to", "ingested_at"):
        if key in data and not _is_iso_datetime(data[key]):
            problems.append(_err(f"{key} must be an ISO-8601 timestamp with a timezone"))
    count = data.get("message_count")
    if "message_count" in data and (not isinstance(count, int) or count < 0):
        problems.append(_err("message_count must be a non-negative integer"))
    if problems:
        return problems
    try:
        page = parse_page(text, source)
    except PageError as exc:
        design = _design_format(text, data)
        if design is not None:
            return design
        return [_page_error(str(exc), source)]
    if page.valid_to < page.valid_from:
        problems.append(_err("valid_to is before valid_from"))
    if page.status not in VOICE_STATUSES:
        problems.append(_warn(f"voice status {page.status!r} is not one of {VOICE_STATUSES}"))
    return problems


def _page_error(message: str, source: str) -> WikiProblem:
    """A ``PageError`` as a problem, its ``source:LINE:`` prefix as the line."""
    rest = message.removeprefix(f"{source}:")
    head, sep, tail = rest.partition(": ")
    if sep and head.isdigit():
        return _err(tail, int(head))
    return _err(message.removeprefix(f"{source}: "))


def _design_format(text: str, data: dict[str, Any]) -> list[WikiProblem] | None:
    """Problems of a voice page without memgraph's markers, or None when it has any
    marker (then the parse error stands) or is not in that format."""
    _, body, first = split_frontmatter(text)
    if any(marker_version(line) for line in body) or MESSAGES_HEADING not in body:
        return None
    headers = [i for i, line in enumerate(body) if _DESIGN_HEADER.match(line)]
    where = first + body.index(MESSAGES_HEADING)
    problems = [
        _warn(
            "voice page without memgraph's <!-- mg --> message markers (the design's own "
            "format): valid, but memgraph cannot import or re-render it losslessly",
            where,
        )
    ]
    count = data.get("message_count")
    if count != len(headers):
        problems.append(
            _warn(f"message_count {str(count)[:20]} but {len(headers)} '> **HH:MM** —' messages")
        )
    status = data.get("status")
    if status is not None and status not in VOICE_STATUSES:
        problems.append(_warn(f"voice status {str(status)[:40]!r} is not one of {VOICE_STATUSES}"))
    return problems


def validate_wiki_page(text: str, source: str = "page") -> list[WikiProblem]:
    """Every problem of one page; an empty list means valid without warnings."""
    try:
        data, body, _ = split_frontmatter(text, source)
    except PageError as exc:
        return [_err(str(exc).removeprefix(f"{source}: "))]
    problems = _check_base(data)
    kind = data.get("type")
    known = set(BASE_REQUIRED) | set(BASE_OPTIONAL)
    if kind == PAGE_TYPE:
        known |= set(VOICE_REQUIRED) | set(VOICE_OPTIONAL)
        if not any(p.level == "error" for p in problems):
            problems += _check_voice(data, text, source)
    elif kind == WINDOW_TYPE:
        known |= set(WINDOW_REQUIRED) | set(WINDOW_OPTIONAL)
        problems += [_err(f"window note misses '{k}'") for k in WINDOW_REQUIRED if k not in data]
        for key in ("start", "end"):
            if key in data and not _is_iso_datetime(data[key]):
                problems.append(_err(f"{key} must be an ISO-8601 timestamp with a timezone"))
    else:
        voice_only = sorted((set(VOICE_REQUIRED) - known) & set(map(str, data)))
        if voice_only:
            problems.append(_warn(f"voice-only keys on a {kind} page: {', '.join(voice_only)}"))
            known |= set(voice_only)
        status = data.get("status")
        if status is not None and status not in STATUSES:
            problems.append(_warn(f"status {str(status)[:40]!r} is not one of {STATUSES}"))
        if not any(line.strip() for line in body):
            problems.append(_warn("page has no body"))
    unknown = sorted(str(k) for k in data if str(k) not in known)
    if unknown:
        problems.append(_warn(f"unknown frontmatter keys: {', '.join(unknown)[:200]}"))
    if kind != PAGE_TYPE and _unbalanced_links(body):
        problems.append(_warn("unbalanced [[wikilink]] brackets"))
    return problems


def _unbalanced_links(body: Iterable[str]) -> bool:
    # quoted lines are someone's words: brackets there prove nothing
    text = "\n".join(line for line in body if not line.startswith(">"))
    return len(re.findall(r"\[\[", text)) != len(re.findall(r"\]\]", text))


def iter_pages(paths: Iterable[Path]) -> Iterator[Path]:
    """Markdown files named by ``paths`` (directories are walked, hidden dirs skipped)."""
    for path in paths:
        if path.is_dir():
            for found in sorted(path.rglob("*.md")):
                rel = found.relative_to(path)
                hidden = any(part.startswith(".") for part in rel.parts)
                if not hidden and not (len(rel.parts) == 1 and rel.name in NOT_PAGES):
                    yield found
        elif path.exists():
            yield path
        else:
            raise ReaderError(f"{path}: no such file or directory")


def validate_file(path: Path) -> list[WikiProblem]:
    from memgraph.inputs import read_bounded

    try:
        # a FIFO/device named *.md is refused, not read (it would hang)
        raw = read_bounded(path, _MAX_PAGE_BYTES, "page")
    except ReaderError as exc:
        msg = str(exc)
        if "larger than" in msg:
            return [_err(f"larger than {_MAX_PAGE_BYTES >> 20} MB")]
        return [_err(msg.replace(f"cannot read page {path}: ", "cannot read: "))]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [_err(f"not UTF-8 (byte {exc.start})")]
    try:
        return validate_wiki_page(text, str(path))
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        # one odd page must not abort a run over the whole vault
        return [_err(f"frontmatter cannot be checked: {type(exc).__name__}: {exc}"[:300])]
