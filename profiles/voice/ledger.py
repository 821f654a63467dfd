"""The ingest ledger: per transcript, where every line read went.

Each line a reader reads is exactly one of: captured (an operator message),
filtered (by a prefilter rule: tool output, assistant turns, harness
injections, duplicates, blank lines...) or dropped (damaged: invalid JSON, a
raw NUL, over the size cap, wrong field types, a bad timestamp). So
``lines == captured + sum(filtered) + sum(dropped)`` for every transcript, and
a file that could not be read at all (symlink loop, FIFO, unreadable
directory, unopenable) is a file-level entry with its reason. Backfill and the
hook print ``summary_line`` when anything was dropped; the latest entry per
transcript is kept in the ``voice_ledger`` table so ``voice --stats``, ``probe``
and ``--json`` outputs can report the totals later.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memgraph.store import Store
    from profiles.voice.model import ReadStats

# filtered keys that are not prefilter rule names
NO_HUMAN_TEXT = "no_human_text"  # skipped undecoded: cannot hold what a human typed
BLANK = "blank_line"


@dataclass
class LedgerEntry:
    """One transcript's accounting (or one file that could not be read)."""

    path: str
    lines: int = 0
    captured: int = 0
    filtered: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    file_error: str | None = None  # reason the whole file was not read
    # secrets redacted / private spans removed by kind (profiles.voice.privacy):
    # inside captured messages, so not part of the line balance
    redacted: dict[str, int] = field(default_factory=dict)

    @property
    def balanced(self) -> bool:
        return self.lines == self.captured + sum(self.filtered.values()) + sum(
            self.dropped.values()
        )

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "lines": self.lines,
            "captured": self.captured,
            "filtered": dict(sorted(self.filtered.items())),
            "dropped": dict(sorted(self.dropped.items())),
            "file_error": self.file_error,
            "redacted": dict(sorted(self.redacted.items())),
        }


def entry_from_stats(path: str, stats: ReadStats) -> LedgerEntry:
    filtered = dict(stats.dropped)
    if stats.skipped_fast:
        filtered[NO_HUMAN_TEXT] = filtered.get(NO_HUMAN_TEXT, 0) + stats.skipped_fast
    if stats.blank:
        filtered[BLANK] = filtered.get(BLANK, 0) + stats.blank
    return LedgerEntry(
        path, stats.lines, stats.kept, filtered, dict(stats.bad), redacted=dict(stats.redacted)
    )


def file_entry(path: str, reason: str) -> LedgerEntry:
    """A file that was not read at all (its lines are unknown, so 0)."""
    return LedgerEntry(path, file_error=reason)


@dataclass
class Ledger:
    entries: list[LedgerEntry] = field(default_factory=list)

    def add(self, entry: LedgerEntry) -> None:
        self.entries.append(entry)

    def totals(self) -> dict[str, object]:
        return totals_of(self.entries)

    @property
    def has_drops(self) -> bool:
        return any(e.dropped or e.file_error for e in self.entries)

    @property
    def has_privacy(self) -> bool:
        """Anything redacted, or left out by an exclude or as private."""
        return any(
            e.redacted or any(k.startswith("excluded_") or k == "private_only" for k in e.filtered)
            for e in self.entries
        )

    def summary_line(self) -> str:
        return summary_line(self.totals())


def totals_of(entries: list[LedgerEntry]) -> dict[str, object]:
    filtered: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    files: Counter[str] = Counter()
    redacted: Counter[str] = Counter()
    for e in entries:
        redacted.update(e.redacted)
        filtered.update(e.filtered)
        dropped.update(e.dropped)
        if e.file_error:
            files[e.file_error] += 1
    return {
        "transcripts": sum(1 for e in entries if not e.file_error),
        "lines": sum(e.lines for e in entries),
        "captured": sum(e.captured for e in entries),
        "filtered": sum(filtered.values()),
        "dropped": sum(dropped.values()),
        "dropped_by_reason": dict(sorted(dropped.items())),
        "filtered_by_rule": dict(sorted(filtered.items())),
        "files_not_read": dict(sorted(files.items())),
        "redacted": sum(redacted.values()),
        "redacted_by_kind": dict(sorted(redacted.items())),
    }


def summary_line(totals: dict[str, object]) -> str:
    """``ledger: 120 lines read, 3 captured, 110 filtered, 7 dropped (invalid_json 5,
    raw_nul 2); 1 file not read (symlink_loop 1)``."""
    reasons = totals["dropped_by_reason"]
    files = totals["files_not_read"]
    assert isinstance(reasons, dict) and isinstance(files, dict)
    line = (
        f"ledger: {totals['lines']} lines read, {totals['captured']} captured, "
        f"{totals['filtered']} filtered, {totals['dropped']} dropped"
    )
    if reasons:
        line += " (" + ", ".join(f"{k} {v}" for k, v in reasons.items()) + ")"
    kinds = totals.get("redacted_by_kind")
    if isinstance(kinds, dict) and kinds:
        line += f"; {totals['redacted']} redacted ("
        line += ", ".join(f"{k} {v}" for k, v in kinds.items()) + ")"
    if files:
        n = sum(files.values())
        line += f"; {n} file{'s' if n != 1 else ''} not read ("
        line += ", ".join(f"{k} {v}" for k, v in files.items()) + ")"
    return line


# -- persistence (every backend with an IngestLedger; the memory store keeps none) --
def ledger_put(store: Store, entries: list[LedgerEntry], recorded_at: str) -> None:
    """Keep the latest entry per transcript path (one transaction)."""
    from memgraph.store.interfaces import indexes

    kept = indexes(store).ledger
    if entries and kept is not None:
        kept.put(
            [
                (e.path, e.lines, e.captured, e.filtered, e.dropped, e.file_error, e.redacted)
                for e in entries
            ],
            recorded_at,
        )


def ledger_entries(store: Store) -> list[LedgerEntry]:
    """Every stored entry (a damaged row is a 'damaged_ledger_row' file entry)."""
    from memgraph.store.interfaces import indexes

    kept = indexes(store).ledger
    return [] if kept is None else [LedgerEntry(*row) for row in kept.rows()]


__all__ = [
    "Ledger",
    "LedgerEntry",
    "entry_from_stats",
    "file_entry",
    "ledger_entries",
    "ledger_put",
    "summary_line",
    "totals_of",
]
