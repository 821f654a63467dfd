"""Store -> voice page, and voice page -> nodes.

The store is canonical; a page is re-rendered from it whenever a session's
nodes change (capture, classification, activity windows). Rendering is a pure
function of the stored nodes, so re-running anything that changed nothing
rewrites nothing: ``updated`` is the newest node ``updated_at`` and
``ingested_at`` the oldest message ``ingested_at``, both read from the store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from memgraph import fileio
from memgraph.beneath import safe_child
from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName, utcnow
from memgraph.errors import MemgraphError
from memgraph.fileio import read_text_nofollow
from memgraph.ids import anchor_id
from memgraph.store import Store
from profiles.voice.capture_types import MIN_MESSAGES as MIN_MESSAGES
from profiles.voice.nodes import (
    domain_id,
    message_title,
    message_version_id,
    safe_component,
    session_node_id,
)
from profiles.voice.pagepath import LOG_NAME as LOG_NAME
from profiles.voice.pagepath import VaultError as VaultError
from profiles.voice.pagepath import append_log as append_log
from profiles.voice.pagepath import choose_relpath as choose_relpath
from profiles.voice.pagepath import log_page, page_log_line
from profiles.voice.pagerender import entry_version
from profiles.voice.pages import (
    ACTIVE,
    STABLE,
    VoiceMessageEntry,
    VoicePage,
    render_page,
    window_ids,
)
from profiles.voice.prefilter import is_trivial
from profiles.voice.titles import TermWeights, page_title, session_title, term_weights


def is_qualifying(node: MemoryNode) -> bool:
    """A stored message that counts for (and appears on) the page: not retired,
    and not a bare acknowledgement (the prefilter's trivial rule)."""
    if node.kind != "message" or node.lifecycle in ("retired", "superseded", "forgotten"):
        return False
    origin = node.attributes.get("origin")
    return not (origin in ("prompt", "queued") and is_trivial(node.claim))


# -- reading a session from the store ---------------------------------------


def session_nodes(store: Store, session_id: str) -> tuple[MemoryNode | None, list[MemoryNode]]:
    """(voice_session node, message nodes sorted by time) for one session."""
    from memgraph.store.interfaces import indexes

    sid_node = session_node_id(session_id)
    with store.reader() as reader:
        messages = indexes(store).voice.session_messages(session_id)
        session = reader.get_nodes([sid_node]).get(sid_node)
    messages.sort(key=_order)
    return session, messages


def _order(node: MemoryNode) -> tuple[datetime, int, str]:
    anchor = _transcript_anchor(node)
    when = node.valid_from or node.created_at
    return when, (anchor.line or 0) if anchor else 0, str(node.attributes.get("record_uuid", ""))


def _transcript_anchor(node: MemoryNode) -> MemoryAnchor | None:
    return next((a for a in node.anchors if a.kind == AnchorKind.transcript), None)


# -- building the page ------------------------------------------------------


def _entry(node: MemoryNode, page_ingested: datetime | None) -> VoiceMessageEntry:
    attrs = node.attributes
    anchor = _transcript_anchor(node)
    confidence = attrs.get("confidence")
    topics = attrs.get("topics") or []
    ingested = node.ingested_at
    return VoiceMessageEntry(
        record_uuid=str(attrs.get("record_uuid") or node.id),
        timestamp=node.valid_from or node.created_at,
        text=node.claim,
        origin=str(attrs.get("origin") or "prompt"),
        line=anchor.line if anchor else None,
        transcript=anchor.ref if anchor else None,
        classification=attrs.get("classification"),
        confidence=float(confidence) if isinstance(confidence, int | float) else None,
        topics=[str(t) for t in topics] if isinstance(topics, list) else [],
        harness=attrs.get("harness"),
        branch=attrs.get("branch"),
        cwd=attrs.get("cwd"),
        ingested_at=None if ingested is None or ingested == page_ingested else ingested,
        version=entry_version(attrs.get("version")),
    )


def build_page(
    session: MemoryNode | None, messages: list[MemoryNode], weights: TermWeights | None = None
) -> VoicePage:
    """The page for a session's qualifying messages (at least one); ``weights``:
    the corpus's term statistics for the title (``titles.term_weights``)."""
    if not messages:
        raise ValueError("a voice page needs at least one message")
    attrs: dict[str, Any] = dict(messages[0].attributes)
    if session is not None:
        attrs.update({k: v for k, v in session.attributes.items() if v is not None})
    constellation = str(attrs.get("constellation") or "unknown")
    project = str(attrs.get("project") or constellation)
    times = [n.valid_from or n.created_at for n in messages]
    ingested = [n.ingested_at for n in messages if n.ingested_at is not None]
    page_ingested = min(ingested) if ingested else min(times)
    updated = max(n.updated_at for n in [*messages, *([session] if session else [])])
    entries = [_entry(n, page_ingested) for n in messages]
    sources = sorted({e.transcript for e in entries if e.transcript})
    start = min(times).astimezone(UTC)
    session_id = str(attrs.get("session_id"))
    keywords = page_title([n.claim for n in messages], "", weights)
    return VoicePage(
        title=session_title(project, session_id, keywords or start.date().isoformat()),
        constellation=constellation,
        project=project,
        session_id=session_id,
        created=start.date(),
        updated=max(updated.astimezone(UTC).date(), start.date()),
        status=STABLE if all(e.classification for e in entries) else ACTIVE,
        valid_from=start,
        valid_to=max(times),
        ingested_at=page_ingested,
        sources=sources,
        messages=entries,
        activity_window=window_ids(session.attributes.get("activity_window")) if session else [],
    )


def session_relpath(
    vault: Path, session: MemoryNode | None, messages: list[MemoryNode]
) -> PurePosixPath:
    for node in [*([session] if session else []), *messages]:
        stored = node.attributes.get("voice_page")
        if isinstance(stored, str) and stored:
            return PurePosixPath(stored)
    attrs = messages[0].attributes
    first = min(n.valid_from or n.created_at for n in messages).astimezone(UTC)
    constellation = safe_component(str(attrs.get("constellation") or "unknown"))
    return choose_relpath(vault, constellation, str(attrs.get("session_id")), first)


STALE_TEMP_SECONDS = fileio.STALE_TEMP_SECONDS

# page -> (its text before this run, newest log line) while ``one_log_line_per_page``
_PENDING: ContextVar[dict[Path, tuple[str | None, Path, str]] | None] = ContextVar(
    "voice_log_pending", default=None
)


@contextmanager
def one_log_line_per_page() -> Iterator[None]:
    """Within this block a page re-rendered several times (classify, then windows,
    in one ``sleep``) gets ONE ``log.md`` line, at the end, and only when its file
    then differs from what it was before the block."""
    if _PENDING.get() is not None:  # nested: the outer block logs
        yield
        return
    pending: dict[Path, tuple[str | None, Path, str]] = {}
    token = _PENDING.set(pending)
    try:
        yield
    finally:
        _PENDING.reset(token)
        for path, (before, vault, line) in pending.items():
            try:
                if read_text_nofollow(path) != before:
                    append_log(vault, line)
            except (MemgraphError, OSError) as exc:
                raise VaultError(f"page written, but not logged: {exc}") from None


def write_page_file(vault: Path, relpath: PurePosixPath, page: VoicePage) -> bool:
    """Write the page if its bytes differ; log it. True when written.

    Hand edits survive (``profiles.voice.pagekeep``): text a person added outside
    memgraph's blocks is carried into the new render; an edit inside them leaves
    the page alone and puts the new render in ``<page>.conflict.md`` (reported on
    stderr, listed by ``memgraph probe``).
    """
    from profiles.voice import pagekeep

    path = safe_child(vault, *relpath.parts)
    rendered = render_page(page)

    def plan(existing: str | None) -> str | None:
        if existing == rendered or pagekeep.kept_unreadable(path, existing, rendered):
            return None
        keep = pagekeep.plan(path, existing, rendered, page)
        if keep.page_text is None and existing is not None and keep.conflict_text is not None:
            pagekeep.write_conflict(path, existing, keep.conflict_text)
        return keep.page_text

    try:
        if path.parent.is_dir():
            fileio.remove_stale_temps(path)
        # a save between the read and the write: read and plan again, so it is
        # carried over (or goes the conflict way) as if it had been there at first
        if (done := fileio.rewrite_if_unchanged(path, plan, root=vault)) is None:
            return False
        now = utcnow().strftime("%Y-%m-%dT%H:%MZ")
        pagekeep.record_written(path, done.text)
    except MemgraphError as exc:
        raise VaultError(f"cannot write {path}: {exc}") from None
    except OSError as exc:
        raise VaultError(f"cannot write {path}: {exc.strerror or exc}") from None
    line = page_log_line(now, relpath, page.message_count, page.title)
    pending = _PENDING.get()
    if pending is not None:
        first = pending.get(path)
        pending[path] = (done.before if first is None else first[0], vault, line)
        return True
    log_page(vault, line)
    return True


def write_session_page(
    store: Store, vault: Path, session_id: str, *, min_messages: int = MIN_MESSAGES
) -> Path | None:
    """Re-render one session's page from the store; None below ``min_messages``.

    Includes the ``## Classifications`` table (message attributes) and the
    session node's ``activity_window``. Unchanged pages are not rewritten.
    """
    path, _ = write_session_page_ex(store, vault, session_id, min_messages=min_messages)
    return path


def write_session_page_ex(
    store: Store, vault: Path, session_id: str, *, min_messages: int = MIN_MESSAGES
) -> tuple[Path | None, bool]:
    """``write_session_page`` plus whether the file was (re)written."""
    session, messages = session_nodes(store, session_id)
    qualifying = [n for n in messages if is_qualifying(n)]
    if len(qualifying) < max(1, min_messages):
        return None, False
    relpath = session_relpath(vault, session, qualifying)
    weights = term_weights(store, [n.claim for n in qualifying])
    page = build_page(session, qualifying, weights)
    changed = write_page_file(vault, relpath, page)
    if page.activity_window:  # the notes its [[aw-...]] links resolve to
        from profiles.activity.winnote import write_notes

        write_notes(store, vault, page.activity_window)
    return safe_child(vault, *relpath.parts), changed


# -- page -> nodes (import-vault) ------------------------------------------


def nodes_from_page(page: VoicePage, relpath: PurePosixPath) -> list[MemoryNode]:
    """Message nodes rebuilt from a page alone, each with a ``page`` anchor.

    Same ids, text, times and attributes as the captured nodes; the transcript
    anchor is kept when the page recorded one.
    """
    page_anchor = MemoryAnchor(
        id=anchor_id("page", relpath.as_posix()), kind=AnchorKind.page, ref=relpath.as_posix()
    )
    nodes = []
    for e in page.messages:
        anchors = []
        if e.transcript is not None:
            anchors.append(
                MemoryAnchor(
                    id=anchor_id("transcript", e.transcript, str(e.line), e.record_uuid),
                    kind=AnchorKind.transcript,
                    ref=e.transcript,
                    line=e.line,
                    record_uuid=e.record_uuid,
                )
            )
        anchors.append(page_anchor)
        ingested = e.ingested_at or page.ingested_at
        nodes.append(
            MemoryNode(
                id=message_version_id(page.session_id, e.record_uuid, e.version),
                domain_id=domain_id(page.constellation),
                profile=ProfileName.voice,
                kind="message",
                title=message_title(e.text),
                claim=e.text,
                anchors=anchors,
                lifecycle="classified" if e.classification else "captured",
                created_at=ingested,
                updated_at=ingested,
                valid_from=e.timestamp,
                ingested_at=ingested,
                attributes={
                    "session_id": page.session_id,
                    "record_uuid": e.record_uuid,
                    "project": page.project,
                    "constellation": page.constellation,
                    "branch": e.branch,
                    "cwd": e.cwd,
                    "harness": e.harness,
                    "origin": e.origin,
                    "classification": e.classification,
                    "confidence": e.confidence,
                    "topics": list(e.topics),
                    "voice_page": relpath.as_posix(),
                    **({"version": e.version} if e.version > 1 else {}),
                },
            )
        )
    return nodes


def session_node_from_page(page: VoicePage, relpath: PurePosixPath) -> MemoryNode:
    """The voice_session node a page implies (keeps ``activity_window``)."""
    attributes: dict[str, Any] = {
        "session_id": page.session_id,
        "project": page.project,
        "constellation": page.constellation,
        "message_count": page.message_count,
        "voice_page": relpath.as_posix(),
        "transcript": page.sources[0] if page.sources else None,
    }
    if page.activity_window:  # ids only: the next windows pass fills in the artifacts
        attributes["activity_window"] = [{"id": wid} for wid in page.activity_window]
    return MemoryNode(
        id=session_node_id(page.session_id),
        domain_id=domain_id(page.constellation),
        profile=ProfileName.voice,
        kind="voice_session",
        title=f"voice session {page.session_id[:8]} ({page.project})",
        anchors=[
            MemoryAnchor(
                id=anchor_id("page", relpath.as_posix()),
                kind=AnchorKind.page,
                ref=relpath.as_posix(),
            )
        ],
        lifecycle="captured",
        created_at=page.ingested_at,
        updated_at=page.ingested_at,
        valid_from=page.valid_from,
        valid_to=page.valid_to,
        ingested_at=page.ingested_at,
        attributes=attributes,
    )
