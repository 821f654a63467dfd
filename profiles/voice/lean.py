"""The voice capture's plain case without the engine (stdlib only: no pydantic).

A capture whose sessions are all new (nothing of them stored: the common case of
``hook session-end`` and of a first backfill) is a fixed-shape, append-only
effect: one upsert per new node, one ``in_session`` edge per message. ``build``
makes, from the readers' ``OperatorMessage`` records, exactly the documents
``profiles.voice.capture`` would build (``profiles.voice.nodes``) and exactly the
rows ``memgraph.engine.apply_patch`` would store for them (nodes, edges, one
receipt per effect, the applied patch); the store's ``CaptureAppend`` writes them
in ONE transaction after checking, inside it, that nothing of them is stored.
Anything else (a session already stored, a store without the interface, an older
schema) is declined and the caller takes the engine path, which handles every
case. Like ``memgraph note``'s lean writer (decisions.md D9), the JSON comes from
the same builders as that path (``profiles.session.records``: field order,
timestamps, content hash), and ``tests/profiles/voice/test_lean_capture.py``
asserts the stored rows equal the engine's, byte for byte.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePosixPath

from memgraph.docshapes import EdgeShape, NodeShape, anchor_doc, edge_doc, node_doc
from memgraph.ids import anchor_id, edge_id, is_safe_name
from memgraph.store.rows import GraphWrite
from profiles.session.records import dt_json
from profiles.voice import leanrows
from profiles.voice.capture_types import CaptureRequest, CaptureResult, SessionCapture
from profiles.voice.leanrows import CAPTURED, MAX_STORED_OPS, PROFILE, PROPOSER, Doc
from profiles.voice.model import OperatorMessage
from profiles.voice.nodekeys import (
    domain_id,
    message_attributes,
    message_node_id,
    message_title,
    resolve_project,
    safe_component,
    session_node_id,
    storable,
    storable_path,
)
from profiles.voice.pagepath import choose_relpath
from profiles.voice.prefilter import is_trivial

__all__ = ["MAX_STORED_OPS", "PROPOSER", "Doc", "LeanCapture", "SessionDocs", "build", "qualifies"]

_RETIRED = ("retired", "superseded", "forgotten")

# (messages, request, transcript path as read): profiles.voice.capture.CaptureItem
Item = tuple[list[OperatorMessage], CaptureRequest, str | None]


@dataclass
class SessionDocs:
    """One new session as stored: its node and its message nodes (docs, in op order)."""

    session: Doc
    messages: list[Doc]


@dataclass
class LeanCapture:
    write: GraphWrite | None  # None: no message, nothing to write
    sessions: list[str]  # every session the write creates
    results: list[CaptureResult]
    docs: dict[str, SessionDocs] = field(default_factory=dict)


def qualifies(doc: Doc) -> bool:
    """``profiles.voice.views.is_qualifying`` on a node document."""
    if doc["kind"] != "message" or doc["lifecycle"] in _RETIRED:
        return False
    origin = doc["attributes"].get("origin")
    return not (origin in ("prompt", "queued") and is_trivial(doc["claim"]))


def _node(
    nid: str,
    constellation: str,
    kind: str,
    text: tuple[str, str],
    now: str,
    anchors: list[Doc],
    attributes: Doc,
    valid_from: datetime | None,
    valid_to: datetime | None = None,
) -> Doc:
    title, claim = text
    return node_doc(
        NodeShape(
            id=nid,
            domain_id=domain_id(constellation),
            profile=PROFILE,
            kind=kind,
            title=title,
            claim=claim,
            lifecycle=CAPTURED,
            confidence=0.5,
            now=now,
            valid_from=dt_json(valid_from) if valid_from is not None else None,
            valid_to=dt_json(valid_to) if valid_to is not None else None,
            anchors=anchors,
            attributes=attributes,
        )
    )


def message_doc(msg: OperatorMessage, constellation: str, project: str, now: str) -> Doc:
    """``profiles.voice.nodes.message_node`` as a document."""
    text = storable(msg.text)
    attributes = message_attributes(msg, project, constellation, None)
    ref, record = storable_path(msg.transcript), storable(msg.record_uuid)
    anchor = anchor_doc(
        anchor_id("transcript", ref, str(msg.line), record), "transcript", ref, msg.line, record
    )
    nid = message_node_id(msg.session_id, msg.record_uuid)
    title = message_title(text)
    return _node(
        nid, constellation, "message", (title, text), now, [anchor], attributes, msg.timestamp
    )


def session_doc(
    sid: str,
    constellation: str,
    project: str,
    now: str,
    page: str | None,
    message_count: int,
    transcript: str | None,
    times: list[datetime],
) -> Doc:
    """``profiles.voice.nodes.session_node`` as a document."""
    attributes: Doc = {
        "session_id": storable(sid),
        "project": project,
        "constellation": constellation,
        "message_count": message_count,
        "voice_page": page,
        "transcript": storable_path(transcript) if transcript else None,
    }
    anchors = []
    if transcript:
        transcript = storable_path(transcript)
        anchors.append(anchor_doc(anchor_id("file", transcript), "file", transcript, None, None))
    title = f"voice session {sid[:8]} ({project})"
    first, last = (min(times), max(times)) if times else (None, None)
    nid = session_node_id(sid)
    return _node(
        nid, constellation, "voice_session", (title, ""), now, anchors, attributes, first, last
    )


def _edge(message_id: str, sid: str) -> Doc:
    target = session_node_id(sid)
    # ingested_at is stamped by the engine
    eid = edge_id("in_session", message_id, target)
    return edge_doc(EdgeShape(eid, message_id, target, "in_session", PROFILE, CAPTURED, 0.5))


def _plan_session(
    sid: str, msgs: list[OperatorMessage], request: CaptureRequest, transcript: str, now: datetime
) -> tuple[SessionCapture, SessionDocs]:
    """``profiles.voice.capture._session_ops`` for a session with nothing stored."""
    cwd = next((m.cwd for m in msgs if m.cwd), None) or request.cwd
    project = resolve_project(cwd)
    constellation = safe_component(request.constellation) if request.constellation else project
    stamp = dt_json(now)
    merged: dict[str, Doc] = {}
    for m in msgs:  # one node per record; a repeated id keeps its first place
        doc = message_doc(m, constellation, project, stamp)
        merged[doc["id"]] = doc
    qualifying = [d for d in merged.values() if qualifies(d)]
    plan = SessionCapture(sid, project, constellation, len(msgs), len(qualifying))
    relpath: PurePosixPath | None = None
    if len(qualifying) < max(1, request.min_messages):
        plan.skipped = f"too_few_messages:{len(qualifying)}"
    elif not is_safe_name(sid):
        plan.skipped = "unsafe_session_id"
    else:
        first = min(_when(d) for d in qualifying)
        relpath = choose_relpath(request.vault, constellation, sid, first)
    page = relpath.as_posix() if relpath else None
    for doc in merged.values():
        if qualifies(doc):
            doc["attributes"]["voice_page"] = page
    times = [_when(d) for d in merged.values()]
    sess = session_doc(sid, constellation, project, stamp, page, len(qualifying), transcript, times)
    return plan, SessionDocs(sess, list(merged.values()))


def _when(doc: Doc) -> datetime:
    return datetime.fromisoformat(doc["valid_from"].replace("Z", "+00:00"))


def build(items: Sequence[Item], now: datetime, patch_id: str | None = None) -> LeanCapture:
    """The rows ``capture_many(store, items)`` writes when none of the items'
    sessions has anything stored (checked by the store when they are written)."""
    now = now.astimezone(UTC)
    out = LeanCapture(None, [], [])
    ops: list[Doc] = []
    for messages, request, transcript in items:
        path = storable_path(transcript or str(request.transcript))
        result = CaptureResult(transcript=path, harness="", session_id=None, messages=len(messages))
        out.results.append(result)
        by_session: dict[str, list[OperatorMessage]] = defaultdict(list)
        for msg in messages:
            by_session[msg.session_id].append(msg)
        if not by_session:
            result.session_id = request.session_id
            continue
        result.session_id = max(by_session, key=lambda s: len(by_session[s]))
        item_now = (request.now or now).astimezone(UTC)
        for sid in sorted(by_session):
            plan, docs = _plan_session(sid, by_session[sid], request, path, item_now)
            result.sessions.append(plan)
            out.sessions.append(sid)
            out.docs[sid] = docs
            ops.append({"op": "upsert_node", "node": docs.session})
            for doc in docs.messages:
                ops.append({"op": "upsert_node", "node": doc})
                ops.append({"op": "upsert_edge", "edge": _edge(doc["id"], sid)})
    if not ops:
        return out
    reason = out.results[0].transcript if len(items) == 1 else f"{len(items)} transcripts"
    out.write = leanrows.graph_rows(
        ops, f"capture {reason}", now, patch_id or f"p-{uuid.uuid4().hex}", _clock()
    )
    written = sum(1 for op in ops if op["op"] == "upsert_node")
    for result in out.results:
        result.nodes_written = written
    return out


def _clock() -> datetime:
    return datetime.now(UTC)
