"""Codex CLI rollout JSONL (``{timestamp, type, payload}`` lines) -> operator messages.

The human's prompt is the ``event_msg``/``user_message`` record; the
``response_item`` user message next to it is the model-facing copy (or a harness
injection), so it is never read as a source (prefilter rule 20).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from memgraph.ids import digest
from profiles.voice.model import OperatorMessage, ReadStats, TranscriptRead
from profiles.voice.prefilter import MALFORMED, PrefilterOptions, apply_trivial, classify_codex
from profiles.voice.readers.jsonl import (
    bad_line,
    clean_id,
    clean_text,
    fallback_session_id,
    iter_lines,
    parse_object,
)
from profiles.voice.readers.jsonl import parse_timestamp as parse_ts

HARNESS = "codex"
_NEEDED = (b'"user_message"', b'"session_meta"', b'"turn_context"')
KNOWN_KINDS = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_LEADING_KIND = re.compile(
    rb'\{\s*"timestamp"\s*:\s*"[^"]{0,40}"\s*,\s*"type"\s*:\s*"([^"\\]{1,60})"'
)
_ROLLOUT_ID = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$", re.I
)


def session_id_from_name(path: Path) -> str | None:
    m = _ROLLOUT_ID.search(path.name)
    return m.group(1).lower() if m else None


def read_codex(
    fh: BinaryIO,
    path: Path,
    options: PrefilterOptions,
    stats: ReadStats,
    *,
    max_line_bytes: int,
    fast: bool = True,
) -> TranscriptRead:
    messages: list[OperatorMessage] = []
    session_id = session_id_from_name(path)
    meta_seen = False
    cwd: str | None = None
    branch: str | None = None
    seen: set[tuple[str, str]] = set()
    transcript = str(path)
    for lineno, raw in iter_lines(fh, stats, max_line_bytes):
        if fast and not any(m in raw for m in _NEEDED):
            stats.skipped_fast += 1
            lead = _LEADING_KIND.match(raw)
            if lead is not None and lead.group(1).decode("utf-8", "replace") not in KNOWN_KINDS:
                stats.unknown("type=" + lead.group(1).decode("utf-8", "replace"))
            continue
        rec = parse_object(raw, lineno, stats)
        if rec is None:
            continue
        kind = rec.get("type")
        if not isinstance(kind, str) or kind not in KNOWN_KINDS:
            stats.unknown(f"type={kind if isinstance(kind, str) else type(kind).__name__}")
        payload = rec.get("payload")
        ptype = payload.get("type") if isinstance(payload, dict) else None
        if isinstance(payload, dict) and rec.get("type") in ("session_meta", "turn_context"):
            # session_meta wins over the file name; a later (resumed) meta does not.
            if rec.get("type") == "session_meta" and not meta_seen:
                sid = clean_id(payload.get("id"))
                if sid:
                    session_id, meta_seen = sid, True
                git = payload.get("git")
                branch = _str(git.get("branch")) if isinstance(git, dict) else branch
            cwd = _str(payload.get("cwd")) or cwd
            stats.drop("record_type")
            continue
        verdict = classify_codex(rec)
        if verdict.rule == MALFORMED:
            bad_line(
                stats,
                lineno,
                f"codex {ptype if isinstance(ptype, str) else 'record'} has unexpected field types",
                "wrong_shape",
            )
            continue
        verdict = apply_trivial(verdict, options)
        if not verdict.keep:
            stats.drop(verdict.rule)
            continue
        ts = parse_ts(rec.get("timestamp"))
        if ts is None:
            bad_line(
                stats, lineno, "missing or invalid timestamp on a human message", "bad_timestamp"
            )
            continue
        text = clean_text(verdict.text)
        stamp = str(rec.get("timestamp"))
        if (stamp, text) in seen:
            stats.drop("duplicate")
            continue
        seen.add((stamp, text))
        messages.append(
            OperatorMessage(
                session_id=session_id or fallback_session_id(path),
                record_uuid=f"cx-{lineno}-{digest(stamp, text, length=12)}",
                timestamp=ts,
                text=text,
                transcript=transcript,
                line=lineno,
                harness=HARNESS,
                origin=verdict.origin,
                cwd=cwd,
                git_branch=branch,
                command=verdict.command,
            )
        )
    final_sid = session_id or fallback_session_id(path)
    # A session_meta after the first prompt (order is not trusted) still names them all.
    messages = [
        m if m.session_id == final_sid else replace(m, session_id=final_sid) for m in messages
    ]
    messages.sort(key=lambda m: (m.timestamp, m.line))
    stats.kept = len(messages)
    return TranscriptRead(
        path=transcript, harness=HARNESS, session_id=session_id, messages=messages, stats=stats
    )


def _str(value: Any) -> str | None:
    return clean_id(value)
