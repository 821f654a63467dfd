"""Codex CLI rollout reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.voice.prefilter import is_trivial
from profiles.voice.readers import ReadOptions, read_transcript

SID = "019c372e-2526-7e72-83e1-9cba8efad18d"
NAME = f"rollout-2026-02-07T09-18-16-{SID}.jsonl"


def line(kind: str, payload: Any, second: int = 0) -> dict[str, Any]:
    return {"timestamp": f"2026-02-07T08:18:{second:02d}.000Z", "type": kind, "payload": payload}


def meta(sid: str = SID, second: int = 0) -> dict[str, Any]:
    return line(
        "session_meta",
        {"id": sid, "cwd": "/Users/t/dotfiles", "git": {"branch": "main", "commit_hash": "a"}},
        second,
    )


def user_pair(text: str, second: int) -> list[dict[str, Any]]:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return [
        line("response_item", item, second),
        line("event_msg", {"type": "user_message", "message": text, "images": []}, second),
    ]


def write(tmp_path: Path, records: list[Any], name: str = NAME) -> Path:
    p = tmp_path / name
    p.write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in records))
    return p


def test_event_msg_is_the_prompt_and_the_copy_is_not_counted(tmp_path: Path) -> None:
    injected = {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>"}
        ],
    }
    records = [
        meta(),
        line("response_item", {"type": "message", "role": "developer", "content": []}, 1),
        line("response_item", injected, 1),
        line("turn_context", {"cwd": "/Users/t/dotfiles/sub", "model": "gpt-5.3-codex"}, 2),
        *user_pair("Explain this codebase to me.", 3),
        line("response_item", {"type": "function_call", "name": "exec_command"}, 4),
        line("event_msg", {"type": "agent_message", "message": "It is a dotfiles repo."}, 5),
        line("event_msg", {"type": "turn_aborted", "reason": "interrupted"}, 6),
        line(
            "response_item",
            {"type": "message", "role": "user",
             "content": [{"type": "input_text", "text": "<turn_aborted>\nThe user interrupted"}]},
            7,
        ),
        *user_pair("now list the zsh plugins", 8),
    ]  # fmt: skip
    read = read_transcript(write(tmp_path, records))
    assert read.harness == "codex" and read.session_id == SID
    assert [(m.text, m.origin, m.line) for m in read.messages] == [
        ("Explain this codebase to me.", "prompt", 6),
        ("now list the zsh plugins", "prompt", 12),
    ]
    m = read.messages[0]
    assert (m.session_id, m.cwd, m.git_branch, m.harness) == (
        SID,
        "/Users/t/dotfiles/sub",
        "main",
        "codex",
    )
    assert m.record_uuid.startswith("cx-6-")
    slow = read_transcript(tmp_path / NAME, ReadOptions(fast_skip=False))
    assert slow.messages == read.messages
    assert slow.stats.dropped["codex_duplicate"] == 4


def test_session_without_human_prompt_yields_nothing(tmp_path: Path) -> None:
    env = {"type": "message", "role": "user",
           "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/x</cwd>"}]}  # fmt: skip
    read = read_transcript(write(tmp_path, [meta(), line("response_item", env, 1)]))
    assert read.messages == [] and read.harness == "codex"


def test_session_meta_late_in_file_still_names_the_session(tmp_path: Path) -> None:
    records = [*user_pair("first", 1), meta("11111111-2222-3333-4444-555555555555", 2)]
    read = read_transcript(write(tmp_path, records, name="rollout-x.jsonl"))
    assert read.messages[0].session_id == "11111111-2222-3333-4444-555555555555"


def test_session_id_from_file_name_without_meta(tmp_path: Path) -> None:
    read = read_transcript(write(tmp_path, user_pair("hello codex", 1)))
    assert read.session_id == SID and read.messages[0].session_id == SID


def test_unordered_and_duplicated_events(tmp_path: Path) -> None:
    records = [meta(), *user_pair("later", 9), *user_pair("earlier", 3), *user_pair("later", 9)]
    read = read_transcript(write(tmp_path, records))
    assert [m.text for m in read.messages] == ["earlier", "later"]
    assert read.stats.dropped["duplicate"] == 1


def test_bad_codex_lines_are_counted(tmp_path: Path) -> None:
    records = [
        meta(),
        line("event_msg", {"type": "user_message", "message": 42}, 1),
        line("event_msg", "user_message", 2),
        {"type": "event_msg", "payload": {"type": "user_message", "message": "no time"}},
        '{"timestamp":"2026-02-07T08:18:05.000Z","type":"event_msg",'
        '"payload":{"type":"user_message","message":"cut off\n',
        *user_pair("survivor", 6),
    ]
    read = read_transcript(write(tmp_path, records))
    assert [m.text for m in read.messages] == ["survivor"]
    assert read.stats.bad_lines == 4


def test_trivial_codex_prompt_respects_flag(tmp_path: Path) -> None:
    from profiles.voice.prefilter import PrefilterOptions

    p = write(tmp_path, [meta(), *user_pair("thanks", 1)])
    assert read_transcript(p).messages == []
    keep = ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))
    assert [m.text for m in read_transcript(p, keep).messages] == ["thanks"]


typed = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=300
).filter(lambda t: t.strip() and not t.lstrip().startswith(("<", "#")) and not is_trivial(t))


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(typed, min_size=1, max_size=5, unique=True))
def test_kept_codex_text_is_what_was_typed(tmp_path: Path, prompts: list[str]) -> None:
    records = [meta()] + [r for i, t in enumerate(prompts) for r in user_pair(t, i + 1)]
    read = read_transcript(write(tmp_path, records))
    assert [m.text for m in read.messages] == [t.strip() for t in prompts]
