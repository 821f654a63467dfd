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
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

from memgraph.ids import digest
from profiles.voice.model import OperatorMessage, ReadStats, TranscriptRead
from profiles.voice.prefilter import (
    MALFORMED,
    PROMPT_SOURCES,
    PrefilterOptions,
    apply_trivial,
    classify_claude,
    is_caveat_record,
)
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
_IS_ERROR_KEY = b'"is_error":'  # the common prefix of both
_SIDECHAIN, _SIDECHAIN_SP = b'"isSidechain":true', b'"isSidechain": true'
_SIDE_QUESTION = b"This is a side question from the user"
_TIMESTAMP = re.compile(rb'"timestamp":\s*"([^"]{1,40})"')
_TIMESTAMP_KEY = b'"timestamp":'  # where every _TIMESTAMP match starts
# Top-level record kinds this reader knows (kept, or dropped by a numbered rule).
KNOWN_KINDS = frozenset(
    {
        "user", "assistant", "system", "progress", "attachment", "summary", "queue-operation",
        "file-history-snapshot", "last-prompt", "ai-title", "permission-mode", "agent-name",
        "custom-title", "mode", "tag", "pr-link",
    }
)  # fmt: skip
# Bookkeeping records put their kind first: ``{"type":"mode",...}``; enough to count
# an unknown kind on a line the pre-check skips undecoded.
_LEADING_KIND = re.compile(rb'\{\s*"type"\s*:\s*"([^"\\]{1,60})"')
# Rule 25: a local command is written as a <local-command-caveat> record, the command,
# and its output in <local-command-stdout>. Output written WITHOUT that wrapper ("Unknown
# skill: x") looks like a plain prompt. It is the block's output when it carries the
# block's ``promptId`` (2.1.x), or, in files without promptIds, when it is stamped
# within LOCAL_OUTPUT_WINDOW of the command (the harness writes both in one go; a
# person typing "hi" right after /model took 1.5 s in the corpus). A wrapped output or
# any other kept message closes the block.
LOCAL_OUTPUT_WINDOW = timedelta(milliseconds=250)
_BLOCK_ORIGINS = ("slash_command", "bash_input")


def may_hold_human(raw: bytes) -> bool:
    """False only for lines that cannot yield an operator message.

    The rule (``tests/profiles/voice/test_reader_fast_paths.py`` holds this function to it on
    every line of the corpus and on generated hostile lines): without ``"user"``,
    a line is kept when it has ``"queue-operation"``, ``"queued_command"`` or
    ``"local_command"``; with it, a tool result is dropped unless it carries
    rejection feedback (``the user said:``), an AskUserQuestion answer or
    ``"is_error": true``; a sidechain line is kept only for a side question.

    Each scan of a long tool-output line costs ~0.5-0.8 ns per byte, so what counts
    is the number of scans: ONE regex finds the first of the four tokens (lines
    without ``"user"``, ~40 % of the bytes, are decided by it, where three substring
    scans ran before), and markers with a common part share one scan.
    """
    first = _TOKENS.search(raw)
    if first is None:
        return False  # none of the four tokens
    # The leftmost token: a "user" token cannot start before it, nor inside it
    # except on its closing quote.
    if first.end() - first.start() != len(_USER) and raw.find(_USER, first.end() - 1) < 0:
        return True  # a queue or local-command token, and no "user"
    if _TOOL_RESULT in raw and not (_is_error(raw) or _said_or_answered(raw)):
        return False
    if _is_sidechain(raw):
        return _SIDE_QUESTION in raw
    return True


# The four tokens that decide a line without "user" (every one starts with a quote:
# the regex engine skips to quotes, then tries the four words).
_TOKENS = re.compile(rb'"(?:user|queue-operation|queued_command|local_command)"')
# ``_SAID`` and ``_ANSWERED`` share ``ser ``: one scan for both.
_SER = re.compile(rb"ser (?:said:|has answered your questions)")
_SIDECHAIN_KEY = b'"isSidechain":'  # the common prefix of both spellings


def _said_or_answered(raw: bytes) -> bool:
    """``_SAID in raw or _ANSWERED in raw``, in one scan of the line (the matches
    cannot overlap: neither continuation contains ``ser``)."""
    for m in _SER.finditer(raw):
        at = m.start()
        if m.end() - at == len(_SAID) - 5:
            if raw.startswith(_SAID, at - 5):
                return True
        elif raw.startswith(_ANSWERED, at - 1):
            return True
    return False


def _is_error(raw: bytes) -> bool:
    """``_IS_ERROR in raw or _IS_ERROR_SP in raw``, in one scan of the line."""
    return _key_true(raw, _IS_ERROR_KEY)


def _is_sidechain(raw: bytes) -> bool:
    """``_SIDECHAIN in raw or _SIDECHAIN_SP in raw``, in one scan of the line."""
    return _key_true(raw, _SIDECHAIN_KEY)


def _key_true(raw: bytes, key: bytes) -> bool:
    """Whether ``key`` is followed by ``true`` or `` true`` anywhere in the line."""
    at = raw.find(key)
    while at >= 0:
        at += len(key)
        if raw.startswith(b"true", at) or raw.startswith(b" true", at):
            return True
        at = raw.find(key, at)
    return False


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
    block: _Block | None = None  # the open local-command block, if any
    typed: set[int] = set()  # lines of queue `enqueue` records (typed, not re-displayed)
    for lineno, raw in iter_lines(fh, stats, max_line_bytes):
        if fast and not may_hold_human(raw):
            stats.skipped_fast += 1
            lead = _LEADING_KIND.match(raw)
            if lead is not None and lead.group(1).decode("utf-8", "replace") not in KNOWN_KINDS:
                stats.unknown("type=" + lead.group(1).decode("utf-8", "replace"))
            continue
        rec = parse_object(raw, lineno, stats)
        if rec is None:
            block = None  # a damaged line might have been the output: keep what follows
            continue
        _count_unknown(rec, stats)
        # an id that cannot be encoded (lone surrogate) is ignored, not fatal
        sid = clean_id(rec.get("sessionId"))
        if session_id is None and sid:
            session_id = sid
        if is_caveat_record(rec):
            block = _Block(rec.get("promptId"), parse_timestamp(rec.get("timestamp")))
        verdict = classify_claude(rec)
        if verdict.rule == MALFORMED:
            bad_line(stats, lineno, "record fields have unexpected types", "wrong_shape")
            block = None
            continue
        verdict = apply_trivial(verdict, options)
        if not verdict.keep:
            if verdict.rule == "command_output" or (
                block is not None and rec.get("type") == "user" and not is_caveat_record(rec)
            ):
                # The command's output arrived wrapped, or a user record in the block
                # was empty or damaged (it may have been the output): the block is
                # over. One bad record costs only itself, never the prompt after it.
                block = None
            stats.drop(verdict.rule)
            continue
        ts = parse_timestamp(rec.get("timestamp"))
        if ts is None:
            bad_line(
                stats, lineno, "missing or invalid timestamp on a human message", "bad_timestamp"
            )
            continue
        if block is not None:
            if verdict.origin in _BLOCK_ORIGINS:
                block = _Block(block.prompt_id, ts)
            elif verdict.origin == "prompt" and block.owns(rec.get("promptId"), ts):
                stats.drop("caveat_output")
                continue
            else:
                block = None
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
            command=verdict.command,
        )
        raw_ts[lineno] = rec["timestamp"]
        (queued if verdict.origin == "queued" else messages).append(msg)
        if rec.get("type") == "queue-operation" and rec.get("operation") == "enqueue":
            typed.add(lineno)
    messages = _drop_replays(messages, raw_ts, fh, stats, max_line_bytes)
    messages.extend(_dedupe_queued(queued, messages, options, stats, typed))
    messages.sort(key=lambda m: (m.timestamp, m.line))
    _fill_context(messages)
    stats.kept = len(messages)
    if stats.records == 0 and stats.lines > 0 and not stats.skipped_fast:
        warn(stats, "no JSON records found: not a Claude Code transcript?")
    return TranscriptRead(
        path=transcript, harness=HARNESS, session_id=session_id, messages=messages, stats=stats
    )


class _Block:
    """An open local-command block (rule 25)."""

    __slots__ = ("at", "prompt_id")

    def __init__(self, prompt_id: object, at: datetime | None) -> None:
        self.prompt_id = prompt_id if isinstance(prompt_id, str) and prompt_id else None
        self.at = at

    def owns(self, prompt_id: object, ts: datetime) -> bool:
        if self.prompt_id is not None and isinstance(prompt_id, str) and prompt_id:
            return prompt_id == self.prompt_id
        return self.at is not None and abs(ts - self.at) <= LOCAL_OUTPUT_WINDOW


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
        if not names_instant(raw, wanted):
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


def names_instant(raw: bytes, wanted: set[bytes]) -> bool:
    """``any(m.group(1) in wanted for m in _TIMESTAMP.finditer(raw))``, faster:
    the regex is tried only where the key ``"timestamp":`` starts (its matches
    cannot overlap: the value holds no quote), which one C scan finds."""
    at = raw.find(_TIMESTAMP_KEY)
    while at >= 0:
        m = _TIMESTAMP.match(raw, at)
        if m is not None and m.group(1) in wanted:
            return True
        at = raw.find(_TIMESTAMP_KEY, at + 1)
    return False


def _dedupe_queued(
    queued: list[OperatorMessage],
    sent: list[OperatorMessage],
    options: PrefilterOptions,
    stats: ReadStats,
    typed: set[int],
) -> list[OperatorMessage]:
    """Rule 15: text typed while the agent is busy is recorded when queued and again
    when delivered (a user record) or re-displayed (``popAll``, a ``queued_command``
    attachment). A queued record is a duplicate only of a LATER delivery of the same
    text within the window (the delivered user record is kept), or, when it is a
    re-display (not an ``enqueue``: lines in ``typed``), of an earlier queued record of
    that text. An earlier *prompt* with the same words, or an earlier ``enqueue``, is
    another message: "continue" typed twice is two messages."""
    delivered: dict[str, list[datetime]] = {}
    for m in sent:
        delivered.setdefault(m.text, []).append(m.timestamp)
    shown: dict[str, list[datetime]] = {}
    kept: list[OperatorMessage] = []
    window = options.queue_window
    for q in sorted(queued, key=lambda m: (m.timestamp, m.line)):
        later = delivered.get(q.text, ())
        earlier = shown.get(q.text, ())
        redisplay = q.line not in typed and any(
            q.timestamp - window <= t <= q.timestamp for t in earlier
        )
        if redisplay or any(q.timestamp <= t <= q.timestamp + window for t in later):
            stats.drop("queue_duplicate")
            continue
        shown.setdefault(q.text, []).append(q.timestamp)
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


def _count_unknown(rec: dict[str, Any], stats: ReadStats) -> None:
    """Count what this reader does not understand instead of guessing at it."""
    kind = rec.get("type")
    if not isinstance(kind, str) or kind not in KNOWN_KINDS:
        stats.unknown(f"type={kind if isinstance(kind, str) else type(kind).__name__}")
    source = rec.get("promptSource")
    if source is not None and (not isinstance(source, str) or source not in PROMPT_SOURCES):
        stats.unknown(f"promptSource={source if isinstance(source, str) else '?'}")


def _str(value: Any) -> str | None:
    return clean_id(value)
