"""Robust streaming JSONL: binary chunks, per-line cap, bad lines counted not fatal.

Transcripts are written by tools that crash, get killed mid-write, or are still
writing while we read (the hook reads the live file). So every failure below the
"cannot open the file" level is a counted, warned, skipped line; only an
unopenable path raises ``ReaderError``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from profiles.voice.model import ReadStats

# Human prompts with pasted screenshots carry base64 images on the same line, so a
# few MB per line is normal; anything past this is skipped (counted) rather than
# buffered whole.
MAX_LINE_BYTES = 32 * 1024 * 1024
CHUNK_BYTES = 1024 * 1024
# A binary file can have millions of "lines"; keep the warning list bounded.
MAX_WARNINGS = 50
# Oldest timestamp year a reader accepts (see parse_timestamp).
MIN_YEAR = 1000


def warn(stats: ReadStats, message: str) -> None:
    """Record a warning, keeping at most MAX_WARNINGS (+ one overflow note)."""
    if len(stats.warnings) < MAX_WARNINGS:
        stats.warnings.append(message)
    elif len(stats.warnings) == MAX_WARNINGS:
        stats.warnings.append("further warnings suppressed (see counts in stats)")


def bad_line(stats: ReadStats, lineno: int, why: str, reason: str = "wrong_shape") -> None:
    """Count a damaged line under ``reason`` (the ledger's key) and warn ``why``."""
    stats.bad_lines += 1
    stats.bad[reason] = stats.bad.get(reason, 0) + 1
    warn(stats, f"line {lineno}: {why}; skipped")


def open_transcript(path: Path) -> BinaryIO:
    """Open for binary reading or raise ReaderError (the only fatal reader error).

    FIFOs, devices and directories are refused before any read (they would hang
    or never end); see ``memgraph.inputs.open_regular``.
    """
    from memgraph.inputs import open_regular

    return open_regular(path, "transcript")


def iter_lines(
    fh: BinaryIO, stats: ReadStats, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_bytes_without_newline)`` for every line of at most
    max_line_bytes.

    ``readline(limit)`` finds line ends in C (an order of magnitude faster than
    splitting chunks in Python) and bounds memory: a longer line is consumed in
    CHUNK_BYTES pieces and dropped, never held whole, and counted as bad. A final
    line without a newline (truncated, or still being written) is yielded like any
    other; JSON parsing decides whether it is complete.
    """
    lineno = 0
    readline = fh.readline
    while True:
        try:
            line = readline(max_line_bytes + 1)
        except OSError as exc:
            warn(stats, f"read error after line {lineno}: {exc.strerror or exc}; stopped")
            return
        if not line:
            return
        lineno += 1
        stats.lines += 1
        if line[-1:] == b"\n":
            yield lineno, line[:-1]
        elif len(line) <= max_line_bytes:
            yield lineno, line  # end of file without a newline
        else:
            try:
                while (rest := readline(CHUNK_BYTES)) and rest[-1:] != b"\n":
                    pass
            except OSError as exc:
                warn(stats, f"read error in line {lineno}: {exc.strerror or exc}; stopped")
                return
            bad_line(stats, lineno, f"longer than {max_line_bytes} bytes", "over_size_cap")


def parse_object(raw: bytes, lineno: int, stats: ReadStats) -> dict[str, Any] | None:
    """One line -> a JSON object, or None (counted and warned) for anything else."""
    if not raw.strip():
        # Blank lines are not records but are not damage either.
        stats.blank += 1
        return None
    try:
        value = json.loads(raw)
    except UnicodeDecodeError:
        # One bad byte should not cost the whole record: decode with U+FFFD.
        try:
            value = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            _invalid(raw, lineno, stats)
            return None
        warn(stats, f"line {lineno}: invalid UTF-8 replaced with U+FFFD")
    except (ValueError, RecursionError):
        # RecursionError: absurdly nested arrays; ValueError covers JSONDecodeError
        # and the int-digits limit.
        _invalid(raw, lineno, stats)
        return None
    if not isinstance(value, dict):
        bad_line(stats, lineno, f"JSON {type(value).__name__}, not an object", "not_an_object")
        return None
    stats.records += 1
    return value


def _invalid(raw: bytes, lineno: int, stats: ReadStats) -> None:
    if b"\x00" in raw:
        bad_line(stats, lineno, "raw NUL byte in the line (not valid JSON)", "raw_nul")
    else:
        bad_line(stats, lineno, "not valid JSON (truncated or corrupt)", "invalid_json")


def parse_timestamp(value: object) -> datetime | None:
    """ISO-8601 string -> aware UTC datetime; naive values are taken as UTC."""
    if not isinstance(value, str) or not 10 <= len(value) <= 40:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        dt = dt.astimezone(UTC)
    except (OverflowError, ValueError):
        return None
    # Years before 1000 do not survive every renderer (strftime %Y gives "1") and
    # no transcript was written then: refused, counted as a bad timestamp.
    return dt if dt.year >= MIN_YEAR else None


def clean_id(value: object) -> str | None:
    """A non-empty id string that encodes as UTF-8, else None (a lone surrogate
    from a JSON escape would break every id and path built from it)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


def fallback_session_id(path: Path) -> str:
    """The file's stem as a session id when records name none; a stem that cannot
    be encoded (undecodable file name) becomes a stable digest instead."""
    stem = clean_id(path.stem)
    if stem:
        return stem
    from memgraph.ids import digest

    return "file-" + digest(os.fsencode(path.name).hex())


def clean_text(text: str) -> str:
    """Replace lone surrogates (from JSON ``\\ud800`` escapes) so the text encodes as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
