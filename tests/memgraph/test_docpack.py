"""Packed receipts and patches (issue 22): exact text back, old stores upgrade."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgraph.errors import StoreError
from memgraph.snapshot import render_snapshot
from memgraph.store import open_store
from memgraph.store.docpack import pack, unpack
from profiles.voice.capture import CaptureRequest, capture_transcript


@given(st.text())
def test_unpack_returns_the_packed_text(text: str) -> None:
    # any text at all, including lone surrogates' absence: JSON text is UTF-8
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert unpack(pack(text)) == text
    assert unpack(text) == text  # a row written before packing existed


def test_big_documents_round_trip_and_shrink() -> None:
    doc = '{"ops":[' + ",".join(f'{{"op":"upsert_node","n":{i}}}' for i in range(20000)) + "]}"
    packed = pack(doc)
    assert unpack(packed) == doc
    assert len(packed) * 5 < len(doc)


def test_damaged_or_unknown_blobs_are_one_store_error() -> None:
    with pytest.raises(StoreError, match="damaged stored document"):
        unpack(pack("x" * 100)[:-3] + b"zz")
    with pytest.raises(StoreError, match="unknown format"):
        unpack(b"\x07abc")


def _capture_some(tmp_path: Path, db: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "profiles" / "voice"))
    from _capture_helpers import PROMPTS, claude_records, write_transcript

    store = open_store(db)
    try:
        for i in range(3):
            sid = f"{i:08x}-aaaa-4bbb-8ccc-{i:012x}"
            path = write_transcript(
                tmp_path / "t" / f"{sid}.jsonl", claude_records(PROMPTS, sid=sid)
            )
            capture_transcript(store, CaptureRequest(transcript=path, vault=tmp_path / "v"))
    finally:
        store.close()


def _downgrade_to_103(db: Path) -> None:
    """The store as a build before migration 104 left it: text documents."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN")
    conn.execute("DROP TRIGGER receipts_no_update")
    for table in ("receipts", "patches"):
        rows = conn.execute(f"SELECT rowid, doc FROM {table}").fetchall()
        for rowid, doc in rows:
            conn.execute(f"UPDATE {table} SET doc = ? WHERE rowid = ?", (unpack(doc), rowid))
    conn.execute(
        "CREATE TRIGGER receipts_no_update BEFORE UPDATE ON receipts "
        "BEGIN SELECT RAISE(ABORT, 'receipts are append-only'); END"
    )
    conn.execute("DELETE FROM schema_migrations WHERE version >= 104")
    conn.execute("DROP TABLE store_meta")  # 106 (the store id) came after 104
    conn.execute("COMMIT")
    conn.close()


def _types(db: Path) -> set[tuple[str, str]]:
    conn = sqlite3.connect(db)
    try:
        return {
            (table, kind)
            for table in ("receipts", "patches")
            for (kind,) in conn.execute(f"SELECT DISTINCT typeof(doc) FROM {table}")
        }
    finally:
        conn.close()


def test_new_stores_pack_receipts_and_patches(tmp_path: Path) -> None:
    db = tmp_path / "mg.db"
    _capture_some(tmp_path, db)
    assert _types(db) == {("receipts", "blob"), ("patches", "blob")}


def test_an_old_store_opens_upgrades_and_exports_the_same_snapshot(tmp_path: Path) -> None:
    db = tmp_path / "mg.db"
    _capture_some(tmp_path, db)
    current = open_store(db)
    try:
        before = render_snapshot(current.export_snapshot())
        receipts_before = current.receipts()
    finally:
        current.close()
    _downgrade_to_103(db)
    assert _types(db) == {("receipts", "text"), ("patches", "text")}
    store = open_store(db)  # a writer migrates
    try:
        assert 104 in store.schema_versions()
        after = render_snapshot(store.export_snapshot())
        assert store.receipts() == receipts_before
    finally:
        store.close()
    assert _types(db) == {("receipts", "blob"), ("patches", "blob")}
    assert after == before
    # still append-only after the migration lifted and restored the guard
    conn = sqlite3.connect(db)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE receipts SET op = 'x'")
    conn.close()
    # and the snapshot imports into a new store and exports byte-identically
    from memgraph.snapshot import parse_snapshot

    fresh = open_store(tmp_path / "fresh.db")
    try:
        fresh.import_snapshot(parse_snapshot(after))
        assert render_snapshot(fresh.export_snapshot()) == after
    finally:
        fresh.close()
