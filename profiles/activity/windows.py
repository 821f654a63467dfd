"""Activity windows: pure grouping of artifacts (no I/O, no store).

1. Order artifacts by valid time; a window extends while the next artifact is
   within ``gap`` of the previous one (the coarse window).
2. Entity validation: split a coarse window into its entity-connected groups
   (artifacts sharing a link key: session, repo, project, or a bot lane).
3. Removing other repos' artifacts can open holes larger than ``gap`` inside a
   group, and a gap split can disconnect it again, so steps 1-2 repeat on every
   group until nothing splits. Every artifact ends in exactly one window.

Repo-less artifacts (a message whose cwd is no repo here, a devlog without a
repo) are resolved through the file paths they mention: when those paths match
files changed by commits of exactly ONE repo in the coarse window, the artifact
joins that repo; ambiguous matches link nothing. See notes/activity.md.

Window ids are ``aw-YYYY-MM-DD-HHMM`` of the window's start (UTC). Two groups
of one coarse window can start in the same minute; they are ordered by (start,
smallest node id) and the second and later get ``-2``, ``-3``... Groups of
different coarse windows never collide: coarse windows are more than ``gap``
(at least one minute) apart, so their starts fall in different minutes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from memgraph.errors import UsageError
from profiles.artifact.entities import is_specific, path_suffixes

DEFAULT_GAP = timedelta(minutes=15)
MIN_GAP = timedelta(minutes=1)


@dataclass(frozen=True)
class Item:
    """One artifact as the grouping sees it."""

    node_id: str
    type: str  # message | commit | wiki_page | devlog | chronicle
    valid_time: datetime  # aware UTC
    keys: frozenset[str] = frozenset()  # link keys: session:, repo:, project:, bot:
    # Keys that link only when a commit of the coarse window carries them too: a
    # message's project when its cwd is no repo here (often a parent directory
    # name such as "code", which would glue every session started there).
    weak: frozenset[str] = frozenset()
    paths: tuple[str, ...] = ()  # files changed (commit) or mentioned (others)
    repo: str | None = None  # normalised repo name when known for certain
    root: str | None = None  # repo top-level path (commits), for absolute mentions
    session_id: str | None = None
    uuid: str | None = None
    sha: str | None = None
    ref: str | None = None
    repo_label: str | None = None  # repo as displayed (commits)

    def sort_key(self) -> tuple[datetime, str]:
        return (self.valid_time, self.node_id)

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` artifact shape (also the page frontmatter shape)."""
        when = self.valid_time.isoformat().replace("+00:00", "Z")
        if self.type == "message":
            return {
                "type": "message",
                "session_id": self.session_id,
                "uuid": self.uuid,
                "valid_time": when,
            }
        if self.type == "commit":
            return {"type": "commit", "repo": self.repo_label, "sha": self.sha, "valid_time": when}
        return {"type": self.type, "ref": self.ref, "valid_time": when}


@dataclass(frozen=True)
class Window:
    id: str
    start: datetime
    end: datetime
    items: tuple[Item, ...]  # in valid-time order
    repos: tuple[str, ...] = field(default=())

    @property
    def node_ids(self) -> tuple[str, ...]:
        return tuple(i.node_id for i in self.items)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "start": self.start.isoformat().replace("+00:00", "Z"),
            "end": self.end.isoformat().replace("+00:00", "Z"),
            "artifacts": [i.as_json() for i in self.items],
        }


def check_gap(gap: timedelta) -> timedelta:
    if gap < MIN_GAP:
        raise UsageError(f"--gap must be at least 1 minute (got {gap.total_seconds() / 60:g})")
    return gap


def gap_split(items: Sequence[Item], gap: timedelta) -> list[list[Item]]:
    """Consecutive runs whose neighbours are at most ``gap`` apart (input sorted)."""
    runs: list[list[Item]] = []
    for item in items:
        if runs and item.valid_time - runs[-1][-1].valid_time <= gap:
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def _components(items: Sequence[Item], keys: dict[str, frozenset[str]]) -> list[list[Item]]:
    """Entity-connected components (union-find over shared keys), order kept."""
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for index, item in enumerate(items):
        for key in keys[item.node_id]:
            other = owner.setdefault(key, index)
            if other != index:
                a, b = find(index), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[Item]] = defaultdict(list)
    for index, item in enumerate(items):
        groups[find(index)].append(item)
    return [groups[root] for root in sorted(groups)]


def resolve_keys(coarse: Sequence[Item]) -> dict[str, frozenset[str]]:
    """Link keys per item, with repo-less items resolved through mentioned paths."""
    by_suffix: dict[str, set[str]] = defaultdict(set)
    roots: dict[str, str] = {}
    commit_keys: set[str] = set()
    for item in coarse:
        if item.type == "commit" and item.repo:
            commit_keys.update(k for k in item.keys if k.startswith(("repo:", "project:")))
            if item.root:
                roots[item.root.rstrip("/") + "/"] = item.repo
            for path in item.paths:
                for suffix in path_suffixes(path):
                    by_suffix[suffix].add(item.repo)
    resolved: dict[str, frozenset[str]] = {}
    for item in coarse:
        keys = item.keys | (item.weak & commit_keys)
        if (
            item.type != "commit"
            and item.paths
            and not any(k.startswith("repo:") for k in keys)
            and not (keys & commit_keys)
        ):
            repos: set[str] = set()
            for path in item.paths:
                if path.startswith("/"):
                    repos.update(r for root, r in roots.items() if path.startswith(root))
                elif is_specific(path):
                    repos.update(by_suffix.get(path, ()))
            if len(repos) == 1:
                keys = keys | {f"repo:{repos.pop()}"}
        resolved[item.node_id] = keys
    return resolved


def refine_coarse(coarse: list[Item], gap: timedelta) -> list[list[Item]]:
    keys = resolve_keys(coarse)
    pending = [coarse]
    done: list[list[Item]] = []
    while pending:
        group = pending.pop()
        runs = gap_split(group, gap)
        if len(runs) > 1:
            pending.extend(runs)
            continue
        parts = _components(group, keys)
        if len(parts) > 1:
            pending.extend(parts)
            continue
        done.append(group)
    return done


def window_id(start: datetime) -> str:
    return "aw-" + start.strftime("%Y-%m-%d-%H%M")


def name_windows(groups: list[list[Item]]) -> list[Window]:
    ordered = sorted(groups, key=lambda g: (g[0].valid_time, min(i.node_id for i in g)))
    used: dict[str, int] = {}
    windows: list[Window] = []
    for group in ordered:
        base = window_id(group[0].valid_time)
        used[base] = used.get(base, 0) + 1
        wid = base if used[base] == 1 else f"{base}-{used[base]}"
        repos = sorted({i.repo_label or i.repo for i in group if i.type == "commit" and i.repo})
        windows.append(
            Window(
                id=wid,
                start=group[0].valid_time,
                end=group[-1].valid_time,
                items=tuple(group),
                repos=tuple(r for r in repos if r),
            )
        )
    return windows


def coarse_windows(items: Iterable[Item], gap: timedelta) -> list[list[Item]]:
    """Step 1 only: time-gap windows over every artifact (sorted, deduplicated)."""
    unique = {i.node_id: i for i in items}
    return gap_split(sorted(unique.values(), key=Item.sort_key), gap)


def group_windows(items: Iterable[Item], gap: timedelta = DEFAULT_GAP) -> list[Window]:
    """All windows over ``items``, in start order; deterministic for the same input set."""
    check_gap(gap)
    windows: list[Window] = []
    for coarse in coarse_windows(items, gap):
        windows.extend(name_windows(refine_coarse(coarse, gap)))
    return windows
