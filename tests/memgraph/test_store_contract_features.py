"""The product's main features on every backend, through the store's index interfaces.

Hook capture -> registry -> voice search and stats, session notes (the lean
``memgraph note`` append) -> view and wake, activity spans and term statistics:
run on SQLite and in memory (``mg_store``), and compared hit for hit.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgraph.store import Store, open_store
from memgraph.store.interfaces import indexes
from profiles.voice.backfill import registry_rows
from profiles.voice.hooks import capture_for_hook, parse_hook_input
from profiles.voice.search import VoiceQuery, search_voice, voice_stats

sys.path.insert(0, str(Path(__file__).parents[1] / "profiles" / "voice"))
from _capture_helpers import SID, claude_records, write_transcript

PROMPTS = [
    "fix the login flow before the demo, the login page is broken",
    "why does the cache drop entries after a deploy?",
    "rewrite the schema migration for the voice index",
    "login flow again: the token refresh fails on the second try",
    "déjà vu: the café menu renders accents wrong",
]
SID2 = "90266115-aaaa-bbbb-cccc-000000000002"
QUERIES = [
    VoiceQuery(query="login"),
    VoiceQuery(query='"login flow"'),
    VoiceQuery(query="log*"),
    VoiceQuery(query="cafe"),
    VoiceQuery(query="the"),
    VoiceQuery(query="login", session=SID2[:8]),
    VoiceQuery(query="flow", project="ATLAS"),
    VoiceQuery(recent=True),
    VoiceQuery(session=SID[:8], limit=2),
    VoiceQuery(query="nothing-matches-this"),
    # issue 19: substring tier after the whole-word hits, --word, 2-character terms
    VoiceQuery(query="log"),
    VoiceQuery(query="log", word=True),
    VoiceQuery(query="igrat"),
    VoiceQuery(query="ch"),
    VoiceQuery(query="re", project="ATLAS"),
    VoiceQuery(query="fix flo"),
    VoiceQuery(query="x"),
]


def capture(store: Store, tmp: Path) -> None:
    for sid, prompts, cwd in (
        (SID, PROMPTS[:3], "/nonexistent/work/atlas"),
        (SID2, PROMPTS[3:], "/nonexistent/work/zeta"),
    ):
        path = write_transcript(
            tmp / "t" / f"{sid}.jsonl", claude_records(prompts, sid=sid, cwd=cwd)
        )
        hook = {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "reason": "exit"}
        capture_for_hook(store, parse_hook_input(json.dumps(hook)), tmp / "vault")


def test_hook_capture_search_and_registry(mg_store: Store, tmp_path: Path) -> None:
    capture(mg_store, tmp_path)
    assert {r.session_id for r in registry_rows(mg_store)} == {SID, SID2}
    hits = search_voice(mg_store, VoiceQuery(query="login"))
    assert {h.session_id for h in hits} == {SID, SID2}
    assert all("login" in h.text.lower() for h in hits)
    assert [h.text for h in search_voice(mg_store, VoiceQuery(query="cafe"))] == [PROMPTS[4]]
    stats = voice_stats(mg_store)
    assert (stats.messages, stats.sessions) == (5, 2)
    assert dict(stats.by_constellation) == {"atlas": 3, "zeta": 2}
    span = indexes(mg_store).voice.session_span(SID)
    assert span is not None and span[0] < span[1]
    # capturing the same transcripts again changes nothing
    before = mg_store.counts()
    capture(mg_store, tmp_path)
    assert mg_store.counts() == before


@pytest.mark.parametrize("other", ["memory", "postgres"])
def test_same_hits_same_order_on_every_backend(
    tmp_path: Path, other: str, request: pytest.FixtureRequest
) -> None:
    disk = open_store(tmp_path / "m.db")
    mem = open_store(":memory:" if other == "memory" else request.getfixturevalue("pg_url"))
    capture(disk, tmp_path / "a")
    capture(mem, tmp_path / "b")
    for q in QUERIES:
        a = [(h.node_id, h.text) for h in search_voice(disk, q)]
        b = [(h.node_id, h.text) for h in search_voice(mem, q)]
        assert a == b, q
    sa, sb = voice_stats(disk), voice_stats(mem)
    assert (sa.messages, sa.sessions, sa.classified, sa.first, sa.last) == (
        sb.messages,
        sb.sessions,
        sb.classified,
        sb.first,
        sb.last,
    )
    assert sa.by_constellation == sb.by_constellation
    assert sa.by_classification == sb.by_classification
    terms = ["login", "flow", "cafe", "absent"]
    fa, fb = indexes(disk).terms.frequencies(terms), indexes(mem).terms.frequencies(terms)
    assert dict(fa.df) == dict(fb.df)
    disk.close()
    mem.close()


def test_lean_note_append_view_and_wake(mg_store: Store, tmp_path: Path) -> None:
    from profiles.session.api import StartRequest, start_session, wake
    from profiles.session.lean import lean_note_in
    from profiles.session.lookup import render_session_text
    from profiles.session.records import NoteRecord
    from profiles.session.views import render_from_store

    at = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
    now = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
    rec = NoteRecord("s1", "", "decided: keep SQLite as the default", at, "codex", "w-1", now)
    assert lean_note_in(mg_store, rec, None) is None  # no session yet: the engine path's job
    start_session(mg_store, StartRequest("s1", tmp_path / "ws", "alice", started_at=at))
    res = lean_note_in(mg_store, rec, None)
    assert res is not None and res.persona == "alice"
    assert lean_note_in(mg_store, rec, None) is None  # same id: the engine decides
    assert render_from_store(mg_store, "s1") == render_session_text(mg_store, "s1")
    assert "keep SQLite as the default" in render_from_store(mg_store, "s1")
    assert wake(mg_store, "alice").text == "decided: keep SQLite as the default"
    receipts = mg_store.receipts(target_id=res.node_id)
    assert [r.op for r in receipts] == ["upsert_node"]
    from memgraph.validation import validate_snapshot

    assert validate_snapshot(mg_store.export_snapshot()) == []


def test_persona_law_is_checked_in_the_append(mg_store: Store, tmp_path: Path) -> None:
    from memgraph.errors import UsageError
    from profiles.session.api import StartRequest, start_session
    from profiles.session.lean import lean_note_in
    from profiles.session.records import NoteRecord

    at = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
    start_session(mg_store, StartRequest("s1", tmp_path / "ws", "alice", started_at=at))
    before = mg_store.counts()
    rec = NoteRecord("s1", "", "text", at, "codex", "w-2", at)
    with pytest.raises(UsageError, match="belongs to persona"):
        lean_note_in(mg_store, rec, "bob")
    assert mg_store.counts() == before  # nothing written


def test_reindex_counts(mg_store: Store, tmp_path: Path) -> None:
    from profiles.voice.search_schema import reindex

    capture(mg_store, tmp_path)
    report = reindex(mg_store)
    assert report.messages == 5 and report.nodes == mg_store.counts()["nodes"]
    assert len(search_voice(mg_store, VoiceQuery(query="login"))) == 2


def test_substring_tier_on_every_backend(mg_store: Store, tmp_path: Path) -> None:
    capture(mg_store, tmp_path)
    texts = [h.text for h in search_voice(mg_store, VoiceQuery(query="igrat"))]
    assert texts == [PROMPTS[2]]
    assert search_voice(mg_store, VoiceQuery(query="igrat", word=True)) == []
    # whole-word hits first, then the substring-only ones, newest indexed first
    texts = [h.text for h in search_voice(mg_store, VoiceQuery(query="the"))][:3]
    assert all(" the " in f" {t} " for t in texts)
    assert {h.text for h in search_voice(mg_store, VoiceQuery(query="ca"))} == {
        PROMPTS[1],
        PROMPTS[4],
    }


def test_recall_reads_project_and_session_as_voice_does(mg_store: Store, tmp_path: Path) -> None:
    """A project in any case and the start of a session id, on every backend."""
    from context_cut.api import RecallRequest, recall

    capture(mg_store, tmp_path)

    def sessions(**kw: object) -> set[str]:
        request = RecallRequest(text="login flow", mode="bm25", **kw)  # type: ignore[arg-type]
        return {str(h.node.attributes["session_id"]) for h in recall(mg_store, request).hits}

    assert sessions() == {SID, SID2}
    assert sessions(project="ZETA") == sessions(project="zeta") == {SID2}
    assert sessions(session_id=SID[:8]) == sessions(session_id=SID) == {SID}
