"""Session nodes, note nodes and their edge as plain JSON-ready dicts (stdlib only).

The same builders feed both write paths: the Python API validates these dicts
into ``MemoryNode``/``MemoryEdge`` and applies them through the engine, and the
lean CLI path (``profiles.session.lean``) stores them as the engine would. One
builder means the two paths cannot drift apart in shape or id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memgraph.docshapes import EdgeShape, NodeShape, edge_doc, node_doc
from memgraph.errors import InvalidId, UsageError
from memgraph.ids import edge_id, is_safe_name, node_id
from memgraph.inputs import unstorable_text

PROFILE = "session"
NOTE_KIND = "note"
SESSION_KIND = "session"
EDGE_KIND = "in_session"
ACTIVE = "active"
MAX_TEXT = 20_000
# Title is the first line, cut like voice message titles.
TITLE_CHARS = 80
# Bookkeeping fields the engine's node_hash leaves out (memgraph.hashing).
_NODE_VOLATILE = ("ingested_at", "updated_at", "created_at", "anchors")


def dt_json(dt: datetime) -> str:
    """A datetime as the documents serialise it (UTC ISO-8601 with ``Z``)."""
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")


# What `wake` answers when a persona has no notes yet.
DEFAULT_AXIOM = (
    "No notes yet: read the repository as it is now, trust it over memory, "
    'and leave a note (memgraph note "...") when you learn something the next session needs.'
)


def wake_line(persona: str, session_id: str | None, chosen: bool, known: list[str]) -> str | None:
    """What `wake` says on stderr: which persona it used when none was given, or
    that the given persona has no sessions (None: nothing to say)."""
    if session_id is None and chosen:
        others = f" (personas with sessions: {', '.join(known)})" if known else ""
        return f"wake: persona {persona} has no sessions yet{others}"
    if session_id is not None and not chosen:
        return f"wake: persona {persona} (most recently active; session {session_id[:8]})"
    return None


def wake_json(
    persona: str,
    session_id: str | None,
    ts: str | None,
    harness: str | None,
    note_id: str | None,
    text: str,
) -> dict[str, Any]:
    """`wake --json`'s object (both paths)."""
    return {
        "persona": persona,
        "session_id": session_id,
        "timestamp": ts,
        "harness": harness,
        "id": note_id,
        "axiom": session_id is None,
        "text": text,
    }


def fixed_iso(dt: datetime) -> str:
    """Fixed-width UTC text (as ``memgraph.store.sqlite.iso``): sorts as time."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def check_name(value: str, what: str) -> str:
    """A session id or persona usable as one path component, else ``InvalidId``."""
    if not isinstance(value, str) or not is_safe_name(value):
        shown = repr(value)[:60]
        raise InvalidId(
            f"invalid {what} {shown}: use letters, digits, '.', '_', '-', '@', '+', "
            "at most 128 characters, no path separators or '..'"
        )
    return value


def check_text(text: str) -> str:
    if not text.strip():
        raise UsageError("note text is empty")
    if len(text) > MAX_TEXT:
        raise UsageError(f"note text is {len(text)} characters; the limit is {MAX_TEXT}")
    if unstorable_text(text):
        raise UsageError("note text holds NUL or bytes that are not valid UTF-8")
    return text


def redact_note(text: str, secrets: bool = True) -> tuple[str, dict[str, int]]:
    """A note's text as it may be stored: ``<private>`` spans removed (always) and
    secrets replaced by ``[REDACTED:<kind>]`` (unless ``secrets`` is False), as
    capture does (``profiles.voice.redact``); counts by kind."""
    from profiles.voice.redact import redact

    out, counts = redact(text, secrets=secrets)
    if counts and not out.strip():
        raise UsageError("note text holds nothing but <private> spans; nothing noted")
    return out, dict(sorted(counts.items()))


def redacted_part(counts: dict[str, int] | None) -> str:
    """``; 3 redacted (github-token 1, private-span 2)`` (capture's wording), or ''."""
    if not counts:
        return ""
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    return f"; {sum(counts.values())} redacted ({kinds})"


def session_node_id(session_id: str) -> str:
    return node_id(PROFILE, SESSION_KIND, session_id)


def note_node_id(session_id: str, at: datetime, harness: str, writer: str) -> str:
    # writer (pid + random, or a caller's key) keeps two identical texts written
    # in the same microsecond by two processes apart; re-applying the same
    # request (same writer) yields the same id.
    return node_id(PROFILE, NOTE_KIND, session_id, dt_json(at), harness, writer)


def domain_id(session_id: str) -> str:
    return f"session:{session_id}"


def _title(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:TITLE_CHARS]


@dataclass(frozen=True)
class NoteRecord:
    """Everything a stored note is built from."""

    session_id: str
    persona: str
    text: str
    at: datetime  # valid time: when the note was made (a late note keeps its own)
    harness: str
    writer: str
    now: datetime  # ingestion time
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return note_node_id(self.session_id, self.at, self.harness, self.writer)


def _node(
    *,
    nid: str,
    dom: str,
    kind: str,
    title: str,
    claim: str,
    valid_from: datetime,
    now: datetime,
    attributes: dict[str, Any],
) -> dict[str, Any]:
    return node_doc(
        NodeShape(
            id=nid,
            domain_id=dom,
            profile=PROFILE,
            kind=kind,
            title=title,
            claim=claim,
            lifecycle=ACTIVE,
            confidence=1.0,
            now=dt_json(now),
            valid_from=dt_json(valid_from),
            attributes=attributes,
        )
    )


def note_node(rec: NoteRecord) -> dict[str, Any]:
    return _node(
        nid=rec.id,
        dom=domain_id(rec.session_id),
        kind=NOTE_KIND,
        title=_title(rec.text),
        claim=rec.text,
        valid_from=rec.at,
        now=rec.now,
        attributes={
            "session_id": rec.session_id,
            "persona": rec.persona,
            "harness": rec.harness,
            "writer": rec.writer,
            **rec.extra,
        },
    )


def session_node(
    session_id: str, persona: str, workspace: str, harness: str, started_at: datetime, now: datetime
) -> dict[str, Any]:
    return _node(
        nid=session_node_id(session_id),
        dom=domain_id(session_id),
        kind=SESSION_KIND,
        title=f"session {session_id} ({persona})",
        claim=f"session {session_id} of persona {persona}",
        valid_from=started_at,
        now=now,
        attributes={
            "session_id": session_id,
            "persona": persona,
            "workspace": workspace,
            "harness": harness,
            "started_at": fixed_iso(started_at),
        },
    )


def note_edge(note_id: str, session_id: str, at: datetime, now: datetime) -> dict[str, Any]:
    sid = session_node_id(session_id)
    eid = edge_id(EDGE_KIND, note_id, sid)
    shape = EdgeShape(eid, note_id, sid, EDGE_KIND, PROFILE, ACTIVE, 1.0, dt_json(at), dt_json(now))
    return edge_doc(shape)


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def node_content_hash(node: dict[str, Any]) -> str:
    """Same value as ``memgraph.hashing.node_hash``: sha256 of the node's compact
    JSON in field order without bookkeeping fields, attributes key-sorted.
    ``tests/profiles/session/test_lean.py`` fails if the two ever drift."""
    import hashlib

    kept = {k: v for k, v in node.items() if k not in _NODE_VOLATILE}
    kept["attributes"] = _sorted(kept["attributes"])
    return hashlib.sha256(compact(kept).encode("utf-8", "surrogatepass")).hexdigest()


def compact(value: Any) -> str:
    """Compact JSON as stored in the ``doc`` columns (non-ASCII kept)."""
    global _ENCODE
    if _ENCODE is None:  # one encoder: json.dumps builds one per call for these options
        import json

        _ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    text: str = _ENCODE(value)
    return text


_ENCODE: Any = None


__all__ = [
    "NoteRecord",
    "check_name",
    "check_text",
    "dt_json",
    "fixed_iso",
    "note_edge",
    "note_node",
    "note_node_id",
    "session_node",
    "session_node_id",
]


# A session's startup note, "session s9 started (cli)" (`session start`): not something
# anyone said, so `wake` and the packets pass over it. The SQL readers (standing.py,
# postgres/standing.py) test the same shape: text LIKE 'session % started (%'.
def is_startup(text: str) -> bool:
    return text.startswith("session ") and " started (" in text[8:]


def new_writer() -> str:
    """A per-note key: unique across processes and calls (pid + random)."""
    import os
    import uuid

    return f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


def parse_at(value: str, now: datetime) -> datetime:
    """``--at`` text to an aware datetime: any form of the one date parser
    (``memgraph.dates.parse_when``: ISO with or without a zone, a naive time being
    local, ``2h``, ``yesterday``...); a late note may be old, not in the future."""
    from memgraph.dates import parse_when

    return check_at(parse_when(value, flag="--at", now=now), now)


def check_at(at: datetime, now: datetime) -> datetime:
    from datetime import timedelta

    if at.tzinfo is None:
        raise UsageError("note time needs a timezone (e.g. 2026-01-05T09:30:00Z)")
    try:
        utc = at.astimezone(UTC)
    except (OverflowError, ValueError):
        raise UsageError(f"note time {at.isoformat()} is out of range") from None
    # Years before 1000 do not round-trip through every renderer; no note is that old.
    if utc.year < 1000:
        raise UsageError(f"note time {at.isoformat()} is before the year 1000")
    # A note from the future would own `wake` until then; allow a little clock skew.
    if utc - now > timedelta(minutes=5):
        raise UsageError(f"note time {dt_json(utc)} is in the future")
    return utc


def note_output(
    nid: str,
    session_id: str,
    persona: str,
    at: datetime,
    harness: str,
    file: Any,
    as_json: bool,
    redacted: dict[str, int] | None = None,
) -> str:
    """The one line `memgraph note` prints (shared by the typer and lean paths);
    ``redacted``: what ``redact_note`` replaced, by kind (said only when any)."""
    if as_json:
        data: dict[str, Any] = {
            "id": nid,
            "session_id": session_id,
            "persona": persona,
            "timestamp": fixed_iso(at),
            "harness": harness,
            "file": str(file),
        }
        if redacted:
            data["redacted"] = dict(sorted(redacted.items()))
        return compact(data)
    from memgraph.dates import show  # stdlib only, as the lean path needs

    # for people: local time with its zone, as every listing (`session show`) prints it
    when = show(at, seconds=True)
    return f"noted {nid} in {session_id} at {when}{redacted_part(redacted)}"


def view_warning(nid: str, why: str) -> str:
    """The stderr line when a note is stored but its YAML view could not be written."""
    return (
        f"Warning: note {nid} is stored, but its YAML view was not written ({why}); "
        "do not retry the note: `memgraph session show` shows it from the store and "
        "re-renders the view once the view can be written"
    )
