"""Backfill: capture every transcript under the roots, once.

A registry row per transcript file (path, size, mtime, sha256, outcome) lets a
rerun skip what is done: same size and mtime -> skipped without reading; a
changed stat but the same hash -> only the stat is refreshed. Rows are written
after the file's nodes and page, so a kill at any point is repaired by the next
run (captures are idempotent, unchanged pages are not rewritten). Sessions with
too few qualifying messages are recorded as ``skipped`` with the reason, and
errored files are retried on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from memgraph.documents import utcnow
from memgraph.errors import MemgraphError, ReaderError
from memgraph.store import Store
from memgraph.store.interfaces import indexes
from memgraph.store.rows import RegistryRow, as_dict, iso
from profiles.voice.backfill_scan import (
    ERROR,
    BackfillReport,
    Outcome,
    _outcome,
    candidates,
    pages_now,
    path_key,
    unchanged,
)
from profiles.voice.capture import CaptureItem, CaptureRequest, CaptureResult, screened
from profiles.voice.ledger import LedgerEntry, entry_from_stats, file_entry, ledger_put
from profiles.voice.model import TranscriptRead
from profiles.voice.nodes import resolve_project
from profiles.voice.views import MIN_MESSAGES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from profiles.voice.hooks import DigestWorker, PendingDigest
    from profiles.voice.privacy import PrivacyPolicy
    from profiles.voice.readahead import ReadAhead
    from profiles.voice.readers import ReadOptions

# progress(bytes done, bytes total, current path)
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class BackfillRequest:
    roots: list[Path]
    vault: Path
    since: date | None = None  # only transcripts modified on or after this day (UTC)
    project: str | None = None  # only sessions whose project is this name
    min_messages: int = MIN_MESSAGES
    now: datetime | None = None
    # excludes and redaction (profiles.voice.privacy); None: redact, exclude nothing
    privacy: PrivacyPolicy | None = None


def registry_rows(store: Store, since: datetime | None = None) -> list[RegistryRow]:
    """Registry rows (processed_at >= ``since`` when given), oldest first."""
    return indexes(store).registry.rows(None if since is None else iso(since))


def registry_get(store: Store, path: Path) -> RegistryRow | None:
    return indexes(store).registry.get(path_key(path))


def registry_put(store: Store, row: RegistryRow) -> None:
    indexes(store).registry.put(row)


def file_sha256(path: Path) -> str:
    from memgraph.inputs import open_regular
    from profiles.voice.hooks import stream_sha256

    with open_regular(path, "transcript") as fh:
        return stream_sha256(fh)


# A batch (one patch, one transaction, one round of page fsyncs) closes after this
# many transcripts or this many bytes of them, whichever comes first.
BATCH_FILES = 64
BATCH_BYTES = 32 << 20
HASH_AHEAD = 4  # files hashed ahead of the one being read


def run_backfill(
    store: Store, request: BackfillRequest, progress: Progress | None = None
) -> BackfillReport:
    """Capture every not-yet-processed transcript under ``request.roots``."""
    import time

    started = time.perf_counter()
    report = BackfillReport()
    files = list(candidates(request.roots, request.since, report.warnings, report.ledger.add))
    when = iso(request.now or utcnow()) or ""
    ledger_put(store, report.ledger.entries, when)
    report.bytes_total = sum(size for _, size, _ in files)
    batch = _Batch(store, request, report, when, files)
    done = 0
    try:
        for path, size, mtime_ns in files:
            batch.add(path, size, mtime_ns)
            done += size
            if progress is not None:
                progress(done, report.bytes_total, str(path))
        batch.flush()
    finally:
        batch.close()
    report.seconds = time.perf_counter() - started
    return report


@dataclass
class _Pending:
    """A read transcript waiting for its batch's patch."""

    slot: int  # its place in report.outcomes
    path: Path
    key: str
    size: int
    mtime_ns: int
    digest: str
    read: TranscriptRead


class _Batch:
    """Transcripts read but not yet captured. ``flush`` captures them in one patch,
    writes their pages (fsynced together), then their registry and ledger rows:
    the same order as one transcript at a time, so a kill anywhere is repaired by
    the next run (the registry names only what is fully written; captures are
    idempotent and unchanged pages are not rewritten)."""

    def __init__(
        self,
        store: Store,
        request: BackfillRequest,
        report: BackfillReport,
        when: str,
        files: list[tuple[Path, int, int]] | None = None,
    ) -> None:
        self.store, self.request, self.report, self.when = store, request, report, when
        # (path, size, mtime_ns) of every candidate, in the order ``add`` gets them:
        # what the read-ahead process reads, started at the first file to read
        self.files, self.at = files or [], 0
        self.planned: list[tuple[Path, int]] | None = None  # see _plan
        self.ahead: ReadAhead | None = None
        self.hashing: dict[Path, PendingDigest] = {}  # submitted ahead of their file
        self.hash_next = 0  # the next planned file to hash ahead
        self.pending: list[_Pending] = []
        self.sessions: set[str] = set()
        self.bytes = 0
        # new files are hashed on one helper thread while they are read (no GIL);
        # started with the first new file
        self.digests: DigestWorker | None = None

    def close(self) -> None:
        if self.digests is not None:
            self.digests.close()
        if self.ahead is not None:
            self.ahead.close()

    def _plan(self, path: Path) -> None:
        """At the first file to read (``path``): which later files may need reading
        (ONE registry query), to be read ahead by a child process and hashed ahead
        by the helper thread."""
        if self.planned is not None:
            return
        rows = {row.path: row for row in registry_rows(self.store)}
        self.planned = [
            (p, size)
            for p, size, mtime_ns in self.files[self.at - 1 :]
            if p == path or not unchanged(rows.get(path_key(p)), size, mtime_ns)
        ]
        from profiles.voice import readahead

        paths = [p for p, _ in self.planned]
        self.ahead = readahead.start(paths, [size for _, size in self.planned], read_options())

    def _read(self, path: Path) -> TranscriptRead | None:
        """``_read``, with the read-ahead process's read of the file when it has one."""
        self._plan(path)
        return _read(self.request, path, self.ahead.take(path) if self.ahead else None)

    def _digest(self, path: Path) -> PendingDigest:
        """The file's hash on the helper thread, submitted ahead with the next
        planned files' (so ``get`` finds it done instead of waiting for it)."""
        self._plan(path)
        if self.digests is None:
            from profiles.voice.hooks import DigestWorker

            self.digests = DigestWorker()
        job = self.hashing.pop(path, None) or self.digests.submit(path)
        planned = self.planned or []
        while self.hash_next < len(planned) and len(self.hashing) < HASH_AHEAD:
            ahead = planned[self.hash_next][0]
            self.hash_next += 1
            if ahead != path and ahead not in self.hashing:
                self.hashing[ahead] = self.digests.submit(ahead)
        return job

    def _sha256(self, path: Path) -> str:
        """A changed file's hash: hashed ahead when it was planned, else here."""
        job = self.hashing.pop(path, None)
        known = job.get() if job is not None else None
        return known[2] if known is not None else file_sha256(path)

    def _finish(self, slot: int, outcome: Outcome, entry: LedgerEntry | None) -> None:
        self.report.outcomes[slot] = outcome
        if outcome.status not in ("unchanged", "filtered"):
            self.report.bytes_read += outcome.bytes
        if entry is not None:
            self.report.ledger.add(entry)

    def add(self, path: Path, size: int, mtime_ns: int) -> None:
        store, request, report = self.store, self.request, self.report
        self.at += 1
        key = path_key(path)
        slot = len(report.outcomes)
        report.outcomes.append(Outcome(key, "unchanged"))
        row = registry_get(store, path)
        due = row is not None and pages_now(row, request.min_messages)
        if row is not None and unchanged(row, size, mtime_ns) and not due:
            outcome = Outcome(key, "unchanged", row.reason, row.session_id, row.message_count)
            outcome.page = row.page
            self._finish(slot, outcome, None)
            return
        digest = ""
        try:
            if row is not None:  # the hash decides whether the content changed
                digest = self._sha256(path)
                if row.status != ERROR and row.sha256 == digest and not due:
                    registry_put(store, _row(row, size=size, mtime_ns=mtime_ns))
                    outcome = Outcome(
                        key, "unchanged", row.reason, row.session_id, row.message_count
                    )
                    self._finish(slot, outcome, None)
                    return
                read = self._read(path)
            else:  # a new file: hashed on the helper thread while it is read
                pending = self._digest(path)
                read = self._read(path)
                known = pending.get()
                digest = known[2] if known is not None else file_sha256(path)
        except Exception as exc:  # a bug must not stop a backfill of thousands of files
            self._failed(slot, key, size, mtime_ns, digest, exc)
            return
        if read is None:
            outcome = Outcome(key, "filtered", f"project is not {request.project}", bytes=size)
            self._finish(slot, outcome, None)
            return
        sessions = {m.session_id for m in read.messages}
        if sessions & self.sessions:  # planned against the store: never twice in a patch
            self.flush()
        self.pending.append(_Pending(slot, path, key, size, mtime_ns, digest, read))
        self.sessions |= sessions
        self.bytes += size
        if len(self.pending) >= BATCH_FILES or self.bytes >= BATCH_BYTES:
            self.flush()

    def _failed(
        self, slot: int, key: str, size: int, mtime_ns: int, digest: str, exc: Exception
    ) -> None:
        if isinstance(exc, MemgraphError):
            outcome = Outcome(key, ERROR, " ".join(str(exc).split())[:500], bytes=size)
            entry = file_entry(key, "unreadable_file" if isinstance(exc, ReaderError) else "error")
        else:
            reason = f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())}"
            outcome = Outcome(key, ERROR, reason[:500], bytes=size)
            entry = file_entry(key, "internal_error")
        self._finish(slot, outcome, entry)
        # ledger before registry: a registry row means "done", so everything about
        # the file must already be stored when it appears (a kill in between is
        # repaired by the rerun, which redoes the file and replaces its entry)
        ledger_put(self.store, [entry], self.when)
        registry_put(self.store, self._registry_row(outcome, size, mtime_ns, digest))

    def _registry_row(self, outcome: Outcome, size: int, mtime_ns: int, digest: str) -> RegistryRow:
        return outcome.registry_row(size, mtime_ns, digest, iso(self.request.now or utcnow()))

    def flush(self) -> None:
        pending, self.pending = self.pending, []
        self.sessions, self.bytes = set(), 0
        if not pending:
            return
        from memgraph.fileio import deferred_fsync
        from profiles.voice.capture import capture_many

        request = self.request
        items: list[CaptureItem] = [
            (
                p.read.messages,
                CaptureRequest(
                    transcript=p.path,
                    vault=request.vault,
                    min_messages=request.min_messages,
                    now=request.now,
                    privacy=request.privacy,
                ),
                p.read.path,
            )
            for p in pending
        ]
        try:
            with deferred_fsync():
                results = capture_many(self.store, items)
        except Exception as exc:
            if len(pending) > 1:  # one bad transcript costs only itself: one at a time
                for p in pending:
                    self.pending = [p]
                    self.flush()
                return
            p = pending[0]
            self._failed(p.slot, p.key, p.size, p.mtime_ns, p.digest, exc)
            return
        entries: list[LedgerEntry] = []
        rows: list[RegistryRow] = []
        for p, result in zip(pending, results, strict=True):
            result.harness, result.stats = p.read.harness, p.read.stats
            result.session_id = result.session_id or p.read.session_id
            if result.page_error is not None:
                self._failed(p.slot, p.key, p.size, p.mtime_ns, p.digest, result.page_error)
                continue
            outcome = _outcome(p.key, result, request.vault, p.size)
            entry = entry_from_stats(p.key, result.stats)
            self._finish(p.slot, outcome, entry)
            entries.append(entry)
            rows.append(self._registry_row(outcome, p.size, p.mtime_ns, p.digest))
        ledger_put(self.store, entries, self.when)  # before the registry: see _failed
        for row in rows:
            registry_put(self.store, row)


def record_capture(
    store: Store,
    path: Path,
    result: CaptureResult,
    vault: Path,
    now: datetime | None = None,
    digest: tuple[int, int, str] | None = None,
) -> Outcome:
    """Registry row for a transcript captured outside backfill (the hook), so a
    later backfill skips it. ``digest`` = (size, mtime_ns, sha256) taken earlier
    is used when the file's stat still matches; otherwise it is hashed now."""
    try:
        st = path.stat()
        if digest is None or digest[:2] != (st.st_size, st.st_mtime_ns):
            digest = (st.st_size, st.st_mtime_ns, file_sha256(path))
    except OSError as exc:
        raise ReaderError(f"cannot hash transcript {path}: {exc.strerror or exc}") from None
    size, mtime_ns, sha = digest
    outcome = _outcome(path_key(path), result, vault, size)
    ledger_put(store, [entry_from_stats(outcome.path, result.stats)], iso(now or utcnow()) or "")
    registry_put(store, outcome.registry_row(size, mtime_ns, sha, iso(now or utcnow())))
    return outcome


def _row(row: RegistryRow, **changes: object) -> RegistryRow:
    return RegistryRow(**{**as_dict(row), **changes})


def read_options() -> ReadOptions:
    from profiles.voice.prefilter import PrefilterOptions
    from profiles.voice.readers import ReadOptions

    return ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))


def _read(
    request: BackfillRequest, path: Path, read: TranscriptRead | None = None
) -> TranscriptRead | None:
    """The transcript's messages (``read``: already read from it), or None when it
    belongs to another project."""
    if read is None:
        from profiles.voice.readers import read_transcript

        read = read_transcript(path, read_options())
    if request.project is not None:
        cwd = next((m.cwd for m in read.messages if m.cwd), None)
        if resolve_project(cwd) != request.project:
            return None
    capture = CaptureRequest(
        transcript=path,
        vault=request.vault,
        min_messages=request.min_messages,
        now=request.now,
        privacy=request.privacy,
    )
    return screened(read, capture)
