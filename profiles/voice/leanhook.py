"""``hook session-end`` for a new session without pydantic or the store class.

The hook runs at every session end, and a new session is its common case: the
transcript is read (``profiles.voice.readers``), screened
(``profiles.voice.privacy``), its rows built by ``profiles.voice.lean`` and
written by the store file's ``CaptureAppend`` (``LightSQLite``: no migrations),
its page built from the same documents (``profiles.voice.leanpage``) and its
registry and ledger rows stored: what ``capture_for_hook`` does, in the same
order (graph, page, ledger, registry), with the same output. Whatever is not
that case returns ``None`` BEFORE anything is written (no store file, an older
or newer schema, a session with something stored, a page file already there),
with the read transcript, so the caller's full path does not read it again. A
page that appears between the check and its write is rendered by the full path
from the store (the nodes are there by then): ``Pending``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memgraph.errors import ReaderError
from memgraph.store.rows import iso
from profiles.voice.backfill_scan import Outcome, _outcome, path_key
from profiles.voice.capture_types import CaptureResult
from profiles.voice.model import TranscriptRead

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import LightSQLite
    from profiles.voice.hooks import FileDigest, HookInput


@dataclass
class Declined:
    """Not the plain case: nothing written; the transcript as read and screened."""

    read: TranscriptRead | None


@dataclass
class Pending:
    """Graph written; these sessions' pages need the full path (a file was there)."""

    result: CaptureResult
    sessions: list[str]


def capture(
    store_path: Path, hook: HookInput, vault: Path, digest: FileDigest | None, redact: bool | None
) -> str | Declined | Pending:
    """The hook's summary line, or why the full path must finish (see module doc)."""
    from memgraph.store.sqlite_ext.capture import light_writer

    with light_writer(store_path) as light:
        if light is None:
            return Declined(None)
        return _capture(light, hook, vault, digest, redact)


def _capture(
    light: LightSQLite,
    hook: HookInput,
    vault: Path,
    digest: FileDigest | None,
    redact: bool | None,
) -> str | Declined | Pending:
    from memgraph.store.sqlite_ext.capture import SQLiteCaptureAppend
    from profiles.voice.nodekeys import session_node_id
    from profiles.voice.prefilter import PrefilterOptions
    from profiles.voice.privacy import screen
    from profiles.voice.readers import ReadOptions, read_transcript

    request = hook.capture_request(vault, redact)
    read = read_transcript(
        request.transcript, ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))
    )
    assert request.privacy is not None
    read = screen(read, request.privacy, cwd=request.cwd)
    appender = SQLiteCaptureAppend(light)
    sessions = sorted({m.session_id for m in read.messages})
    if appender.any_stored([session_node_id(s) for s in sessions], sessions):
        return Declined(read)  # a re-run or a grown session: the engine's job
    from profiles.voice import lean

    built = lean.build([(read.messages, request, read.path)], _now())
    result = built.results[0]
    pages = {s.session_id: s for s in result.sessions if s.skipped is None}
    for sid in pages:  # an existing page file: hand edits to keep, the full path's job
        relpath = built.docs[sid].session["attributes"]["voice_page"]
        if vault.joinpath(*Path(relpath).parts).exists():
            return Declined(read)
    if built.write is not None and not appender.append_capture(built.write, built.sessions):
        return Declined(read)
    result.harness, result.stats = read.harness, read.stats
    result.session_id = result.session_id or read.session_id or request.session_id
    from memgraph.store.sqlite_ext.terms import SQLiteTermStats
    from profiles.voice.leanpage import write_lean_page

    left: list[str] = []
    for sid, plan in pages.items():
        written = write_lean_page(
            SQLiteTermStats(light), vault, built.docs[sid], request.min_messages
        )
        if written is None:
            left.append(sid)
        else:
            plan.page, plan.page_written = written
    if left:
        return Pending(result, left)
    return finish(light, hook, result, vault, digest)


def finish(
    light: LightSQLite,
    hook: HookInput,
    result: CaptureResult,
    vault: Path,
    digest: FileDigest | None,
) -> str:
    """Ledger and registry rows (``backfill.record_capture``), then the summary line."""
    from memgraph.store.sqlite_ext.ledger import put_rows
    from memgraph.store.sqlite_ext.registry import SQLiteRegistry
    from profiles.voice.ledger import entry_from_stats

    path = hook.transcript_path
    known = digest.get() if digest is not None else None
    try:
        st = path.stat()
        if known is None or known[:2] != (st.st_size, st.st_mtime_ns):
            from profiles.voice.hooks import FileDigest

            known = FileDigest(path).get()
            if known is None:
                raise OSError("cannot read the file")
    except OSError as exc:
        raise ReaderError(f"cannot hash transcript {path}: {exc.strerror or exc}") from None
    size, mtime_ns, sha = known
    outcome = _outcome(path_key(path), result, vault, size)
    now = iso(_now())
    e = entry_from_stats(outcome.path, result.stats)
    put_rows(
        light, [(e.path, e.lines, e.captured, e.filtered, e.dropped, e.file_error, e.redacted)], now
    )
    SQLiteRegistry(light).put(outcome.registry_row(size, mtime_ns, sha, now))
    return summary(result, outcome)


def summary(result: CaptureResult, outcome: Outcome) -> str:
    """The hook's output (``hooks.capture_for_hook``'s wording)."""
    from memgraph.terminal import plural
    from profiles.voice.ledger import entry_from_stats, summary_line, totals_of

    sid = (result.session_id or "-")[:8]
    changed = f"; {result.revised} changed records kept as new versions" if result.revised else ""
    captured = f"captured {plural(result.messages, 'message')} (session {sid})"
    if outcome.page:
        line = f"{captured} -> {outcome.page}{changed}"
    else:
        line = f"{captured}; no page: {_why(outcome.reason)}{changed}"
    entry = entry_from_stats(outcome.path, result.stats)
    if entry.dropped or entry.redacted or outcome.reason in ("excluded_project", "excluded_path"):
        # nothing is dropped (or redacted, or excluded) without a word
        line += "\n" + summary_line(totals_of([entry]))
    return line


def _why(reason: str | None) -> str:
    """A registry reason in words: ``too_few_messages:1`` -> ``too few messages (1)``,
    ``excluded_project`` -> ``excluded project`` (the backfill's wording)."""
    key, _, detail = (reason or "no_messages").partition(":")
    return key.replace("_", " ") + (f" ({detail})" if detail else "")


def _now() -> datetime:
    return datetime.now(UTC)
