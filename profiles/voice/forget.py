"""``memgraph forget``: the one operation that removes text.

Targets are voice messages named by id, every message of a session, or the
messages matching a query (every query term a case-insensitive substring of
the text). A message's other versions (the same transcript record) go with it.
In order:

1. one patch through ``memgraph.engine.apply_patch`` turns each target into a
   tombstone: lifecycle ``forgotten`` (profiles.voice.policy), title and claim
   ``[forgotten]``, no topics, ``forgotten_by``/``forgotten_at`` attributes; the
   receipt records who (the patch's proposer and ``forgotten_by``), when and why
   (the reason). A forgotten record is never captured again (profiles.voice.capture).
   A forgotten session's ``voice_session`` node becomes a tombstone too.
2. the store's ``TextScrub`` rewrites every history document that still carries
   the text (node versions, patches, receipts, edges, summaries) and compacts,
   so neither the FTS indexes nor the database files keep it.
3. affected voice pages are re-rendered from the store (a page left with no
   message is removed; a page that still holds the text, e.g. a hand-edited
   one that would only get a ``.conflict.md``, is rewritten from the store).
   A page or window note that is not UTF-8 text (an editor saved it in Latin-1)
   is left byte for byte and listed in ``left_unreadable``: it may still hold
   the text, and only the person can say what else in it to keep.
4. the targets' points are removed from every vector collection.

``dry_run`` stops after finding the targets: nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from memgraph.documents import MemoryNode, UpsertNode, utcnow
from memgraph.documents.patch import GraphOp
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import UsageError
from memgraph.store import Store
from memgraph.store.interfaces import indexes
from memgraph.store.rows import iso
from profiles.voice.policy import FORGOTTEN, FORGOTTEN_STATE

PROPOSER = "voice.forget"
QUERY_LIMIT = 100_000
MIN_PAGE_CHECK = 4  # texts shorter than this are not searched for in page files


class VectorEraser(Protocol):
    """The part of a vector backend forget needs (context_cut.vector_backends)."""

    def collections(self) -> list[str]: ...

    def present(self, collection: str, doc_ids: Sequence[str]) -> set[str]: ...

    def delete(self, collection: str, doc_ids: Sequence[str]) -> None: ...


@dataclass(frozen=True)
class ForgetRequest:
    message_ids: tuple[str, ...] = ()
    session_ids: tuple[str, ...] = ()
    query: str | None = None
    project: str | None = None  # narrows a query
    reason: str = ""
    by: str = "operator"
    vault: Path | None = None
    dry_run: bool = False
    now: datetime | None = None
    compact: bool = True


@dataclass
class ForgetResult:
    messages: list[MemoryNode] = field(default_factory=list)  # as they were
    sessions: list[str] = field(default_factory=list)  # session ids touched
    session_nodes: list[str] = field(default_factory=list)  # voice_session nodes tombstoned
    missing: list[str] = field(default_factory=list)  # ids named that are not stored
    receipts: int = 0
    scrubbed: dict[str, int] = field(default_factory=dict)
    manifests: int = 0
    pages_rewritten: list[str] = field(default_factory=list)
    pages_removed: list[str] = field(default_factory=list)
    notes_rewritten: list[str] = field(default_factory=list)  # window notes (ids)
    # pages/notes (relative to the vault) that are not UTF-8 text (saved in Latin-1):
    # left byte for byte, so they may still hold the text
    left_unreadable: list[str] = field(default_factory=list)
    vector_points: int = 0
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "messages": [
                {
                    "id": n.id,
                    "session_id": n.attributes.get("session_id"),
                    "time": iso(n.valid_from) if n.valid_from else None,
                    "title": n.title,
                }
                for n in self.messages
            ],
            "sessions": self.sessions,
            "session_nodes": self.session_nodes,
            "missing": self.missing,
            "receipts": self.receipts,
            "scrubbed": self.scrubbed,
            "manifests": self.manifests,
            "pages_rewritten": self.pages_rewritten,
            "pages_removed": self.pages_removed,
            "notes_rewritten": self.notes_rewritten,
            "left_unreadable": self.left_unreadable,
            "vector_points": self.vector_points,
        }


def texts_of(node: MemoryNode) -> list[str]:
    """What of a node counts as its text (title without its ellipsis included)."""
    found = [node.claim, node.title, node.title.rstrip("…").rstrip()]
    found += [t for t in (node.question, node.tension, node.action_implication) if t]
    return [t for t in found if t and t != FORGOTTEN]


def _session_messages(store: Store, sid: str) -> list[MemoryNode]:
    return indexes(store).voice.session_messages(sid)


def find_targets(store: Store, request: ForgetRequest) -> ForgetResult:
    """The messages (every version) and sessions ``request`` names; writes nothing."""
    from memgraph.fts import query_terms
    from memgraph.store.rows import VoiceSearch
    from profiles.voice.nodes import session_node_id

    if not (request.message_ids or request.session_ids or (request.query or "").strip()):
        raise UsageError("name what to forget: a message id, --session ID or --query TEXT")
    result = ForgetResult(dry_run=request.dry_run)
    chosen: dict[str, MemoryNode] = {}
    with store.reader() as reader:
        named = reader.get_nodes(request.message_ids)
        sessions = reader.get_nodes([session_node_id(s) for s in request.session_ids])
    for mid in request.message_ids:
        node = named.get(mid)
        if node is None or node.profile.value != "voice" or node.kind != "message":
            result.missing.append(mid)
        else:
            chosen[mid] = node
    for sid in request.session_ids:
        messages = _session_messages(store, sid)
        if not messages and session_node_id(sid) not in sessions:
            result.missing.append(sid)
        chosen.update((n.id, n) for n in messages)
        if session_node_id(sid) in sessions:
            result.session_nodes.append(session_node_id(sid))
    if request.query and request.query.strip():
        terms = [t.casefold() for t in query_terms(request.query)]
        rows = indexes(store).voice.search(
            VoiceSearch(query=request.query, project=request.project, limit=QUERY_LIMIT)
        )
        ids = [r.node_id for r in rows if all(t in r.text.casefold() for t in terms)]
        with store.reader() as reader:
            chosen.update(reader.get_nodes(ids))
    # every version of each chosen record
    by_session: dict[str, set[str]] = {}
    for node in chosen.values():
        sid = str(node.attributes.get("session_id") or "")
        by_session.setdefault(sid, set()).add(str(node.attributes.get("record_uuid")))
    for sid, uuids in by_session.items():
        if not sid:
            continue
        for node in _session_messages(store, sid):
            if str(node.attributes.get("record_uuid")) in uuids:
                chosen.setdefault(node.id, node)
    result.messages = sorted(
        (n for n in chosen.values() if n.lifecycle != FORGOTTEN_STATE),
        key=lambda n: (str(n.attributes.get("session_id")), n.valid_from or n.created_at, n.id),
    )
    result.sessions = sorted(
        {str(n.attributes.get("session_id")) for n in result.messages}
        | set(s for s in request.session_ids if s not in result.missing)
    )
    return result


def tombstone(node: MemoryNode, by: str, now: datetime) -> MemoryNode:
    """``node`` with its text gone: lifecycle forgotten, who and when recorded."""
    attrs = {k: v for k, v in node.attributes.items() if k not in ("topics",)}
    if node.kind == "message":
        attrs["topics"] = []
        attrs["voice_page"] = None
    attrs.update({"forgotten_by": by, "forgotten_at": iso(now) or ""})
    data = node.model_dump()
    data.update(
        title=FORGOTTEN,
        claim=FORGOTTEN,
        question="",
        tension="",
        action_implication="",
        source_hashes=[],
        lifecycle=FORGOTTEN_STATE,
        attributes=attrs,
    )
    return MemoryNode.model_validate(data)


def forget(
    store: Store, request: ForgetRequest, vectors: Sequence[VectorEraser] = ()
) -> ForgetResult:
    """Find the targets; unless ``dry_run``, tombstone, scrub, re-render, unvector."""
    from memgraph.store.scrub import ScrubRequest

    result = find_targets(store, request)
    if request.dry_run or not (result.messages or result.session_nodes):
        return result
    now = request.now or utcnow()
    with store.reader() as reader:
        sessions = list(reader.get_nodes(result.session_nodes).values())
    sessions = [s for s in sessions if s.lifecycle != FORGOTTEN_STATE]
    old = [*result.messages, *sessions]
    ops: list[GraphOp] = [UpsertNode(node=tombstone(n, request.by, now)) for n in old]
    why = " ".join(request.reason.split()) or "no reason given"
    applied = apply_patch(
        store, new_patch(ops, proposer=PROPOSER, reason=f"forget by {request.by}: {why}"), now
    )
    result.receipts = len(applied.receipts)
    texts = tuple(t for n in old for t in texts_of(n))
    scrub = indexes(store).scrub
    if scrub is None:  # every bundled backend has one
        from memgraph.errors import StoreError

        raise StoreError(f"store {store.location} cannot remove text (no TextScrub)")
    report = scrub.scrub(
        ScrubRequest(node_ids=tuple(n.id for n in old), texts=texts, compact=request.compact)
    )
    result.scrubbed, result.manifests = report.rows, report.manifests
    if request.vault is not None:
        _rerender(store, request.vault, result, old, texts)
    ids = [n.id for n in old]
    for backend in vectors:
        for collection in backend.collections():
            there = backend.present(collection, ids)
            if there:
                backend.delete(collection, sorted(there))
                result.vector_points += len(there)
    return result


def _rerender(
    store: Store, vault: Path, result: ForgetResult, old: list[MemoryNode], texts: tuple[str, ...]
) -> None:
    from memgraph.fileio import atomic_write_text, read_text_nofollow, safe_child, unreadable_view
    from profiles.voice import pagekeep
    from profiles.voice.pages import render_page
    from profiles.voice.views import build_page, is_qualifying, session_nodes, session_relpath

    pages: dict[str, str] = {}  # page relpath -> session id
    for node in old:
        page = node.attributes.get("voice_page")
        sid = node.attributes.get("session_id")
        if isinstance(page, str) and page and isinstance(sid, str):
            pages[page] = sid
    long = [t for t in texts if len(t) >= MIN_PAGE_CHECK]
    notes = _notes_before(store, vault, result.sessions)
    for relpath, sid in sorted(pages.items()):
        path = safe_child(vault, *Path(relpath).parts)
        conflict = path.with_name(path.name[: -len(".md")] + ".conflict.md")
        sidecar = path.with_name(f".{path.name}.mg")
        session, messages = session_nodes(store, sid)
        qualifying = [n for n in messages if is_qualifying(n)]
        if unreadable_view(path):  # not UTF-8: never removed nor replaced, reported
            if qualifying:
                _write_view(store, vault, sid)  # the new render goes beside it
            else:
                conflict.unlink(missing_ok=True)  # an earlier render of memgraph's
            result.left_unreadable.append(relpath)
            continue
        if not qualifying:
            for p in (path, conflict, sidecar):
                if p.exists():
                    p.unlink()
            result.pages_removed.append(relpath)
            continue
        rendered = render_page(build_page(session, qualifying))
        written = _write_view(store, vault, sid)
        current = read_text_nofollow(path) or ""  # a FIFO there is refused, never read
        if any(t in current for t in long):  # a hand-edited page kept its old blocks
            target = safe_child(vault, *session_relpath(vault, session, qualifying).parts)
            atomic_write_text(target, rendered, root=vault)
            pagekeep.record_written(target, rendered)
            written = True
        held = read_text_nofollow(conflict) if conflict.is_file() else None
        if held is not None and any(t in held for t in long):
            conflict.unlink()
        if written:
            result.pages_rewritten.append(relpath)
    _scrub_log(vault, set(pages), texts)
    _rewrite_notes(store, vault, result, long, notes)


def _notes_before(store: Store, vault: Path, sessions: list[str]) -> dict[str, str | None]:
    """The window notes of the touched sessions (their lines quote messages and
    link pages): id -> text on disk before anything is re-rendered."""
    from memgraph.errors import UsageError as BadId
    from memgraph.fileio import read_text_nofollow
    from profiles.activity.winnote import note_path
    from profiles.voice.nodes import session_node_id
    from profiles.voice.pages import window_ids

    with store.reader() as reader:
        nodes = reader.get_nodes([session_node_id(s) for s in sessions])
    out: dict[str, str | None] = {}
    for node in nodes.values():
        for wid in window_ids(node.attributes.get("activity_window")):
            try:
                out.setdefault(wid, read_text_nofollow(note_path(vault, wid)))
            except BadId:
                continue
    return out


def _rewrite_notes(
    store: Store, vault: Path, result: ForgetResult, long: list[str], before: dict[str, str | None]
) -> None:
    """Those notes re-rendered from the store; ``force``: an edited note does not
    keep the text, and a forgotten text a person quoted in their own lines goes too."""
    from memgraph.fileio import atomic_write_text, read_text_nofollow, unreadable_view
    from profiles.activity.winnote import note_path, note_relpath, split_note, write_note
    from profiles.voice import pagekeep

    for wid, old in before.items():
        write_note(store, vault, wid, force=True)
        path = note_path(vault, wid)
        text = read_text_nofollow(path)
        if text is None and unreadable_view(path):  # left byte for byte by write_note
            result.left_unreadable.append(note_relpath(wid).as_posix())
            continue
        if text is not None and any(t in text for t in long):
            for t in sorted(long, key=len, reverse=True):
                text = text.replace(t, FORGOTTEN)
            atomic_write_text(path, text, root=vault)
            pagekeep.record_written(path, text, split_note)
        if text != old:
            result.notes_rewritten.append(wid)


def _scrub_log(
    vault: Path, pages: set[str], texts: tuple[str, ...], *, every_title: bool = False
) -> None:
    """log.md lines quote page titles (keywords of the messages): on a line about
    an affected page, a last field holding a word of the forgotten text goes, and
    a forgotten text quoted anywhere is replaced. ``every_title``: the text is not
    known (scrubbed from the store before this vault saw the forget), so the last
    field of every line about an affected page goes."""
    import re

    from memgraph.fileio import atomic_write_text, read_text_nofollow
    from profiles.voice.views import LOG_NAME

    path = vault / LOG_NAME
    current = read_text_nofollow(path)
    if not current:
        return
    words = {w.casefold() for t in texts for w in re.findall(r"\w{4,}", t)}
    long = sorted((t for t in texts if len(t) >= MIN_PAGE_CHECK), key=len, reverse=True)
    out = []
    for line in current.splitlines(keepends=True):
        for text in long:
            line = line.replace(text, FORGOTTEN)
        if any(p in line for p in pages) and " | " in line:
            head, _, last = line.rstrip("\n").rpartition(" | ")
            if every_title or any(w.casefold() in words for w in re.findall(r"\w{4,}", last)):
                line = f"{head} | {FORGOTTEN}\n"
        out.append(line)
    changed = "".join(out)
    if changed != current:
        atomic_write_text(path, changed, root=vault)


def clear_forgotten_pages(store: Store, vault: Path, sid: str) -> list[str]:
    """Pages of session ``sid`` in ``vault`` that still hold a message forgotten since
    they were written: removed when no message is left, else rewritten from the store
    as ``forget`` does to the pages of its own vault (through the page writer, so a
    person's own text is carried, unless the page was edited inside memgraph's text).

    On a fleet ``forget`` runs on one machine; every other machine's vault still held
    the text, and its captures and renders left it there. Found by the forgotten
    records' uuids (the text itself is scrubbed from the store). Unreadable (not
    UTF-8) pages are left byte for byte. Returns the vault-relative paths changed."""
    import json

    from memgraph.fileio import atomic_write_text, read_text_nofollow, unreadable_view
    from profiles.voice import pagekeep
    from profiles.voice.pages import render_page
    from profiles.voice.views import build_page, is_qualifying, session_nodes

    session, messages = session_nodes(store, sid)
    gone = {
        str(n.attributes.get("record_uuid"))
        for n in messages
        if n.lifecycle == FORGOTTEN_STATE and n.attributes.get("record_uuid")
    }
    if not gone:
        return []
    qualifying = [n for n in messages if is_qualifying(n)]
    marks = tuple(json.dumps({"uuid": u})[1:-1] for u in sorted(gone))  # '"uuid": "..."'
    changed: list[str] = []
    for path in sorted(vault.glob(f"*/voice/*-{sid[:8]}.md")):
        if path.name.endswith(".conflict.md") or path.is_symlink() or unreadable_view(path):
            continue
        conflict = path.with_name(path.name[: -len(".md")] + ".conflict.md")
        texts = [read_text_nofollow(p) or "" for p in (path, conflict) if p.is_file()]
        if f"session_id: {sid}" not in texts[0] or not any(m in t for t in texts for m in marks):
            continue
        if not qualifying:
            for p in (path, conflict, path.with_name(f".{path.name}.mg")):
                p.unlink(missing_ok=True)
            changed.append(path.relative_to(vault).as_posix())
            continue
        _write_view(store, vault, sid)  # the page writer: the person's own text carried
        if any(m in (read_text_nofollow(path) or "") for m in marks):
            # edited inside memgraph's text, so left as is: the forgotten text must go
            rendered = render_page(build_page(session, qualifying))
            atomic_write_text(path, rendered, root=vault)
            pagekeep.record_written(path, rendered)
        if conflict.is_file() and any(m in (read_text_nofollow(conflict) or "") for m in marks):
            conflict.unlink()
        changed.append(path.relative_to(vault).as_posix())
    if changed:
        _scrub_log(vault, set(changed), (), every_title=True)
    return changed


def _write_view(store: Store, vault: Path, sid: str) -> bool:
    """Re-render through the page writer (u20c's rendering, hand edits carried)."""
    from profiles.voice.views import write_session_page_ex

    _, changed = write_session_page_ex(store, vault, sid, min_messages=1)
    return changed


__all__ = [
    "ForgetRequest",
    "ForgetResult",
    "clear_forgotten_pages",
    "find_targets",
    "forget",
    "tombstone",
]
