"""The lean write path for ``memgraph note`` (stdlib only: no pydantic import).

Measured on the dev box, importing the documents + engine costs 250-430 ms,
over the whole 150 ms budget of ``memgraph note`` (notes/session.md). A note
is one fixed-shape, append-only effect, so this path writes exactly what
``memgraph.engine.apply_patch`` writes for the same ``upsert_node`` +
``upsert_edge`` patch: the node and edge docs from the shared builders
(``profiles.session.records``), one receipt per effect and the applied patch,
in ONE write transaction of the store's ``NoteAppend`` (``memgraph.store.interfaces``;
on SQLite ``memgraph.store.sqlite_ext.session``, opened without the store class).
The profile law the engine would check is checked inside that transaction: the
session exists and is active (the session index), the note id is new.
Anything else (no store, no session yet, an existing id) returns ``None`` and
the caller takes the full engine path, which handles every case.
``tests/profiles/session/test_lean.py`` proves the stored rows validate as
documents and equal what the engine stores.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgraph.errors import UsageError
from memgraph.ids import stable_id
from memgraph.store.rows import EdgeRow, NodeRow, NoteWrite, PatchRow, ReceiptRow, SessionRow
from profiles.session.records import (
    ACTIVE,
    PROFILE,
    NoteRecord,
    compact,
    dt_json,
    fixed_iso,
    node_content_hash,
    note_edge,
    note_node,
)

if TYPE_CHECKING:
    from memgraph.store import Store

PROPOSER = "memgraph note"


@dataclass(frozen=True)
class LeanResult:
    node_id: str
    persona: str
    workspace: str


def _receipt(
    patch_id: str, no: int, op: str, target: str, kind: str, after: str, now: str, **extra: Any
) -> dict[str, Any]:
    # Field order follows MemoryLifecycleReceipt.
    return {
        "valid_from": None,
        "valid_to": None,
        "ingested_at": now,
        "id": stable_id("r", patch_id, str(no)),
        "patch_id": patch_id,
        "op": op,
        "target_id": target,
        "target_type": kind,
        "profile": PROFILE,
        "actor": PROPOSER,
        "at": now,
        "before": None,
        "after": after,
        "reason": extra.pop("reason", ""),
        "details": extra,
    }


def lean_note(db_path: Path, rec: NoteRecord, persona_given: str | None) -> LeanResult | None:
    """Store one note on an existing session of the store file at ``db_path``,
    or ``None`` when the full path must (no store, no session, an existing id, a
    store older than ``memgraph.store.sqlite_ext.session.READY_VERSION``)."""
    from memgraph.store.sqlite_ext.session import append_note_at

    found: list[LeanResult] = []
    written = append_note_at(db_path, rec.session_id, _builder(rec, persona_given, found))
    return found[0] if written is not None else None


def lean_note_in(store: Store, rec: NoteRecord, persona_given: str | None) -> LeanResult | None:
    """``lean_note`` on an open store of any backend (its ``NoteAppend``)."""
    from memgraph.store.interfaces import indexes

    found: list[LeanResult] = []
    written = indexes(store).notes.append_note(rec.session_id, _builder(rec, persona_given, found))
    return found[0] if written is not None else None


def _builder(
    rec: NoteRecord, persona_given: str | None, found: list[LeanResult]
) -> Callable[[SessionRow], NoteWrite | None]:
    def build(session: SessionRow) -> NoteWrite | None:
        if session.lifecycle != ACTIVE:
            return None
        w = note_write(rec, session, persona_given)
        found.append(LeanResult(w.node.id, session.persona, session.workspace))
        return w

    return build


def note_write(rec: NoteRecord, session: SessionRow, persona_given: str | None) -> NoteWrite:
    """The rows ``apply_patch`` would store for this note (profile law checked first)."""
    persona = session.persona
    if persona_given is not None and persona_given != persona:
        raise UsageError(
            f"session {rec.session_id} belongs to persona {persona!r}, not {persona_given!r}"
        )
    rec = NoteRecord(
        session_id=rec.session_id,
        persona=persona,
        text=rec.text,
        at=rec.at,
        harness=rec.harness,
        writer=rec.writer,
        now=rec.now,
        extra=rec.extra,
    )
    node = note_node(rec)
    edge = note_edge(node["id"], rec.session_id, rec.at, rec.now)
    now = dt_json(rec.now)
    patch_id = f"p-{uuid.uuid4().hex}"
    reason = f"note in session {rec.session_id}"
    receipts = [
        _receipt(
            patch_id,
            1,
            "upsert_node",
            node["id"],
            "node",
            ACTIVE,
            now,
            reason=reason,
            hash=node_content_hash(node),
        ),
        _receipt(patch_id, 2, "upsert_edge", edge["id"], "edge", ACTIVE, now, reason=reason),
    ]
    patch = {
        "valid_from": None,
        "valid_to": None,
        "ingested_at": now,
        "id": patch_id,
        "proposer": PROPOSER,
        "reason": reason,
        "ops": [{"op": "upsert_node", "node": node}, {"op": "upsert_edge", "edge": edge}],
        "status": "applied",
        "created_at": now,
    }
    stamp = fixed_iso(rec.now)
    return NoteWrite(
        node=NodeRow(
            id=node["id"],
            profile=PROFILE,
            kind=node["kind"],
            domain_id=node["domain_id"],
            lifecycle=ACTIVE,
            valid_from=fixed_iso(rec.at),
            valid_to=None,
            ingested_at=stamp,
            updated_at=stamp,
            title=node["title"],
            body=node["claim"],
            doc=compact(node),
        ),
        edge=EdgeRow(
            id=edge["id"],
            source_id=edge["source_id"],
            target_id=edge["target_id"],
            kind=edge["kind"],
            profile=PROFILE,
            lifecycle=ACTIVE,
            doc=compact(edge),
        ),
        receipts=tuple(
            ReceiptRow(r["id"], patch_id, r["op"], r["target_id"], stamp, compact(r))
            for r in receipts
        ),
        patch=PatchRow(patch_id, "applied", stamp, compact(patch)),
    )
