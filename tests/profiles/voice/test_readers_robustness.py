"""Hostile and damaged input: only an unopenable path raises; the rest is counted."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgraph.errors import MemgraphError, ReaderError
from profiles.voice.model import ReadStats
from profiles.voice.readers import ReadOptions, detect_harness, read_transcript
from profiles.voice.readers import jsonl as jsonl_mod
from profiles.voice.readers.jsonl import iter_lines, parse_object, parse_timestamp


def prompt(text: str, n: int = 1) -> bytes:
    rec = {
        "type": "user",
        "uuid": f"u-{n}",
        "timestamp": f"2026-01-01T00:00:{n:02d}.000Z",
        "sessionId": "s",
        "message": {"role": "user", "content": text},
    }
    return json.dumps(rec, ensure_ascii=False).encode() + b"\n"


# --- cannot open at all -> ReaderError (a MemgraphError: one-line CLI error) -------------


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="no such file"):
        read_transcript(tmp_path / "nope.jsonl")


def test_directory_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="directory"):
        read_transcript(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod-000 file")
def test_unreadable_file(tmp_path: Path) -> None:
    p = tmp_path / "locked.jsonl"
    p.write_bytes(prompt("secret"))
    p.chmod(0)
    try:
        with pytest.raises(ReaderError, match="permission denied"):
            read_transcript(p)
    finally:
        p.chmod(0o600)


def test_reader_error_is_a_memgraph_error() -> None:
    assert issubclass(ReaderError, MemgraphError)


# --- damaged content -> counted, skipped, never fatal -------------------------------------


def test_empty_file(tmp_path: Path) -> None:
    p = tmp_path / "empty.jsonl"
    p.write_bytes(b"")
    read = read_transcript(p)
    assert read.messages == [] and read.stats.lines == 0 and read.harness == "unknown"


def test_truncated_last_line_is_one_bad_line(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(prompt("first message") + prompt("second message", 2)[:40])
    read = read_transcript(p)
    assert [m.text for m in read.messages] == ["first message"]
    assert read.stats.lines == 2 and read.stats.bad_lines == 1
    assert "line 2" in read.stats.warnings[0]


def test_complete_last_line_without_newline_is_read(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(prompt("first message") + prompt("second message", 2).rstrip(b"\n"))
    assert len(read_transcript(p).messages) == 2


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(prompt("caf\u00e9 time").replace("\u00e9".encode(), b"\xff"))
    read = read_transcript(p)
    assert [m.text for m in read.messages] == ["caf\ufffd time"]
    assert read.stats.bad_lines == 0 and "UTF-8" in read.stats.warnings[0]


def test_non_json_and_non_object_lines(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    junk = [b"not json at all\n", b'["a","user"]\n', b"42\n", b'"user"\n', b"null\n", b"\n"]
    p.write_bytes(prompt("before") + b"".join(junk) + prompt("after", 2))
    read = read_transcript(p)
    assert [m.text for m in read.messages] == ["before", "after"]
    # the fast pre-check skips lines without a user token; the rest are counted bad
    slow = read_transcript(p, ReadOptions(fast_skip=False))
    assert slow.stats.bad_lines == 5 and slow.stats.lines == 8
    assert [m.text for m in slow.messages] == ["before", "after"]


def test_deeply_nested_json_is_a_bad_line(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"type":"user","x":' + b"[" * 100_000 + b"\n" + prompt("fine"))
    read = read_transcript(p)
    assert [m.text for m in read.messages] == ["fine"] and read.stats.bad_lines == 1


def test_fifty_megabyte_single_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    p = tmp_path / "big.jsonl"
    with p.open("wb") as fh:
        fh.write(prompt("before"))
        fh.write(b'{"type":"user","message":{"role":"user","content":"')
        block = b"x" * (1024 * 1024)
        for _ in range(50):
            fh.write(block)
        fh.write(b'"}}\n')
        fh.write(prompt("after", 2))
    read = read_transcript(p)
    assert [m.text for m in read.messages] == ["before", "after"]
    assert read.stats.bad_lines == 1 and read.stats.lines == 3
    assert any("longer than" in w for w in read.stats.warnings)


def test_line_cap_is_configurable(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(prompt("short") + prompt("a much longer message " * 20, 2))
    read = read_transcript(p, ReadOptions(max_line_bytes=300))
    assert [m.text for m in read.messages] == ["short"] and read.stats.bad_lines == 1


def test_binary_garbage(tmp_path: Path) -> None:
    p = tmp_path / "garbage.jsonl"
    p.write_bytes(bytes(range(256)) * 400 + b"\x00\x00user\xff\n" * 100)
    read = read_transcript(p, ReadOptions(fast_skip=False))
    assert read.messages == [] and read.stats.bad_lines > 0
    assert len(read.stats.warnings) <= jsonl_mod.MAX_WARNINGS + 1


def test_warnings_are_bounded(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"type":"user" broken\n' * 500)
    read = read_transcript(p)
    assert read.stats.bad_lines == 500
    assert len(read.stats.warnings) == jsonl_mod.MAX_WARNINGS + 1


def test_aider_markdown_is_detected_and_read(tmp_path: Path) -> None:
    p = tmp_path / ".aider.chat.history.md"
    p.write_text("# aider chat started at 2025-05-23 16:51:58\n\n#### /ask what is X  \n")
    read = read_transcript(p)
    assert read.harness == "aider"
    assert [(m.text, m.origin) for m in read.messages] == [("/ask what is X", "slash_command")]


def test_detect_harness() -> None:
    assert detect_harness(b'{"timestamp":"t","type":"session_meta","payload":{}}\n') == "codex"
    assert detect_harness(b'{"type":"permission-mode","sessionId":"s"}\n') == "claude-code"
    assert detect_harness(b"junk\n" + b'{"type":"user"}\n') == "claude-code"
    assert detect_harness(b"junk\n", "rollout-2026-01-01T00-00-00-x.jsonl") == "codex"
    assert detect_harness(b"junk\n[1]\n") == "unknown"
    assert detect_harness(b"# aider chat started at 2025") == "aider"
    gemini = b'{"sessionId":"s","projectHash":"h","messages":[]}'
    assert detect_harness(gemini, "session-1.json") == "gemini"


# --- line splitting ------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000), st.integers(min_value=1, max_value=64))
def test_iter_lines_reconstructs_any_bytes(data: bytes, buffer: int) -> None:
    stats = ReadStats()
    # a tiny buffer puts line ends at every refill boundary
    fh = io.BufferedReader(io.BytesIO(data), buffer_size=buffer)  # type: ignore[arg-type]
    got = list(iter_lines(fh, stats))
    expected = data.split(b"\n")
    if expected and expected[-1] == b"":
        expected.pop()
    assert [raw for _, raw in got] == expected
    assert [n for n, _ in got] == list(range(1, len(expected) + 1))
    assert stats.lines == len(expected)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b), max_size=20), st.booleans()
)
def test_iter_lines_cap_drops_exactly_the_long_lines(lines: list[bytes], final_nl: bool) -> None:
    old = jsonl_mod.CHUNK_BYTES
    jsonl_mod.CHUNK_BYTES = 7  # the over-long remainder is skipped in small pieces
    try:
        stats = ReadStats()
        data = b"\n".join(lines) + (b"\n" if final_nl and lines else b"")
        fh = io.BufferedReader(io.BytesIO(data), buffer_size=5)  # type: ignore[arg-type]
        got = list(iter_lines(fh, stats, max_line_bytes=20))
    finally:
        jsonl_mod.CHUNK_BYTES = old
    if lines and lines[-1] == b"" and not final_nl:
        lines = lines[:-1]  # "a\n" + "" is just one line
    assert [raw for _, raw in got] == [line for line in lines if len(line) <= 20]
    assert stats.bad_lines == sum(len(line) > 20 for line in lines)
    assert stats.lines == len(lines)


def test_parse_object_and_timestamp_units() -> None:
    stats = ReadStats()
    assert parse_object(b'{"a":1}', 1, stats) == {"a": 1}
    assert parse_object(b"   ", 2, stats) is None and stats.bad_lines == 0
    assert parse_object(b"[1]", 3, stats) is None and stats.bad_lines == 1
    assert parse_object(b'{"n":' + b"9" * 5000 + b"}", 4, stats) is None  # int digit limit
    assert parse_timestamp("2026-04-24T20:59:22.573Z") is not None
    assert parse_timestamp("2026-04-24T20:59:22") is not None  # naive -> UTC
    for bad in (None, 5, "", "not a time", "2026-02-30T00:00:00Z", "x" * 100):
        assert parse_timestamp(bad) is None


# --- properties: arbitrary bytes / JSON never crash the whole reader ------------------------

json_scalar = st.none() | st.booleans() | st.integers() | st.text(max_size=30)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=12,
)
envelope = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "queue-operation", "attachment", "system"])},
    optional={
        "message": json_value,
        "timestamp": json_value | st.just("2026-01-01T00:00:00Z"),
        "uuid": json_value,
        "isSidechain": json_value,
        "isMeta": json_value,
        "content": json_value,
        "operation": st.sampled_from(["enqueue", "popAll", "remove"]) | json_value,
        "attachment": json_value,
        "sessionId": json_value,
        "cwd": json_value,
        "gitBranch": json_value,
        "subtype": json_value,
        "toolUseResult": json_value,
    },
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=3000))
def test_arbitrary_bytes_never_crash(tmp_path: Path, data: bytes) -> None:
    p = tmp_path / "fuzz.jsonl"
    p.write_bytes(data)
    for fast in (True, False):
        read = read_transcript(p, ReadOptions(fast_skip=fast))
        assert read.stats.lines >= read.stats.bad_lines
        assert read.stats.kept == len(read.messages)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(envelope, max_size=8))
def test_arbitrary_records_never_crash(tmp_path: Path, records: list[dict[str, object]]) -> None:
    p = tmp_path / "fuzz.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    read = read_transcript(p, ReadOptions(fast_skip=False))
    assert read.stats.records == len(records)
    for m in read.messages:
        assert m.text and m.text == m.text.strip()
        assert m.timestamp.tzinfo is not None
        m.text.encode("utf-8")
    assert read.messages == sorted(read.messages, key=lambda m: (m.timestamp, m.line))


def test_permission_error_on_open_is_a_reader_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(prompt("x y z"))

    import os

    real_open = os.open

    def refuse(path: object, *args: object, **kwargs: object) -> int:
        if str(path) == str(p):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(ReaderError, match="permission denied"):
        read_transcript(p)
