"""Rows and requests of the profile-owned indexes (see ``memgraph.store.interfaces``).

A profile maps its documents to these rows and calls the index interfaces; a
store backend maps them to its tables. Stdlib only, and not even ``typing`` or
``dataclasses`` at run time (``dataclasses`` imports ``inspect``, ~10 ms): the
fast paths (``memgraph voice``, ``memgraph note``) build these records too.
Times are fixed-width UTC text (``iso``), the form every backend sorts as time.
"""

from __future__ import annotations

from datetime import UTC, datetime

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from dataclasses import dataclass as record  # mypy checks the records as dataclasses
    from typing import Any
else:

    def record(frozen: bool = True) -> object:
        return light_record


def light_record(cls: Any) -> Any:
    """A frozen dataclass look-alike: __init__ (positional or keyword, class
    defaults), __eq__, __hash__, __repr__, immutability."""
    fields = tuple(cls.__annotations__)
    defaults = {f: cls.__dict__[f] for f in fields if f in cls.__dict__}
    name = cls.__name__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if not kwargs and len(args) == len(fields):  # every field, in order: the common case
            for f, value in zip(fields, args, strict=True):
                object.__setattr__(self, f, value)
            return
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


def as_dict(row: Any) -> dict[str, Any]:
    """A record's fields by name (``dataclasses.asdict`` for these records, shallow)."""
    return {f: getattr(row, f) for f in row.__annotations__}


def iso(dt: datetime) -> str:
    """Fixed-width UTC text (``2026-04-14T14:32:00.000000Z``): sorts as time.
    The same text as ``memgraph.store.sqlite.iso`` (isoformat keeps a year's zeros)."""
    return dt.astimezone(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


# -- voice message index ---------------------------------------------------------

CANDIDATES = 2000  # common-word queries rank at most this many newest matches
COMMON_SHARE = 10  # a word in >= 1/10 of all nodes is common (idf <= log 9)


# A bare slash command: the message body is "/" + a letter + no whitespace (ASCII
# whitespace; every backend tests exactly this: memory with this regex, SQLite
# with GLOB, PostgreSQL with a POSIX regex).
BARE_COMMAND = r"/[A-Za-z][^ \t\n\r\f\v]*"


@record(frozen=True)
class VoiceSearch:
    """One voice index query. Empty ``query`` lists instead of ranking.

    Filters (all optional, AND-ed): ``since``/``until`` bound the message time
    (inclusive), ``as_of`` the ingest time (inclusive; a message version superseded
    after ``as_of`` counts, later ones do not: without ``as_of`` superseded versions
    are left out), ``project`` matches the
    project or the constellation case-insensitively, ``classification`` matches
    case-insensitively (``unclassified`` selects messages with none),
    ``session_prefix`` is a prefix of the session id (a safe name: no
    wildcard characters), ``only`` restricts to these message node ids,
    ``recent_sessions`` > 0 keeps the N sessions with the newest messages.

    Ranking of a keyword query (the voice profile's law, carried here so every
    backend ranks alike): ``query`` is what a person typed (bare words AND-ed,
    "phrases", prefix*; see ``memgraph.fts``), matched against the message text
    only (not the title); ``score = bm25 * (0.5 + 0.5 / (1 + age_days /
    recency_days))`` (bm25 lower is better, as SQLite reports it), age measured
    from the newest indexed message; messages classified ``demote`` come after
    every other hit; ties by time (newest first) then node id. ``limit`` rows.
    Unless ``word``, when those whole-word hits are fewer than ``limit``, they are
    followed by the messages that contain every term of ``memgraph.fts.query_terms``
    as a case-insensitive substring (and are not whole-word hits): newest indexed
    first (insertion order), ``demote`` ones last among them, score 0.0. Terms of
    1 character match whole words only (no substring tier); a 2-character term is
    a substring too (CJK words).

    Common words (``common_plan``, notes/search.md "Common words"): when more than
    ``candidates`` messages meet the filters and match as whole words, and the
    query's rarest counted word (``memgraph.fts.plan_words``: the words of its
    terms that are not prefix*) is in at least 1/``COMMON_SHARE`` of all nodes
    (document frequency over title and body, N = the node count: BM25's own idf
    figures), only the ``max(candidates, limit)`` matches inserted last (index order: SQLite
    rowid, PostgreSQL seq, in-memory insertion order) are ranked, by the law above;
    when that word is in at least half of all nodes (idf <= 0: BM25 clamps it to
    ~0, the word tells nothing) they are ordered by time instead (``demote`` last,
    newest first, then node id), score 0.0. At most ``candidates`` matches: the
    full ranking, always (so a bounded plan never runs the substring tier).
    A listing returns the newest ``limit`` rows, oldest first, score 0.0.
    ``bare_commands`` False leaves out messages whose whole text is one bare slash
    command (``BARE_COMMAND``: ``/model``, ``/exit``, ``/clear`` and nothing else).
    """

    query: str = ""
    since: str | None = None
    until: str | None = None
    as_of: str | None = None
    project: str | None = None
    classification: str | None = None
    unclassified: bool = False
    session_prefix: str | None = None
    only: tuple[str, ...] | None = None
    recent_sessions: int = 0
    limit: int = 20
    recency_days: float = 180.0
    demote: str = "command"
    word: bool = False  # whole words only: no substring tier
    candidates: int = CANDIDATES  # common words: rank only this many newest matches
    bare_commands: bool = True  # False: no message that is only "/command"


def common_plan(nodes: int, rarest: int | None) -> str:
    """How a keyword query ranks (``VoiceSearch``): ``"full"``, ``"bounded"`` (the
    newest candidates by score) or ``"recent"`` (the newest candidates by time), from
    the node count and the document frequency of the query's rarest counted word
    (None: no counted word). Bounded plans apply only past ``candidates`` matches."""
    if rarest is None or nodes <= 0 or rarest * COMMON_SHARE < nodes:
        return "full"
    return "recent" if rarest * 2 >= nodes else "bounded"


@record(frozen=True)
class VoiceScope:
    """Which live voice messages a turn ranking considers (all given filters AND-ed,
    exact matches): ``project``, ``session_id``, ``constellation``, and ``since``
    (message time at or after, fixed-width UTC text)."""

    project: str | None = None
    session_id: str | None = None
    constellation: str | None = None
    since: str | None = None


@record(frozen=True)
class VoiceRow:
    """A live (non-retired) voice message as the index holds it."""

    score: float
    ts: str
    constellation: str
    session_id: str
    project: str
    text: str
    classification: str | None
    confidence: float | None
    voice_page: str | None
    node_id: str


@record(frozen=True)
class VoiceIndexStats:
    """Aggregates over the index; breakdowns unordered (``None``: unclassified)."""

    messages: int
    sessions: int
    pages: int
    classified: int
    first: str | None
    last: str | None
    by_constellation: tuple[tuple[str, int], ...]
    by_classification: tuple[tuple[str | None, int], ...]
    # the ingest ledger's totals (lines, captured, filtered, dropped) and dropped
    # reasons ("file:<reason>" for files not read); zeros where no ledger is kept
    ledger: tuple[int, int, int, int] = (0, 0, 0, 0)
    ledger_dropped: tuple[tuple[str, int], ...] = ()
    # forgotten tombstones: kept (with their receipts) but counted in none of the above
    forgotten: int = 0


# -- ingest ledger ----------------------------------------------------------------

# (path, lines, captured, filtered {rule: n}, dropped {reason: n}, file_error,
#  redacted {kind: n}): the latest accounting of one transcript (profiles.voice.ledger)
LedgerRow = tuple[str, int, int, dict[str, int], dict[str, int], str | None, dict[str, int]]
# Redaction counts (profiles.voice.privacy) ride in the stored ``filtered`` JSON under
# ``redacted:<kind>`` keys (no schema change); they are not lines, so line sums leave
# them out.
LEDGER_REDACTED = "redacted:"


def ledger_columns(row: LedgerRow) -> tuple[str, int, int, str, str, str | None]:
    """``row`` as its stored columns (path, lines, captured, filtered, dropped, file_error)."""
    import json

    p, n, c, f, d, e, r = row
    filtered = json.dumps({**f, **{LEDGER_REDACTED + k: v for k, v in r.items()}}, sort_keys=True)
    return p, n, c, filtered, json.dumps(d, sort_keys=True), e


def ledger_row(
    path: object, lines: object, captured: object, filtered: object, dropped: object, error: object
) -> LedgerRow:
    """A stored row back; damaged JSON comes back as a ``damaged_ledger_row`` file error."""
    import json

    try:
        f, d = json.loads(str(filtered)), json.loads(str(dropped))
        if not isinstance(f, dict) or not isinstance(d, dict):
            raise ValueError
        counts = {str(k): int(v) for k, v in f.items()}
        return (
            str(path), int(str(lines)), int(str(captured)),
            {k: v for k, v in counts.items() if not k.startswith(LEDGER_REDACTED)},
            {str(k): int(v) for k, v in d.items()},
            str(error) if error else None,
            {k[len(LEDGER_REDACTED):]: v for k, v in counts.items()
             if k.startswith(LEDGER_REDACTED)},
        )  # fmt: skip
    except (ValueError, TypeError):
        return (str(path), 0, 0, {}, {}, "damaged_ledger_row", {})


def ledger_totals(
    rows: list[LedgerRow],
) -> tuple[tuple[int, int, int, int], tuple[tuple[str, int], ...]]:
    """(lines, captured, filtered, dropped) and dropped counts by reason ("file:<reason>"
    for files not read), sorted by reason: ``VoiceIndexStats.ledger`` / ``ledger_dropped``."""
    reasons: dict[str, int] = {}
    lines = captured = filtered = dropped = 0
    for _, n, c, f, d, e, _r in rows:
        lines, captured = lines + n, captured + c
        filtered += sum(f.values())
        dropped += sum(d.values())
        for k, v in d.items():
            reasons[k] = reasons.get(k, 0) + v
        if e is not None:
            reasons["file:" + e] = reasons.get("file:" + e, 0) + 1
    return (lines, captured, filtered, dropped), tuple(sorted(reasons.items()))


# -- transcript registry ----------------------------------------------------------


@record(frozen=True)
class RegistryRow:
    """One processed transcript file (``profiles.voice.backfill``)."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    session_id: str | None
    status: str  # paged | skipped | error
    reason: str | None  # e.g. too_few_messages:2, no_messages, the error line
    message_count: int
    page: str | None  # first page written, relative to the vault
    processed_at: str


# -- session notes index and the lean note append ---------------------------------


@record(frozen=True)
class SessionRow:
    """A started session as the session index holds it."""

    session_id: str
    node_id: str
    persona: str
    workspace: str
    started_at: str
    harness: str
    lifecycle: str


@record(frozen=True)
class NoteIndexRow:
    """An active note of a session, in view order (ts, node id)."""

    ts: str
    text: str
    harness: str
    node_id: str


@record(frozen=True)
class NodeRow:
    """A node as the lean writer hands it over: indexed columns plus the JSON doc."""

    id: str
    profile: str
    kind: str
    domain_id: str
    lifecycle: str
    valid_from: str | None
    valid_to: str | None
    ingested_at: str | None
    updated_at: str
    title: str
    body: str
    doc: str


@record(frozen=True)
class EdgeRow:
    id: str
    source_id: str
    target_id: str
    kind: str
    profile: str
    lifecycle: str
    doc: str


@record(frozen=True)
class ReceiptRow:
    id: str
    patch_id: str
    op: str
    target_id: str
    at: str
    doc: str


@record(frozen=True)
class PatchRow:
    id: str
    status: str
    created_at: str
    doc: str


@record(frozen=True)
class NoteWrite:
    """Everything one lean note writes: exactly what ``apply_patch`` would store
    for the same upsert_node + upsert_edge patch (``profiles.session.lean``)."""

    node: NodeRow
    edge: EdgeRow
    receipts: tuple[ReceiptRow, ...]
    patch: PatchRow


@record(frozen=True)
class GraphWrite:
    """Every row one lean capture writes (``profiles.voice.lean``): new nodes, their
    edges, one receipt per effect and the applied patch, exactly what ``apply_patch``
    would store for the same patch of upserts of nodes and edges that do not exist yet."""

    nodes: tuple[NodeRow, ...]
    edges: tuple[EdgeRow, ...]
    receipts: tuple[ReceiptRow, ...]
    patch: PatchRow


# -- term statistics ----------------------------------------------------------------


@record(frozen=True)
class TermFrequencies:
    """Document frequency of each asked term over every node's text;
    ``nodes`` is the node count (an upper bound is fine: the largest row id)."""

    nodes: int
    df: tuple[tuple[str, int], ...]


# -- activity lookups -------------------------------------------------------------


@record(frozen=True)
class ActivitySource:
    """Live nodes of one profile and kind, in these lifecycle states."""

    profile: str
    kind: str
    states: tuple[str, ...]


@record(frozen=True)
class ActivityRow:
    """A node in a time range, reduced to what activity windows read.
    ``text`` is the claim for ``message`` nodes and '' for any other kind."""

    kind: str
    node_id: str
    valid_from: str
    attributes: dict[str, Any]
    text: str


__all__ = [
    "ActivityRow",
    "ActivitySource",
    "EdgeRow",
    "NodeRow",
    "NoteIndexRow",
    "NoteWrite",
    "PatchRow",
    "ReceiptRow",
    "RegistryRow",
    "SessionRow",
    "TermFrequencies",
    "VoiceIndexStats",
    "VoiceRow",
    "VoiceSearch",
    "as_dict",
    "common_plan",
    "iso",
    "light_record",
    "record",
]
