"""The lean capture (profiles.voice.lean) stores exactly what the engine stores.

Same transcript, same clock, same patch id: once through ``CaptureAppend`` (the
default for new sessions) and once through ``apply_patch`` (the store's
``captures`` removed). Every table of the two stores -- nodes, edges, receipts,
patches, FTS and voice index tables, their shadow tables -- must be row-for-row
equal, and the exported snapshots byte-identical.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memgraph.engine
from memgraph.store import Store, open_store
from memgraph.store.interfaces import indexes
from profiles.voice import lean, leanrows
from profiles.voice.capture import CaptureRequest, capture_transcript
from profiles.voice.privacy import PrivacyPolicy
from tests.profiles.voice._capture_helpers import SID, claude_records

NOW = datetime(2026, 4, 15, 8, 0, 0, 250000, tzinfo=UTC)
CREATED = datetime(2026, 4, 15, 8, 0, 1, tzinfo=UTC)
PROMPTS = [
    "fix the hook install so settings.json keeps other hooks",
    "ok",  # trivial: stored, not on the page
    'ünïcode "quoted" text\nsecond line\twith a tab \x01 and \u2028',
    "my key is ghp_" + "a" * 36 + " please rotate it",  # redacted by the screen
    "/model",
    "run the tests again and show me the failures",
    "1. first item\n- bullet <b>html</b> & entity `code` $math$",
]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def _engine_only(store: Store) -> Store:
    store._indexes = dataclasses.replace(indexes(store), captures=None)  # type: ignore[attr-defined]
    return store


def _tables(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(db)
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            # (store_meta: each store's own id and seat, memgraph.store.identity)
            " AND name NOT IN ('schema_migrations', 'store_meta') ORDER BY name"
        )
    ]
    out = {n: conn.execute(f'SELECT * FROM "{n}" ORDER BY 1').fetchall() for n in names}
    conn.close()
    return out


def _fix_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=0xC0FFEE))
    monkeypatch.setattr(memgraph.engine, "utcnow", lambda: CREATED)
    monkeypatch.setattr(lean, "_clock", lambda: CREATED)


def _no_engine(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the plain case must not reach apply_patch")


def _capture(
    tmp: Path, name: str, transcript: Path, engine: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Any]:
    db = tmp / name / "mg.db"
    store = open_store(db)
    if engine:
        _engine_only(store)
        max_ops = leanrows.MAX_STORED_OPS
        monkeypatch.undo()  # the engine's own apply_patch (the clock stays fixed below)
        _fix_clock(monkeypatch)
        monkeypatch.setattr(memgraph.engine, "MAX_STORED_OPS", max_ops)
    else:
        monkeypatch.setattr("profiles.voice.capture.apply_patch", _no_engine)
    request = CaptureRequest(
        transcript=transcript, vault=tmp / name / "vault", now=NOW, privacy=PrivacyPolicy()
    )
    result = capture_transcript(store, request)
    snapshot = store.export_snapshot().model_dump_json()
    store.close()
    return db, (result, snapshot)


@pytest.mark.parametrize("max_ops", [None, 5])
def test_lean_rows_equal_engine_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, max_ops: int | None
) -> None:
    """``max_ops``: a patch too big to keep its ops (both paths store none)."""
    if max_ops is not None:
        monkeypatch.setattr(memgraph.engine, "MAX_STORED_OPS", max_ops)
        monkeypatch.setattr(leanrows, "MAX_STORED_OPS", max_ops)
    _fix_clock(monkeypatch)
    other = "90000000-aaaa-bbbb-cccc-000000000002"
    records = claude_records(PROMPTS) + claude_records(PROMPTS[:4], sid=other)
    transcript = _write(tmp_path / "t" / f"{SID}.jsonl", records)
    lean_db, (lean_res, lean_snap) = _capture(tmp_path, "lean", transcript, False, monkeypatch)
    eng_db, (eng_res, eng_snap) = _capture(tmp_path, "eng", transcript, True, monkeypatch)
    assert lean_res.nodes_written == eng_res.nodes_written > 0

    def rel(res: Any, name: str) -> list[Any]:
        vault = tmp_path / name / "vault"
        return [
            dataclasses.replace(s, page=s.page and s.page.relative_to(vault)) for s in res.sessions
        ]

    assert rel(lean_res, "lean") == rel(eng_res, "eng")
    assert lean_res.session_id == eng_res.session_id == SID
    assert lean_res.stats.redacted  # the secret was screened before either path
    lean_tables, eng_tables = _tables(lean_db), _tables(eng_db)
    assert lean_tables.keys() == eng_tables.keys()
    for name in lean_tables:
        assert lean_tables[name] == eng_tables[name], name
    assert lean_snap == eng_snap
    # the pages, rendered from the two stores, are the same bytes
    pages = sorted((tmp_path / "lean" / "vault").rglob("*.md"))
    assert [p.name for p in pages] == [
        p.name for p in sorted((tmp_path / "eng" / "vault").rglob("*.md"))
    ]
    for page in pages:
        twin = tmp_path / "eng" / "vault" / page.relative_to(tmp_path / "lean" / "vault")
        if page.name != "log.md":
            assert page.read_bytes() == twin.read_bytes()


def test_lean_declines_a_session_already_stored_and_the_engine_changes_nothing(
    tmp_path: Path,
) -> None:
    transcript = _write(tmp_path / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    store = open_store(tmp_path / "mg.db")
    request = CaptureRequest(transcript=transcript, vault=tmp_path / "vault", now=NOW)
    first = capture_transcript(store, request)
    before = _tables(tmp_path / "mg.db")
    captures = indexes(store).captures
    assert captures is not None
    built = lean.build([(_read(transcript), request, None)], NOW)
    assert built.write is not None
    assert captures.append_capture(built.write, built.sessions) is False  # nothing written
    again = capture_transcript(store, request)  # the engine path: identical upserts, no-ops
    assert again.nodes_written == 0 and first.nodes_written > 0
    store.close()
    assert _tables(tmp_path / "mg.db") == before


def _read(transcript: Path) -> list[Any]:
    from profiles.voice.prefilter import PrefilterOptions
    from profiles.voice.readers import ReadOptions, read_transcript

    read = read_transcript(transcript, ReadOptions(prefilter=PrefilterOptions(drop_trivial=False)))
    return read.messages


def test_a_grown_transcript_takes_the_engine_path_and_adds_only_the_new_messages(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t" / f"{SID}.jsonl"
    store = open_store(tmp_path / "mg.db")
    request = CaptureRequest(transcript=path, vault=tmp_path / "vault", now=NOW)
    _write(path, claude_records(PROMPTS[:3]))
    capture_transcript(store, request)
    _write(path, claude_records(PROMPTS))
    result = capture_transcript(store, request)
    from profiles.voice.views import session_nodes

    session, messages = session_nodes(store, SID)
    assert session is not None and len(messages) == len(PROMPTS)
    assert result.sessions[0].qualifying == session.attributes["message_count"]
    store.close()


def test_concurrent_captures_of_one_new_session_lose_nothing(tmp_path: Path) -> None:
    """Two hooks on the same new session at once: one lean write wins, the other
    finds it stored and takes the engine path (identical upserts: no change)."""
    transcript = _write(tmp_path / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    open_store(tmp_path / "mg.db").close()
    errors: list[BaseException] = []
    results: list[Any] = []

    def run() -> None:
        try:
            store = open_store(tmp_path / "mg.db")
            try:
                request = CaptureRequest(transcript=transcript, vault=tmp_path / "vault", now=NOW)
                results.append(capture_transcript(store, request))
            finally:
                store.close()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    store = open_store(tmp_path / "mg.db")
    from profiles.voice.views import session_nodes

    session, messages = session_nodes(store, SID)
    assert session is not None and len(messages) == len(PROMPTS)
    patches = store.conn.execute("SELECT count(*) FROM patches").fetchone()[0]  # type: ignore[attr-defined]
    store.close()
    assert patches == 1  # the second capture changed nothing
    assert sorted(r.nodes_written for r in results) == [0, len(PROMPTS) + 1]


def test_max_stored_ops_is_the_engines() -> None:
    assert lean.MAX_STORED_OPS == memgraph.engine.MAX_STORED_OPS
    assert lean.PROPOSER == __import__("profiles.voice.capture").voice.capture.PROPOSER


@settings(max_examples=100, deadline=None)
@given(st.text(), st.text(), st.text(), st.text(), st.text(), st.one_of(st.just({}), st.text()))
def test_receipt_json_is_the_compact_receipt(
    stamp: str, patch_id: str, reason: str, rid: str, target: str, digest: object
) -> None:
    """The receipt text built from pre-encoded parts is compact() of the receipt."""
    from profiles.session.records import compact
    from profiles.voice.leanrows import _receipt_json

    details = digest if isinstance(digest, dict) else {"hash": digest}
    receipt = {  # field order follows MemoryLifecycleReceipt
        "valid_from": None,
        "valid_to": None,
        "ingested_at": stamp,
        "id": rid,
        "patch_id": patch_id,
        "op": "upsert_node",
        "target_id": target,
        "target_type": "node",
        "profile": "voice",
        "actor": "voice.capture",
        "at": stamp,
        "before": None,
        "after": "captured",
        "reason": reason,
        "details": details,
    }
    built = _receipt_json(stamp, patch_id, reason)(rid, "upsert_node", target, "node", details)
    assert built == compact(receipt)
