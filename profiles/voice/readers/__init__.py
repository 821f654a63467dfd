"""Transcript readers: detect the harness, stream the file, apply the pre-filter.

``read_transcript(path)`` -> ``TranscriptRead`` (messages sorted by time, stats
of what was skipped and why). ``iter_transcripts(root)`` finds transcript files
under a ``~/.claude/projects``- or ``~/.codex/sessions``-like root. Only a path
that cannot be opened raises (``ReaderError``); everything inside a file that is
wrong is counted in ``ReadStats`` and skipped.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memgraph.errors import ReaderError
from profiles.voice.model import ReadStats, TranscriptRead
from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers.jsonl import MAX_LINE_BYTES, open_transcript

__all__ = ["ReadOptions", "detect_harness", "iter_transcripts", "read_transcript"]


@dataclass(frozen=True)
class ReadOptions:
    prefilter: PrefilterOptions = field(default_factory=PrefilterOptions)
    max_line_bytes: int = MAX_LINE_BYTES
    # Skip lines that cannot hold human text before decoding them (same result,
    # much faster); False decodes every line (used by tests to prove equivalence).
    fast_skip: bool = True


def detect_harness(head: bytes, name: str = "") -> str:
    """A harness name from ``registry.HARNESSES``, or ``unknown``, from a file's first bytes."""
    from profiles.voice.readers.registry import detect

    harness = detect(head, name)
    return harness.name if harness else "unknown"


def read_transcript(path: Path, options: ReadOptions | None = None) -> TranscriptRead:
    """Read one transcript of any registered harness into operator messages.

    Raises ``ReaderError`` only when the file cannot be opened (missing,
    directory, permission); bad content is counted and skipped.
    """
    from profiles.voice.readers.registry import FALLBACK, HEAD_BYTES, detect

    opts = options or ReadOptions()
    path = Path(path)
    stats = ReadStats()
    with open_transcript(path) as fh:
        try:
            head = fh.read(HEAD_BYTES)
            fh.seek(0)
        except OSError as exc:
            raise ReaderError(f"cannot read transcript {path}: {exc.strerror or exc}") from None
        harness = detect(head, path.name)
        result = (harness or FALLBACK).read(
            fh,
            path,
            opts.prefilter,
            stats,
            max_line_bytes=opts.max_line_bytes,
            fast=opts.fast_skip,
        )
    if harness is None and not result.messages:
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
    """Every transcript file a registered harness claims under root (main and
    sidechain files: Claude/Codex ``*.jsonl``, Gemini ``chats/session-*.json``, aider
    ``.aider.chat.history.md``), sorted; ``skipped`` collects (path, reason, detail)
    for every claimed file that could not be yielded (the ingest ledger's file reasons).

    Works on ``~/.claude/projects``, ``~/.codex/sessions``, ``~/.gemini/tmp`` or any
    parent of them.
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
    from profiles.voice.readers.registry import claims

    real_root = root.resolve()
    out: Skipped = skipped if skipped is not None else []

    def on_error(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        out.append((where, UNREADABLE_DIR, f"cannot list directory: {exc.strerror or exc}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if not claims(path):
                continue
            why = _not_a_transcript_file(path, real_root)
            if why is None:
                yield path
            elif why[0]:
                out.append((path, *why))


def links_out_of(path: Path, real_root: Path) -> bool:
    """Whether ``path`` is a symlink whose target lies outside ``real_root`` (a
    resolved folder); ``OSError``/``RuntimeError`` for a dangling link or a loop."""
    return path.is_symlink() and not path.resolve(strict=True).is_relative_to(real_root)


def _not_a_transcript_file(path: Path, real_root: Path) -> tuple[str, str] | None:
    """None when ``path`` is a readable regular file under root, else (reason, detail)."""
    import stat

    try:
        if links_out_of(path, real_root):
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
