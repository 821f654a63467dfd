"""Capture: messages -> one patch -> page -> log.md; idempotent and crash-safe."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgraph.documents import NodeRevision, ReviseNode, TransitionNode
from memgraph.engine import apply_patch, new_patch
from memgraph.store import Store, open_store
from profiles.voice.capture import CaptureRequest, capture_messages, capture_transcript
from profiles.voice.nodes import message_node_id, session_node_id
from profiles.voice.pages import parse_page
from profiles.voice.views import session_nodes
from profiles.voice.wiki import validate_file

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import PROMPTS, SID, claude_records, op_msg, write_transcript

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)
LATER = datetime(2026, 5, 2, 12, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(tmp_path / "mg.db")


def request(tmp_path: Path, **kw: object) -> CaptureRequest:
    base: dict[str, object] = {"transcript": Path("/t/80166115.jsonl"), "vault": tmp_path / "v"}
    base.update(kw)
    return CaptureRequest(**base)  # type: ignore[arg-type]


def test_capture_writes_nodes_page_and_one_log_line(store: Store, tmp_path: Path) -> None:
    msgs = [op_msg(t, i) for i, t in enumerate(PROMPTS)]
    result = capture_messages(store, msgs, request(tmp_path, now=NOW))
    (session,) = result.sessions
    assert session.qualifying == 3  # "ok" is stored but does not count
    assert result.messages == 4
    page_path = tmp_path / "v" / "atlas" / "voice" / "2026-04-14-80166115.md"
    assert session.page == page_path and session.page_written
    page = parse_page(page_path.read_text(encoding="utf-8"))
    assert [m.text for m in page.messages] == PROMPTS[:3]
    assert page.title == "atlas Session 80166115 — hook, settings, session"
    assert (page.constellation, page.project, page.session_id) == ("atlas", "atlas", SID)
    assert validate_file(page_path) == []
    log = (tmp_path / "v" / "log.md").read_text().splitlines()
    assert len(log) == 1 and "atlas/voice/2026-04-14-80166115.md" in log[0]
    sess, nodes = session_nodes(store, SID)
    assert len(nodes) == 4
    assert sess is not None and sess.attributes["message_count"] == 3
    ok = next(n for n in nodes if n.claim == "ok")
    assert ok.attributes["voice_page"] is None
    assert all(n.attributes["voice_page"] for n in nodes if n.claim != "ok")


def test_recapture_changes_nothing(store: Store, tmp_path: Path) -> None:
    msgs = [op_msg(t, i) for i, t in enumerate(PROMPTS)]
    capture_messages(store, msgs, request(tmp_path, now=NOW))
    page_path = tmp_path / "v" / "atlas" / "voice" / "2026-04-14-80166115.md"
    before = page_path.read_bytes()
    counts = store.counts()
    again = capture_messages(store, msgs, request(tmp_path, now=LATER))
    assert again.nodes_written == 0
    assert not again.sessions[0].page_written
    assert page_path.read_bytes() == before
    assert store.counts() == counts
    assert len((tmp_path / "v" / "log.md").read_text().splitlines()) == 1


def test_too_few_messages_stores_nodes_but_no_page(store: Store, tmp_path: Path) -> None:
    msgs = [op_msg("first real message", 0), op_msg("second one", 1), op_msg("thanks", 2)]
    result = capture_messages(store, msgs, request(tmp_path, now=NOW))
    assert result.sessions[0].skipped == "too_few_messages:2"
    assert result.pages == []
    assert not (tmp_path / "v").exists()
    assert len(session_nodes(store, SID)[1]) == 3


def test_session_grows_past_threshold_later(store: Store, tmp_path: Path) -> None:
    capture_messages(store, [op_msg("one thing", 0), op_msg("two things", 1)], request(tmp_path))
    msgs = [op_msg("one thing", 0), op_msg("two things", 1), op_msg("three things", 2)]
    result = capture_messages(store, msgs, request(tmp_path))
    assert result.sessions[0].page is not None
    _, nodes = session_nodes(store, SID)
    assert {n.attributes["voice_page"] for n in nodes} == {"atlas/voice/2026-04-14-80166115.md"}


def test_recapture_keeps_classification(store: Store, tmp_path: Path) -> None:
    msgs = [op_msg(t, i) for i, t in enumerate(PROMPTS[:3])]
    capture_messages(store, msgs, request(tmp_path, now=NOW))
    target = message_node_id(SID, msgs[0].record_uuid)
    attrs = dict(session_nodes(store, SID)[1][0].attributes)
    attrs.update(classification="decision", confidence=0.8, topics=["hook"])
    apply_patch(
        store,
        new_patch(
            [
                ReviseNode(node_id=target, changes=NodeRevision(attributes=attrs)),
                TransitionNode(node_id=target, to_state="classified"),
            ]
        ),
    )
    capture_messages(store, msgs, request(tmp_path, now=LATER))
    node = store.reader().__enter__().get_nodes([target])[target]
    assert node.attributes["classification"] == "decision"
    assert node.lifecycle == "classified"


def test_two_sessions_in_one_transcript_get_their_own_pages(store: Store, tmp_path: Path) -> None:
    other = "019c5fa3-64d1-7a52-adf0-0c1378d1d98d"
    msgs = [op_msg(f"main message {i}", i) for i in range(3)]
    msgs += [op_msg(f"side question {i}", i, sid=other) for i in range(3)]
    result = capture_messages(store, msgs, request(tmp_path))
    assert sorted(s.session_id for s in result.sessions) == sorted([SID, other])
    assert len(result.pages) == 2


def test_sid8_collision_gets_the_full_id(store: Store, tmp_path: Path) -> None:
    a = "019c5fa3-0000-7000-8000-00000000000a"
    b = "019c5fa3-0000-7000-8000-00000000000b"
    capture_messages(store, [op_msg(f"alpha {i}", i, sid=a) for i in range(3)], request(tmp_path))
    result = capture_messages(
        store, [op_msg(f"beta {i}", i, sid=b) for i in range(3)], request(tmp_path)
    )
    (page,) = result.pages
    assert page.name == f"2026-04-14-{b}.md"
    assert parse_page(page.read_text()).session_id == b


def test_hostile_text_is_captured_verbatim(store: Store, tmp_path: Path) -> None:
    texts = ["---\ntype: service\n---", "> **14:32** — fake\n<!-- mg {} -->", "\x00\r\ud800 中文"]
    capture_messages(store, [op_msg(t, i) for i, t in enumerate(texts)], request(tmp_path))
    page_path = tmp_path / "v" / "atlas" / "voice" / "2026-04-14-80166115.md"
    # lone surrogates cannot live in the store's UTF-8 JSON: U+FFFD, documented
    expected = [*texts[:2], "\x00\r\ufffd 中文"]
    assert [m.text for m in parse_page(page_path.read_text()).messages] == expected
    assert validate_file(page_path) == []


def test_unsafe_session_id_gets_no_page(store: Store, tmp_path: Path) -> None:
    msgs = [op_msg(f"message {i}", i, sid="../../etc") for i in range(3)]
    result = capture_messages(store, msgs, request(tmp_path))
    assert result.sessions[0].skipped == "unsafe_session_id"
    assert not (tmp_path / "v").exists()


def test_constellation_override_is_sanitised(store: Store, tmp_path: Path) -> None:
    msgs = [op_msg(f"message {i}", i) for i in range(3)]
    result = capture_messages(store, msgs, request(tmp_path, constellation="../Evil Name"))
    assert result.pages[0].parent.parent.name == "Evil-Name"


def test_capture_transcript_reads_a_real_format_file(store: Store, tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "t" / f"{SID}.jsonl", claude_records(PROMPTS, filler=500))
    result = capture_transcript(store, CaptureRequest(transcript=path, vault=tmp_path / "v"))
    assert result.session_id == SID and result.harness == "claude-code"
    assert result.messages == 4
    page = parse_page(result.pages[0].read_text())
    assert [m.text for m in page.messages] == PROMPTS[:3]
    assert page.sources == [str(path)]
    assert all(m.line for m in page.messages)
    assert store.search("toolonlyword") == []
    assert session_node_id(SID) in store.reader().__enter__().get_nodes([session_node_id(SID)])


def test_corpus_capture_is_idempotent(corpus: Path, tmp_path: Path) -> None:
    store = open_store(tmp_path / "c.db")
    files = sorted((corpus / "claude-code").glob("*.jsonl"))[:6]
    for f in files:
        capture_transcript(store, CaptureRequest(transcript=f, vault=tmp_path / "v"))
    pages = {p: p.read_bytes() for p in (tmp_path / "v").rglob("*.md") if p.name != "log.md"}
    assert pages
    counts = store.counts()
    for f in files:
        result = capture_transcript(store, CaptureRequest(transcript=f, vault=tmp_path / "v"))
        assert result.nodes_written == 0
    assert store.counts() == counts
    assert {p: p.read_bytes() for p in pages} == pages
    for p in pages:
        assert validate_file(p) == []
