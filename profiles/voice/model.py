"""What a transcript reader yields: one operator message, verbatim.

This is the contract between the readers/prefilter (``profiles.voice.readers``,
``profiles.voice.prefilter``) and everything downstream (message nodes, voice
pages, extract/backfill).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class OperatorMessage:
    session_id: str
    record_uuid: str  # the transcript record's uuid; a stable synthetic key when it has none
    timestamp: datetime  # timezone-aware UTC
    text: str  # what the human typed, verbatim (IDE context tags stripped)
    transcript: str  # path of the transcript file it came from
    line: int  # 1-based line number in that file
    harness: str  # a name in profiles.voice.readers.registry (claude-code, codex, gemini, aider)
    # prompt | slash_command | bash_input | rejection_feedback | ask_answer | queued
    # | side_question | custom_prompt
    origin: str
    cwd: str | None = None
    git_branch: str | None = None
    # The command/template the text was typed into (Codex custom prompt
    # ``/prompts:NAME``, aider ``/ask``): metadata, not part of the voice text.
    command: str | None = None


# a damaged line's reason (``ReadStats.bad``) in words: (one, many)
_BAD_WORDS: dict[str, tuple[str, str | None]] = {
    "bad_timestamp": ("bad timestamp", "bad timestamps"),
    "wrong_shape": ("record of an unknown shape", "records of an unknown shape"),
    "invalid_json": ("line not valid JSON", "lines not valid JSON"),
    "not_an_object": ("JSON line not an object", "JSON lines not an object"),
    "raw_nul": ("line with a raw NUL byte", "lines with a raw NUL byte"),
    "over_size_cap": ("line over the size cap", "lines over the size cap"),
}


@dataclass
class ReadStats:
    """What a reader saw; bad lines are counted and skipped, never fatal."""

    lines: int = 0
    records: int = 0
    bad_lines: int = 0
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)  # prefilter rule -> count
    warnings: list[str] = field(default_factory=list)
    # lines skipped undecoded by the readers' byte pre-check (cannot hold human text)
    skipped_fast: int = 0
    # record kinds (or field values) the reader does not understand: counted, never
    # guessed at (``kind`` -> count, e.g. ``"type=mode"``, ``"promptSource=voice"``)
    unknown_kinds: dict[str, int] = field(default_factory=dict)
    blank: int = 0  # empty lines: not records, not damage
    # damaged lines by reason (invalid_json, raw_nul, over_size_cap, wrong_shape, ...);
    # sums to bad_lines. Every line read is exactly one of: skipped_fast, blank,
    # a bad reason, a dropped rule, or kept (profiles.voice.ledger checks this).
    bad: dict[str, int] = field(default_factory=dict)
    # secrets replaced by markers and <private> spans removed, by kind
    # (profiles.voice.privacy; not lines: the messages are still captured)
    redacted: dict[str, int] = field(default_factory=dict)

    def warning_summary(self) -> str | None:
        """``3 reader warnings: 1 bad timestamp, 2 records of an unknown shape``, or
        None when there is none: damaged lines by reason (exact counts), then the
        other warnings (undecodable bytes replaced, a read error) as ``other``."""
        from memgraph.terminal import plural

        parts = [
            plural(n, *_BAD_WORDS.get(reason, (reason.replace("_", " "), None)))
            for reason, n in sorted(self.bad.items())
        ]
        other = len(self.warnings) - min(len(self.warnings), self.bad_lines)
        if other:
            parts.append(f"{other} other")
        total = sum(self.bad.values()) + other
        if not total:
            return None
        return f"{plural(total, 'reader warning')}: " + ", ".join(parts)

    def drop(self, rule: str) -> None:
        self.dropped[rule] = self.dropped.get(rule, 0) + 1

    def unknown(self, kind: str) -> None:
        kind = kind[:80]
        if kind in self.unknown_kinds or len(self.unknown_kinds) < 100:
            self.unknown_kinds[kind] = self.unknown_kinds.get(kind, 0) + 1
        else:
            self.unknown_kinds["(other)"] = self.unknown_kinds.get("(other)", 0) + 1


@dataclass
class TranscriptRead:
    path: str
    harness: str
    session_id: str | None
    messages: list[OperatorMessage]  # sorted by (timestamp, line)
    stats: ReadStats
