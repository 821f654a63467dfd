"""Packed node and edge documents (issue 22, migration 105): every writer encodes
rows through ``memgraph.store.rowcodec``, SQL reads node fields through
``mg_doc``, and a store from before 105 upgrades in place with the same snapshot."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from memgraph.documents import UpsertNode, to_json
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import StoreError
from memgraph.snapshot import render_snapshot
from memgraph.store import open_store
from memgraph.store.docpack import doc_sql, pack, unpack
from memgraph.store.sqlite import node_row
from memgraph.store.voice_rows import VoiceSearch
from profiles.voice.capture import CaptureRequest, capture_transcript

DOC_TABLES = ("nodes", "edges", "node_history", "edge_history")


def _capture_some(tmp_path: Path, db: Path, sessions: int = 3) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "profiles" / "voice"))
    from _capture_helpers import PROMPTS, claude_records, write_transcript

    store = open_store(db)
    try:
        for i in range(sessions):
            sid = f"{i:08x}-aaaa-4bbb-8ccc-{i:012x}"
            path = write_transcript(
                tmp_path / "t" / f"{sid}.jsonl", claude_records(PROMPTS, sid=sid)
            )
            capture_transcript(store, CaptureRequest(transcript=path, vault=tmp_path / "v"))
    finally:
        store.close()


def _types(db: Path) -> set[tuple[str, str]]:
    conn = sqlite3.connect(db)
    try:
        return {
            (table, kind)
            for table in ("nodes", "edges")
            for (kind,) in conn.execute(f"SELECT DISTINCT typeof(doc) FROM {table}")
        }
    finally:
        conn.close()


def _downgrade_to_104(db: Path) -> None:
    """The store as a build before migration 105 left it: text node and edge
    documents, index triggers that read ``new.doc`` directly."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.create_function("mg_doc", 1, doc_sql)
    conn.execute("BEGIN")
    triggers = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%mg_doc%'"
    ).fetchall()
    assert {name for name, _ in triggers} == {
        "voice_message_session_au",
        "voice_index_au",
        "session_notes_au",
        "session_sessions_au",
    }
    for name, sql in triggers:
        conn.execute(f"DROP TRIGGER {name}")
        conn.execute(sql.replace("mg_doc(new.doc)", "new.doc"))
    for table in DOC_TABLES:
        conn.execute(f"UPDATE {table} SET doc = mg_doc(doc)")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 105")
    conn.execute("DROP TABLE store_meta")  # 106 (the store id) came after 105
    conn.execute("COMMIT")
    conn.close()


def _index_rows(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT v.*, m.session_id, m.ts FROM voice_index v "
            "JOIN voice_message_session m ON m.node_rowid = v.rowid ORDER BY v.rowid"
        ).fetchall()
    finally:
        conn.close()


def test_new_stores_pack_node_and_edge_documents(tmp_path: Path) -> None:
    db = tmp_path / "mg.db"
    _capture_some(tmp_path, db)
    assert _types(db) == {("nodes", "blob"), ("edges", "blob")}
    store = open_store(db)
    try:
        nodes = list(store.iter_nodes(profile="voice"))
        assert nodes
        # the voice index read its fields through mg_doc: sessions and texts are there
        rows = _index_rows(db)
        assert len(rows) == sum(1 for n in nodes if n.kind == "message")
        assert all(r[2] for r in rows)  # session_id
        from memgraph.store.interfaces import indexes

        hits = indexes(store).voice.search(VoiceSearch(query="", limit=100))
        texts = {n.claim for n in nodes if n.kind == "message"}
        assert hits and {h.text for h in hits} <= texts
    finally:
        store.close()


def test_a_store_from_before_105_upgrades_in_place(tmp_path: Path) -> None:
    db = tmp_path / "mg.db"
    _capture_some(tmp_path, db)
    store = open_store(db)
    try:
        before = render_snapshot(store.export_snapshot())
    finally:
        store.close()
    rows_before = _index_rows(db)
    _downgrade_to_104(db)
    assert _types(db) == {("nodes", "text"), ("edges", "text")}
    store = open_store(db)  # a writer migrates
    try:
        assert 105 in store.schema_versions()
        assert render_snapshot(store.export_snapshot()) == before
        # a later update of a message goes through the re-created triggers
        message = next(n for n in store.iter_nodes("voice", "message"))
        changed = message.model_copy(
            update={"attributes": {**message.attributes, "classification": "decision"}}
        )
        apply_patch(store, new_patch([UpsertNode(node=changed)], proposer="test"))
    finally:
        store.close()
    assert _types(db) == {("nodes", "blob"), ("edges", "blob")}
    rows_after = _index_rows(db)
    assert len(rows_after) == len(rows_before)
    classified = [r for r in rows_after if r[1] == message.id]
    assert classified and classified[0][8] == "decision"


def test_engine_rows_unpack_to_the_serialised_document(tmp_path: Path) -> None:
    db = tmp_path / "mg.db"
    _capture_some(tmp_path, db, sessions=1)
    store = open_store(db)
    try:
        node = next(iter(store.iter_nodes("voice", "message")))
    finally:
        store.close()
    row = node_row(node)
    assert isinstance(row[-1], bytes)
    assert unpack(row[-1]) == to_json(node)
    assert row[10] == node.claim  # body: the text the FTS and voice indexes read


def test_mg_doc_remembers_only_the_same_document() -> None:
    a, b = '{"claim":"a"}', '{"claim":"b"}'
    pa, pb = pack(a), pack(b)
    assert [doc_sql(x) for x in (pa, pb, pa, pa, pb, a, None)] == [a, b, a, a, b, a, None]


def test_format_1_rows_stay_readable_and_are_written_without_zstandard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memgraph.store.docpack as dp

    text = '{"claim":"ünïcode \\n text"}'
    v2 = dp.pack(text)
    assert v2[:1] == dp.FORMAT_V2 and dp.unpack(v2) == text
    monkeypatch.setattr(dp, "_zstd", lambda: None)
    v1 = dp.pack(text)
    assert v1[:1] == dp.FORMAT_V1 and dp.unpack(v1) == text
    with pytest.raises(StoreError, match="zstandard"):
        dp.unpack(v2)
    monkeypatch.undo()
    assert dp.unpack(v1) == text  # both formats read side by side
    with pytest.raises(StoreError, match="damaged"):
        dp.unpack(v2[:-2])
