"""iter_transcripts: find main and sidechain transcripts under a root, never leave it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memgraph.errors import ReaderError
from profiles.voice.readers import iter_transcripts, read_transcript


def touch(path: Path, data: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_claude_projects_layout(tmp_path: Path) -> None:
    root = tmp_path / ".claude" / "projects"
    proj = root / "-home-u-proj"
    main = touch(proj / "1fb5e404-604d-4a2b-baf1-3beb42a67371.jsonl")
    old_side = touch(proj / "agent-a227a46.jsonl")
    new_side = touch(
        proj
        / "1fb5e404-604d-4a2b-baf1-3beb42a67371"
        / "subagents"
        / "agent-aside_question-ab.jsonl"
    )
    touch(proj / "notes.txt")
    touch(tmp_path / ".claude" / "history.jsonl")
    assert list(iter_transcripts(root)) == [main, old_side, new_side]
    # a parent of projects/ works too; the history prompt log is not a transcript
    assert list(iter_transcripts(tmp_path / ".claude")) == [main, old_side, new_side]


def test_codex_sessions_layout(tmp_path: Path) -> None:
    root = tmp_path / ".codex"
    a = touch(root / "sessions" / "2026" / "02" / "07" / "rollout-2026-02-07T09-05-41-x.jsonl")
    b = touch(root / "sessions" / "2026" / "02" / "15" / "rollout-2026-02-15T05-51-09-y.jsonl")
    touch(root / "history.jsonl")
    assert list(iter_transcripts(root)) == [a, b]


def test_a_file_root_is_itself(tmp_path: Path) -> None:
    f = touch(tmp_path / "one.jsonl")
    assert list(iter_transcripts(f)) == [f]


def test_missing_root_is_a_reader_error(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="does not exist"):
        list(iter_transcripts(tmp_path / "nope"))


def test_symlinks_never_leave_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    secret = touch(outside / "secret.jsonl")
    root = tmp_path / "root"
    inside = touch(root / "proj" / "s.jsonl")
    (root / "proj" / "escape.jsonl").symlink_to(secret)
    (root / "linked-dir").symlink_to(outside, target_is_directory=True)
    (root / "proj" / "alias.jsonl").symlink_to(inside)
    found = list(iter_transcripts(root))
    assert inside in found and root / "proj" / "alias.jsonl" in found
    assert all(p.resolve().is_relative_to(root.resolve()) for p in found)
    assert len(found) == 2


def test_broken_symlink_is_skipped(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(root / "gone.jsonl", root / "dangling.jsonl")
    assert list(iter_transcripts(root)) == []


def test_every_found_file_reads(tmp_path: Path) -> None:
    root = tmp_path / "p"
    touch(root / "a.jsonl", b"\x00\xff garbage\n")
    touch(root / "b.jsonl", b"")
    for path in iter_transcripts(root):
        assert read_transcript(path).messages == []
