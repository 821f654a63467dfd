"""The harness registry is the one place that knows what a transcript is."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from profiles.voice import probe
from profiles.voice.readers import detect_harness
from profiles.voice.readers import registry as reg


def test_every_harness_is_complete_and_named_once() -> None:
    names = [h.name for h in reg.HARNESSES]
    assert len(names) == len(set(names)) == 4
    for h in reg.HARNESSES:
        assert callable(h.detect) and callable(h.claims) and callable(h.read)
        assert h.rules.startswith("notes/prefilter.md#")
        assert h.default_roots or h.repo_files


def test_config_default_roots_are_the_registry_roots(monkeypatch: pytest.MonkeyPatch) -> None:
    from memgraph.config import default_transcripts as _default_transcripts

    monkeypatch.setenv("HOME", "/home/u")
    assert sorted(_default_transcripts()) == sorted(reg.default_roots(Path("/home/u")))


@pytest.mark.parametrize(
    ("head", "name", "want"),
    [
        (b"# aider chat started at 2026-01-01 00:00:00\n", "x.md", "aider"),
        (b"", ".aider.chat.history.md", "aider"),
        (b'{\n  "sessionId": "s",\n  "projectHash": "h",\n  "messages": []}', "s.json", "gemini"),
        (b'{"timestamp":"t","type":"event_msg","payload":{}}\n', "r.jsonl", "codex"),
        (b'{"type":"user","sessionId":"s"}\n', "s.jsonl", "claude-code"),
        (b"nothing\n", "notes.txt", "unknown"),
    ],
)
def test_detection_goes_through_the_registry(head: bytes, name: str, want: str) -> None:
    assert detect_harness(head, name) == want


def test_probe_has_no_transcript_rules_of_its_own() -> None:
    src = inspect.getsource(probe)
    assert ".jsonl" not in src and "subagents" not in src
    assert probe.is_session_file(Path("/x/.claude/projects/p/s.jsonl"))
    assert not probe.is_session_file(Path("/x/p/s/subagents/agent-a1.jsonl"))
    assert probe.is_session_file(Path("/x/.gemini/tmp/h/chats/session-1.json"))
    assert not probe.is_session_file(Path("/x/.gemini/tmp/h/logs.json"))
    assert not probe.is_session_file(Path("/x/.claude/history.jsonl"))
