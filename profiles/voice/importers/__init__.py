"""Import chat exports (ChatGPT, Claude.ai, JSONL) as voice message nodes.

The library behind ``memgraph import conversations FILE``. Every turn of every
speaker becomes a voice message node (notes/CONVENTIONS.md) with ``speaker``,
``operator`` (true/false when the export or ``--operator`` says who the
operator is, else null), the conversation as its session and the message time
as its valid time, so ``memgraph voice``, ``recall`` and ``context`` find it like
a captured message. Each conversation gets a voice session node and
``in_session`` edges. Ids come from (conversation id, message id), so importing
the same file again writes nothing. Bad records are skipped, counted by reason,
and reported one line each; nothing half-parsed is written.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memgraph.documents import MemoryEdge, MemoryNode, ProfileName, UpsertEdge, UpsertNode, utcnow
from memgraph.documents.patch import GraphOp
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import ReaderError, UsageError
from memgraph.hashing import same_node_content
from memgraph.ids import edge_id
from memgraph.inputs import read_bounded
from memgraph.store import Store
from profiles.voice.importers.formats import (
    FORMATS,
    HARNESS,
    FormatError,
    ParseResult,
    Turn,
    detect,
    parse,
)
from profiles.voice.model import OperatorMessage
from profiles.voice.nodes import (
    MESSAGE_KEYS,
    SESSION_KEYS,
    TITLE_CHARS,
    NodeContext,
    merge_with_stored,
    message_node,
    safe_component,
    session_node,
    session_node_id,
    storable,
    storable_path,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from profiles.voice.privacy import PrivacyPolicy

PROPOSER = "voice.import"
ORIGIN = "import"
MAX_BYTES = 2 * 1024**3  # an export larger than this is refused, not read
IMPORT_KEYS = (*MESSAGE_KEYS, "speaker", "operator", "prev_turn", "next_turn")
SESSION_IMPORT_KEYS = (*SESSION_KEYS, "conversation_title", "harness")
OPS_PER_PATCH = 6000  # one transaction per batch of whole conversations


@dataclass(frozen=True)
class ImportRequest:
    path: Path
    format: str | None = None  # None: detected from the content
    speakers: tuple[str, ...] = ()  # only these speakers (case-insensitive); () = all
    operator: str | None = None  # this speaker is the operator (overrides the export)
    project: str | None = None  # project/constellation; default from the format or file
    now: datetime | None = None
    dry_run: bool = False
    # excludes and redaction (profiles.voice.privacy); None: redact, exclude nothing
    privacy: PrivacyPolicy | None = None


@dataclass
class ImportResult:
    path: str
    format: str
    project: str
    conversations: int = 0
    records: int = 0  # message records seen in the file
    messages: int = 0  # turns read and kept (after --speaker)
    filtered: int = 0  # turns left out by --speaker
    new: int = 0  # message nodes created
    updated: int = 0  # message nodes changed (e.g. a new anchor)
    unchanged: int = 0  # message nodes already stored as they are
    sessions: int = 0
    nodes_written: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    redacted: dict[str, int] = field(default_factory=dict)  # secrets/private spans by kind

    @property
    def bad_records(self) -> int:
        return sum(v for k, v in self.skipped.items() if k.startswith("bad_"))

    @property
    def problems_found(self) -> int:
        """Every record that gets a problem line (``problems`` keeps the first ones):
        bad records and re-imported messages whose text differs from the stored one."""
        return self.bad_records + self.skipped.get("changed_text", 0)

    def line(self) -> str:
        skipped = sum(self.skipped.values())
        why = ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items()))
        return (
            f"imported {self.messages} message(s) from {self.conversations} conversation(s) "
            f"[{self.format}] into project {self.project}: {self.new} new, {self.updated} "
            f"updated, {self.unchanged} unchanged; {self.filtered} filtered by speaker; "
            f"{skipped} skipped" + (f" ({why})" if why else "") + self._redacted_line()
        )

    def _redacted_line(self) -> str:
        if not self.redacted:
            return ""
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.redacted.items()))
        return f"; {sum(self.redacted.values())} redacted ({kinds})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "project": self.project,
            "conversations": self.conversations,
            "records": self.records,
            "messages": self.messages,
            "filtered": self.filtered,
            "new": self.new,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "sessions": self.sessions,
            "nodes_written": self.nodes_written,
            "skipped": dict(sorted(self.skipped.items())),
            "bad_records": self.bad_records,
            "redacted": dict(sorted(self.redacted.items())),
        }


def read_export(path: Path, fmt: str | None = None) -> ParseResult:
    """Parse ``path`` (a regular file of bounded size) in ``fmt`` or the detected format."""
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    data = read_bounded(path, MAX_BYTES, "conversation export")
    try:
        return parse(data, fmt or detect(data))
    except FormatError as exc:
        raise ReaderError(f"{path}: {exc}") from None


def _default_project(fmt: str, path: Path) -> str:
    if fmt == "jsonl":
        return safe_component(path.stem, "conversations")
    return safe_component(HARNESS[fmt])


def _is_operator(turn: Turn, request: ImportRequest) -> bool | None:
    if request.operator is not None:
        return turn.speaker.casefold() == request.operator.casefold()
    return turn.operator


def turn_node(
    turn: Turn, request: ImportRequest, fmt: str, ref: str, ctx: NodeContext
) -> MemoryNode:
    """One turn as a voice message node (the shared contract, plus speaker/operator)."""
    msg = OperatorMessage(
        session_id=turn.session_id,
        record_uuid=turn.record_id,
        timestamp=turn.timestamp,
        text=turn.text,
        transcript=ref,
        line=turn.line,
        harness=HARNESS[fmt],
        origin=ORIGIN,
    )
    node = message_node(msg, ctx)
    speaker = storable(turn.speaker)
    first = node.title.rstrip("…")
    title = f"{speaker}: {first}" if first else speaker
    if len(title) > TITLE_CHARS or node.title.endswith("…"):
        title = title[: TITLE_CHARS - 1].rstrip() + "…"
    attributes = {**node.attributes, "speaker": speaker, "operator": _is_operator(turn, request)}
    return node.model_copy(update={"title": title, "attributes": attributes})


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


def import_conversations(store: Store, request: ImportRequest) -> ImportResult:
    """Read ``request.path`` and upsert its turns as voice message nodes."""
    parsed = read_export(request.path, request.format)
    fmt = parsed.format
    project = safe_component(request.project) if request.project else None
    project = project or _default_project(fmt, request.path)
    ref = storable_path(str(request.path.absolute()))
    result = ImportResult(
        path=ref,
        format=fmt,
        project=project,
        conversations=parsed.conversations,
        records=parsed.records,
        skipped=dict(parsed.skipped),
        problems=list(parsed.problems),
    )
    wanted = {s.casefold() for s in request.speakers}
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for turn in _screened(parsed.turns, request, project, ref, result):
        if wanted and turn.speaker.casefold() not in wanted:
            result.filtered += 1
            continue
        by_session[turn.session_id].append(turn)
    now = request.now or utcnow()
    ctx = NodeContext(project, project, now)
    batch: list[GraphOp] = []
    for sid in sorted(by_session):
        batch += _session_ops(store, sid, by_session[sid], request, fmt, ref, ctx, result)
        if len(batch) >= OPS_PER_PATCH:
            _apply(store, batch, request, ref, now, result)
            batch = []
    _apply(store, batch, request, ref, now, result)
    result.sessions = len(by_session)
    return result


def _screened(
    turns: list[Turn], request: ImportRequest, project: str, ref: str, result: ImportResult
) -> list[Turn]:
    """The privacy stage (profiles.voice.privacy): excluded project/path, private
    spans, secrets; what is left out is counted in ``result.skipped``."""
    import dataclasses

    from profiles.voice.privacy import PRIVATE_ONLY, PrivacyPolicy, excluded
    from profiles.voice.redact import redact

    policy = request.privacy or PrivacyPolicy()
    reason = excluded(policy, project, None, ref)
    if reason is not None:
        result.skipped[reason] = result.skipped.get(reason, 0) + len(turns)
        return []
    out: list[Turn] = []
    for turn in turns:
        text, counts = redact(turn.text, secrets=policy.redact)
        if counts:
            for kind, n in counts.items():
                result.redacted[kind] = result.redacted.get(kind, 0) + n
            if not text.strip():
                result.skipped[PRIVATE_ONLY] = result.skipped.get(PRIVATE_ONLY, 0) + 1
                continue
            turn = dataclasses.replace(turn, text=text)
        out.append(turn)
    return out


def _apply(
    store: Store,
    ops: list[GraphOp],
    request: ImportRequest,
    ref: str,
    now: datetime,
    result: ImportResult,
) -> None:
    if not ops or request.dry_run:
        return
    applied = apply_patch(store, new_patch(ops, proposer=PROPOSER, reason=f"import {ref}"), now)
    result.nodes_written += applied.nodes_written


def _session_ops(
    store: Store,
    sid: str,
    turns: list[Turn],
    request: ImportRequest,
    fmt: str,
    ref: str,
    ctx: NodeContext,
    result: ImportResult,
) -> list[GraphOp]:
    from profiles.voice.views import session_nodes

    session, stored_msgs = session_nodes(store, storable(sid))
    if session is not None and session.lifecycle == "forgotten":  # `memgraph forget`
        result.skipped["forgotten"] = result.skipped.get("forgotten", 0) + len(turns)
        return []
    stored = {n.id: n for n in stored_msgs}
    if session is not None:  # a conversation keeps the project it was first given
        project = str(session.attributes.get("project") or ctx.project)
        ctx = NodeContext(
            str(session.attributes.get("constellation") or project), project, ctx.ingested_at
        )
    fresh: dict[str, MemoryNode] = {}
    for turn in turns:
        node = turn_node(turn, request, fmt, ref, ctx)
        fresh.setdefault(node.id, node)  # a repeated record id: counted by the reader
    for node_id, node in list(fresh.items()):
        before = stored.get(node_id)
        if before is not None and before.lifecycle == "forgotten":
            del fresh[node_id]  # `memgraph forget` removed it: never imported again
            result.skipped["forgotten"] = result.skipped.get("forgotten", 0) + 1
            continue
        if before is not None and before.claim != node.claim:
            # a message's text is verbatim and never revised in place: the stored
            # text stays, the difference is reported
            del fresh[node_id]
            result.skipped["changed_text"] = result.skipped.get("changed_text", 0) + 1
            record = before.attributes.get("record_uuid")
            result.problems.append(
                f"session {sid[:80]} record {str(record)[:80]}: text differs from the "
                "imported version; the stored text is kept"
            )
    merged = {i: merge_with_stored(n, stored.get(i), IMPORT_KEYS) for i, n in fresh.items()}
    everything = _linked({**stored, **merged})
    ops: list[GraphOp] = []
    for node_id, node in everything.items():
        before = stored.get(node_id)
        if before is not None and same_node_content(before, node):
            if node_id in fresh:
                result.unchanged += 1
            continue
        if node_id in fresh:
            if before is None:
                result.new += 1
            else:
                result.updated += 1
        ops.append(UpsertNode(node=node))
        ops.append(UpsertEdge(edge=_in_session(node_id, storable(sid))))
    result.messages += len(fresh)
    times = [n.valid_from for n in everything.values() if n.valid_from is not None]
    title = next((t.title for t in turns if t.title), None)
    sess = session_node(
        storable(sid),
        ctx,
        message_count=len(everything),
        transcript=ref,
        valid_from=min(times) if times else None,
        valid_to=max(times) if times else None,
    )
    extra = {"conversation_title": storable(title) if title else None, "harness": HARNESS[fmt]}
    sess = sess.model_copy(update={"attributes": {**sess.attributes, **extra}})
    if title:
        sess = sess.model_copy(update={"title": _session_title(storable(title))})
    sess = merge_with_stored(sess, session, SESSION_IMPORT_KEYS)
    if session is None or not same_node_content(session, sess):
        ops.insert(0, UpsertNode(node=sess))
    return ops


def _line(node: MemoryNode) -> int:
    return next((a.line for a in node.anchors if a.line is not None), 0)


def _linked(messages: dict[str, MemoryNode]) -> dict[str, MemoryNode]:
    """Each message with ``prev_turn``/``next_turn``: its neighbours' node ids in the
    conversation (by time, then position), so a reader can show a turn in context."""
    order = sorted(messages.values(), key=lambda n: (n.valid_from or n.created_at, _line(n), n.id))
    out: dict[str, MemoryNode] = {}
    for i, node in enumerate(order):
        prev = order[i - 1].id if i > 0 else None
        nxt = order[i + 1].id if i + 1 < len(order) else None
        attrs = node.attributes
        if (
            attrs.get("prev_turn") != prev
            or attrs.get("next_turn") != nxt
            or ("prev_turn" not in attrs)
        ):
            node = node.model_copy(
                update={"attributes": {**attrs, "prev_turn": prev, "next_turn": nxt}}
            )
        out[node.id] = node
    return out


def _session_title(title: str) -> str:
    line = " ".join(title.split())
    text = f"conversation: {line}"
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"


__all__ = [
    "FORMATS",
    "ImportRequest",
    "ImportResult",
    "import_conversations",
    "read_export",
    "turn_node",
]
