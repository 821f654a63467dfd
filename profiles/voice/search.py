"""Voice search: the read path over the voice index (node FTS5 + ``voice_index``).

``search_voice(store, VoiceQuery(...)) -> list[VoiceHit]`` and
``voice_stats(store) -> VoiceStats``. The printed forms live in
``memgraph.cli.voice_fast`` (shared by both CLI paths).

Module-level imports are the standard library plus stdlib-only memgraph modules
(errors, fts) ON PURPOSE: ``memgraph.cli.voice_fast`` imports this module to
answer ``memgraph voice ...`` without pydantic (~200 ms) or typer, so the typer
command and the fast path run the same query and formatting code.
Do not add heavy imports at module level: even ``typing`` and ``dataclasses``
(~10 ms) are kept out, see ``record`` below.

Ranking (see notes/search.md): ``score = bm25 * recency`` with
``recency = 0.5 + 0.5 / (1 + age_days / 180)``, age measured from the newest
indexed message (not the wall clock, so the same store always ranks the same);
messages classified ``command`` sort after every other hit.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, date, datetime, timedelta

from memgraph.errors import InvalidId, MemgraphError, StoreError, UsageError
from memgraph.fts import to_fts5_query

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from dataclasses import dataclass as record  # mypy checks the records as dataclasses
    from typing import Any

    from memgraph.store import Store
else:

    def record(frozen: bool = True) -> object:
        return _light_record


def _light_record(cls: Any) -> Any:
    """A frozen dataclass look-alike: __init__ (positional or keyword, class
    defaults), __eq__, __hash__, __repr__, immutability. ``dataclasses`` itself
    imports ``inspect``, which is most of the fast path's import budget."""
    fields = tuple(cls.__annotations__)
    defaults = {f: cls.__dict__[f] for f in fields if f in cls.__dict__}
    name = cls.__name__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(fields):
            raise TypeError(f"{name}() takes {len(fields)} arguments")
        values = dict(zip(fields, args, strict=False))
        for key, value in kwargs.items():
            if key not in fields or key in values:
                raise TypeError(f"{name}() got an unexpected or repeated argument {key!r}")
            values[key] = value
        for f in fields:
            if f not in values and f not in defaults:
                raise TypeError(f"{name}() missing argument {f!r}")
            object.__setattr__(self, f, values.get(f, defaults.get(f)))

    def __setattr__(self: Any, key: str, value: Any) -> None:
        raise AttributeError(f"{name} is immutable")

    def _values(self: Any) -> tuple[Any, ...]:
        return tuple(getattr(self, f) for f in fields)

    def __eq__(self: Any, other: object) -> bool:
        return type(other) is type(self) and _values(self) == _values(other)

    def __repr__(self: Any) -> str:
        return f"{name}({', '.join(f'{f}={getattr(self, f)!r}' for f in fields)})"

    cls.__init__, cls.__setattr__, cls.__eq__, cls.__repr__ = (
        __init__,
        __setattr__,
        __eq__,
        __repr__,
    )
    cls.__hash__ = lambda self: hash(_values(self))
    return cls


DEFAULT_LIMIT = 20  # keyword search
BROWSE_LIMIT = 500  # no keyword (--recent, filters only): newest N, printed oldest first
RECENT_SESSIONS = 10
RECENCY_DAYS = 180.0
UNCLASSIFIED = "unclassified"  # `--type unclassified` selects messages not yet classified
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


# SQLite integers are 64-bit; a larger --limit means "all of them" anyway
MAX_QUERY_LIMIT = 1 << 62


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
    # filtered, dropped, then (reason, count) for dropped lines and unread files
    ledger: tuple[int, int, int, int] = (0, 0, 0, 0)
    ledger_dropped: tuple[tuple[str, int], ...] = ()

    @property
    def unclassified(self) -> int:
        return self.messages - self.classified


# -- parsing -------------------------------------------------------------------

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_when(text: str, *, end_of_day: bool = False, flag: str = "date") -> datetime:
    """``YYYY-MM-DD`` or an ISO timestamp -> aware UTC; naive timestamps are UTC.

    A bare date means its first microsecond, or its last with ``end_of_day``
    (so ``--until 2026-04-14`` includes that whole day).
    """
    s = text.strip()
    try:
        if _DAY.fullmatch(s):
            d = date.fromisoformat(s)
            start = datetime(d.year, d.month, d.day, tzinfo=UTC)
            dt = start + timedelta(days=1, microseconds=-1) if end_of_day else start
        else:
            dt = datetime.fromisoformat(s)
            dt = (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).astimezone(UTC)
        if not 1000 <= dt.year <= 9999:
            raise ValueError("out of range")  # 4-digit years keep stored text in time order
    except (ValueError, OverflowError):
        raise UsageError(
            f"{flag}: bad date {text[:60]!r}; use YYYY-MM-DD or an ISO timestamp "
            "such as 2026-04-14T14:32:00Z"
        ) from None
    return dt


def iso(dt: datetime) -> str:
    """Same fixed-width text as ``memgraph.store.sqlite.iso`` (kept stdlib-only here)."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _ts(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text).astimezone(UTC)
    except ValueError:
        return _EPOCH


# -- querying ------------------------------------------------------------------


def connection_of(txn: object) -> sqlite3.Connection:
    conn = getattr(txn, "conn", None)
    if not isinstance(conn, sqlite3.Connection):
        raise StoreError("the voice index lives in the SQLite store; this store has none")
    return conn


def _filters(q: VoiceQuery) -> tuple[list[str], list[object]]:
    where = ["1"]  # the index holds live (non-retired) messages only
    args: list[object] = []
    if q.since is not None:
        where.append("v.ts >= ?")
        args.append(iso(q.since))
    if q.until is not None:
        where.append("v.ts <= ?")
        args.append(iso(q.until))
    if q.as_of is not None:
        where.append("v.ingested_at <= ?")
        args.append(iso(q.as_of))
    if q.project:
        where.append("(v.project = ? COLLATE NOCASE OR v.constellation = ? COLLATE NOCASE)")
        args += [q.project, q.project]
    if q.type:
        if q.type.lower() == UNCLASSIFIED:
            where.append("v.classification IS NULL")
        else:
            where.append("v.classification = ? COLLATE NOCASE")
            args.append(q.type)
    if q.session:
        from memgraph.ids import is_safe_name  # hashlib: only when a session is asked for

        if not is_safe_name(q.session):
            raise InvalidId(f"--session: {q.session[:80]!r} is not a session id")
        # safe names hold no GLOB metacharacters, so this is an indexed prefix match
        where.append("v.session_id GLOB ?")
        args.append(q.session + "*")
    return where, args


def _recent_sessions(conn: sqlite3.Connection, where: list[str], args: list[object]) -> list[str]:
    found: list[str] = []
    rows = conn.execute(
        f"SELECT v.session_id FROM voice_index AS v WHERE {' AND '.join(where)} ORDER BY v.ts DESC",
        args,
    )
    for (sid,) in rows:  # walks the ts index newest first; stops after 10 sessions
        if sid not in found:
            found.append(sid)
            if len(found) == RECENT_SESSIONS:
                break
    return found


_HIT_COLUMNS = """v.ts, v.constellation, v.session_id, v.project,
    coalesce(json_extract(n.doc, '$.claim'), ''), v.classification, v.confidence,
    v.voice_page, v.node_id"""


def search_conn(
    conn: sqlite3.Connection, q: VoiceQuery, only: Sequence[str] | None = None
) -> list[VoiceHit]:
    """The query itself, on an open connection to a store that has ``voice_index``.

    ``only``: restrict to these message node ids (an activity window's members).
    """
    if q.limit is not None and q.limit < 1:
        raise UsageError("--limit must be at least 1")
    match = to_fts5_query(q.query) if q.query.strip() else ""
    if q.query.strip() and not match:
        return []  # only punctuation/operators: nothing FTS5 could find
    has_filter = any((q.since, q.until, q.as_of, q.project, q.type, q.session, q.recent, q.window))
    if not match and not has_filter:
        raise UsageError(
            'nothing to search: give a query ("keyword"), --recent, --stats or a filter '
            "such as --session ID or --since DATE"
        )
    where, args = _filters(q)
    if only is not None:
        if not only:
            return []
        where.append(f"v.node_id IN ({','.join('?' * len(only))})")
        args += list(only)
    if q.recent:
        sessions = _recent_sessions(conn, where, args)
        if not sessions:
            return []
        where.append(f"v.session_id IN ({','.join('?' * len(sessions))})")
        args += sessions
    clause = " AND ".join(where)
    if not match:
        limit = min(q.limit or BROWSE_LIMIT, MAX_QUERY_LIMIT)
        rows = conn.execute(
            f"SELECT 0.0, {_HIT_COLUMNS} FROM voice_index AS v JOIN nodes AS n "
            f"ON n.rowid = v.rowid WHERE {clause} ORDER BY v.ts DESC, v.node_id DESC LIMIT ?",
            [*args, limit],
        ).fetchall()
        rows.reverse()  # listings read oldest to newest, like a transcript
        return [_hit(r) for r in rows]
    ref = conn.execute("SELECT julianday(max(ts)) FROM voice_index").fetchone()[0] or 0.0
    # node_fts drives the join (CROSS JOIN fixes the order): one FTS scan, then
    # rowid lookups, instead of probing FTS once per filtered index row.
    sql = f"""
        WITH m AS (
            SELECT v.rowid AS rid, v.ts AS ts, v.node_id AS nid,
                   coalesce(v.classification = 'command', 0) AS tier,
                   bm25(node_fts, 0.0, 1.0)
                     * (0.5 + 0.5 / (1.0 + max(0.0, ? - v.day) / {RECENCY_DAYS})) AS score
            FROM node_fts CROSS JOIN voice_index AS v ON v.rowid = node_fts.rowid
            WHERE node_fts MATCH ? AND {clause}
            ORDER BY tier, score, ts DESC, nid LIMIT ?
        )
        SELECT m.score, {_HIT_COLUMNS}
        FROM m JOIN voice_index AS v ON v.rowid = m.rid JOIN nodes AS n ON n.rowid = m.rid
        ORDER BY m.tier, m.score, m.ts DESC, m.nid"""
    # Match the message text (body) only: the title is a cut copy of its first
    # line, and a word cut in half there must not match.
    params = [ref, f"body : ({match})", *args, min(q.limit or DEFAULT_LIMIT, MAX_QUERY_LIMIT)]
    try:
        rows = conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        raise StoreError(f"voice search failed: {exc}") from None
    return [_hit(r) for r in rows]


def _hit(row: tuple[Any, ...]) -> VoiceHit:
    score, ts, const, sid, project, text, cls, conf, page, nid = row
    return VoiceHit(
        timestamp=_ts(ts),
        constellation=const,
        session_id=sid,
        project=project,
        text=text if isinstance(text, str) else str(text),
        classification=cls,
        confidence=None if conf is None else float(conf),
        voice_page=page,
        node_id=nid,
        score=float(score),
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
    only = _window_messages(store, query.window) if query.window else None
    with store.reader() as txn:
        return search_conn(connection_of(txn), query, only)


def stats_conn(conn: sqlite3.Connection) -> VoiceStats:
    # Each aggregate is answered from its own index (covering scans), not the table.
    messages, classified, first, last = conn.execute(
        "SELECT count(*), count(classification), min(ts), max(ts) FROM voice_index"
    ).fetchone()
    sessions = conn.execute("SELECT count(DISTINCT session_id) FROM voice_index").fetchone()[0]
    pages = conn.execute("SELECT count(DISTINCT voice_page) FROM voice_index").fetchone()[0]
    by_const = conn.execute(
        "SELECT constellation, count(*) AS c FROM voice_index "
        "GROUP BY constellation ORDER BY c DESC, constellation"
    ).fetchall()
    by_cls = conn.execute(
        f"SELECT coalesce(classification, '{UNCLASSIFIED}'), count(*) AS c FROM voice_index "
        "GROUP BY classification ORDER BY c DESC, 1"
    ).fetchall()
    ledger, ledger_dropped = _ledger_totals(conn)
    return VoiceStats(
        ledger=ledger,
        ledger_dropped=ledger_dropped,
        messages=int(messages),
        sessions=int(sessions),
        pages=int(pages),
        classified=int(classified),
        first=_ts(first) if first else None,
        last=_ts(last) if last else None,
        by_constellation=tuple((str(k), int(c)) for k, c in by_const),
        by_classification=tuple((str(k), int(c)) for k, c in by_cls),
    )


def _ledger_totals(
    conn: sqlite3.Connection,
) -> tuple[tuple[int, int, int, int], tuple[tuple[str, int], ...]]:
    if not conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'voice_ledger'"
    ).fetchone():
        return (0, 0, 0, 0), ()
    lines, captured = conn.execute(
        "SELECT coalesce(sum(lines), 0), coalesce(sum(captured), 0) FROM voice_ledger"
    ).fetchone()
    sums = {}
    for column in ("filtered", "dropped"):
        sums[column] = conn.execute(
            "SELECT coalesce(sum(j.value), 0) FROM voice_ledger, "
            f"json_each(voice_ledger.{column}) j WHERE json_valid(voice_ledger.{column})"
        ).fetchone()[0]
    reasons = conn.execute(
        "SELECT j.key, sum(j.value) FROM voice_ledger, json_each(voice_ledger.dropped) j "
        "WHERE json_valid(voice_ledger.dropped) GROUP BY j.key "
        "UNION ALL SELECT 'file:' || file_error, count(*) FROM voice_ledger "
        "WHERE file_error IS NOT NULL GROUP BY file_error ORDER BY 1"
    ).fetchall()
    totals = (int(lines), int(captured), int(sums["filtered"]), int(sums["dropped"]))
    return totals, tuple((str(k), int(c)) for k, c in reasons)


def voice_stats(store: Store) -> VoiceStats:
    """The index's health block: counts, classified share, date range, breakdowns."""
    with store.reader() as txn:
        return stats_conn(connection_of(txn))
