"""Window notes: ``<vault>/windows/<window id>.md``, the target of a page's ``[[aw-...]]``.

A voice page's frontmatter lists its session's activity windows as ``[[aw-...]]``
wikilinks; this is the note each one resolves to (Obsidian matches a link to a
file name anywhere in the vault). It is a view of the current window node, small
and terse: the time span, the repos, and one line per joined artifact (time,
kind, a link to the session's page or the vault page when that file exists, the
message's first line or the commit's subject)::

    ---
    type: activity_window
    window_id: aw-2026-04-14-1432
    start: '2026-04-14T14:32:00Z'
    ...
    ---

    # aw-2026-04-14-1432 — 2 messages, 1 commit in atlas

    - 14:32 message [[atlas/voice/2026-04-14-80166115|80166115]] — run the tests
    - 14:36 commit atlas@1a2b3c4d — http client: backoff with jitter

When it is written: whenever a voice page that links to it is written
(``profiles.voice.views.write_session_page_ex``), and by the windows pass for a
note already on disk whose window changed; a note whose window id is no longer
current is removed (``remove_stale_notes``), unless a person wrote in it.
``memgraph forget`` re-renders the notes of the sessions it touched.

Hand edits are kept with the voice pages' machinery (``profiles.voice.pageblocks``,
``profiles.voice.pagekeep``):
memgraph owns the frontmatter keys it writes, the ``# `` heading and the artifact
lines; any other line is the person's and is carried into every re-render; an
edit inside memgraph's lines leaves the note alone and puts the new render in
``<note>.conflict.md`` (listed by ``memgraph probe``/``doctor``). So does a note
that is not UTF-8 text (an editor saved it in Latin-1): it stays byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from memgraph.beneath import safe_child
from memgraph.documents import MemoryNode
from memgraph.errors import MemgraphError, NotFound, UsageError
from memgraph.fileio import read_text_nofollow, rewrite_if_unchanged
from memgraph.store.protocol import Store

NOTES_DIR = "windows"
NOTE_TYPE = "activity_window"
TAG = "activity-window"
TEXT_CHARS = 72  # a message's first line / a commit's subject, cut
NOTE_KEYS = frozenset(
    {"title", "type", "created", "updated", "window_id", "start", "end", "repos", "sessions"}
    | {"counts", "tags"}
)
# an artifact line memgraph writes: "- HH:MM <kind> ..."
_ITEM = re.compile(r"^- \d\d:\d\d [a-z_]+(?: |$)")


def note_relpath(window_id: str) -> PurePosixPath:
    return PurePosixPath(NOTES_DIR, f"{window_id}.md")


def note_path(vault: Path, window_id: str) -> Path:
    from profiles.activity.query import parse_window_id

    parse_window_id(window_id)  # a window id is a safe file name; anything else is refused
    return safe_child(vault, NOTES_DIR, f"{window_id}.md")


# -- reading the window ---------------------------------------------------------


def current_window(store: Store, window_id: str) -> MemoryNode | None:
    """The current window node with this id (None: no such window, or superseded)."""
    from profiles.activity.query import find_window

    try:
        node = find_window(store, window_id)
    except (NotFound, UsageError):
        return None
    return node if node.lifecycle == "current" else None


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _first_line(text: str) -> str:
    from profiles.voice.pagetext import display_escape

    first = " ".join((text.split("\n", 1)[0] if text else "").split())
    if len(first) > TEXT_CHARS:
        first = first[: TEXT_CHARS - 1] + "…"
    return display_escape(first)


def _link(vault: Path, relpath: str | None, label: str) -> str | None:
    """``[[relpath-without-.md|label]]`` when that file is in the vault."""
    if not relpath or not relpath.endswith(".md") or "]" in relpath or "|" in relpath:
        return None
    try:
        if not safe_child(vault, *PurePosixPath(relpath).parts).is_file():
            return None
    except (MemgraphError, OSError, ValueError):
        return None
    return f"[[{relpath[: -len('.md')]}|{label}]]"


def render_note(store: Store, vault: Path, window: MemoryNode) -> str:
    """The note's markdown for a window node; deterministic."""
    from profiles.voice.nodes import session_node_id
    from profiles.voice.pages import _dump_yaml

    attrs = window.attributes
    wid = str(attrs.get("window_id"))
    members = [str(m) for m in attrs.get("members") or []]
    arts = [a if isinstance(a, dict) else {} for a in attrs.get("artifacts") or []]
    sessions = sorted({str(s) for s in attrs.get("sessions") or []})
    with store.reader() as reader:
        nodes = reader.get_nodes(members)
        snodes = reader.get_nodes([session_node_id(s) for s in sessions])
    pages: dict[str, str | None] = {}
    for sid in sessions:
        snode = snodes.get(session_node_id(sid))
        value = snode.attributes.get("voice_page") if snode is not None else None
        pages[sid] = value if isinstance(value, str) else None
    # one existence check per session page, not per message (a safe_child resolve
    # and a stat each: 29k messages cost `render` ~6 s over 2,000 windows)
    session_links: dict[str, str | None] = {}
    counts: dict[str, int] = {}
    lines: list[str] = []
    for member, art in zip(members, arts, strict=False):
        kind = str(art.get("type") or "artifact")
        counts[kind] = counts.get(kind, 0) + 1
        node = nodes.get(member)
        when = _when(art.get("valid_time"), node)
        text = "(not in the store)" if node is None else (node.title or node.claim)
        if kind == "message":
            sid = str(art.get("session_id") or "")
            if sid not in session_links:
                session_links[sid] = _link(vault, pages.get(sid), sid[:8])
            where = session_links[sid] or f"session {sid[:8]}"
        elif kind == "commit":
            sha = str(art.get("sha") or "")[:8]
            where = (
                f"{art.get('repo') or (node.attributes.get('repo') if node else '') or '?'}@{sha}"
            )
        else:
            ref = str(art.get("ref") or "")
            where = _link(vault, ref, PurePosixPath(ref).stem or ref) or _first_line(ref)
        line = f"- {when:%H:%M} {re.sub(r'[^a-z_]', '_', kind.lower()) or 'artifact'} {where}"
        shown = _first_line(text)
        lines.append(f"{line} — {shown}" if shown else line)
    start = window.valid_from or datetime.fromtimestamp(0, UTC)
    end = window.valid_to or start
    repos = [str(r) for r in attrs.get("repos") or []]
    summary = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in sorted(counts.items()))
    where = f" in {', '.join(repos)}" if repos else ""
    title = f"{wid} — {summary}{where}"
    front: dict[str, Any] = {
        "title": title,
        "type": NOTE_TYPE,
        "created": start.astimezone(UTC).date(),
        "updated": end.astimezone(UTC).date(),
        "window_id": wid,
        "start": _iso(start),
        "end": _iso(end),
        "repos": repos,
        "sessions": sessions,
        "counts": dict(sorted(counts.items())),
        "tags": [TAG],
    }
    from profiles.voice.pagetext import display_escape

    heading = display_escape(title)
    out = ["---", _dump_yaml(front).rstrip("\n"), "---", "", f"# {heading}", "", *lines, ""]
    return "\n".join(out)


def _when(raw: object, node: MemoryNode | None) -> datetime:
    if isinstance(raw, str):
        try:
            return datetime.fromisoformat(raw.replace("Z", "+00:00")).astimezone(UTC)
        except ValueError:
            pass
    if node is not None and node.valid_from is not None:
        return node.valid_from.astimezone(UTC)
    return datetime.fromtimestamp(0, UTC)


# -- owned text and a person's text ---------------------------------------------


def split_note(text: str) -> list[Any]:
    """The note as ``pageblocks.Block``s: frontmatter, heading and artifact lines owned."""
    from profiles.voice.frontmatter import page_lines
    from profiles.voice.pageblocks import Block, frontmatter_block

    lines, i = page_lines(text)
    blocks: list[Block] = []
    if i:
        blocks.append(frontmatter_block(lines[:i], NOTE_KEYS))
    seen: set[str] = set()
    for n, line in enumerate(lines[i:], i):
        key: str | None = None
        if line.startswith("# ") and "title" not in seen:
            key = "title"
        elif _ITEM.match(line):
            key = f"item:{line}" if f"item:{line}" not in seen else f"item:{line}#{n}"
        if key is not None:
            seen.add(key)
        blocks.append(Block(key, (line,)))
    return blocks


# -- writing --------------------------------------------------------------------


def write_note(store: Store, vault: Path, window_id: str, *, force: bool = False) -> bool:
    """Write (or re-render) the note of a current window; True when the file changed.

    A window that is not current: nothing is written (``remove_stale_notes``
    deals with its old note). ``force`` (``memgraph forget``): an edit inside
    memgraph's lines does not keep the old text; the new render (the person's
    own lines carried) replaces it and any waiting conflict file goes.
    """
    from profiles.voice import pageblocks, pagekeep

    window = current_window(store, window_id)
    if window is None:
        return False
    path = note_path(vault, window_id)
    rendered = render_note(store, vault, window)

    def plan(existing: str | None) -> str | None:
        if existing == rendered:
            return None
        # never replaced, not even by ``force`` (``memgraph forget`` reports it)
        if pagekeep.kept_unreadable(path, existing, rendered, split_note):
            return None
        if existing is None:
            return rendered
        blocks = split_note(existing)
        text = pageblocks.merge(rendered, blocks, frozenset({TAG}), split_note)
        known = pagekeep.recorded_digests(path)
        digest = pageblocks.owned_digest(blocks)
        trusted = digest in known if known is not None else digest == _owned(rendered)
        if not trusted and not force:
            pagekeep.write_conflict(path, existing, text, split_note)
            return None
        return text

    try:
        # a save between the read and the write: read and merge again over it
        if (done := rewrite_if_unchanged(path, plan, root=vault)) is None:
            return False
        pagekeep.record_written(path, done.text, split_note)
        if force:
            pagekeep.conflict_path(path).unlink(missing_ok=True)
    except MemgraphError as exc:
        from profiles.voice.views import VaultError

        raise VaultError(f"cannot write {path}: {exc}") from None
    except OSError as exc:
        from profiles.voice.views import VaultError

        raise VaultError(f"cannot write {path}: {exc.strerror or exc}") from None
    return True


def _owned(text: str) -> str:
    from profiles.voice.pageblocks import owned_digest

    return owned_digest(split_note(text))


def write_notes(store: Store, vault: Path, window_ids: Iterable[str], force: bool = False) -> int:
    """``write_note`` for each id (each once); how many files changed."""
    return sum(write_note(store, vault, w, force=force) for w in dict.fromkeys(window_ids))


def remove_stale_notes(store: Store, vault: Path, window_ids: Iterable[str]) -> list[str]:
    """Remove the notes of these window ids that name no current window any more.

    Only a note that is exactly what memgraph last wrote goes (with its sidecar and
    conflict file); one a person wrote in stays. Returns the ids removed."""
    from profiles.voice import pageblocks, pagekeep

    removed: list[str] = []
    for wid in dict.fromkeys(window_ids):
        try:
            path = note_path(vault, wid)
        except UsageError:
            continue
        if not path.is_file() or current_window(store, wid) is not None:
            continue
        existing = read_text_nofollow(path)
        if existing is None:
            continue
        blocks = split_note(existing)
        known = pagekeep.recorded_digests(path) or []
        if pageblocks.owned_digest(blocks) not in known or pageblocks.user_segments(blocks):
            continue
        for p in (path, pagekeep.sidecar(path), pagekeep.conflict_path(path)):
            p.unlink(missing_ok=True)
        removed.append(wid)
    return removed


__all__ = [
    "NOTES_DIR",
    "current_window",
    "note_path",
    "note_relpath",
    "remove_stale_notes",
    "render_note",
    "split_note",
    "write_note",
    "write_notes",
]
