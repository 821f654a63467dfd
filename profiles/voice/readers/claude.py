"""Claude Code session JSONL -> operator messages.

Hot loop for both the hook and backfill: a line is only JSON-decoded when cheap
byte checks say it *can* hold human text (see ``may_hold_human``); tool output,
assistant turns and progress records -- the bulk of every file -- are skipped
undecoded.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from memgraph.ids import digest
from profiles.voice.model import OperatorMessage, ReadStats, TranscriptRead
from profiles.voice.prefilter import MALFORMED, PrefilterOptions, apply_trivial, classify_claude
from profiles.voice.readers.jsonl import (
    bad_line,
    clean_id,
    clean_text,
    fallback_session_id,
    iter_lines,
    parse_object,
    parse_timestamp,
    warn,
)

HARNESS = "claude-code"

# Markers a line must contain to be worth decoding. Inside a JSON string a quote
# is escaped (\"), so b'"user"' only matches a real key/value token: every user
# record has "type":"user" and "role":"user"; assistant/progress/snapshot lines
# normally have neither.
_USER = b'"user"'
_QUEUE_OP, _QUEUED_COMMAND, _LOCAL_COMMAND = (
    b'"queue-operation"',
    b'"queued_command"',
    b'"local_command"',
)
_TOOL_RESULT = b'"tool_result"'
# The only tool results that carry typed text (rejection feedback, both wordings,
# and AskUserQuestion answers); v2.0 feedback is a bare is_error result.
_SAID, _ANSWERED = b"the user said:", b"User has answered your questions"
_IS_ERROR, _IS_ERROR_SP = b'"is_error":true', b'"is_error": true'
_SIDECHAIN, _SIDECHAIN_SP = b'"isSidechain":true', b'"isSidechain": true'
_SIDE_QUESTION = b"This is a side question from the user"
_TIMESTAMP = re.compile(rb'"timestamp":\s*"([^"]{1,40})"')


def may_hold_human(raw: bytes) -> bool:
    """False only for lines that cannot yield an operator message."""
    # Spelled out rather than any(...): this runs on every line and generator
    # overhead was a measurable share of the read.
    if _USER not in raw:
        return _QUEUE_OP in raw or _QUEUED_COMMAND in raw or _LOCAL_COMMAND in raw
    if _TOOL_RESULT in raw and not (
        _SAID in raw or _ANSWERED in raw or _IS_ERROR in raw or _IS_ERROR_SP in raw
    ):
        return False
    if _SIDECHAIN in raw or _SIDECHAIN_SP in raw:
        return _SIDE_QUESTION in raw
    return True


def read_claude(
    fh: BinaryIO,
    path: Path,
    options: PrefilterOptions,
    stats: ReadStats,
    *,
    max_line_bytes: int,
    fast: bool = True,
) -> TranscriptRead:
    messages: list[OperatorMessage] = []
    queued: list[OperatorMessage] = []
    seen_uuids: set[str] = set()
    raw_ts: dict[int, str] = {}  # line -> the record's timestamp string, for rule 16
    session_id: str | None = None
    transcript = str(path)
    for lineno, raw in iter_lines(fh, stats, max_line_bytes):
        if fast and not may_hold_human(raw):
            stats.skipped_fast += 1
            continue
        rec = parse_object(raw, lineno, stats)
        if rec is None:
            continue
        # an id that cannot be encoded (lone surrogate) is ignored, not fatal
        sid = clean_id(rec.get("sessionId"))
        if session_id is None and sid:
            session_id = sid
        verdict = classify_claude(rec)
        if verdict.rule == MALFORMED:
            bad_line(stats, lineno, "record fields have unexpected types", "wrong_shape")
            continue
        verdict = apply_trivial(verdict, options)
        if not verdict.keep:
            stats.drop(verdict.rule)
            continue
        ts = parse_timestamp(rec.get("timestamp"))
        if ts is None:
            bad_line(
                stats, lineno, "missing or invalid timestamp on a human message", "bad_timestamp"
            )
            continue
        msg_sid = sid or session_id
        if msg_sid is None:
            msg_sid = fallback_session_id(path)
        uuid = clean_id(rec.get("uuid"))
        text = clean_text(verdict.text)
        if uuid:
            if uuid in seen_uuids:
                stats.drop("duplicate_uuid")
                continue
            seen_uuids.add(uuid)
            key = uuid
        else:
            # queue-operation records have no uuid: derive a stable one.
            key = "q-" + digest(msg_sid, rec.get("timestamp") or "", text)
        msg = OperatorMessage(
            session_id=msg_sid,
            record_uuid=key,
            timestamp=ts,
            text=text,
            transcript=transcript,
            line=lineno,
            harness=HARNESS,
            origin=verdict.origin,
            cwd=_str(rec.get("cwd")),
            git_branch=_str(rec.get("gitBranch")),
        )
        raw_ts[lineno] = rec["timestamp"]
        (queued if verdict.origin == "queued" else messages).append(msg)
    messages = _drop_replays(messages, raw_ts, fh, stats, max_line_bytes)
    messages.extend(_dedupe_queued(queued, messages, options, stats))
    messages.sort(key=lambda m: (m.timestamp, m.line))
    _fill_context(messages)
    stats.kept = len(messages)
    if stats.records == 0 and stats.lines > 0 and not stats.skipped_fast:
        warn(stats, "no JSON records found: not a Claude Code transcript?")
    return TranscriptRead(
        path=transcript, harness=HARNESS, session_id=session_id, messages=messages, stats=stats
    )


def _drop_replays(
    messages: list[OperatorMessage],
    raw_ts: dict[int, str],
    fh: BinaryIO,
    stats: ReadStats,
    max_line_bytes: int,
) -> list[OperatorMessage]:
    """Rule 16: a resumed v2.0 session re-writes the earlier conversation into the
    file with new uuids, every copied record stamped with the resume instant. A
    message is such a copy when its text already occurred earlier in the file AND
    an assistant record carries the very same millisecond (no model answers in
    0 ms, so that assistant record was copied too). Repeating a prompt for real
    ("continue" twice) does not share its millisecond with an assistant record.
    """
    seen: set[str] = set()
    suspects: dict[int, str] = {}
    for m in sorted(messages, key=lambda m: m.line):
        if m.text in seen:
            suspects[m.line] = raw_ts[m.line]
        seen.add(m.text)
    if not suspects:
        return messages
    wanted = {ts.encode() for ts in suspects.values()}
    assistant_ts: set[str] = set()
    try:
        fh.seek(0)
    except OSError:
        return messages
    # Second pass (only when a text repeats): assistant lines naming a suspect instant.
    for _lineno, raw in iter_lines(fh, ReadStats(), max_line_bytes):
        if b'"assistant"' not in raw:
            continue
        if not any(m.group(1) in wanted for m in _TIMESTAMP.finditer(raw)):
            continue
        try:
            rec = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(rec, dict) and rec.get("type") == "assistant":
            ts = rec.get("timestamp")
            if isinstance(ts, str):
                assistant_ts.add(ts)
    kept = []
    for m in messages:
        if m.line in suspects and suspects[m.line] in assistant_ts:
            stats.drop("replayed")
        else:
            kept.append(m)
    return kept


def _dedupe_queued(
    queued: list[OperatorMessage],
    sent: list[OperatorMessage],
    options: PrefilterOptions,
    stats: ReadStats,
) -> list[OperatorMessage]:
    """Rule 15: a queued text that was also delivered (a user record, an attachment,
    a popAll of the same text) within the window is one message, not two."""
    by_text: dict[str, list[datetime]] = {}
    for m in sent:
        by_text.setdefault(m.text, []).append(m.timestamp)
    kept: list[OperatorMessage] = []
    for q in sorted(queued, key=lambda m: (m.timestamp, m.line)):
        times = by_text.get(q.text, [])
        if any(abs(t - q.timestamp) <= options.queue_window for t in times):
            stats.drop("queue_duplicate")
            continue
        by_text.setdefault(q.text, []).append(q.timestamp)
        kept.append(q)
    return kept


def _fill_context(messages: list[OperatorMessage]) -> None:
    """Queue records carry no cwd/branch: borrow the nearest earlier message's."""
    cwd: str | None = None
    branch: str | None = None
    for i, m in enumerate(messages):
        if m.cwd is None and m.git_branch is None and (cwd or branch):
            messages[i] = replace(m, cwd=cwd, git_branch=branch)
        cwd = messages[i].cwd or cwd
        branch = messages[i].git_branch or branch


def _str(value: Any) -> str | None:
    return clean_id(value)
