"""Artifacts (voice messages, commits, vault pages) read from the store as ``Item``s.

On SQLite the read is one indexed range query per kind over
``nodes(profile, kind, valid_from)`` pulling only the JSON fields grouping
needs (no pydantic per row: 30 days of activity is tens of thousands of
rows). Other backends go through ``Store.iter_nodes``. Read-only; every write
goes through the engine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memgraph.store.protocol import Store
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


def _sqlite_rows(
    store: Store, lo: datetime, hi: datetime
) -> Iterator[tuple[str, str, str, str, str]] | None:
    conn = getattr(store, "conn", None)
    lock = getattr(store, "_lock", None)
    if conn is None or lock is None or type(store).__name__ != "SQLiteStore":
        return None
    rows: list[tuple[str, str, str, str, str]] = []
    with lock:
        for profile, kind, states in SOURCES:
            marks = ",".join("?" * len(states))
            text_expr = "json_extract(doc, '$.claim')" if kind == "message" else "''"
            rows.extend(
                conn.execute(
                    f"SELECT kind, id, valid_from, json_extract(doc, '$.attributes'), {text_expr}"
                    " FROM nodes WHERE profile = ? AND kind = ? AND valid_from >= ?"
                    f" AND valid_from <= ? AND lifecycle IN ({marks})",
                    (profile, kind, _iso(lo), _iso(hi), *states),
                ).fetchall()
            )
    return iter(rows)


def load_items(
    store: Store, lo: datetime, hi: datetime, repos: RepoResolver | None = None
) -> list[Item]:
    """Every live artifact with valid time in [lo, hi], sorted by (time, id)."""
    repos = repos or RepoResolver()
    items: list[Item] = []
    rows = _sqlite_rows(store, lo, hi)
    if rows is not None:
        for kind, nid, valid, attrs_json, text in rows:
            attrs = json.loads(attrs_json) if attrs_json else {}
            items.append(to_item(kind, nid, _parse_time(valid), attrs, text or "", repos))
    else:
        for profile, kind, states in SOURCES:
            for node in store.iter_nodes(profile, kind):
                vf = node.valid_from
                if vf is None or node.lifecycle not in states or not lo <= vf <= hi:
                    continue
                items.append(
                    to_item(kind, node.id, vf.astimezone(UTC), node.attributes, node.claim, repos)
                )
    items.sort(key=Item.sort_key)
    return items


def repo_paths_from_cwds(store: Store, lo: datetime, hi: datetime) -> list[Path]:
    """Git top-levels of every session cwd seen in [lo, hi] (repos to read commits from)."""
    cwds: set[str] = set()
    conn = getattr(store, "conn", None)
    if conn is not None and type(store).__name__ == "SQLiteStore":
        with store._lock:  # type: ignore[attr-defined]
            rows = conn.execute(
                "SELECT DISTINCT json_extract(doc, '$.attributes.cwd') FROM nodes"
                " WHERE profile = 'voice' AND kind = 'message' AND valid_from >= ?"
                " AND valid_from <= ?",
                (_iso(lo), _iso(hi)),
            ).fetchall()
        cwds = {r[0] for r in rows if isinstance(r[0], str) and r[0]}
    else:
        for node in store.iter_nodes("voice", "message"):
            cwd = node.attributes.get("cwd")
            if node.valid_from and lo <= node.valid_from <= hi and isinstance(cwd, str) and cwd:
                cwds.add(cwd)
    tops: dict[str, Path] = {}
    for cwd in sorted(cwds):
        top = find_toplevel(cwd)
        if top is not None:
            tops.setdefault(str(top), top)
    return list(tops.values())
