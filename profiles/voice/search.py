"""Voice search: the read path over the voice index (node FTS5 + ``voice_index``).

``search_voice(store, VoiceQuery(...)) -> list[VoiceHit]`` and
``voice_stats(store) -> VoiceStats``, over the store's ``VoiceIndex``
(``memgraph.store.interfaces``): this module maps queries to index requests
and index rows to hits. The printed forms live in ``profiles.voice.output``
(shared by both CLI paths and the MCP server).

Module-level imports are the standard library plus stdlib-only memgraph modules
(errors, fts, store.rows) ON PURPOSE: ``memgraph.cli.voice_fast`` imports this module to
answer ``memgraph voice ...`` without pydantic (~200 ms) or typer, so the typer
command and the fast path run the same query and formatting code.
Do not add heavy imports at module level: even ``typing`` and ``dataclasses``
(~10 ms) are kept out (``record`` is ``memgraph.store.rows.record``).

Ranking (see notes/search.md): ``score = bm25 * recency`` with
``recency = 0.5 + 0.5 / (1 + age_days / 180)``, age measured from the newest
indexed message (not the wall clock, so the same store always ranks the same);
messages classified ``command`` sort after every other hit.
"""

from __future__ import annotations

from datetime import UTC, datetime

from memgraph import dates
from memgraph.errors import InvalidId, MemgraphError, UsageError
from memgraph.fts import to_fts5_query
from memgraph.store.rows import record
from memgraph.store.voice_rows import VoiceIndexStats, VoiceRow, VoiceSearch

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from memgraph.store import Store


MAX_QUERY_LIMIT = 1 << 62
DEFAULT_LIMIT = 20  # keyword search
BROWSE_LIMIT = 500  # no keyword (--recent, filters only): newest N, printed oldest first
RECENT_SESSIONS = 10
RECENCY_DAYS = 180.0
UNCLASSIFIED = "unclassified"  # `--type unclassified` selects messages not yet classified
# profiles.voice.classify.labels.LABELS without importing pydantic (a test keeps them equal)
LABELS = (
    "definition", "decision", "directive", "correction", "question", "rationale",
    "preference", "command",
)  # fmt: skip
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@record(frozen=True)
class VoiceQuery:
    """What to look for. Empty ``query`` lists messages (newest ``limit``) instead."""

    query: str = ""
    since: datetime | None = None  # valid time, inclusive
    until: datetime | None = None  # valid time, inclusive
    project: str | None = None  # project or constellation, case-insensitive
    type: str | None = None  # classification, or "unclassified"
    session: str | None = None  # session id or a prefix of it (the 8 chars shown)
    limit: int | None = None  # default DEFAULT_LIMIT (keyword) / BROWSE_LIMIT (listing)
    recent: bool = False  # only the RECENT_SESSIONS most recent sessions
    as_of: datetime | None = None  # only what was ingested at or before this time
    window: str | None = None  # activity window id (profiles.activity)
    word: bool = False  # whole words only (no substring tier)
    include_commands: bool = False  # also bare slash commands ("/model" alone): --all


@record(frozen=True)
class VoiceHit:
    timestamp: datetime
    constellation: str
    session_id: str
    project: str
    text: str
    classification: str | None
    confidence: float | None
    voice_page: str | None
    node_id: str
    score: float  # lower is better (bm25 convention); 0.0 for listings


@record(frozen=True)
class VoiceStats:
    messages: int
    sessions: int
    pages: int
    classified: int
    first: datetime | None
    last: datetime | None
    by_constellation: tuple[tuple[str, int], ...]
    by_classification: tuple[tuple[str, int], ...]
    # ingest ledger totals (profiles.voice.ledger): lines read, captured,
    # filtered, dropped; then (reason, count) of dropped lines and unread files
    ledger: tuple[int, int, int, int] = (0, 0, 0, 0)
    ledger_dropped: tuple[tuple[str, int], ...] = ()
    forgotten: int = 0  # tombstones left by `memgraph forget`, counted nowhere else

    @property
    def unclassified(self) -> int:
        return self.messages - self.classified


# -- parsing -------------------------------------------------------------------

# The one date parser (memgraph.dates): also YYYY-MM-DD, today, yesterday, 7d, 2w.
parse_when = dates.parse_when


def iso(dt: datetime) -> str:
    """Same fixed-width text as ``memgraph.store.sqlite.iso`` (kept stdlib-only here)."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _ts(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text).astimezone(UTC)
    except ValueError:
        return _EPOCH


# -- querying (the voice index interface: memgraph.store.interfaces.VoiceIndex) ---------


def search_request(q: VoiceQuery, only: Sequence[str] | None = None) -> VoiceSearch | None:
    """The index request for ``q`` (None: nothing can match). Raises ``UsageError``
    for a query that asks for nothing, ``InvalidId`` for a bad session id.

    ``only``: restrict to these message node ids (an activity window's members).
    """
    if q.limit is not None and q.limit < 1:
        raise UsageError("--limit must be at least 1")
    keyword = q.query.strip()
    if keyword and not to_fts5_query(q.query):
        return None  # only punctuation/operators: nothing a text index could find
    has_filter = any((q.since, q.until, q.as_of, q.project, q.type, q.session, q.recent, q.window))
    if not keyword and not has_filter:
        raise UsageError(
            'nothing to search: give a query ("keyword"), --recent, --stats or a filter '
            "such as --session ID or --since DATE"
        )
    if q.since is not None and q.until is not None and q.since > q.until:
        # said, not answered with "no hits": a swapped pair looks like an empty memory
        raise UsageError(
            f"--since {dates.show(q.since)} is after --until {dates.show(q.until)}: "
            "nothing can match (swap them?)"
        )
    if q.session:
        from memgraph.ids import is_safe_name  # hashlib: only when a session is asked for

        if not is_safe_name(q.session):
            raise InvalidId(f"--session: {q.session[:80]!r} is not a session id")
    if only is not None and not only:
        return None
    unclassified = bool(q.type) and str(q.type).lower() == UNCLASSIFIED
    return VoiceSearch(
        query=q.query if keyword else "",
        since=iso(q.since) if q.since is not None else None,
        until=iso(q.until) if q.until is not None else None,
        as_of=iso(q.as_of) if q.as_of is not None else None,
        project=q.project or None,
        classification=None if unclassified else (q.type or None),
        unclassified=unclassified,
        session_prefix=q.session or None,
        only=tuple(only) if only is not None else None,
        recent_sessions=RECENT_SESSIONS if q.recent else 0,
        # SQLite integers are 64-bit; a larger --limit means "all of them" anyway
        limit=min(q.limit or (DEFAULT_LIMIT if keyword else BROWSE_LIMIT), MAX_QUERY_LIMIT),
        recency_days=RECENCY_DAYS,
        demote="command",
        word=q.word,
        bare_commands=q.include_commands,
    )


def to_hit(row: VoiceRow) -> VoiceHit:
    return VoiceHit(
        timestamp=_ts(row.ts),
        constellation=row.constellation,
        session_id=row.session_id,
        project=row.project,
        text=row.text,
        classification=row.classification,
        confidence=row.confidence,
        voice_page=row.voice_page,
        node_id=row.node_id,
        score=row.score,
    )


def _window_messages(store: Store, window_id: str) -> list[str]:
    """Node ids of the operator messages in activity window ``window_id``.

    Windows are split by shared entities, so a time range would pull in
    unrelated messages from the same minutes; the window's own member list is exact.
    """
    try:
        from profiles.activity import query as activity_query
    except ImportError:
        raise MemgraphError(
            f"--window {window_id[:40]}: activity windows are not available in this build "
            "(profiles.activity.query is missing)"
        ) from None
    report = activity_query.window_report(store, window_id)
    return [str(i) for i in report.message_ids]


def search_voice(store: Store, query: VoiceQuery) -> list[VoiceHit]:
    """Ranked hits (keyword) or a time-ordered listing (filters only); see module doc."""
    from memgraph.store.interfaces import indexes

    only = _window_messages(store, query.window) if query.window else None
    request = search_request(query, only)
    if request is None:
        return []
    return [to_hit(row) for row in indexes(store).voice.search(request)]


def to_stats(raw: VoiceIndexStats) -> VoiceStats:
    """The index's aggregates with the profile's labels and order (count desc, then name)."""
    by_cls = [(k if k is not None else UNCLASSIFIED, c) for k, c in raw.by_classification]
    return VoiceStats(
        messages=raw.messages,
        sessions=raw.sessions,
        pages=raw.pages,
        classified=raw.classified,
        first=_ts(raw.first) if raw.first else None,
        last=_ts(raw.last) if raw.last else None,
        by_constellation=tuple(sorted(raw.by_constellation, key=lambda kc: (-kc[1], kc[0]))),
        by_classification=tuple(sorted(by_cls, key=lambda kc: (-kc[1], kc[0]))),
        ledger=raw.ledger,
        ledger_dropped=tuple(sorted(raw.ledger_dropped)),
        forgotten=raw.forgotten,
    )


def voice_stats(store: Store) -> VoiceStats:
    """The index's health block: counts, classified share, date range, breakdowns."""
    from memgraph.store.interfaces import indexes

    return to_stats(indexes(store).voice.stats())


# -- when nothing matched -------------------------------------------------------------

_FILTER_FLAGS = (
    ("word", "--word"),
    ("project", "--project"),
    ("type", "--type"),
    ("session", "--session"),
    ("since", "--since"),
    ("until", "--until"),
    ("as_of", "--as-of"),
    ("recent", "--recent"),
    ("window", "--window"),
)
_CLEARED = {"word": False, "recent": False}
MAX_LISTED = 30


def _with(q: VoiceQuery, **changes: object) -> VoiceQuery:
    values = {f: getattr(q, f) for f in VoiceQuery.__annotations__}
    values.update(changes)
    return VoiceQuery(**values)


def _flag(q: VoiceQuery, name: str, flag: str) -> str:
    value = getattr(q, name)
    if value is True:
        return flag
    if isinstance(value, datetime):
        return f"{flag} {value:%Y-%m-%d %H:%M}"
    return f"{flag} {value}"


def _listed(values: list[str]) -> str:
    shown = ", ".join(values[:MAX_LISTED])
    more = f" (+{len(values) - MAX_LISTED} more)" if len(values) > MAX_LISTED else ""
    return (shown or "(none yet)") + more


def check_filter_values(
    q: VoiceQuery,
    run: Callable[[VoiceSearch], list[VoiceRow]],
    stats: Callable[[], VoiceIndexStats],
) -> None:
    """UsageError listing the valid values when ``--type``/``--project`` names nothing
    the index has (asked only after a search found nothing, so hits cost nothing)."""
    kind = (q.type or "").lower()
    unknown = kind and kind != UNCLASSIFIED and kind not in LABELS
    if unknown and not run(VoiceSearch(classification=q.type, limit=1)):
        seen = [str(k) for k, _ in stats().by_classification if k is not None]
        extra = sorted({k for k in seen if k.lower() not in LABELS})
        raise UsageError(
            f"--type: unknown class {q.type!r}; valid: {_listed([*LABELS, UNCLASSIFIED, *extra])}"
        )
    if q.project and not run(VoiceSearch(project=q.project, limit=1)):
        names = sorted({str(k) for k, _ in stats().by_constellation if k})
        raise UsageError(
            f"--project: no project {q.project[:60]!r} in the voice index; known: {_listed(names)}"
        )


def session_prefix_line(q: VoiceQuery, session_ids: Iterable[str]) -> str | None:
    """One stderr line when ``--session`` was a prefix the hits show to match more than
    one session (listings print ids cut to 8 characters, and two can share them)."""
    if not q.session:
        return None
    found = sorted({s for s in session_ids if s})
    if len(found) < 2:
        return None
    shown = ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")
    return (
        f"note: --session {q.session} matches {len(found)} sessions in these hits ({shown}); "
        "give more of the id to see one"
    )


def no_hits_line(
    q: VoiceQuery,
    run: Callable[[VoiceSearch], list[VoiceRow]],
    stats: Callable[[], VoiceIndexStats],
    only: Sequence[str] | None = None,
) -> str:
    """One line saying nothing matched and, when filters excluded every match, which
    (each filter whose removal alone brings hits back). ``run``/``stats`` are the
    voice index's calls. Raises UsageError for an unknown ``--type``/``--project``."""
    check_filter_values(q, run, stats)
    keyword = q.query.strip()
    # at most 80 characters of the query, as recall says it: a pasted page of text
    # came back whole (100 kB on stderr)
    what = f"for {' '.join(keyword.split())[:80]!r}" if keyword else "for these filters"
    active = [(n, f) for n, f in _FILTER_FLAGS if getattr(q, n)]

    def found(query: VoiceQuery) -> bool:
        request = search_request(_with(query, limit=1), only if query.window else None)
        return request is not None and bool(run(request))

    if not q.include_commands and found(_with(q, include_commands=True)):
        return f"no hits {what}: every match is a bare slash command (--all shows them)"
    if not keyword or not active:
        return f"no hits {what}"

    if not found(_with(q, **{n: _CLEARED.get(n) for n, _ in active})):
        return f"no hits {what} (none without filters either)"
    alone = [_flag(q, n, f) for n, f in active if found(_with(q, **{n: _CLEARED.get(n)}))]
    if alone:
        return f"no hits {what}: every match is excluded by {' or by '.join(alone)}"
    together = ", ".join(_flag(q, n, f) for n, f in active)
    return f"no hits {what}: every match is excluded by the filters together ({together})"


def explain_no_hits(store: Store, q: VoiceQuery) -> str:
    """``no_hits_line`` on an open store (the typer command, MCP)."""
    from memgraph.store.interfaces import indexes

    voice = indexes(store).voice
    only = _window_messages(store, q.window) if q.window else None
    return no_hits_line(q, voice.search, voice.stats, only)
