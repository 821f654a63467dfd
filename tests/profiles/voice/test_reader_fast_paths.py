"""The readers' fast paths give the answers of the plain forms they replace.

The Claude reader's byte pre-check equals its rule on every line.

``may_hold_human`` decides which lines are decoded; the ones it skips are counted
as ``no_human_text`` in the ledger, so it must give exactly the answer of the
plain rule below (one substring test per marker, the form it was written in
first) on any bytes: real lines, hostile ones, and lines built from the markers
themselves (overlapping, truncated, doubled, spaced).
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from profiles.voice.readers import registry
from profiles.voice.readers.claude import (
    _is_error,
    _is_sidechain,
    _said_or_answered,
    may_hold_human,
)

_MARKERS = [
    b'"user"',
    b'"queue-operation"',
    b'"queued_command"',
    b'"local_command"',
    b'"tool_result"',
    b"the user said:",
    b"User has answered your questions",
    b'"is_error":true',
    b'"is_error": true',
    b'"isSidechain":true',
    b'"isSidechain": true',
    b"This is a side question from the user",
]


def rule(raw: bytes) -> bool:
    """The pre-check's rule, one ``in`` per marker (the reference: the pre-check as
    it was before the scans were shared, 2026-12-04)."""
    if b'"user"' not in raw:
        if b"queue" in raw:
            return (
                b'"queue-operation"' in raw
                or b'"queued_command"' in raw
                or b'"local_command"' in raw
            )
        return b'"local_command"' in raw
    if b'"tool_result"' in raw and not (
        b"the user said:" in raw
        or b"User has answered your questions" in raw
        or b'"is_error":true' in raw
        or b'"is_error": true' in raw
    ):
        return False
    if b'"isSidechain":true' in raw or b'"isSidechain": true' in raw:
        return b"This is a side question from the user" in raw
    return True


# pieces of the markers and their neighbours: prefixes, suffixes, quotes, spaces,
# so generated lines hold overlapping, cut and glued markers
_PIECES = sorted(
    {m[:i] for m in _MARKERS for i in range(1, len(m) + 1)}
    | {m[i:] for m in _MARKERS for i in range(len(m))}
    | {b'"', b" ", b":", b"true", b" true", b"ser ", b"U", b"the u", b"x", b"\\", b"\n", b"{"}
)
_line = st.lists(st.sampled_from(_PIECES), max_size=14).map(b"".join)


@settings(max_examples=3000, deadline=None)
@given(_line)
@example(b'"queue-operation"user"')  # a "user" token on the closing quote of another
@example(b'"local_command"user":"tool_result"')
@example(b'x"user"queued_command"')
@example(b'"user""tool_result"User has answered your questionsthe user said:')
def test_precheck_is_the_rule_on_marker_soup(raw: bytes) -> None:
    assert may_hold_human(raw) == rule(raw)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=300), st.lists(st.sampled_from(_MARKERS), max_size=4), st.data())
def test_precheck_is_the_rule_on_bytes_with_markers(
    noise: bytes, markers: list[bytes], data: st.DataObject
) -> None:
    raw = noise
    for m in markers:
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + m + raw[at:]
    assert may_hold_human(raw) == rule(raw)


@settings(max_examples=300, deadline=None)
@given(_line)
def test_the_shared_scans_are_their_pairs_of_tests(raw: bytes) -> None:
    said = b"the user said:" in raw or b"User has answered your questions" in raw
    assert _said_or_answered(raw) == said
    assert _is_error(raw) == (b'"is_error":true' in raw or b'"is_error": true' in raw)
    assert _is_sidechain(raw) == (b'"isSidechain":true' in raw or b'"isSidechain": true' in raw)


def test_precheck_on_records_of_every_shape() -> None:
    base = {"parentUuid": None, "isSidechain": False, "type": "user", "uuid": "u1"}
    shapes: list[dict[str, object]] = [
        {**base, "message": {"role": "user", "content": "hi"}},
        {**base, "type": "assistant", "message": {"role": "assistant", "content": "x"}},
        {"type": "queue-operation", "operation": "enqueue", "content": "stop"},
        {"type": "attachment", "attachment": {"type": "queued_command", "prompt": "stop"}},
        {"type": "system", "subtype": "local_command", "content": "<command-name>/x"},
        {**base, "message": {"role": "user", "content": [{"type": "tool_result"}]}},
        {
            **base,
            "message": {"content": [{"type": "tool_result", "is_error": True, "content": "no"}]},
        },
        {**base, "isSidechain": True, "message": {"content": "agent prompt"}},
        {
            **base,
            "isSidechain": True,
            "message": {"content": "This is a side question from the user: why?"},
        },
    ]
    for shape in shapes:
        for seps in ((",", ":"), (", ", ": ")):
            raw = json.dumps(shape, separators=seps).encode()
            for cut in (len(raw), len(raw) // 2, 40):  # whole and truncated
                assert may_hold_human(raw[:cut]) == rule(raw[:cut]), (shape, seps, cut)


def test_precheck_is_the_rule_on_every_corpus_line(corpus: Path) -> None:
    n = 0
    for path in sorted(corpus.rglob("*.jsonl")):
        for raw in path.read_bytes().split(b"\n"):
            n += 1
            assert may_hold_human(raw) == rule(raw), (path.name, raw[:120])
    assert n > 1000


_head_piece = st.sampled_from(
    [b"\n", b'{"type":"user","sessionId":"s"}', b'{"type":"session_meta","payload":{}}', b"x"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_head_piece, max_size=30).map(b"".join), st.booleans(), st.integers(0, 40))
def test_head_lines_are_the_split_lines(head: bytes, full: bool, limit: int) -> None:
    """Harness detection reads the head's lines one at a time: the same lines as
    splitting it, without the last piece of a full (cut) head."""
    if full:
        head = (head + b"\n" * registry.HEAD_BYTES)[: registry.HEAD_BYTES]
    lines = head.split(b"\n")
    if len(head) >= registry.HEAD_BYTES:
        lines.pop()
    assert list(registry._head_lines(head, limit)) == lines[:limit]


def test_jsonl_kind_answers_each_head_and_name() -> None:
    claude = b'{"type":"user","sessionId":"s"}\n'
    codex = b'{"type":"session_meta","payload":{}}\n'
    tie = claude + codex
    assert registry.jsonl_kind(claude) == "claude-code"
    assert registry.jsonl_kind(codex) == "codex"
    assert registry.jsonl_kind(tie, "rollout-1.jsonl") == "codex"
    assert registry.jsonl_kind(tie, "x.jsonl") == "claude-code"  # same head, other name
    assert registry.jsonl_kind(bytes(bytearray(tie)), "rollout-1.jsonl") == "codex"  # a copy
    assert registry.jsonl_kind(b"") is None
