"""Artifacts (voice messages, commits, vault pages) read from the store as ``Item``s.

The read is the store's ``ActivityLookups`` (``memgraph.store.interfaces``):
on SQLite one indexed range query per kind pulling only the fields grouping
needs (no pydantic per row: 30 days of activity is tens of thousands of rows).
Read-only; every write goes through the engine.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memgraph.store.interfaces import indexes
from memgraph.store.protocol import Store
from memgraph.store.rows import ActivitySource
from profiles.activity.windows import Item
from profiles.artifact.entities import mentioned_paths, norm_name
from profiles.artifact.git import find_toplevel

# (profile, kind, live lifecycle states)
SOURCES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("voice", "message", ("captured", "classified")),
    ("artifact", "commit", ("observed",)),
    ("artifact", "wiki_page", ("observed",)),
    ("artifact", "devlog", ("observed",)),
    ("artifact", "chronicle", ("observed",)),
)


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


class RepoResolver:
    """cwd -> normalised git top-level name, cached (one ``git`` call per cwd)."""

    def __init__(self) -> None:
        self._cache: dict[str, str | None] = {}

    def __call__(self, cwd: str | None) -> str | None:
        if not cwd:
            return None
        if cwd not in self._cache:
            top = find_toplevel(cwd)
            self._cache[cwd] = norm_name(top.name) if top is not None else None
        return self._cache[cwd]


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def to_item(
    kind: str, node_id: str, valid: datetime, attrs: dict[str, Any], text: str, repos: RepoResolver
) -> Item:
    """One stored node's grouping view. Link keys are documented in notes/activity.md."""
    if kind == "message":
        session = _str(attrs.get("session_id"))
        repo = repos(_str(attrs.get("cwd")))
        project = norm_name(_str(attrs.get("project")))
        keys = {f"session:{session}"} if session else set()
        weak: set[str] = set()
        if repo:
            keys.add(f"repo:{repo}")
        if project:
            (keys if repo else weak).add(f"project:{project}")
        return Item(
            node_id=node_id,
            type="message",
            valid_time=valid,
            keys=frozenset(keys),
            weak=frozenset(weak),
            paths=tuple(mentioned_paths(text)),
            repo=repo,
            session_id=session,
            uuid=_str(attrs.get("record_uuid")),
        )
    if kind == "commit":
        label = _str(attrs.get("repo")) or "?"
        repo = norm_name(label)
        files = attrs.get("files")
        paths = tuple(f for f in files if isinstance(f, str)) if isinstance(files, list) else ()
        # A bot lane: automation commits group with each other, never with people.
        keys = {f"bot:{repo}"} if attrs.get("bot") else {f"repo:{repo}", f"project:{repo}"}
        return Item(
            node_id=node_id,
            type="commit",
            valid_time=valid,
            keys=frozenset(keys),
            paths=paths,
            repo=repo,
            root=_str(attrs.get("repo_path")),
            sha=_str(attrs.get("sha")),
            repo_label=label,
        )
    session = _str(attrs.get("session_id"))
    project = norm_name(_str(attrs.get("project")))
    repo = norm_name(_str(attrs.get("repo")))
    keys = set()
    if session:
        keys.add(f"session:{session}")
    if project:
        keys.add(f"project:{project}")
    if repo:
        keys.add(f"repo:{repo}")
    raw_paths = attrs.get("paths")
    paths = tuple(p for p in raw_paths if isinstance(p, str)) if isinstance(raw_paths, list) else ()
    return Item(
        node_id=node_id,
        type=kind,
        valid_time=valid,
        keys=frozenset(keys),
        paths=paths,
        repo=repo,
        session_id=session,
        ref=_str(attrs.get("ref")),
    )


def load_items(
    store: Store, lo: datetime, hi: datetime, repos: RepoResolver | None = None
) -> list[Item]:
    """Every live artifact with valid time in [lo, hi], sorted by (time, id)."""
    repos = repos or RepoResolver()
    items: list[Item] = []
    sources = [ActivitySource(profile, kind, states) for profile, kind, states in SOURCES]
    for row in indexes(store).activity.rows_in_range(sources, _iso(lo), _iso(hi)):
        items.append(
            to_item(
                row.kind,
                row.node_id,
                _parse_time(row.valid_from),
                row.attributes,
                row.text or "",
                repos,
            )
        )
    items.sort(key=Item.sort_key)
    return items


def repo_paths_from_cwds(store: Store, lo: datetime, hi: datetime) -> list[Path]:
    """Git top-levels of every session cwd seen in [lo, hi] (repos to read commits from)."""
    cwds = indexes(store).activity.message_cwds(_iso(lo), _iso(hi))
    tops: dict[str, Path] = {}
    for cwd in sorted(cwds):
        top = find_toplevel(cwd)
        if top is not None:
            tops.setdefault(str(top), top)
    return list(tops.values())
