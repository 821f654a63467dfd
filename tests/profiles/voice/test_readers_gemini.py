"""Gemini CLI reader on small generated chat files (public format), plus hostile input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers import ReadOptions, iter_transcripts, read_transcript
from profiles.voice.readers import gemini as gemini_mod

SID = "9d0c1f7e-1111-4222-8333-444455556666"
KEEP_ALL = ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))


def msg(kind: str, content: Any, n: int, **extra: Any) -> dict[str, Any]:
    m = {"id": f"m-{n}", "timestamp": f"2026-06-01T09:00:{n:02d}.000Z", "type": kind}
    m["content"] = content
    m.update(extra)
    return m


def chat(tmp_path: Path, messages: list[Any], **doc: Any) -> Path:
    folder = tmp_path / ".gemini" / "tmp" / ("ab" * 32) / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    body = {
        "sessionId": SID,
        "projectHash": "ab" * 32,
        "startTime": "2026-06-01T09:00:00.000Z",
        "lastUpdated": "2026-06-01T09:05:00.000Z",
        "messages": messages,
    }
    body.update(doc)
    path = folder / "session-2026-06-01T09-00-9d0c1f7e.json"
    path.write_text(json.dumps(body, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def test_user_messages_are_voice_model_and_info_are_not(tmp_path: Path) -> None:
    p = chat(
        tmp_path,
        [
            msg("user", "add retries to the uploader", 1),
            msg("gemini", "Sure, I will add retries.", 2, model="gemini-2.5-pro"),
            msg("info", "Request cancelled.", 3),
            msg("error", "[API Error: quota]", 4),
            msg("user", [{"text": "and log "}, {"text": "each retry"}], 5),
            msg("user", "/memory show", 6),
        ],
    )
    r = read_transcript(p, KEEP_ALL)
    assert r.harness == "gemini" and r.session_id == SID
    assert [(m.text, m.origin) for m in r.messages] == [
        ("add retries to the uploader", "prompt"),
        ("and log each retry", "prompt"),
        ("/memory show", "slash_command"),
    ]
    assert r.stats.dropped == {"model_output": 1, "gemini_notice": 2}
    first = r.messages[0]
    assert first.record_uuid == "m-1" and first.session_id == SID and first.line == 1
    assert first.timestamp.isoformat() == "2026-06-01T09:00:01+00:00"


def test_referenced_file_contents_are_not_voice(tmp_path: Path) -> None:
    text = (
        "explain @src/a.py\n--- Content from referenced files ---\n"
        "Content from @src/a.py:\nimport os\n--- End of content ---"
    )
    p = chat(tmp_path, [msg("user", text, 1)])
    assert [m.text for m in read_transcript(p).messages] == ["explain @src/a.py"]


def test_trivial_and_unknown_types(tmp_path: Path) -> None:
    p = chat(tmp_path, [msg("user", "ok", 1), msg("thought", "hmm", 2), msg("user", "go", 3)])
    r = read_transcript(p)
    assert [m.text for m in r.messages] == ["go"]
    assert r.stats.dropped["trivial"] == 1
    assert r.stats.unknown_kinds == {"type=thought": 1}


def test_project_root_marker_gives_the_cwd(tmp_path: Path) -> None:
    p = chat(tmp_path, [msg("user", "hello gemini", 1)])
    (p.parent.parent / ".project_root").write_text("/home/u/atlas\n")
    assert read_transcript(p).messages[0].cwd == "/home/u/atlas"


def test_discovered_under_the_gemini_root(tmp_path: Path) -> None:
    p = chat(tmp_path, [msg("user", "hello gemini", 1)])
    (p.parent / "notes.json").write_text("{}")  # not a chat file
    (p.parent.parent / "logs.json").write_text("[]")
    assert list(iter_transcripts(tmp_path / ".gemini")) == [p]


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{",
        b'{"sessionId": "s", "projectHash": "h", "messages": [',  # still being written
        b"[1, 2]",
        b'{"sessionId": "s", "projectHash": "h", "messages": {}}',
        b'{"sessionId": "s", "projectHash": "h", "messages": [1, "x", null]}',
        b'{"sessionId": 5, "projectHash": "h", "messages": [{"type": "user"}]}',
        b'{"sessionId": "s", "projectHash": "h", "messages": [{"type": "user", "content": 5,'
        b' "timestamp": "2026-01-01T00:00:00Z"}]}',
        b'{"sessionId": "s", "projectHash": "h", "messages": [{"type": "user", "content": "x",'
        b' "timestamp": "garbage"}]}',
        b'{"sessionId":"s","projectHash":"h","messages":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"sessionId":"s","projectHash":"h","messages":[{"type":"user","content":"\xff\xfe",'
        b'"timestamp":"2026-01-01T00:00:00Z","id":"\\ud800"}]}',
    ],
)
def test_malformed_chat_files_never_raise(tmp_path: Path, body: bytes) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    p = folder / "session-x.json"
    p.write_bytes(body)
    r = read_transcript(p)
    for m in r.messages:
        m.text.encode("utf-8")
        m.record_uuid.encode("utf-8")


def test_oversized_document_is_counted_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gemini_mod, "MAX_DOC_BYTES", 64)
    p = chat(tmp_path, [msg("user", "x" * 200, 1)])
    r = read_transcript(p)
    assert r.messages == [] and r.stats.bad_lines == 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["user", "gemini", "info", "x"]) | st.integers(),
                "content": st.text(max_size=40)
                | st.lists(st.fixed_dictionaries({"text": st.text(max_size=10)}), max_size=3)
                | st.none(),
                "timestamp": st.sampled_from(["2026-06-01T09:00:00Z", "", "nope"]) | st.none(),
                "id": st.text(max_size=8) | st.integers(),
            }
        ),
        max_size=8,
    )
)
def test_any_message_list_reads_without_error(messages: list[dict[str, Any]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        p = chat(Path(tmp), messages)
        r = read_transcript(p, KEEP_ALL)
    assert all(m.harness == "gemini" and m.text.strip() for m in r.messages)
    counted = r.stats.kept + r.stats.bad_lines + sum(r.stats.dropped.values())
    assert counted == len(messages)  # nothing dropped without a counted reason
