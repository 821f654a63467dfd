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
3. the vault's views of the text are rewritten (``profiles.voice.forget_views``):
   affected voice pages re-rendered from the store (a page left with no message
   is removed; a page that still holds the text, e.g. a hand-edited one that
   would only get a ``.conflict.md``, is rewritten from the store), window notes
   and ``log.md`` lines. A page or window note that is not UTF-8 text (an editor
   saved it in Latin-1) is left byte for byte and listed in ``left_unreadable``:
   it may still hold the text, and only the person can say what else in it to keep.
4. a live node that quotes a forgotten text (a session note, an agent's memory,
   a sleep summary: ``TextScrub.quoting``) is rewritten through the engine with
   the quote replaced by ``[forgotten]`` (its own receipt); another voice message
   holding the same words is the operator's own: it is listed (``quoted_by``),
   never rewritten, so the person forgets it by name too.
5. the targets' points are removed from the store's vector collections (its own,
   and the shared ones from before each store had its own:
   ``context_cut.vector_projection.collections_of``), never another store's.

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
from memgraph.store.scrub import ScrubRequest
from profiles.voice.policy import FORGOTTEN, FORGOTTEN_STATE

PROPOSER = "voice.forget"
QUERY_LIMIT = 100_000


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
    # live nodes (not voice messages) that quoted a forgotten text: rewritten
    unquoted: list[str] = field(default_factory=list)
    # other voice messages holding a forgotten text: listed, not rewritten
    quoted_by: list[str] = field(default_factory=list)
    # quoting nodes whose profile refused the rewrite: "<id>: <why>"
    left_quoting: list[str] = field(default_factory=list)
    # session YAML views re-rendered after their notes lost a quote (paths), and
    # views that may still hold it (an edit kept in a conflict file; one line why)
    session_views: list[str] = field(default_factory=list)
    views_left: list[str] = field(default_factory=list)

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
            "unquoted": self.unquoted,
            "quoted_by": self.quoted_by,
            "left_quoting": self.left_quoting,
            "session_views": self.session_views,
            "views_left": self.views_left,
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
    from memgraph.store.voice_rows import VoiceSearch
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
    _find_quotes(store, result)
    return result


def _find_quotes(store: Store, result: ForgetResult) -> None:
    """Fill ``unquoted`` (to rewrite) and ``quoted_by`` (other voice messages)."""
    scrub = indexes(store).scrub
    texts = tuple(t for n in result.messages for t in texts_of(n))
    if scrub is None or not texts:
        return
    own = (*(n.id for n in result.messages), *result.session_nodes)
    ids = scrub.quoting(ScrubRequest(node_ids=own, texts=texts, compact=False))
    with store.reader() as reader:
        found = reader.get_nodes(ids)
    for nid in ids:
        node = found.get(nid)
        if node is None or node.lifecycle == FORGOTTEN_STATE:
            continue
        if node.profile.value == "voice" and node.kind == "message":
            result.quoted_by.append(nid)
        else:
            result.unquoted.append(nid)


def _unquote(
    store: Store, result: ForgetResult, request: ScrubRequest, why: str, now: datetime
) -> None:
    """Rewrite the quoting nodes through the engine in one patch; when a profile
    refuses one, node by node, and a refused node is named (``left_quoting``)."""
    from memgraph.errors import PatchRejected
    from memgraph.store.scrub import scrub_value

    with store.reader() as reader:
        found = reader.get_nodes(result.unquoted)
    rewritten = [
        MemoryNode.model_validate(scrub_value(found[nid].model_dump(), request))
        for nid in result.unquoted
        if nid in found
    ]
    batches = [rewritten] if len(rewritten) > 1 else []
    batches += [[node] for node in rewritten]
    done: list[str] = []
    for batch in batches:
        try:
            ops: list[GraphOp] = [UpsertNode(node=n) for n in batch]
            applied = apply_patch(store, new_patch(ops, proposer=PROPOSER, reason=why), now)
        except PatchRejected as exc:
            if len(batch) == 1:
                result.left_quoting.append(f"{batch[0].id}: {exc}")
            continue
        result.receipts += len(applied.receipts)
        done += [n.id for n in batch]
        if len(batch) > 1:
            break  # all in one patch: nothing left to try node by node
    result.unquoted = sorted(done)
    kept = set(done)
    _session_views(store, result, [n for n in rewritten if n.id in kept])


def _session_views(store: Store, result: ForgetResult, nodes: list[MemoryNode]) -> None:
    """Re-render the YAML views of sessions whose notes lost a quote (hand edits are
    imported first, as on every render; one the store cannot take is kept in a
    conflict file, which may still hold the quote: named in ``views_left``)."""
    from memgraph.errors import MemgraphError
    from profiles.session.api import sync_session_view

    sessions = {
        str(n.attributes.get("session_id") or "") for n in nodes if n.profile.value == "session"
    }
    for sid in sorted(sessions - {""}):
        try:
            view = sync_session_view(store, sid)
        except (OSError, MemgraphError) as exc:
            result.views_left.append(f"session {sid}: its view was not re-rendered: {exc}")
            continue
        result.session_views.append(str(view.path))
        if view.conflict is not None:
            result.views_left.append(f"{view.conflict} kept an edit and may still hold the quote")


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
    scrubbing = ScrubRequest(
        node_ids=tuple(n.id for n in old), texts=texts, compact=request.compact
    )
    if result.unquoted:
        quoted = f"forget by {request.by}: it quoted a forgotten message"
        _unquote(store, result, scrubbing, quoted, now)
    report = scrub.scrub(scrubbing)
    result.scrubbed, result.manifests = report.rows, report.manifests
    if request.vault is not None:
        from profiles.voice.forget_views import rerender_views

        rerender_views(store, request.vault, result, old, texts)
    from context_cut.vector_projection import collections_of

    ids = [n.id for n in old]
    for backend in vectors:  # the store's own collections (and shared ones from before)
        for collection in collections_of(backend.collections(), store):
            there = backend.present(collection, ids)
            if there:
                backend.delete(collection, sorted(there))
                result.vector_points += len(there)
    return result


__all__ = [
    "ForgetRequest",
    "ForgetResult",
    "find_targets",
    "forget",
    "tombstone",
]
