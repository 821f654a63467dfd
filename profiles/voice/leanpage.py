"""A new session's voice page from the lean capture's documents (no pydantic).

``profiles.voice.views`` renders a page from the nodes it reads back from the
store (``build_page``, ``write_page_file``). Right after the lean capture
(``profiles.voice.lean``) wrote a new session, those nodes are exactly the
documents it built, so ``page_from_docs`` builds the same page from them and
``write_new_page`` writes it the way ``write_page_file`` writes a page that does
not exist yet (atomic write, sidecar, one ``log.md`` line). A page file that is
already there (hand edits to keep, another session's page) is not handled here:
``write_new_page`` says so and the caller renders through the store (also when
one appears between its check and its write: ``replace_text_if_unchanged``).
``tests/profiles/voice/test_lean_hook.py`` compares the bytes with the full path.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from memgraph import fileio
from memgraph.beneath import safe_child
from memgraph.errors import MemgraphError
from memgraph.fileio import read_text_nofollow
from profiles.voice.lean import Doc, SessionDocs, qualifies
from profiles.voice.pagepath import VaultError, log_page, page_log_line
from profiles.voice.pagerender import (
    ACTIVE,
    STABLE,
    PlainEntry,
    PlainPage,
    entry_version,
    render_page,
    window_ids,
)
from profiles.voice.titles import TermWeights, page_title, session_title, term_weights_from

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.interfaces import TermStats


def _time(value: str | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def _anchor(doc: Doc) -> Doc | None:
    return next((a for a in doc["anchors"] if a["kind"] == "transcript"), None)


def _order(doc: Doc) -> tuple[datetime, int, str]:
    anchor = _anchor(doc)
    when = _time(doc["valid_from"]) or _time(doc["created_at"])
    assert when is not None  # created_at is required
    line = (anchor["line"] or 0) if anchor else 0
    return when, line, str(doc["attributes"].get("record_uuid", ""))


def qualifying(docs: SessionDocs) -> list[Doc]:
    """The session's page messages in page order (``views.session_nodes`` + filter)."""
    return sorted((d for d in docs.messages if qualifies(d)), key=_order)


def _entry(doc: Doc, page_ingested: datetime | None) -> PlainEntry:
    attrs: dict[str, Any] = doc["attributes"]
    anchor = _anchor(doc)
    confidence = attrs.get("confidence")
    topics = attrs.get("topics") or []
    ingested = _time(doc["ingested_at"])
    when = _time(doc["valid_from"]) or _time(doc["created_at"])
    assert when is not None
    return PlainEntry(
        record_uuid=str(attrs.get("record_uuid") or doc["id"]),
        timestamp=when,
        text=doc["claim"],
        origin=str(attrs.get("origin") or "prompt"),
        line=anchor["line"] if anchor else None,
        transcript=anchor["ref"] if anchor else None,
        classification=attrs.get("classification"),
        confidence=float(confidence) if isinstance(confidence, int | float) else None,
        topics=[str(t) for t in topics] if isinstance(topics, list) else [],
        harness=attrs.get("harness"),
        branch=attrs.get("branch"),
        cwd=attrs.get("cwd"),
        ingested_at=None if ingested is None or ingested == page_ingested else ingested,
        version=entry_version(attrs.get("version")),
    )


def page_from_docs(session: Doc, messages: list[Doc], weights: TermWeights | None) -> PlainPage:
    """``views.build_page`` over documents (``messages``: ``qualifying``, non-empty)."""
    attrs: dict[str, Any] = dict(messages[0]["attributes"])
    attrs.update({k: v for k, v in session["attributes"].items() if v is not None})
    constellation = str(attrs.get("constellation") or "unknown")
    project = str(attrs.get("project") or constellation)
    times = [_order(d)[0] for d in messages]
    ingested = [t for t in (_time(d["ingested_at"]) for d in messages) if t is not None]
    page_ingested = min(ingested) if ingested else min(times)
    updated = max(_time(d["updated_at"]) or page_ingested for d in [*messages, session])
    entries = [_entry(d, page_ingested) for d in messages]
    sources = sorted({e.transcript for e in entries if e.transcript})
    start = min(times).astimezone(UTC)
    session_id = str(attrs.get("session_id"))
    keywords = page_title([d["claim"] for d in messages], "", weights)
    created: date = start.date()
    return PlainPage(
        title=session_title(project, session_id, keywords or start.date().isoformat()),
        constellation=constellation,
        project=project,
        session_id=session_id,
        created=created,
        updated=max(updated.astimezone(UTC).date(), created),
        status=STABLE if all(e.classification for e in entries) else ACTIVE,
        valid_from=start,
        valid_to=max(times),
        ingested_at=page_ingested,
        sources=sources,
        messages=entries,
        activity_window=window_ids(session["attributes"].get("activity_window")),
    )


def write_new_page(vault: Path, relpath: PurePosixPath, page: PlainPage) -> bool:
    """``views.write_page_file`` for a page file that does not exist: True when
    written; False when a file is there (nothing written: the caller renders
    through the store, which keeps hand edits)."""
    from profiles.voice import pagekeep

    path = safe_child(vault, *relpath.parts)
    rendered = render_page(page)
    try:
        if path.parent.is_dir():
            fileio.remove_stale_temps(path)
        if read_text_nofollow(path) is not None or fileio.unreadable_view(path):
            return False
        now = _now().strftime("%Y-%m-%dT%H:%MZ")
        # a page a person created since (or a file in the way): the store path plans it
        if not fileio.replace_text_if_unchanged(path, rendered, None, root=vault):
            return False
        pagekeep.record_written(path, rendered)
    except MemgraphError as exc:
        raise VaultError(f"cannot write {path}: {exc}") from None
    except OSError as exc:
        raise VaultError(f"cannot write {path}: {exc.strerror or exc}") from None
    line = page_log_line(now, relpath, page.message_count, page.title)
    log_page(vault, line)
    return True


def _now() -> datetime:
    return datetime.now(UTC)


def write_lean_page(
    terms: TermStats, vault: Path, docs: SessionDocs, min_messages: int
) -> tuple[Path, bool] | None:
    """``views.write_session_page_ex`` for a session the lean capture just wrote
    (``terms``: the store's term statistics, read after the write as the store
    path reads them); None when the full path must render it (a file is there)."""
    shown = qualifying(docs)
    if len(shown) < max(1, min_messages):
        return None  # not for a planned page: the full path decides
    relpath = PurePosixPath(docs.session["attributes"]["voice_page"])
    weights = term_weights_from(terms, [d["claim"] for d in shown])
    page = page_from_docs(docs.session, shown, weights)
    if not write_new_page(vault, relpath, page):
        return None
    return safe_child(vault, *relpath.parts), True
