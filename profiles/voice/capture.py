"""One transcript -> message nodes (one patch, one transaction) -> page -> log.md.

The library behind ``memgraph hook session-end`` and each step of backfill.
Order matters for crash safety: the graph is written first (all-or-nothing),
then the page is rendered FROM the store and written atomically, then one line
goes to log.md. A crash anywhere leaves either nothing or a state that a rerun
completes without duplicates: the upserts are idempotent and an unchanged page
is not rewritten.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from pathlib import Path, PurePosixPath

from memgraph.documents import MemoryEdge, MemoryNode, ProfileName, UpsertEdge, UpsertNode, utcnow
from memgraph.documents.patch import GraphOp
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import MemgraphError
from memgraph.ids import edge_id, is_safe_name
from memgraph.store import Store
from memgraph.store.rows import iso
from profiles.voice.capture_types import CaptureRequest, CaptureResult, SessionCapture
from profiles.voice.model import OperatorMessage, TranscriptRead
from profiles.voice.nodes import (
    MESSAGE_KEYS,
    SESSION_KEYS,
    NodeContext,
    merge_with_stored,
    message_node,
    message_node_id,
    message_version_id,
    resolve_project,
    safe_component,
    session_node,
    session_node_id,
    storable_path,
)
from profiles.voice.views import (
    choose_relpath,
    is_qualifying,
    session_nodes,
    write_session_page_ex,
)

PROPOSER = "voice.capture"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from profiles.voice.lean import LeanCapture, SessionDocs


def capture_transcript(store: Store, request: CaptureRequest) -> CaptureResult:
    """Read ``request.transcript`` and capture every operator message in it."""
    from profiles.voice.prefilter import PrefilterOptions
    from profiles.voice.readers import ReadOptions, read_transcript

    # trivial acknowledgements are still what the human said: store them as
    # nodes; they just do not count towards (or appear on) the page
    read = read_transcript(
        request.transcript, ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))
    )
    read = screened(read, request)
    result = capture_messages(store, read.messages, request, transcript=read.path)
    result.harness = read.harness
    result.stats = read.stats
    if result.session_id is None:
        result.session_id = read.session_id or request.session_id
    return result


def screened(read: TranscriptRead, request: CaptureRequest) -> TranscriptRead:
    """The privacy stage between the reader and the nodes (profiles.voice.privacy)."""
    from profiles.voice.privacy import PrivacyPolicy, screen

    return screen(read, request.privacy or PrivacyPolicy(), cwd=request.cwd)


def _session_context(msgs: list[OperatorMessage], request: CaptureRequest) -> tuple[str, str]:
    cwd = next((m.cwd for m in msgs if m.cwd), None) or request.cwd
    project = resolve_project(cwd)
    constellation = safe_component(request.constellation) if request.constellation else project
    return project, constellation


def capture_messages(
    store: Store,
    messages: list[OperatorMessage],
    request: CaptureRequest,
    *,
    transcript: str | None = None,
) -> CaptureResult:
    """Capture already-read messages: one patch for all of them, then pages."""
    return capture_many(store, [(messages, request, transcript)])[0]


# (messages, request, transcript path as read) of one transcript
CaptureItem = tuple[list[OperatorMessage], CaptureRequest, str | None]


def sessions_of(messages: list[OperatorMessage]) -> set[str]:
    return {m.session_id for m in messages}


def capture_many(store: Store, items: list[CaptureItem]) -> list[CaptureResult]:
    """Capture several transcripts in ONE patch (one transaction), then their pages.

    Backfill batches small sessions this way. The transcripts must not share a
    session (each one's ops are planned against the store as it is before the
    patch): the caller starts a new batch instead. With one item this is
    ``capture_messages``. ``nodes_written`` is the patch's total, on each result.
    When every session is new, the store's ``CaptureAppend`` writes the same rows
    without the engine (``profiles.voice.lean``).
    """
    now = (items[0][1].now if items else None) or utcnow()
    lean = _capture_lean(store, items, now)
    docs: dict[str, SessionDocs] = {}
    if lean is not None:
        docs = lean.docs
        pairs = [(result, result.sessions) for result in lean.results]
        for result in lean.results:
            result.sessions = []
    else:
        planned = [_plan(store, *item, now=item[1].now or now) for item in items]
        ops = [op for _, item_ops, _ in planned for op in item_ops]
        if ops:
            reason = planned[0][0].transcript if len(items) == 1 else f"{len(items)} transcripts"
            applied = apply_patch(
                store, new_patch(ops, proposer=PROPOSER, reason=f"capture {reason}"), now
            )
            for result, _, _ in planned:
                result.nodes_written = applied.nodes_written
        pairs = [(result, plans) for result, _, plans in planned]
    for (result, plans), (_, request, _) in zip(pairs, items, strict=True):
        try:
            for plan in plans:
                if request.write_pages and (plan.skipped == "forgotten" or plan.forgotten):
                    # forgotten on another machine: this vault's page and log still held
                    # it. Before the page write below: that drops the text from the page
                    # but not from log.md, and leaves no mark to find the log lines by
                    from profiles.voice.forget import clear_forgotten_pages

                    clear_forgotten_pages(store, request.vault, plan.session_id)
                if plan.skipped is None and request.write_pages:
                    plan.page, plan.page_written = _write_page(
                        store, request, plan.session_id, docs.get(plan.session_id)
                    )
                result.sessions.append(plan)
        except MemgraphError as exc:
            if len(items) == 1:
                raise
            result.page_error = exc
    return [result for result, _ in pairs]


def _write_page(
    store: Store, request: CaptureRequest, sid: str, docs: SessionDocs | None
) -> tuple[Path | None, bool]:
    """The session's page: from the lean capture's documents when it wrote the
    session and no page file is there, else rendered from the store."""
    from profiles.voice.views import _PENDING

    if docs is not None and _PENDING.get() is None:  # (a sleep pass logs pages once)
        from memgraph.store.interfaces import indexes
        from profiles.voice.leanpage import write_lean_page

        done = write_lean_page(indexes(store).terms, request.vault, docs, request.min_messages)
        if done is not None:
            return done
    return write_session_page_ex(store, request.vault, sid, min_messages=request.min_messages)


def _capture_lean(store: Store, items: list[CaptureItem], now: datetime) -> LeanCapture | None:
    """The plain case (every session new) written by the store's ``CaptureAppend``;
    None when the store has none or something of the sessions is stored."""
    from memgraph.store.interfaces import indexes

    captures = indexes(store).captures
    if captures is None:
        return None
    from profiles.voice.lean import build
    from profiles.voice.nodekeys import session_node_id

    sessions = sorted({m.session_id for messages, _, _ in items for m in messages})
    if captures.any_stored([session_node_id(s) for s in sessions], sessions):
        return None  # a session has something stored: the engine plans against it
    built = build(items, now)
    if built.write is not None and not captures.append_capture(built.write, built.sessions):
        return None
    return built


def _plan(
    store: Store,
    messages: list[OperatorMessage],
    request: CaptureRequest,
    transcript: str | None,
    *,
    now: datetime,
) -> tuple[CaptureResult, list[GraphOp], list[SessionCapture]]:
    path = storable_path(transcript or str(request.transcript))
    result = CaptureResult(transcript=path, harness="", session_id=None, messages=len(messages))
    by_session: dict[str, list[OperatorMessage]] = defaultdict(list)
    for msg in messages:
        by_session[msg.session_id].append(msg)
    if not by_session:
        result.session_id = request.session_id
        return result, [], []
    # the transcript's own session (the one most of its messages belong to)
    result.session_id = max(by_session, key=lambda s: len(by_session[s]))
    ops: list[GraphOp] = []
    plans: list[SessionCapture] = []
    for sid in sorted(by_session):
        session_ops, plan = _session_ops(store, sid, by_session[sid], request, path, now)
        ops.extend(session_ops)
        plans.append(plan)
    return result, ops, plans


def _session_ops(
    store: Store,
    sid: str,
    msgs: list[OperatorMessage],
    request: CaptureRequest,
    transcript: str,
    now: datetime,
) -> tuple[list[GraphOp], SessionCapture]:
    project, constellation = _session_context(msgs, request)
    session, stored_msgs = session_nodes(store, sid)
    if session is not None and session.lifecycle == "forgotten":  # `memgraph forget`
        return [], SessionCapture(sid, project, constellation, len(msgs), 0, skipped="forgotten")
    stored = {n.id: n for n in stored_msgs}
    if session is not None:  # a session keeps the place it was first given
        constellation = str(session.attributes.get("constellation") or constellation)
        project = str(session.attributes.get("project") or project)
    fresh = [message_node(m, NodeContext(constellation, project, now)) for m in msgs]
    merged, revised = _versioned(fresh, stored, now)
    everything = {**stored, **merged}
    qualifying = [n for n in everything.values() if is_qualifying(n)]
    plan = SessionCapture(sid, project, constellation, len(msgs), len(qualifying))
    plan.revised = revised
    plan.forgotten = any(n.lifecycle == "forgotten" for n in stored_msgs)
    relpath: PurePosixPath | None = None
    if len(qualifying) < max(1, request.min_messages):
        plan.skipped = f"too_few_messages:{len(qualifying)}"
    elif not is_safe_name(sid):
        plan.skipped = "unsafe_session_id"
    else:
        relpath = _relpath(request.vault, session, qualifying, constellation, sid)
    page = relpath.as_posix() if relpath else None
    ops: list[GraphOp] = []
    nodes: dict[str, MemoryNode] = {}
    for node in everything.values():
        want = page if is_qualifying(node) else None
        if node.attributes.get("voice_page") != want:
            attrs = {**node.attributes, "voice_page": want}
            node = node.model_copy(update={"attributes": attrs})
        if node.id in merged or node is not stored.get(node.id):
            nodes[node.id] = node
    times = [n.valid_from for n in everything.values() if n.valid_from is not None]
    ctx = NodeContext(constellation, project, now, page)
    sess = session_node(
        sid,
        ctx,
        message_count=len(qualifying),
        transcript=(session.attributes.get("transcript") if session else None) or transcript,
        valid_from=min(times) if times else None,
        valid_to=max(times) if times else None,
    )
    sess = merge_with_stored(sess, session, SESSION_KEYS)
    ops.append(UpsertNode(node=sess))
    for node in nodes.values():
        ops.append(UpsertNode(node=node))
        ops.append(UpsertEdge(edge=_in_session(node.id, sid)))
    return ops, plan


def _versioned(
    fresh: list[MemoryNode], stored: dict[str, MemoryNode], now: datetime
) -> tuple[dict[str, MemoryNode], int]:
    """Fresh message nodes merged with what is stored, by transcript record.

    The verbatim law holds (a stored text is never rewritten), and one changed
    record never blocks the rest of a transcript: when a record's text differs from
    every text stored for it, the new text becomes the next version (its own node,
    ``message_version_id``) and the current version is superseded (lifecycle
    ``superseded``, ``superseded_by`` the new id, ``attributes.superseded_at``), each
    with a receipt. A text already stored for the record (an older version, e.g. a
    resumed copy of the transcript) changes nothing. Returns (nodes, new versions).
    """
    versions: dict[str, list[MemoryNode]] = defaultdict(list)
    for node in stored.values():
        versions[str(node.attributes.get("record_uuid"))].append(node)
    out: dict[str, MemoryNode] = {}
    revised = 0
    for new in fresh:
        uuid = str(new.attributes.get("record_uuid"))
        known = versions.get(uuid, [])
        if any(v.lifecycle == "forgotten" for v in known):
            continue  # `memgraph forget` removed this record: never captured again
        current = _current(known)
        if current is None or current.claim == new.claim:
            node = new if current is None else _as_version(new, current)
            out[node.id] = merge_with_stored(node, current, MESSAGE_KEYS)
            continue
        if any(v.claim == new.claim for v in known):
            continue  # a text this record already had: stored, nothing to add
        number = 1 + max(_version_of(v) for v in known)
        sid = str(new.attributes.get("session_id"))
        node_id = message_version_id(sid, uuid, number)
        attrs = {**new.attributes, "version": number, "revision_of": current.id}
        out[node_id] = new.model_copy(update={"id": node_id, "attributes": attrs})
        old_attrs = {**current.attributes, "superseded_at": iso(now) or "", "voice_page": None}
        out[current.id] = current.model_copy(
            update={"lifecycle": "superseded", "superseded_by": node_id, "attributes": old_attrs}
        )
        versions[uuid].append(out[node_id])
        revised += 1
    return out, revised


def _version_of(node: MemoryNode) -> int:
    value = node.attributes.get("version")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 1 else 1


def _current(known: list[MemoryNode]) -> MemoryNode | None:
    live = [n for n in known if n.lifecycle != "superseded"]
    return max(live, key=_version_of) if live else None


def _as_version(new: MemoryNode, current: MemoryNode) -> MemoryNode:
    """``new`` under the id and version bookkeeping of the stored ``current``."""
    keep = {k: current.attributes[k] for k in ("version", "revision_of") if k in current.attributes}
    return new.model_copy(update={"id": current.id, "attributes": {**new.attributes, **keep}})


def _relpath(
    vault: Path,
    session: MemoryNode | None,
    qualifying: list[MemoryNode],
    constellation: str,
    sid: str,
) -> PurePosixPath:
    for node in [*([session] if session else []), *qualifying]:
        stored = node.attributes.get("voice_page")
        if isinstance(stored, str) and stored:
            return PurePosixPath(stored)
    first = min(n.valid_from or n.created_at for n in qualifying)
    return choose_relpath(vault, constellation, sid, first)


def _in_session(message_id: str, sid: str) -> MemoryEdge:
    target = session_node_id(sid)
    return MemoryEdge(
        id=edge_id("in_session", message_id, target),
        source_id=message_id,
        target_id=target,
        kind="in_session",
        profile=ProfileName.voice,
        lifecycle="captured",
    )


__all__ = [
    "CaptureRequest",
    "CaptureResult",
    "SessionCapture",
    "capture_many",
    "capture_messages",
    "capture_transcript",
    "message_node_id",
]
