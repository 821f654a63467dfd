"""Which transcript files a backfill looks at, and which of them are already done.

Stdlib only (with the harness readers' discovery), so the lean
``memgraph voice --backfill`` (memgraph/cli/backfill_fast.py) can answer a rerun
with nothing new without importing the capture stack; ``run_backfill``
(profiles.voice.backfill) walks the same candidates, so both agree on every file.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

from profiles.voice.ledger import Ledger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.rows import RegistryRow
    from profiles.voice.capture_types import CaptureResult
    from profiles.voice.ledger import LedgerEntry

ERROR = "error"
PAGED, SKIPPED = "paged", "skipped"


@dataclass
class Outcome:
    path: str
    status: str  # paged | skipped | error | unchanged | filtered
    reason: str | None = None
    session_id: str | None = None
    message_count: int = 0
    page: str | None = None
    bytes: int = 0
    # captured records whose transcript text changed: stored as new versions
    revised: int = 0

    def registry_row(self, size: int, mtime_ns: int, sha256: str, processed_at: str) -> RegistryRow:
        """The transcript registry's row for this outcome (backfill, hook, lean hook)."""
        from memgraph.store.rows import RegistryRow

        return RegistryRow(
            path=self.path,
            size=size,
            mtime_ns=mtime_ns,
            sha256=sha256,
            session_id=self.session_id,
            status=self.status,
            reason=self.reason,
            message_count=self.message_count,
            page=self.page,
            processed_at=processed_at,
        )


@dataclass
class BackfillReport:
    outcomes: list[Outcome] = field(default_factory=list)
    bytes_total: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    # every transcript read this run (and every file that could not be): the counts
    ledger: Ledger = field(default_factory=Ledger)

    def counts(self) -> dict[str, int]:
        return dict(Counter(o.status for o in self.outcomes))

    @property
    def revised(self) -> int:
        return sum(o.revised for o in self.outcomes)

    @property
    def mb_per_s(self) -> float:
        return self.bytes_read / 1e6 / self.seconds if self.seconds > 0 else 0.0


def path_key(path: Path) -> str:
    """A path as registry text (absolute, so the backfill, the hook and the probe
    agree whatever root spelling they were given); undecodable bytes become
    escapes, never an error."""
    return os.fsencode(os.path.abspath(path)).decode("utf-8", "backslashreplace")


def candidates(
    roots: list[Path],
    since: date | None,
    warnings: list[str],
    file_problem: Callable[[LedgerEntry], None],
) -> Iterator[tuple[Path, int, int]]:
    """(path, size, mtime_ns) of every transcript under ``roots`` changed on or after
    ``since``; files not read go to ``warnings`` and, as ledger entries, to
    ``file_problem`` (nothing is left out without a reason)."""
    from profiles.voice.ledger import file_entry
    from profiles.voice.readers import UNREADABLE, Skipped, iter_transcripts

    since_ns = None
    if since is not None:
        start = datetime(since.year, since.month, since.day, tzinfo=UTC)
        since_ns = int(start.timestamp() * 1e9)

    def report_skipped(skipped: Skipped) -> None:
        from memgraph.inputs import printable_path

        for path, reason, detail in skipped:
            warnings.append(f"{printable_path(path)}: {detail}; not read")
            file_problem(file_entry(path_key(path), reason))
        skipped.clear()

    # A default root of a harness this machine does not run (no ~/.gemini) is not
    # news on every backfill; a root the user named, or every root missing, is.
    from memgraph.config import default_transcripts

    defaults = set(default_transcripts())
    any_root = any(root.exists() for root in roots)
    for root in roots:
        if not root.exists():
            if not (any_root and root in defaults):
                warnings.append(f"transcript root {root} does not exist; skipped")
            continue
        skipped: Skipped = []
        if not root.is_dir():
            from memgraph.inputs import file_kind

            mode = root.stat().st_mode
            if not stat.S_ISREG(mode):  # a FIFO/device given as a root: one word, go on
                warnings.append(f"transcript root {root} is {file_kind(mode)}; skipped")
                file_problem(file_entry(path_key(root), "not_regular_file"))
                continue
        for path in iter_transcripts(root, skipped):
            report_skipped(skipped)
            try:
                st = path.stat()
            except OSError as exc:
                warnings.append(f"{path}: cannot stat: {exc.strerror or exc}")
                file_problem(file_entry(path_key(path), UNREADABLE))
                continue
            if since_ns is not None and st.st_mtime_ns < since_ns:
                continue
            yield path, st.st_size, st.st_mtime_ns
        report_skipped(skipped)


def unchanged(row: RegistryRow | None, size: int, mtime_ns: int) -> bool:
    """The registry row says this file is done and its stat has not moved (an
    errored file is retried on every run)."""
    return row is not None and row.status != ERROR and (row.size, row.mtime_ns) == (size, mtime_ns)


def pages_now(row: RegistryRow, min_messages: int) -> bool:
    """A transcript skipped for too few messages (``too_few_messages:N``) that the
    minimum asked now (``--min-messages``) would page: redone, not "unchanged" (a
    rerun with a lower minimum changed nothing)."""
    key, _, n = (row.reason or "").partition(":")
    return key == "too_few_messages" and n.isdigit() and int(n) >= min_messages


def excluded_reason(result: CaptureResult) -> str | None:
    """``excluded_project``/``excluded_path`` when the privacy excludes left nothing."""
    if result.messages:
        return None
    return next((k for k in sorted(result.stats.dropped) if k.startswith("excluded_")), None)


def _outcome(key: str, result: CaptureResult, vault: Path, size: int) -> Outcome:
    pages = result.pages
    page = pages[0].relative_to(vault).as_posix() if pages else None
    status = PAGED if pages else SKIPPED
    reason = None if pages else (excluded_reason(result) or result.skipped or "no_messages")
    return Outcome(
        key, status, reason, result.session_id, result.messages, page, size, result.revised
    )
