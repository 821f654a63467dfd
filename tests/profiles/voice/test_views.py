"""Store -> page re-rendering and page -> nodes (import-vault)."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import pytest

from memgraph.documents import NodeRevision, ReviseNode, TransitionNode, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.hashing import node_hash
from memgraph.store import Store, open_store
from profiles.voice.capture import CaptureRequest, capture_messages
from profiles.voice.nodes import message_node_id, session_node_id
from profiles.voice.pages import parse_page
from profiles.voice.views import (
    nodes_from_page,
    page_title,
    session_node_from_page,
    session_nodes,
    write_session_page,
)
from profiles.voice.wiki import validate_file

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import PROMPTS, SID, op_msg

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)
REL = "atlas/voice/2026-04-14-80166115.md"


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return open_store(":memory:" if request.param == "memory" else tmp_path / "mg.db")


def captured(store: Store, tmp_path: Path) -> Path:
    msgs = [op_msg(t, i) for i, t in enumerate(PROMPTS)]
    req = CaptureRequest(transcript=Path("/t/80166115.jsonl"), vault=tmp_path / "v", now=NOW)
    capture_messages(store, msgs, req)
    return tmp_path / "v" / REL


def test_rerender_is_byte_identical_and_not_rewritten(store: Store, tmp_path: Path) -> None:
    path = captured(store, tmp_path)
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    assert write_session_page(store, tmp_path / "v", SID) == path
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert len((tmp_path / "v" / "log.md").read_text().splitlines()) == 1


def test_classification_table_and_activity_window(store: Store, tmp_path: Path) -> None:
    captured(store, tmp_path)
    _, nodes = session_nodes(store, SID)
    ops = []
    for n in nodes:
        attrs = {
            **n.attributes,
            "classification": "decision",
            "confidence": 0.75,
            "topics": ["hooks", "pages"],
        }
        ops += [
            ReviseNode(node_id=n.id, changes=NodeRevision(attributes=attrs)),
            TransitionNode(node_id=n.id, to_state="classified"),
        ]
    sess, _ = session_nodes(store, SID)
    assert sess is not None
    window = {"id": "aw-2026-04-14-1432", "artifacts": [{"type": "commit", "sha": "abc"}]}
    ops.append(
        ReviseNode(
            node_id=sess.id,
            changes=NodeRevision(attributes={**sess.attributes, "activity_window": window}),
        )
    )
    apply_patch(store, new_patch(ops), datetime(2026, 6, 1, tzinfo=UTC))
    path = write_session_page(store, tmp_path / "v", SID)
    assert path is not None
    text = path.read_text()
    assert (
        "| 1 | 14:32 | please wire the session-end hook into the settings file | decision "
        "| 0.75 | hooks, pages |" in text
    )
    page = parse_page(text)
    assert page.status == "stable"
    assert page.activity_window == [window["id"]]
    assert page.updated.isoformat() == "2026-06-01"
    assert page.messages[0].classification == "decision"
    assert validate_file(path) == []
    assert len((tmp_path / "v" / "log.md").read_text().splitlines()) == 2


def test_below_threshold_returns_none(store: Store, tmp_path: Path) -> None:
    assert write_session_page(store, tmp_path / "v", "no-such-session") is None
    captured(store, tmp_path)
    assert write_session_page(store, tmp_path / "v", SID, min_messages=4) is None


def test_nodes_from_page_rebuild_the_same_nodes(store: Store, tmp_path: Path) -> None:
    path = captured(store, tmp_path)
    page = parse_page(path.read_text())
    rebuilt = nodes_from_page(page, PurePosixPath(REL))
    _, stored = session_nodes(store, SID)
    qualifying = [n for n in stored if n.claim != "ok"]
    assert [n.id for n in rebuilt] == [n.id for n in qualifying]
    for new, old in zip(rebuilt, qualifying, strict=True):
        assert node_hash(new) == node_hash(old)  # same claim, times, attributes, lifecycle
        assert new.ingested_at == old.ingested_at
        kinds = [a.kind.value for a in new.anchors]
        assert kinds == ["transcript", "page"]
        assert new.anchors[0] == old.anchors[0]


def test_a_store_rebuilt_from_pages_renders_the_same_page(tmp_path: Path) -> None:
    store = open_store(tmp_path / "a.db")
    path = captured(store, tmp_path)
    page = parse_page(path.read_text())
    other = open_store(tmp_path / "b.db")
    rel = PurePosixPath(REL)
    ops = [
        UpsertNode(node=n) for n in [session_node_from_page(page, rel), *nodes_from_page(page, rel)]
    ]
    apply_patch(other, new_patch(ops), NOW)
    rendered = write_session_page(other, tmp_path / "v2", SID)
    assert rendered is not None
    assert parse_page(rendered.read_text()).messages == page.messages
    assert session_node_id(SID) in other.reader().__enter__().get_nodes([session_node_id(SID)])
    assert message_node_id(SID, page.messages[0].record_uuid) == rebuilt_id(page)


def rebuilt_id(page: object) -> str:
    from profiles.voice.pages import VoicePage

    assert isinstance(page, VoicePage)
    return nodes_from_page(page, PurePosixPath(REL))[0].id


@pytest.mark.parametrize(
    ("texts", "title"),
    [
        (["Fix the login page", "the login page is slow", "page cache?"], "page, login, fix"),
        (["ok", "yes"], "2026-04-14"),
        (["see https://example.com/very/long/url thanks"], "2026-04-14"),
        (["数据库 迁移", "数据库"], "数据库, 迁移"),
    ],
)
def test_page_title(texts: list[str], title: str) -> None:
    assert page_title(texts, "2026-04-14") == title


def test_stale_temp_files_are_cleaned_young_ones_kept(store: Store, tmp_path: Path) -> None:
    import os

    path = captured(store, tmp_path)
    old = path.parent / f".{path.name}.abc123.tmp"
    young = path.parent / f".{path.name}.def456.tmp"
    old.write_text("half")
    young.write_text("in flight")
    os.utime(old, (1, 1))
    page = parse_page(path.read_text())
    from memgraph.fileio import forget_swept
    from profiles.voice.views import write_page_file

    forget_swept()  # a directory is swept at most once a minute per process
    write_page_file(tmp_path / "v", PurePosixPath(REL), page)
    assert not old.exists() and young.exists()


def test_unwritable_page_is_a_one_line_error(store: Store, tmp_path: Path) -> None:
    from profiles.voice.views import VaultError

    path = captured(store, tmp_path)
    path.unlink()
    path.mkdir()  # a directory where the page should be
    apply_patch(
        store,
        new_patch(
            [
                ReviseNode(
                    node_id=session_node_id(SID),
                    changes=NodeRevision(
                        attributes={
                            **session_nodes(store, SID)[0].attributes,  # type: ignore[union-attr]
                            "activity_window": {"id": "aw-x"},
                        }
                    ),
                )
            ]
        ),
    )
    with pytest.raises(VaultError, match="cannot write"):
        write_session_page(store, tmp_path / "v", SID)
