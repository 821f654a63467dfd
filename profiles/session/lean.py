"""The lean write path for ``memgraph note`` (stdlib only: no pydantic import).

Measured on the dev box, importing the documents + engine costs 250-430 ms,
over the whole 150 ms budget of ``memgraph note`` (notes/session.md). A note
is one fixed-shape, append-only effect, so this path writes exactly what
``memgraph.engine.apply_patch`` writes for the same ``upsert_node`` +
``upsert_edge`` patch: the node and edge docs from the shared builders
(``profiles.session.records``), one receipt per effect and the applied patch,
in ONE ``BEGIN IMMEDIATE`` transaction. The profile law the engine would check
is checked here in SQL: the session exists (``session_sessions``), the note id is
new. Anything else (no store, no session yet, an existing id) returns ``None``
and the caller takes the full engine path, which handles every case.
``tests/profiles/session/test_lean.py`` proves the stored rows validate as
documents and equal what the engine stores.
"""

from __future__ import annotations

import random
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memgraph.errors import StoreBusy, StoreError, UsageError
from memgraph.ids import stable_id
from memgraph.store.schema import index_new_node_rows, max_node_rowid
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

BUSY_DEADLINE = 120.0  # as memgraph.store.sqlite.SQLiteStore
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


def _begin(conn: sqlite3.Connection, db_path: Path) -> None:
    deadline = time.monotonic() + BUSY_DEADLINE
    delay = 0.002
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if "locked" not in text and "busy" not in text:
                raise StoreError(f"store {db_path}: {exc}") from None
            if time.monotonic() > deadline:
                raise StoreBusy(
                    f"store {db_path} stayed locked for {BUSY_DEADLINE:.0f}s; "
                    "another writer holds it, retry later"
                ) from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.1)


# Migration 11 made the store's set-based statements (run below after the
# insert) the way inserted nodes reach the index tables; a store without it is
# migrated by the full path first (SQLiteStore applies every pending migration).
READY_VERSION = 11


def _ready(conn: sqlite3.Connection) -> bool:
    """The store has the session index as this path maintains it; else the full path migrates."""
    try:
        row = conn.execute(
            "SELECT 1 FROM schema_migrations WHERE version = ?", (READY_VERSION,)
        ).fetchone()
        if row is not None:
            from memgraph.store.guard import unknown_versions

            # a store from a newer memgraph: the full path refuses it with one line
            return not unknown_versions(conn)
    except sqlite3.Error:
        return False
    return False


def lean_note(db_path: Path, rec: NoteRecord, persona_given: str | None) -> LeanResult | None:
    """Store one note on an existing session, or ``None`` when the full path must."""
    if not db_path.is_file():
        return None
    try:
        conn = sqlite3.connect(db_path, isolation_level=None, timeout=5.0)
    except sqlite3.Error:
        return None
    try:
        if not _ready(conn):
            return None
        _begin(conn, db_path)
        try:
            result = _write(conn, rec, persona_given)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if result is None:
            conn.execute("ROLLBACK")
        else:
            conn.execute("COMMIT")
        return result
    except sqlite3.Error as exc:
        raise StoreError(f"store {db_path}: {exc}") from None
    finally:
        conn.close()


def _write(
    conn: sqlite3.Connection, rec: NoteRecord, persona_given: str | None
) -> LeanResult | None:
    row = conn.execute(
        "SELECT persona, workspace, lifecycle FROM session_sessions WHERE session_id = ?",
        (rec.session_id,),
    ).fetchone()
    if row is None or row[2] != ACTIVE:
        return None
    persona, workspace = str(row[0]), str(row[1])
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
    if conn.execute("SELECT 1 FROM nodes WHERE id = ?", (node["id"],)).fetchone():
        return None  # a re-applied note: the engine decides (no-op or revision)
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
    body = node["claim"]
    last = max_node_rowid(conn)
    conn.execute(
        """INSERT INTO nodes(id, profile, kind, domain_id, lifecycle, valid_from, valid_to,
               ingested_at, updated_at, title, body, doc) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)""",
        (
            node["id"],
            PROFILE,
            node["kind"],
            node["domain_id"],
            ACTIVE,
            fixed_iso(rec.at),
            None,
            fixed_iso(rec.now),
            fixed_iso(rec.now),
            node["title"],
            body,
            compact(node),
        ),
    )
    # the node FTS and the session index, as SQLiteTxn.put_nodes does
    index_new_node_rows(conn, last)
    conn.execute(
        "INSERT OR REPLACE INTO edges(id, source_id, target_id, kind, profile, lifecycle, doc)"
        " VALUES (?,?,?,?,?,?,?)",
        (
            edge["id"],
            edge["source_id"],
            edge["target_id"],
            edge["kind"],
            PROFILE,
            ACTIVE,
            compact(edge),
        ),
    )
    conn.executemany(
        "INSERT INTO receipts(id, patch_id, op, target_id, at, doc) VALUES (?,?,?,?,?,?)",
        [
            (r["id"], patch_id, r["op"], r["target_id"], fixed_iso(rec.now), compact(r))
            for r in receipts
        ],
    )
    conn.execute(
        "INSERT OR REPLACE INTO patches(id, status, created_at, doc) VALUES (?,?,?,?)",
        (patch_id, "applied", fixed_iso(rec.now), compact(patch)),
    )
    return LeanResult(node_id=node["id"], persona=persona, workspace=workspace)
