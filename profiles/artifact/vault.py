"""Wiki pages, devlogs and chronicles read from the vault's markdown frontmatter.

A page is an artifact when its frontmatter ``type`` (or ``kind``) says
``wiki``/``wiki_page``/``devlog``/``chronicle``, or when it sits under a
directory of that name (``wiki/``, ``devlog(s)/``, ``chronicle(s)/``). Its valid
time is ``updated`` (else ``created``, else ``date``): the moment work touched it.
Voice pages (``voice/``) and hidden directories are not artifacts. Malformed
YAML, frontmatter that is not a mapping, undated pages, oversized or
non-UTF-8 files are counted per reason and skipped; symlinks leaving the vault
are never followed.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

import yaml

from profiles.artifact.entities import mentioned_paths

MAX_PAGE_BYTES = 2_000_000
MAX_FRONTMATTER_CHARS = 64_000
PAGE_TYPES = {"wiki": "wiki_page", "wiki_page": "wiki_page", "devlog": "devlog"}
PAGE_TYPES |= {"chronicle": "chronicle", "devlogs": "devlog", "chronicles": "chronicle"}
SKIP_DIRS = {"voice", "node_modules"}


@dataclass(frozen=True)
class VaultPage:
    type: str  # wiki_page | devlog | chronicle
    ref: str  # path relative to the vault, POSIX separators
    title: str
    valid_time: datetime
    created: datetime | None
    updated: datetime | None
    session_id: str | None
    project: str | None
    repo: str | None
    branch: str | None
    paths: tuple[str, ...]  # file paths mentioned in the body
    body_chars: int


@dataclass
class VaultRead:
    pages: list[VaultPage] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _as_time(value: Any) -> datetime | None:
    """A frontmatter date/datetime (YAML-typed or text) as aware UTC; None if unusable."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime.combine(value, time(0, 0))
    elif isinstance(value, str) and value.strip():
        text = value.strip().replace("Z", "+00:00")
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            return None
    else:
        return None
    # A date without a zone is taken as UTC: deterministic on every machine.
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def _scalar(meta: dict[str, Any], *keys: str) -> str | None:
    """First key holding a scalar; nested values (and YAML alias bombs) are ignored."""
    for key in keys:
        value = meta.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = " ".join(str(value).split())[:200]
            if text:
                return text
    return None


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(frontmatter YAML text or None, body). Frontmatter is a leading ``---`` block."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        return None, text
    first, _, rest = text.partition("\n")
    if first.strip() != "---":
        return None, text
    end = rest.find("\n---")
    if rest.startswith("---"):
        return "", rest[3:].lstrip("\n")
    if end < 0:
        raise ValueError("unterminated frontmatter")
    after = rest[end + 4 :]
    return rest[:end], after.split("\n", 1)[1] if "\n" in after else ""


def page_type(rel: Path, meta: dict[str, Any]) -> str | None:
    declared = _scalar(meta, "type", "kind")
    if declared is not None:
        return PAGE_TYPES.get(declared.lower())
    for part in rel.parts[:-1]:
        found = PAGE_TYPES.get(part.lower())
        if found is not None:
            return found
    return None


def parse_page(rel: Path, text: str) -> VaultPage | str:
    """A page, or the reason it is skipped (``not_artifact`` is not an error)."""
    try:
        front, body = split_frontmatter(text)
    except ValueError:
        return "malformed_frontmatter"
    if front is None:
        return "not_artifact" if page_type(rel, {}) is None else "no_frontmatter"
    if len(front) > MAX_FRONTMATTER_CHARS:
        return "oversized_frontmatter"
    try:
        meta = yaml.safe_load(front) if front.strip() else {}
    except yaml.YAMLError:
        return "malformed_yaml"
    except RecursionError:
        return "malformed_yaml"
    if not isinstance(meta, dict):
        return "frontmatter_not_mapping"
    kind = page_type(rel, meta)
    if kind is None:
        return "not_artifact"
    created = _as_time(meta.get("created"))
    updated = _as_time(meta.get("updated")) or _as_time(meta.get("modified"))
    valid = updated or created or _as_time(meta.get("date"))
    if valid is None:
        return "no_date"
    title = _scalar(meta, "title") or rel.stem
    return VaultPage(
        type=kind,
        ref=rel.as_posix(),
        title=title[:200],
        valid_time=valid,
        created=created,
        updated=updated,
        session_id=_scalar(meta, "session_id", "session"),
        project=_scalar(meta, "project", "constellation"),
        repo=_scalar(meta, "repo", "repository"),
        branch=_scalar(meta, "branch"),
        paths=tuple(mentioned_paths(body)),
        body_chars=len(body),
    )


def _walk(vault: Path) -> Iterator[Path]:
    root = vault.resolve()
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root)
        if any(p.startswith(".") or p in SKIP_DIRS for p in rel.parts[:-1]):
            continue
        yield path


def read_vault(
    vault: Path, since: datetime | None = None, until: datetime | None = None
) -> VaultRead:
    """Every artifact page in ``vault`` whose valid time falls in [since, until]."""
    read = VaultRead()
    if not vault.is_dir():
        return read
    root = vault.resolve()
    for path in _walk(vault):
        try:
            real = path.resolve()
            if not real.is_relative_to(root):
                read.skip("outside_vault")
                continue
            info = real.stat()
            if not stat.S_ISREG(info.st_mode):  # a FIFO named *.md would block the read
                read.skip("not_regular")
                continue
            if info.st_size > MAX_PAGE_BYTES:
                read.skip("oversized")
                continue
            text = real.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            read.skip("not_utf8")
            continue
        except RuntimeError:  # Python < 3.13's word for a symlink loop in resolve()
            read.skip("symlink_loop")
            continue
        except OSError:
            read.skip("unreadable")
            continue
        result = parse_page(path.relative_to(root), text)
        if isinstance(result, str):
            if result != "not_artifact":
                read.skip(result)
            continue
        if since is not None and result.valid_time < since:
            continue
        if until is not None and result.valid_time > until:
            continue
        read.pages.append(result)
    return read
