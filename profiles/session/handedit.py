"""Notes appended to a session's YAML file by hand (or by a harness) reach the store.

The YAML file is a view of the store, but people and harnesses append to it. Before
a writer replaces the file (``profiles.session.views.write_view`` calls this under
the file's lock when the file is not what memgraph last rendered), every note in it
that the store does not hold is imported as a note node with its own receipt
(proposer ``session.yaml-import``); the new render then carries it, so nothing
typed into the file is erased and ``session show``/``wake`` (both read the store)
agree. The import is idempotent: an imported note's id is derived from its
timestamp and text, so reading the same file twice adds nothing.

What cannot be imported is kept verbatim beside the view instead
(``<session>.conflict.yaml``): a file that is no longer YAML, or an edit to a note
memgraph wrote (its id is stored, its text differs), or a changed header.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memgraph.documents import MemoryEdge, MemoryNode, UpsertEdge, UpsertNode, utcnow
from memgraph.documents.patch import GraphOp
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import MemgraphError
from memgraph.ids import is_safe_name
from memgraph.store.protocol import Store
from profiles.session.records import (
    ACTIVE,
    NOTE_KIND,
    PROFILE,
    NoteRecord,
    check_at,
    check_text,
    domain_id,
    note_edge,
    note_node,
    session_node_id,
)

PROPOSER = "session.yaml-import"
HAND_HARNESS = "hand"


@dataclass
class HandImport:
    imported: list[str] = field(default_factory=list)  # node ids of imported notes
    keep_copy: bool = False  # the file holds edits the store cannot take: keep it
    problems: list[str] = field(default_factory=list)


def _load(text: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None


def _when(value: Any, now: datetime) -> tuple[datetime, bool]:
    """A hand-written note's time, and whether it was understood. No timestamp is
    ``now`` (understood); one that is not an ISO time, or out of range, is ``now``
    too, but not understood: the caller keeps the file's copy and says so (it was
    taken as now without a word). A time without a zone is UTC: the file is data a
    fleet shares, and the note's id is derived from its time."""
    if value is None or value == "":
        return now, True
    at: datetime | None = None
    if isinstance(value, datetime):
        at = value
    elif isinstance(value, str):
        try:
            at = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            at = None
    if at is None:
        return now, False
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    try:
        return check_at(at, now), True
    except MemgraphError:
        return now, False


def _candidates(data: Any) -> list[dict[str, Any]] | None:
    """Note-like items of a parsed file (a plain string item is a note's text)."""
    if not isinstance(data, dict):
        return None
    notes = data.get("notes")
    if notes is None:
        return []
    if not isinstance(notes, list):
        return None
    out: list[dict[str, Any]] = []
    for item in notes:
        if isinstance(item, str):
            out.append({"text": item})
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            out.append(item)
        else:
            return None  # something we cannot read as a note: keep the file
    return out


_KEYS = frozenset({"session_id", "persona", "started_at", "notes"})
_NOTE_KEYS = frozenset({"text", "timestamp", "harness", "id"})  # what a note keeps


def _has_comment(text: str) -> bool:
    """A YAML comment a person wrote (the parser drops it, the new render would too):
    a `#` at a line's start or after a blank, outside quotes; memgraph's own header
    line aside. Scalars memgraph writes are one-line JSON strings, so a quoted `#` is
    text; a multi-line scalar typed by hand may be read as a comment: the file is then
    kept beside the view, which loses nothing."""
    from profiles.session.emit import HEADER

    for line in text.splitlines():
        if line == HEADER.rstrip("\n"):
            continue
        line = line.replace("''", "")  # a quote inside a single-quoted scalar, or ''
        quote, escaped = "", False
        for i, ch in enumerate(line):
            after_blank = i == 0 or line[i - 1] in " \t"
            if quote == '"':
                escaped, quote = (
                    (False, quote) if escaped else (ch == "\\", "" if ch == '"' else quote)
                )
            elif quote == "'":
                quote = "" if ch == "'" else quote
            elif ch in "\"'" and (after_blank or line[i - 1] in "[{,"):
                quote = ch  # a quoted scalar starts here (not an apostrophe inside a word)
            elif ch == "#" and after_blank:
                return True
    return False


def _header_ok(data: dict[Any, Any], session_id: str, persona: str) -> bool:
    return (
        set(data) <= _KEYS
        and data.get("session_id") == session_id
        and data.get("persona") == persona
    )


def import_hand_notes(store: Store, session_id: str, text: str) -> HandImport:
    """Import the notes of ``text`` (the session file) that the store lacks."""
    result = HandImport()
    data = _load(text)
    items = _candidates(data)
    if items is None:
        result.keep_copy = True
        result.problems.append("not a readable session file")
        return result
    with store.reader() as reader:
        session = reader.get_nodes([session_node_id(session_id)]).get(session_node_id(session_id))
        stored = reader.nodes_in_domain(domain_id(session_id), PROFILE, None)
    if session is None:
        result.keep_copy = True
        result.problems.append("session is not in the store")
        return result
    persona = str(session.attributes.get("persona"))
    if not isinstance(data, dict) or not _header_ok(data, session_id, persona):
        result.keep_copy = True
        result.problems.append("header edited")
    # what the new render cannot carry (a comment, a key of a note's own) is kept in the
    # verbatim copy; it was dropped without a word
    if _has_comment(text) or any(set(item) - _NOTE_KEYS for item in items):
        result.keep_copy = True
        result.problems.append("comments or keys the view does not keep")
    by_id = {n.id: n for n in stored if n.kind == NOTE_KIND}
    texts = {n.claim for n in by_id.values() if n.lifecycle == ACTIVE}
    now = utcnow()
    ops: list[GraphOp] = []
    for item in items:
        note_text = item["text"]
        nid = item.get("id")
        if isinstance(nid, str) and nid in by_id:
            if by_id[nid].claim != note_text:
                result.keep_copy = True  # a stored note's text was edited
                result.problems.append(f"note {nid} edited")
            continue
        if note_text in texts or not note_text.strip():
            continue  # already stored (e.g. a copied line), or nothing to keep
        try:
            check_text(note_text)
        except MemgraphError as exc:
            result.keep_copy = True
            result.problems.append(str(exc))
            continue
        at, understood = _when(item.get("timestamp"), now)
        if not understood:
            result.keep_copy = True
            shown = " ".join(str(item.get("timestamp")).split())[:40]
            result.problems.append(f"timestamp {shown!r} not understood: note kept at now")
        harness = item.get("harness")
        if not (isinstance(harness, str) and is_safe_name(harness)):
            harness = HAND_HARNESS
        key = hashlib.sha256(f"{at.isoformat()}\n{note_text}".encode()).hexdigest()[:16]
        rec = NoteRecord(
            session_id=session_id,
            persona=persona,
            text=note_text,
            at=at,
            harness=harness,
            writer=f"yaml-{key}",
            now=now,
            extra={"origin": "yaml_file"},
        )
        node = MemoryNode.model_validate(note_node(rec))
        if node.id in by_id:
            continue
        edge = MemoryEdge.model_validate(note_edge(node.id, session_id, at, now))
        ops += [UpsertNode(node=node), UpsertEdge(edge=edge)]
        result.imported.append(node.id)
        texts.add(note_text)
    if ops:
        reason = f"notes appended by hand to the YAML view of session {session_id}"
        apply_patch(store, new_patch(ops, PROPOSER, reason))
    return result


def on_edit_for(store: Store, session_id: str) -> Any:
    """The ``on_edit`` callback ``write_view`` wants, bound to a store."""
    import sys

    def on_edit(text: str) -> bool:
        result = import_hand_notes(store, session_id, text)
        if result.imported:
            from memgraph.terminal import plural

            sys.stderr.write(
                f"memgraph: imported {plural(len(result.imported), 'note')} added by hand to the "
                f"YAML view of session {session_id}\n"
            )
        times = [p for p in result.problems if p.startswith("timestamp ")]
        if times:  # a note taken at "now" instead of the time written: say which
            sys.stderr.write(
                f"memgraph: the YAML view of session {session_id}: {'; '.join(times)}\n"
            )
        return result.keep_copy

    return on_edit
