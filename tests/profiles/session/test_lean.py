"""The lean CLI write path stores exactly what the engine would."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from memgraph.documents import MemoryEdge, MemoryLifecycleReceipt, MemoryNode, MemoryPatchCandidate
from memgraph.hashing import node_hash
from memgraph.store import open_store
from memgraph.validation import validate_snapshot
from profiles.session.api import NoteRequest, StartRequest, note, start_session
from profiles.session.lean import lean_note
from profiles.session.lookup import render_session_text
from profiles.session.records import NoteRecord
from profiles.session.views import render_from_sql

AT = datetime(2026, 1, 5, 9, 30, 1, 250000, tzinfo=UTC)
NOW = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)


def _started(path: Path, ws: Path):  # type: ignore[no-untyped-def]
    store = open_store(path)
    start_session(store, StartRequest("s1", ws, "alice", started_at=AT))
    return store


def test_lean_rows_equal_engine_rows(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    lean_store = _started(tmp_path / "lean.db", ws)
    eng_store = _started(tmp_path / "eng.db", ws)
    text = 'idea: ünïcode "quoted"\nsecond line\t\x01'
    rec = NoteRecord("s1", "", text, AT, "codex", "w-1", NOW)
    res = lean_note(tmp_path / "lean.db", rec, None)
    assert res is not None and res.persona == "alice"
    eng = note(eng_store, NoteRequest("s1", text, ws, "codex", at=AT, key="w-1"))
    assert eng.id == res.node_id

    # the lean path indexes what SQLiteTxn.put_nodes indexes: FTS and session tables
    assert [h.node_id for h in lean_store.search("quoted")] == [res.node_id]
    assert [h.node_id for h in eng_store.search("quoted")] == [res.node_id]
    q = "SELECT node_id, session_id, persona, ts, harness, lifecycle, text FROM session_notes"
    q += " ORDER BY node_id"
    assert lean_store.conn.execute(q).fetchall() == eng_store.conn.execute(q).fetchall()  # type: ignore[attr-defined]
    # the session's start note and this one
    assert res.node_id in {r[0] for r in lean_store.conn.execute(q)}  # type: ignore[attr-defined]

    a = lean_store.export_snapshot()
    b = eng_store.export_snapshot()
    assert validate_snapshot(a) == []
    volatile = {"ingested_at", "updated_at", "created_at"}
    na = {n.id: n.model_dump(exclude=volatile) for n in a.nodes}
    nb = {n.id: n.model_dump(exclude=volatile) for n in b.nodes}
    assert na == nb
    assert [e.model_dump(exclude={"ingested_at"}) for e in a.edges] == [
        e.model_dump(exclude={"ingested_at"}) for e in b.edges
    ]
    ra = [r for r in a.receipts if r.target_id in (res.node_id, a.edges[-1].id)]
    rb = [r for r in b.receipts if r.target_id in (res.node_id, b.edges[-1].id)]
    keep = ("op", "target_id", "target_type", "profile", "before", "after", "details")
    assert [[getattr(r, k) for k in keep] for r in ra] == [
        [getattr(r, k) for k in keep] for r in rb
    ]
    node = next(n for n in a.nodes if n.id == res.node_id)
    assert ra[0].details["hash"] == node_hash(node)
    # stored docs validate strictly as documents
    from memgraph.store.docpack import unpack

    docs = [  # stored packed (memgraph.store.docpack)
        unpack(d)
        for (d,) in lean_store.conn.execute("SELECT doc FROM patches")  # type: ignore[attr-defined]
    ]
    patch = MemoryPatchCandidate.model_validate_json(next(d for d in docs if "memgraph note" in d))
    assert isinstance(patch.ops[0].node, MemoryNode)  # type: ignore[union-attr]
    assert isinstance(patch.ops[1].edge, MemoryEdge)  # type: ignore[union-attr]
    for r in ra:
        MemoryLifecycleReceipt.model_validate(r.model_dump())
    # both renderers give the same file text
    assert render_from_sql(tmp_path / "lean.db", "s1") == render_session_text(lean_store, "s1")
    assert render_session_text(lean_store, "s1") == render_session_text(eng_store, "s1")
    lean_store.close()
    eng_store.close()


def test_lean_declines_what_it_does_not_handle(tmp_path: Path) -> None:
    rec = NoteRecord("s1", "", "t", AT, "cli", "w", NOW)
    assert lean_note(tmp_path / "absent.db", rec, None) is None
    store = open_store(tmp_path / "mg.db")
    assert lean_note(tmp_path / "mg.db", rec, None) is None  # session not started
    start_session(store, StartRequest("s1", tmp_path, "alice"))
    assert lean_note(tmp_path / "mg.db", rec, None) is not None
    assert lean_note(tmp_path / "mg.db", rec, None) is None  # same id again: engine decides
    store.close()


def test_lean_declines_a_store_not_yet_migrated_to_its_index_statements(tmp_path: Path) -> None:
    from memgraph.store.sqlite_ext.session import READY_VERSION

    path = tmp_path / "mg.db"
    store = open_store(path)
    start_session(store, StartRequest("s1", tmp_path, "alice"))
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM schema_migrations WHERE version = ?", (READY_VERSION,))
    conn.commit()
    conn.close()
    rec = NoteRecord("s1", "", "findable words", AT, "cli", "w", NOW)
    assert lean_note(path, rec, None) is None  # the full path migrates first
    open_store(path).close()  # ... which re-applies the migration (idempotent)
    res = lean_note(path, rec, None)
    assert res is not None
    store = open_store(path)
    assert [h.node_id for h in store.search("findable")] == [res.node_id]
    store.close()
