"""Query one activity window: what was said and what was committed in it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memgraph.documents import MemoryNode
from memgraph.errors import NotFound, UsageError
from memgraph.store.protocol import PeriodQuery, Store
from memgraph.terminal import plural

WINDOW_ID = re.compile(r"^aw-(\d{4})-(\d{2})-(\d{2})-(\d{2})(\d{2})(?:-([2-9]|[1-9]\d{1,3}))?$")


@dataclass(frozen=True)
class ReportEntry:
    type: str  # message | commit | wiki_page | devlog | chronicle
    valid_time: datetime
    node_id: str
    text: str  # message text verbatim / commit subject / page title
    session_id: str | None = None
    uuid: str | None = None
    repo: str | None = None
    sha: str | None = None
    ref: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "valid_time": self.valid_time.isoformat().replace("+00:00", "Z"),
            "node_id": self.node_id,
            "text": self.text,
        }
        for key in ("session_id", "uuid", "repo", "sha", "ref"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class WindowReport:
    id: str
    node_id: str
    lifecycle: str  # current | superseded
    start: datetime
    end: datetime
    gap_minutes: float
    repos: tuple[str, ...]
    sessions: tuple[str, ...]
    entries: tuple[ReportEntry, ...] = field(default=())

    @property
    def message_ids(self) -> tuple[str, ...]:
        """Node ids of the window's operator messages (for exact voice filtering)."""
        return tuple(e.node_id for e in self.entries if e.type == "message")

    @property
    def commits(self) -> tuple[ReportEntry, ...]:
        return tuple(e for e in self.entries if e.type == "commit")


def parse_window_id(window_id: str) -> datetime:
    """The start minute a window id names; ``UsageError`` when it is not a window id."""
    match = WINDOW_ID.match(window_id.strip())
    if match is None:
        raise UsageError(f"not a window id: {window_id[:60]!r} (expected aw-YYYY-MM-DD-HHMM[-N])")
    y, mo, d, h, mi = (int(g) for g in match.groups()[:5])
    try:
        return datetime(y, mo, d, h, mi, tzinfo=UTC)
    except ValueError:
        raise UsageError(f"not a window id: {window_id[:60]!r} (no such date/time)") from None


def find_window(store: Store, window_id: str) -> MemoryNode:
    """The window node for ``window_id``: the current one, else the latest superseded."""
    minute = parse_window_id(window_id)
    wid = window_id.strip()
    candidates = [
        n
        for n in _windows_starting(store, minute, minute + timedelta(minutes=1))
        if n.attributes.get("window_id") == wid
    ]
    if not candidates:
        raise NotFound(f"no activity window {wid}; run `memgraph windows` to compute windows")
    candidates.sort(key=lambda n: (n.lifecycle == "current", n.updated_at, n.id))
    return candidates[-1]


def _windows_starting(store: Store, lo: datetime, hi: datetime) -> list[MemoryNode]:
    return store.nodes_in_period(
        PeriodQuery("activity", "window", starts_at_or_after=lo, starts_before=hi)
    )


def _entry(node: MemoryNode | None, member: str, art: dict[str, Any]) -> ReportEntry:
    kind = str(art.get("type") or (node.kind if node else "?"))
    when = datetime.fromisoformat(str(art.get("valid_time")).replace("Z", "+00:00"))
    attrs = node.attributes if node is not None else {}
    if node is None:
        text = "(artifact missing from the store)"
    elif kind == "message":
        text = node.claim
    else:
        text = node.title or node.claim
    return ReportEntry(
        type=kind,
        valid_time=when,
        node_id=member,
        text=text,
        session_id=art.get("session_id"),
        uuid=art.get("uuid"),
        repo=art.get("repo") or attrs.get("repo"),
        sha=art.get("sha"),
        ref=art.get("ref"),
    )


def window_report(store: Store, window_id: str) -> WindowReport:
    """Everything in window ``window_id``, in valid-time order, texts from the store."""
    node = find_window(store, window_id)
    attrs = node.attributes
    members = [str(m) for m in attrs.get("members") or []]
    arts = [a for a in attrs.get("artifacts") or [] if isinstance(a, dict)]
    with store.reader() as reader:
        nodes = reader.get_nodes(members)
    entries = tuple(_entry(nodes.get(m), m, a) for m, a in zip(members, arts, strict=False))
    start = node.valid_from or entries[0].valid_time
    return WindowReport(
        id=str(attrs.get("window_id")),
        node_id=node.id,
        lifecycle=node.lifecycle,
        start=start,
        end=node.valid_to or start,
        gap_minutes=float(attrs.get("gap_minutes") or 0),
        repos=tuple(str(r) for r in attrs.get("repos") or []),
        sessions=tuple(str(s) for s in attrs.get("sessions") or []),
        entries=entries,
    )


def _clock(dt: datetime, utc: bool = False) -> str:
    """Local time with the zone (``memgraph.dates.show``), UTC with ``utc``."""
    from memgraph.dates import show

    return show(dt, utc)


def format_entry(entry: ReportEntry, width: int = 100, utc: bool = False) -> str:
    """One terse line: time, type, who/where, first line of the text."""
    first = " ".join(entry.text.split("\n", 1)[0].split())
    if entry.type == "message":
        where = (entry.session_id or "?")[:8]
    elif entry.type == "commit":
        where = f"{entry.repo or '?'}@{(entry.sha or '?')[:8]}"
    else:
        where = entry.ref or "?"
    line = f"{_clock(entry.valid_time, utc)}  {entry.type:<9} {where}  {first}"
    return line if len(line) <= width else line[: width - 1] + "…"


def format_report(report: WindowReport, utc: bool = False) -> list[str]:
    """Header line, then one line per artifact (local times; UTC with ``utc``)."""
    counts: dict[str, int] = {}
    for e in report.entries:
        counts[e.type] = counts.get(e.type, 0) + 1
    summary = ", ".join(plural(n, t) for t, n in sorted(counts.items()))
    repos = f" repos={','.join(report.repos)}" if report.repos else ""
    state = "" if report.lifecycle == "current" else f" [{report.lifecycle}]"
    span = f"{_clock(report.start, utc)} -> {_clock(report.end, utc)}"
    head = f"{report.id}{state} {span} ({summary}){repos}"
    return [head, *(format_entry(e, utc=utc) for e in report.entries)]
