"""Claude Code reader: record variants, cross-record rules, ordering, ids."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers import ReadOptions, read_transcript
from profiles.voice.readers.claude import may_hold_human

SID = "1fb5e404-604d-4a2b-baf1-3beb42a67371"


def rec(
    kind: str = "user", content: Any = "hello there", n: int = 0, **extra: Any
) -> dict[str, Any]:
    r: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": False,
        "type": kind,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-04-24T20:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        "userType": "external",
        "cwd": "/home/u/proj",
        "sessionId": SID,
        "version": "2.1.97",
        "gitBranch": "main",
    }
    if kind == "user":
        r["message"] = {"role": "user", "content": content}
    elif kind == "assistant":
        r["message"] = {"role": "assistant", "content": [{"type": "text", "text": content}]}
    r.update(extra)
    return r


def write(path: Path, records: list[Any]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def texts(path: Path, **opts: Any) -> list[str]:
    return [m.text for m in read_transcript(path, ReadOptions(**opts)).messages]


def test_basic_prompt_fields(tmp_path: Path) -> None:
    p = write(tmp_path / f"{SID}.jsonl", [rec(content="fix the waybar", n=1)])
    read = read_transcript(p)
    assert read.harness == "claude-code" and read.session_id == SID
    (m,) = read.messages
    assert m.text == "fix the waybar" and m.origin == "prompt"
    assert m.session_id == SID and m.record_uuid == "00000000-0000-4000-8000-000000000001"
    assert m.timestamp == datetime(2026, 4, 24, 20, 0, 1, tzinfo=UTC)
    assert (m.line, m.cwd, m.git_branch, m.harness) == (1, "/home/u/proj", "main", "claude-code")
    assert m.transcript == str(p)
    assert read.stats.lines == 1 and read.stats.kept == 1 and read.stats.bad_lines == 0


def test_a_realistic_session_keeps_only_human_text(tmp_path: Path) -> None:
    caveat = (
        "<local-command-caveat>Caveat: The messages below were generated</local-command-caveat>"
    )
    records = [
        {"type": "permission-mode", "permissionMode": "default", "sessionId": SID},
        {"type": "summary", "summary": "A title", "leafUuid": "x"},
        rec(content=caveat, n=1, isMeta=True),
        rec(content="<command-name>/model</command-name>\n<command-args>opus</command-args>", n=2),
        rec(content="<local-command-stdout>Set model to Opus</local-command-stdout>", n=3),
        rec(content="why is the screen saver so fast", n=4),
        rec("assistant", "Let me look.", n=5),
        rec(content=[{"type": "tool_result", "tool_use_id": "t", "content": "timeout 150"}], n=6),
        rec(content=[{"type": "text", "text": "[Request interrupted by user]"}], n=7),
        rec(content="<bash-input>hyprctl reload</bash-input>", n=8),
        rec(content="<bash-stdout>ok</bash-stdout><bash-stderr></bash-stderr>", n=9),
        rec(content="<task-notification>\n<task-id>1</task-id></task-notification>", n=10),
        rec(content="This session is being continued from a previous conversation.", n=11,
            isCompactSummary=True),
        rec(content="Helper prompt written by the main agent", n=12, isSidechain=True),
        {"type": "last-prompt", "lastPrompt": "why is the screen saver so fast", "sessionId": SID},
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        rec("system", n=13, subtype="turn_duration", durationMs=5),
        rec("assistant", "API Error: Connection error.", n=14,
            message={"model": "<synthetic>", "role": "assistant",
                     "content": [{"type": "text", "text": "API Error: Connection error."}]}),
    ]  # fmt: skip
    p = write(tmp_path / "s.jsonl", records)
    read = read_transcript(p)
    assert [(m.origin, m.text) for m in read.messages] == [
        ("slash_command", "/model opus"),
        ("prompt", "why is the screen saver so fast"),
        ("bash_input", "hyprctl reload"),
    ]
    d = read.stats.dropped
    assert d["meta"] == 1 and d["command_output"] == 2 and d["interrupt"] == 1
    assert d["task_notification"] == 1 and d["compact_summary"] == 1
    assert read.stats.bad_lines == 0 and read.stats.skipped_fast > 0
    # the slow path (decode every line) agrees and attributes the fast skips to rules
    slow = read_transcript(p, ReadOptions(fast_skip=False))
    assert slow.messages == read.messages
    assert slow.stats.dropped["sidechain"] == 1 and slow.stats.dropped["tool_result"] == 1
    assert slow.stats.dropped["summary"] == 1 and slow.stats.dropped["last_prompt"] == 1
    assert slow.stats.skipped_fast == 0


def test_file_order_is_not_trusted(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [rec(content="second", n=9), rec(content="first", n=3)])
    read = read_transcript(p)
    assert [m.text for m in read.messages] == ["first", "second"]
    assert [m.line for m in read.messages] == [2, 1]


def test_equal_timestamps_sort_by_line(tmp_path: Path) -> None:
    a, b = rec(content="a", n=1), rec(content="b", n=2)
    b["timestamp"] = a["timestamp"]
    assert texts(write(tmp_path / "s.jsonl", [a, b])) == ["a", "b"]


def test_timestamps_with_offsets_become_utc(tmp_path: Path) -> None:
    r = rec(content="hi there", n=1, timestamp="2026-04-24T22:00:00+02:00")
    (m,) = read_transcript(write(tmp_path / "s.jsonl", [r])).messages
    assert m.timestamp == datetime(2026, 4, 24, 20, 0, tzinfo=UTC)
    assert m.timestamp.tzinfo is UTC


@pytest.mark.parametrize("stamp", [None, 17, "", "yesterday", "2026-13-45T99:00:00Z", "9" * 50])
def test_missing_or_garbage_timestamp_is_a_counted_bad_line(tmp_path: Path, stamp: Any) -> None:
    bad = rec(content="lost?", n=1)
    if stamp is None:
        del bad["timestamp"]
    else:
        bad["timestamp"] = stamp
    read = read_transcript(write(tmp_path / "s.jsonl", [bad, rec(content="kept", n=2)]))
    assert [m.text for m in read.messages] == ["kept"]
    assert read.stats.bad_lines == 1 and "timestamp" in read.stats.warnings[0]


def test_wrong_field_types_are_counted_not_fatal(tmp_path: Path) -> None:
    records = [
        rec(content=42, n=1),
        rec(n=2, message="a string"),
        rec(n=3, message={"role": "user", "content": None}),
        {"type": "attachment", "attachment": {"type": "queued_command", "prompt": 5}},
        rec(content="fine", n=5),
    ]
    read = read_transcript(write(tmp_path / "s.jsonl", records))
    assert [m.text for m in read.messages] == ["fine"]
    assert read.stats.bad_lines == 4 and read.stats.records == 5


def test_side_question_file(tmp_path: Path) -> None:
    side = dict(isSidechain=True, agentId="aside_question-fcbf929fc3d4fdc0")
    question = (
        "<system-reminder>This is a side question from the user. You must answer this "
        "question directly in a single response.\n</system-reminder>\n\nwhat is firstAvailable?"
    )
    records = [
        rec(
            content="<local-command-caveat>Caveat</local-command-caveat>", n=1, isMeta=True, **side
        ),
        rec(content="an earlier prompt replayed from the main file", n=2, **side),
        rec("assistant", "earlier answer", n=3, **side),
        rec(content=question, n=4, **side),
        rec("assistant", "It is a priority list.", n=5, **side),
    ]
    read = read_transcript(write(tmp_path / "agent-aside_question-fcbf929fc3d4fdc0.jsonl", records))
    assert [(m.origin, m.text, m.session_id) for m in read.messages] == [
        ("side_question", "what is firstAvailable?", SID)
    ]


def test_queued_message_delivered_later_is_counted_once(tmp_path: Path) -> None:
    enq = {
        "type": "queue-operation",
        "operation": "enqueue",
        "timestamp": "2026-04-24T20:00:10.000Z",
        "sessionId": SID,
        "content": "stop",
    }
    records = [
        rec(content="start the build", n=1),
        enq,
        {"type": "queue-operation", "operation": "remove", "timestamp": "2026-04-24T20:00:11.000Z",
         "sessionId": SID},
        rec("attachment", n=12, attachment={"type": "queued_command", "prompt": "stop",
                                             "commandMode": "prompt"}),
        {**enq, "operation": "popAll", "timestamp": "2026-04-24T20:00:13.000Z"},
    ]  # fmt: skip
    read = read_transcript(write(tmp_path / "s.jsonl", records))
    assert [(m.origin, m.text, m.line) for m in read.messages] == [
        ("prompt", "start the build", 1),
        ("queued", "stop", 2),
    ]
    assert read.stats.dropped["queue_duplicate"] == 2
    q = read.messages[1]
    assert q.record_uuid.startswith("q-") and q.cwd == "/home/u/proj"
    again = read_transcript(tmp_path / "s.jsonl").messages[1]
    assert again.record_uuid == q.record_uuid  # synthetic key is stable


def test_queued_message_that_became_a_user_record_is_not_doubled(tmp_path: Path) -> None:
    enq = {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-04-24T20:00:05.000Z",
           "sessionId": SID, "content": "also update the README"}  # fmt: skip
    records = [enq, rec(content="also update the README", n=40)]
    read = read_transcript(write(tmp_path / "s.jsonl", records))
    assert [(m.origin, m.line) for m in read.messages] == [("prompt", 2)]


def test_same_text_queued_hours_apart_is_two_messages(tmp_path: Path) -> None:
    enq = {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-04-24T23:00:00.000Z",
           "sessionId": SID, "content": "run the tests again"}  # fmt: skip
    records = [rec(content="run the tests again", n=1), enq]
    assert len(read_transcript(write(tmp_path / "s.jsonl", records)).messages) == 2


def test_duplicate_uuid_is_counted_once(tmp_path: Path) -> None:
    r = rec(content="only once", n=1)
    read = read_transcript(write(tmp_path / "s.jsonl", [r, r]))
    assert len(read.messages) == 1 and read.stats.dropped["duplicate_uuid"] == 1


def test_resume_replay_is_dropped_but_real_repeats_are_kept(tmp_path: Path) -> None:
    burst = "2026-04-25T10:00:00.949Z"
    records = [
        rec(content="design the sync", n=1),
        rec("assistant", "Here is a design", n=2),
        rec(content="continue", n=3),
        rec(content="continue", n=30),  # typed twice for real: own instant
        # resume: the earlier conversation is re-written with new uuids, one instant
        rec(content="design the sync", n=101, timestamp=burst),
        rec("assistant", "Here is a design", n=102, timestamp=burst),
        rec(content="continue", n=103, timestamp=burst),
        rec(content="a new prompt after resuming", n=104, timestamp="2026-04-25T10:00:00.952Z"),
    ]
    read = read_transcript(write(tmp_path / "s.jsonl", records))
    assert [m.text for m in read.messages] == [
        "design the sync", "continue", "continue", "a new prompt after resuming"
    ]  # fmt: skip
    assert read.stats.dropped["replayed"] == 2


def test_trivial_flag(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [rec(content="ok", n=1), rec(content="now deploy", n=2)])
    assert texts(p) == ["now deploy"]
    keep = ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))
    assert texts(p, prefilter=keep.prefilter) == ["ok", "now deploy"]


def test_lone_surrogate_is_replaced_so_text_encodes(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    line = json.dumps(rec(content="X", n=1)).replace('"X"', '"bad \\ud800 char"')
    p.write_text(line + "\n", encoding="utf-8")
    (m,) = read_transcript(p).messages
    assert m.text == "bad \ufffd char"
    m.text.encode("utf-8")


def test_session_id_falls_back_to_file_name(tmp_path: Path) -> None:
    r = rec(content="no session id here", n=1)
    del r["sessionId"]
    read = read_transcript(write(tmp_path / "abc.jsonl", [r]))
    assert read.session_id is None and read.messages[0].session_id == "abc"


def test_fast_check_never_hides_a_human_line() -> None:
    assert may_hold_human(json.dumps(rec(content="hi")).encode())
    assert may_hold_human(b'{"type":"queue-operation","operation":"enqueue","content":"x"}')
    assert not may_hold_human(json.dumps(rec("assistant", "hi")).encode())
    tool = rec(content=[{"type": "tool_result", "tool_use_id": "t", "content": "ls output"}])
    assert not may_hold_human(json.dumps(tool, separators=(",", ":")).encode())
    side = rec(content="agent prompt", isSidechain=True)
    assert not may_hold_human(json.dumps(side, separators=(",", ":")).encode())
    # a human typing the word "user" in quotes is escaped inside JSON: no false token
    assert b'"user"' not in json.dumps({"t": 'say "user"'}).encode()


typed = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<["),
    min_size=1,
    max_size=200,
).filter(lambda t: t.strip() and t.strip().lower().rstrip(" .!,。！") not in {"ok", "y", "yes"})


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(typed, min_size=1, max_size=5), st.booleans())
def test_kept_text_is_what_was_typed(tmp_path: Path, prompts: list[str], as_blocks: bool) -> None:
    opts = ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))
    records = [
        rec(content=[{"type": "text", "text": t}] if as_blocks else t, n=i + 1)
        for i, t in enumerate(prompts)
    ]
    p = write(tmp_path / "prop.jsonl", records)
    assert [m.text for m in read_transcript(p, opts).messages] == [t.strip() for t in prompts]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [b'"timestamp":', b'"timestamp"', b" ", b"\n", b'"', b"T1", b"T2", b"x", b":", b"\\"]
        ),
        max_size=25,
    ).map(b"".join),
    st.sets(st.sampled_from([b"T1", b"T2", b"T1T2", b" T1", b""]), max_size=3),
)
def test_names_instant_is_the_timestamp_regex_rule(raw: bytes, wanted: set[bytes]) -> None:
    """Rule 16's scan for a suspect instant finds what the regex over the line finds."""
    from profiles.voice.readers.claude import _TIMESTAMP, names_instant

    expected = any(m.group(1) in wanted for m in _TIMESTAMP.finditer(raw))
    assert names_instant(raw, wanted) == expected
