"""The activity pass: read artifacts, group them into windows, store the diff.

``recompute(store, since, until, gap)`` is deterministic and idempotent: it
loads every artifact of the coarse windows touching [since, until] (the range
grows until no chain of artifacts within ``gap`` crosses its edge), groups
them, and replaces exactly the current windows of that span. A late artifact
therefore recomputes only its own coarse window: ``recompute_around``.

``run_windows(store, request)`` is what ``memgraph windows`` calls: ingest
commits (repos from session cwds, ``--repo`` and config) and vault pages, then
recompute, then annotate the voice sessions whose windows changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memgraph.errors import UsageError
from memgraph.store.protocol import Store
from profiles.activity.source import RepoResolver, load_items, repo_paths_from_cwds
from profiles.activity.store import StoreStats, current_windows, store_windows
from profiles.activity.windows import (
    DEFAULT_GAP,
    Item,
    Window,
    check_gap,
    coarse_windows,
    name_windows,
    refine_coarse,
)

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
END_OF_TIME = datetime(9999, 1, 1, tzinfo=UTC)
_GROW = timedelta(days=1)


@dataclass
class Recomputed:
    windows: list[Window]  # current windows of the recomputed span, in start order
    stats: StoreStats
    span: tuple[datetime, datetime]


def _relevant(
    store: Store, since: datetime, until: datetime, gap: timedelta, repos: RepoResolver
) -> tuple[list[list[Item]], datetime, datetime]:
    """Coarse windows touching [since, until], loaded until their chains are closed."""
    lo, hi = max(EPOCH, since - gap), min(END_OF_TIME, until + gap)
    while True:
        coarse = coarse_windows(load_items(store, lo, hi, repos), gap)
        hits = [c for c in coarse if c[-1].valid_time >= since and c[0].valid_time <= until]
        grow_lo = bool(hits) and hits[0][0].valid_time - lo <= gap and lo > EPOCH
        grow_hi = bool(hits) and hi - hits[-1][-1].valid_time <= gap and hi < END_OF_TIME
        if not (grow_lo or grow_hi):
            return hits, lo, hi
        if grow_lo:
            lo = max(EPOCH, lo - _GROW)
        if grow_hi:
            hi = min(END_OF_TIME, hi + _GROW)


def recompute(
    store: Store,
    since: datetime | None = None,
    until: datetime | None = None,
    gap: timedelta = DEFAULT_GAP,
    repos: RepoResolver | None = None,
) -> Recomputed:
    """Recompute and store the windows touching [since, until] (default: all time)."""
    from memgraph.engine import gc_paused

    # A full pass loads and builds tens of thousands of short-lived documents;
    # cyclic-GC passes over that heap cost about a fifth of the pass.
    with gc_paused(True):
        return _recompute(store, since, until, gap, repos)


def _recompute(
    store: Store,
    since: datetime | None,
    until: datetime | None,
    gap: timedelta,
    repos: RepoResolver | None,
) -> Recomputed:
    check_gap(gap)
    since = since or EPOCH
    until = until or END_OF_TIME
    if until < since:
        raise UsageError("--until is before --since")
    repos = repos or RepoResolver()
    while True:
        hits, _lo, _hi = _relevant(store, since, until, gap, repos)
        span_lo = min([since, *(c[0].valid_time for c in hits[:1])])
        span_hi = max([until, *(c[-1].valid_time for c in hits[-1:])])
        old = current_windows(store, span_lo, span_hi)
        # An old window reaching past the span (its artifacts were retired since,
        # or it came from another gap) widens the span: nothing is half-replaced.
        wider_lo = min([span_lo, *(n.valid_from for n in old if n.valid_from)])
        wider_hi = max([span_hi, *(n.valid_to for n in old if n.valid_to)])
        if (wider_lo, wider_hi) == (span_lo, span_hi):
            break
        since, until = wider_lo, wider_hi
    regions = [name_windows(refine_coarse(c, gap)) for c in hits]
    stats = store_windows(store, regions, old, gap)
    windows = [w for region in regions for w in region]
    return Recomputed(windows=windows, stats=stats, span=(span_lo, span_hi))


def recompute_around(
    store: Store, times: Iterable[datetime], gap: timedelta = DEFAULT_GAP
) -> StoreStats:
    """After late artifacts at ``times`` arrived: recompute only their windows."""
    total = StoreStats()
    repos = RepoResolver()
    for when in sorted(set(times)):
        stats = recompute(store, when, when, gap, repos).stats
        total.created += stats.created
        total.superseded += stats.superseded
        total.unchanged += stats.unchanged
        total.already_done += stats.already_done
        total.patches += stats.patches
        total.changed_sessions |= stats.changed_sessions
        total.changed_windows |= stats.changed_windows
    return total


GAP_MINUTES = (1.0, 24 * 60 * 30.0)  # the gap a window may have: 1 minute to 30 days


@dataclass
class WindowsRequest:
    """What ``memgraph windows`` asks for."""

    since: datetime | None = None
    until: datetime | None = None
    gap: timedelta = DEFAULT_GAP
    repos: list[Path] = field(default_factory=list)  # --repo and config
    discover_repos: bool = True  # also read the repos of session cwds
    vault: Path | None = None  # read wiki/devlog/chronicle pages from here
    annotate: bool = True  # write activity_window into touched voice sessions/pages


@dataclass
class WindowsResult:
    windows: list[Window]
    stats: StoreStats
    commits_seen: int = 0
    commits_written: int = 0
    pages_seen: int = 0
    pages_written: int = 0
    repos_read: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    annotated: int = 0
    notes_written: int = 0  # window note files this run wrote (by page re-renders or not)
    notes_removed: int = 0  # window notes of ids that are no window any more


def run_windows(store: Store, request: WindowsRequest) -> WindowsResult:
    """Ingest artifacts for the range, recompute windows, annotate voice sessions."""
    from profiles.artifact.git import read_commits
    from profiles.artifact.ingest import ingest_commits, ingest_pages
    from profiles.artifact.vault import read_vault

    gap = check_gap(request.gap)
    since, until = request.since, request.until
    if since is not None and until is not None and until < since:
        raise UsageError("--until is before --since")
    # Commits just outside the range can still chain into its windows.
    read_lo = since - gap if since else None
    read_hi = until + gap if until else None
    repo_paths: dict[str, Path] = {}
    for path in request.repos:
        repo_paths.setdefault(str(path), path)
    if request.discover_repos:
        for top in repo_paths_from_cwds(store, read_lo or EPOCH, read_hi or END_OF_TIME):
            repo_paths.setdefault(str(top), top)
    result = WindowsResult(windows=[], stats=StoreStats())
    seen_tops: set[str] = set()
    for path in repo_paths.values():
        read = read_commits(path, read_lo, read_hi)
        result.warnings.extend(read.warnings)
        if read.bad_records:
            result.warnings.append(f"{read.repo_path}: {read.bad_records} unparsable commit(s)")
        if read.repo_path in seen_tops or not read.in_repo:  # a non-repo is no repo read
            continue
        seen_tops.add(read.repo_path)
        result.repos_read.append(read.repo_path)
        ingested = ingest_commits(store, read.commits)
        result.commits_seen += ingested.seen
        result.commits_written += ingested.written
    if request.vault is not None:
        vault = read_vault(request.vault, read_lo, read_hi)
        for reason, count in sorted(vault.skipped.items()):
            result.warnings.append(f"vault: skipped {count} page(s): {reason}")
        pages = ingest_pages(store, vault.pages)
        result.pages_seen, result.pages_written = pages.seen, pages.written
    done = recompute(store, since, until, gap)
    result.windows, result.stats = done.windows, done.stats
    notes = sorted(done.stats.changed_windows) if request.vault is not None else []
    before = _note_texts(request.vault, notes) if request.annotate and notes else {}
    from memgraph.fileio import deferred_fsync

    # thousands of pages and notes: one fsync each, their folders' once at the end
    with deferred_fsync():
        if request.annotate and done.stats.changed_sessions:
            from profiles.activity.annotate import annotate_sessions

            changed = sorted(done.stats.changed_sessions)
            result.annotated = annotate_sessions(store, changed, request.vault)
        if request.annotate and request.vault is not None and notes:
            result.notes_removed = _sync_notes(store, request.vault, notes)
    if request.annotate and request.vault is not None and notes:
        after = _note_texts(request.vault, notes)
        # pages re-rendered above wrote some notes, _sync_notes the rest: count files
        result.notes_written = sum(
            1 for w, text in after.items() if text is not None and text != before.get(w)
        )
    return result


def _note_texts(vault: Path | None, window_ids: list[str]) -> dict[str, str | None]:
    from memgraph.errors import UsageError
    from memgraph.fileio import read_text_nofollow
    from profiles.activity.winnote import note_path

    texts: dict[str, str | None] = {}
    if vault is None:
        return texts
    for wid in window_ids:
        try:
            path = note_path(vault, wid)
        except UsageError:  # an id that cannot name a file has no note
            continue
        texts[wid] = read_text_nofollow(path) if path.is_file() else None
    return texts


def _sync_notes(store: Store, vault: Path, window_ids: list[str]) -> int:
    """Window notes on disk follow their window: re-rendered while it is current
    (pages re-rendered by ``annotate_sessions`` already wrote theirs), removed once
    its id names no current window (``profiles.activity.winnote``). Returns how many
    were removed."""
    from profiles.activity.winnote import note_path, remove_stale_notes, write_note

    for wid in window_ids:
        if note_path(vault, wid).is_file():
            write_note(store, vault, wid)
    return len(remove_stale_notes(store, vault, window_ids))
