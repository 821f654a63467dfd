"""Coverage probe of the voice index (monitoring-plugin style).

Completed sessions are main transcript files (not sidechains) last written in
the window and quiet for ``settle`` minutes (a live session is not complete).
A session is accounted for when the backfill registry holds a row for that
exact file state (size and mtime) that says `paged` or `skipped` with a
reason. Status, with the exit codes of the Nagios/monitoring-plugin convention:

- OK (0): coverage >= warn threshold and pages were written in the last 48 h
  whenever sessions completed in that time;
- WARNING (1): coverage < 60 %;
- CRITICAL (2): coverage < 30 %, or zero pages in the last 48 h although sessions
  completed then (a vacation with no sessions is not an outage);
- UNKNOWN (3): nothing to measure (no transcript roots, no completed sessions
  in the window) or the store cannot be read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memgraph.errors import MemgraphError
from memgraph.store import Store

OK, WARNING, CRITICAL, UNKNOWN = 0, 1, 2, 3
STATUS_NAMES = {OK: "OK", WARNING: "WARNING", CRITICAL: "CRITICAL", UNKNOWN: "UNKNOWN"}
ACCOUNTED = ("paged", "skipped")


@dataclass(frozen=True)
class ProbeRequest:
    roots: list[Path]
    days: int = 7
    warn: float = 0.60
    crit: float = 0.30
    settle_minutes: int = 10
    now: datetime | None = None
    vault: Path | None = None  # list voice pages with a pending conflict render
    workspace: Path | None = None  # list session YAML views kept beside their render


@dataclass
class ProbeResult:
    status: int
    completed: int
    accounted: int
    pages_48h: int
    completed_48h: int
    since: datetime
    reason: str
    missing: list[str] = field(default_factory=list)
    # ingest ledger totals over every transcript read (profiles.voice.ledger)
    ledger: dict[str, object] = field(default_factory=dict)
    # views edited by hand where memgraph put its new render beside them
    conflicts: list[str] = field(default_factory=list)

    @property
    def coverage(self) -> float | None:
        return self.accounted / self.completed if self.completed else None

    @property
    def status_name(self) -> str:
        return STATUS_NAMES[self.status]

    def remediation(self) -> str:
        return f"memgraph voice --backfill --since {self.since.date().isoformat()}"


def is_session_file(path: Path) -> bool:
    """A main session transcript of a registered harness (not a sidechain file)."""
    from profiles.voice.readers.registry import is_session_file as registered

    return registered(path)


def completed_sessions(request: ProbeRequest, now: datetime) -> dict[str, tuple[int, int]]:
    """path key -> (size, mtime_ns) of session files completed inside the window."""
    from profiles.voice.backfill_scan import path_key
    from profiles.voice.readers import iter_transcripts

    since = now - timedelta(days=request.days)
    settled = now - timedelta(minutes=request.settle_minutes)
    found: dict[str, tuple[int, int]] = {}
    for root in request.roots:
        if not (root.is_dir() or root.is_file()):
            continue
        for path in iter_transcripts(root):
            if not is_session_file(path):
                continue
            try:
                st = os.stat(path)
            except OSError:
                continue  # vanished since the walk; the ledger counts unreadable files
            mtime = datetime.fromtimestamp(st.st_mtime, UTC)
            if since <= mtime <= settled:
                found[path_key(path)] = (st.st_size, st.st_mtime_ns)
    return found


def view_conflicts(vault: Path | None, workspace: Path | None) -> list[str]:
    """Hand-edited views waiting for the user: ``*.conflict.md`` beside voice pages,
    ``*.conflict.yaml`` (and ``*.conflict-N.yaml``) beside session views."""
    from profiles.voice.pagekeep import list_conflicts

    found = [str(p) for p in list_conflicts(vault)] if vault is not None else []
    if workspace is not None:
        try:
            sessions = workspace / ".memgraph" / "personas"
            kept = [*sessions.glob("*/sessions/*.conflict.yaml")]
            kept += sessions.glob("*/sessions/*.conflict-[0-9]*.yaml")
            found += sorted(str(p) for p in kept)
        except OSError:
            pass
    return found


def probe(store: Store, request: ProbeRequest) -> ProbeResult:
    result = _probe(store, request)
    result.conflicts = view_conflicts(request.vault, request.workspace)
    return result


def _probe(store: Store, request: ProbeRequest) -> ProbeResult:
    from profiles.voice.backfill import registry_rows

    now = request.now or datetime.now(UTC)
    since = now - timedelta(days=request.days)
    day2 = now - timedelta(hours=48)
    if not any(root.is_dir() or root.is_file() for root in request.roots):
        roots = ", ".join(str(r) for r in request.roots) or "(none)"
        return ProbeResult(UNKNOWN, 0, 0, 0, 0, since, f"no transcript roots found: {roots}")
    try:
        rows = {row.path: row for row in registry_rows(store)}
    except MemgraphError as exc:
        return ProbeResult(UNKNOWN, 0, 0, 0, 0, since, f"cannot read the registry: {exc}")
    from profiles.voice.ledger import ledger_entries, totals_of

    try:
        ledger = totals_of(ledger_entries(store))
    except MemgraphError:
        ledger = {}
    completed = completed_sessions(request, now)
    accounted, missing = 0, []
    completed_48h = 0
    for key, (size, mtime_ns) in sorted(completed.items()):
        if datetime.fromtimestamp(mtime_ns / 1e9, UTC) >= day2:
            completed_48h += 1
        row = rows.get(key)
        if row and row.status in ACCOUNTED and (row.size, row.mtime_ns) == (size, mtime_ns):
            accounted += 1
        else:
            missing.append(key)
    pages_48h = sum(
        1
        for row in rows.values()
        if row.status == "paged" and row.page and row.processed_at >= _iso(day2)
    )
    result = ProbeResult(OK, len(completed), accounted, pages_48h, completed_48h, since, "")
    result.missing = missing
    result.ledger = ledger
    if not completed:
        result.status = UNKNOWN
        result.reason = f"no completed sessions since {since.date().isoformat()}"
        return result
    coverage = accounted / len(completed)
    if coverage < request.crit:
        result.status, result.reason = CRITICAL, f"coverage below {request.crit:.0%}"
    elif completed_48h and pages_48h == 0:
        result.status, result.reason = CRITICAL, "no voice pages written in the last 48 h"
    elif coverage < request.warn:
        result.status, result.reason = WARNING, f"coverage below {request.warn:.0%}"
    else:
        result.reason = "coverage ok"
    return result


def _iso(dt: datetime) -> str:
    from memgraph.store.rows import iso

    return iso(dt)


def format_probe(result: ProbeResult, utc: bool = False) -> str:
    """One status line with perfdata, plus the remediation when not OK (the day in
    local time, UTC with ``utc``)."""
    from memgraph.dates import show

    cov = result.coverage
    cov_text = f"{cov:.0%}" if cov is not None else "n/a"
    line = (
        f"VOICE {result.status_name} - {result.reason}: coverage {cov_text} "
        f"({result.accounted}/{result.completed} sessions since {show(result.since, utc)[:10]}), "
        f"pages last 48h: {result.pages_48h}"
        f" | coverage={(cov or 0) * 100:.0f}%;60;30 sessions={result.completed}"
        f" accounted={result.accounted} pages_48h={result.pages_48h}"
    )
    if result.ledger:
        line += f" lines={result.ledger.get('lines', 0)} dropped={result.ledger.get('dropped', 0)}"
    if result.ledger.get("dropped") or result.ledger.get("files_not_read"):
        from profiles.voice.ledger import summary_line

        line += "\n" + summary_line(result.ledger)
    if result.conflicts:
        line += f" conflicts={len(result.conflicts)}"
    if result.status in (WARNING, CRITICAL):
        line += f"\nremediation: {result.remediation()}"
    for path in result.conflicts[:20]:
        what = (
            "your edit of a session view, kept; the view shows the store"
            if path.endswith(".yaml")
            else "hand-edited view; memgraph's new render is beside it"
        )
        line += f"\nconflict: {path} ({what})"
    return line


def probe_json(result: ProbeResult) -> dict[str, object]:
    return {
        "status": result.status_name,
        "exit_code": result.status,
        "reason": result.reason,
        "completed": result.completed,
        "accounted": result.accounted,
        "coverage": result.coverage,
        "pages_48h": result.pages_48h,
        "completed_48h": result.completed_48h,
        "since": result.since.isoformat().replace("+00:00", "Z"),
        "remediation": result.remediation() if result.status in (WARNING, CRITICAL) else None,
        "missing": result.missing[:50],
        "ledger": result.ledger,
        "conflicts": result.conflicts[:50],
    }
