"""Transcript readers: detect the harness, stream the file, apply the pre-filter.

``read_transcript(path)`` -> ``TranscriptRead`` (messages sorted by time, stats
of what was skipped and why). ``iter_transcripts(root)`` finds transcript files
under a ``~/.claude/projects``- or ``~/.codex/sessions``-like root. Only a path
that cannot be opened raises (``ReaderError``); everything inside a file that is
wrong is counted in ``ReadStats`` and skipped.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memgraph.errors import ReaderError
from profiles.voice.model import ReadStats, TranscriptRead
from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers.claude import read_claude
from profiles.voice.readers.codex import read_codex
from profiles.voice.readers.jsonl import MAX_LINE_BYTES, open_transcript, warn

__all__ = ["ReadOptions", "detect_harness", "iter_transcripts", "read_transcript"]

_HEAD_BYTES = 256 * 1024
_VOTES = 5  # records that agree before detection stops reading the head
_CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_CLAUDE_TYPES = {
    "user", "assistant", "system", "progress", "attachment", "summary", "queue-operation",
    "file-history-snapshot", "last-prompt", "ai-title", "permission-mode", "agent-name",
    "custom-title",
}  # fmt: skip
# Companion prompt logs share the .jsonl suffix but are not transcripts.
_NOT_TRANSCRIPTS = {"history.jsonl"}


@dataclass(frozen=True)
class ReadOptions:
    prefilter: PrefilterOptions = field(default_factory=PrefilterOptions)
    max_line_bytes: int = MAX_LINE_BYTES
    # Skip lines that cannot hold human text before decoding them (same result,
    # much faster); False decodes every line (used by tests to prove equivalence).
    fast_skip: bool = True


def detect_harness(head: bytes, name: str = "") -> str:
    """``claude-code`` | ``codex`` | ``aider`` | ``unknown`` from a file's first bytes."""
    if head.lstrip().startswith(b"# aider chat started"):
        return "aider"
    lines = head.split(b"\n")
    if len(head) >= _HEAD_BYTES:
        lines.pop()  # possibly cut mid-line
    # Records vote (the first few decide, most files answer on line 1): one odd
    # record -- a stray "sessionId" in a rollout, a list as "type" -- costs only
    # itself, never the harness of the whole file.
    votes = {"codex": 0, "claude-code": 0}
    for line in lines[:200]:
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        kind = obj.get("type")
        if not isinstance(kind, str):  # a list/dict "type" is one bad record, not a crash
            kind = None
        if "payload" in obj and kind in _CODEX_TYPES:
            votes["codex"] += 1
        elif kind in _CLAUDE_TYPES or "sessionId" in obj:
            votes["claude-code"] += 1
        if max(votes.values()) >= _VOTES and votes["codex"] != votes["claude-code"]:
            break
    if votes["codex"] != votes["claude-code"]:
        return max(votes, key=lambda k: votes[k])
    if votes["codex"] and name.startswith("rollout-"):
        return "codex"
    if votes["codex"]:
        return "claude-code"
    if name.startswith("rollout-"):
        return "codex"
    return "unknown"


def read_transcript(path: Path, options: ReadOptions | None = None) -> TranscriptRead:
    """Read one Claude Code or Codex transcript into operator messages.

    Raises ``ReaderError`` only when the file cannot be opened (missing,
    directory, permission); bad content is counted and skipped.
    """
    opts = options or ReadOptions()
    path = Path(path)
    stats = ReadStats()
    with open_transcript(path) as fh:
        try:
            head = fh.read(_HEAD_BYTES)
            fh.seek(0)
        except OSError as exc:
            raise ReaderError(f"cannot read transcript {path}: {exc.strerror or exc}") from None
        harness = detect_harness(head, path.name)
        if harness == "aider":
            warn(stats, "aider chat log: not a supported transcript format; nothing read")
            return TranscriptRead(str(path), "unknown", None, [], stats)
        reader = read_codex if harness == "codex" else read_claude
        result = reader(
            fh,
            path,
            opts.prefilter,
            stats,
            max_line_bytes=opts.max_line_bytes,
            fast=opts.fast_skip,
        )
    if harness == "unknown" and not result.messages:
        result.harness = "unknown"
    return result


# file-level ledger reasons: why a *.jsonl under a root was not read
SYMLINK_LOOP, OUTSIDE_ROOT, NOT_REGULAR, UNREADABLE_DIR, UNREADABLE = (
    "symlink_loop",
    "symlink_outside_root",
    "not_regular_file",
    "unreadable_dir",
    "unreadable_file",
)
# (path, reason, one-line detail) for every candidate a walk did not yield
Skipped = list[tuple[Path, str, str]]


def iter_transcripts(root: Path, skipped: Skipped | None = None) -> Iterator[Path]:
    """Every ``*.jsonl`` transcript under root (main and sidechain files), sorted.

    Works on ``~/.claude/projects``, ``~/.codex/sessions`` or any parent of them.
    Directory symlinks are not followed and file symlinks resolving outside root
    are skipped, so a walk never leaves root. ``history.jsonl`` prompt logs are
    not transcripts and are skipped. A root that is itself a file is yielded as is.
    Nothing is skipped silently: a ``*.jsonl`` that is a symlink loop, a symlink
    out of root, a FIFO/device, or a subdirectory that cannot be listed is
    appended to ``skipped`` as (path, reason, detail) when a list is given.
    """
    root = Path(root)
    if root.is_file():
        yield root
        return
    if not root.is_dir():
        raise ReaderError(f"transcript root {root} does not exist or is not a directory")
    real_root = root.resolve()
    out: Skipped = skipped if skipped is not None else []

    def on_error(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        out.append((where, UNREADABLE_DIR, f"cannot list directory: {exc.strerror or exc}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".jsonl") or name in _NOT_TRANSCRIPTS:
                continue
            path = Path(dirpath) / name
            why = _not_a_transcript_file(path, real_root)
            if why is None:
                yield path
            elif why[0]:
                out.append((path, *why))


def _not_a_transcript_file(path: Path, real_root: Path) -> tuple[str, str] | None:
    """None when ``path`` is a readable regular file under root, else (reason, detail)."""
    import stat

    try:
        if path.is_symlink() and not path.resolve(strict=True).is_relative_to(real_root):
            return OUTSIDE_ROOT, "symlink points outside the transcript root"
        mode = path.stat().st_mode
    except RuntimeError:  # Python < 3.13 reports a symlink loop this way
        return SYMLINK_LOOP, "symlink loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return SYMLINK_LOOP, "symlink loop"
        if exc.errno == errno.ENOENT:
            return UNREADABLE, "dangling symlink"
        return UNREADABLE, f"cannot stat: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return "", ""  # a directory named *.jsonl: walked, not a file
    if not stat.S_ISREG(mode):
        from memgraph.inputs import file_kind

        return NOT_REGULAR, f"it is {file_kind(mode)}"
    return None
