"""Message/session nodes: the CONVENTIONS contract, stable ids, project resolution."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgraph.documents import AnchorKind
from memgraph.ids import is_safe_name, node_id
from profiles.voice.nodes import (
    NodeContext,
    merge_with_stored,
    message_node,
    message_title,
    resolve_project,
    safe_component,
    session_node,
)

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import SID, T0, op_msg

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_message_node_follows_the_contract() -> None:
    msg = op_msg("fix the hook\nsecond line", 3)
    node = message_node(msg, NodeContext("atlas", "atlas", NOW, "atlas/voice/x.md"))
    assert node.id == node_id("voice", "message", SID, msg.record_uuid)
    assert node.profile == "voice" and node.kind == "message" and node.lifecycle == "captured"
    assert node.domain_id == "voice:atlas"
    assert node.claim == "fix the hook\nsecond line"
    assert node.title == "fix the hook"
    assert node.valid_from == msg.timestamp and node.ingested_at == NOW
    (anchor,) = node.anchors
    assert anchor.kind == AnchorKind.transcript
    assert (anchor.ref, anchor.line, anchor.record_uuid) == (msg.transcript, 4, msg.record_uuid)
    assert node.attributes == {
        "session_id": SID,
        "record_uuid": msg.record_uuid,
        "project": "atlas",
        "constellation": "atlas",
        "branch": "main",
        "cwd": msg.cwd,
        "harness": "claude-code",
        "origin": "prompt",
        "classification": None,
        "confidence": None,
        "topics": [],
        "voice_page": "atlas/voice/x.md",
    }


def test_ids_are_stable_across_runs() -> None:
    a = message_node(op_msg("x", 1), NodeContext("c", "c", NOW))
    b = message_node(op_msg("x", 1), NodeContext("c", "c", T0))
    assert a.id == b.id
    s = session_node(
        SID,
        NodeContext("c", "c", NOW),
        message_count=3,
        transcript="/t",
        valid_from=T0,
        valid_to=T0,
    )
    assert s.id == node_id("voice", "voice_session", SID)
    assert s.attributes["message_count"] == 3 and s.attributes["transcript"] == "/t"


def test_title_is_first_nonblank_line_cut_to_80() -> None:
    assert message_title("\n\n  hello  \nworld") == "hello"
    assert len(message_title("y" * 500)) == 80
    assert message_title("") == ""


def test_merge_keeps_classification_anchors_and_first_ingestion() -> None:
    ctx = NodeContext("atlas", "atlas", NOW)
    stored = message_node(op_msg("x", 1), NodeContext("atlas", "atlas", T0)).model_copy(
        update={"lifecycle": "classified"}
    )
    stored.attributes.update(classification="decision", confidence=0.9, topics=["hook"], extra=1)
    new = message_node(op_msg("x", 1), ctx)
    merged = merge_with_stored(new, stored, ("voice_page", "branch"))
    assert merged.lifecycle == "classified"
    assert merged.attributes["classification"] == "decision"
    assert merged.attributes["extra"] == 1
    assert merged.ingested_at == T0


def test_resolve_project_uses_git_top_level(tmp_path: Path) -> None:
    repo = tmp_path / "My Repo"
    (repo / "src" / "deep").mkdir(parents=True)
    git("init", "-q", cwd=repo)
    assert resolve_project(str(repo / "src" / "deep")) == "My-Repo"


def test_resolve_project_names_the_main_repo_for_a_worktree(tmp_path: Path) -> None:
    repo = tmp_path / "atlas"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / "f").write_text("x")
    git("add", "f", cwd=repo)
    git("commit", "-q", "-m", "x", cwd=repo)
    git("worktree", "add", "-q", str(tmp_path / "wt-feature"), cwd=repo)
    assert resolve_project(str(tmp_path / "wt-feature")) == "atlas"


@pytest.mark.parametrize(
    ("cwd", "expected"),
    [
        (None, "unknown"),
        ("", "unknown"),
        ("/", "unknown"),
        ("/home/USER/Claude/inputmodule-rs", "inputmodule-rs"),
        ("/home/u/../..", "unknown"),
        ("/x/.hidden", "hidden"),
        ("C:\\Users\\me\\proj", "C-Users-me-proj"),
        ("/x/proj/", "proj"),
        ("/x/名前", "unknown"),
    ],
)
def test_resolve_project_falls_back_to_basename(cwd: str | None, expected: str) -> None:
    assert resolve_project(cwd) == expected


def test_resolve_project_outside_a_repo(tmp_path: Path) -> None:
    plain = tmp_path / "plain-dir"
    plain.mkdir()
    assert resolve_project(str(plain)) == "plain-dir"


@given(st.text())
def test_safe_component_is_always_a_safe_name(name: str) -> None:
    assert is_safe_name(safe_component(name))
