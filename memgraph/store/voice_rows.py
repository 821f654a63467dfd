"""The voice message index's query and rows (``memgraph.store.interfaces.VoiceIndex``,
``TurnIndex``): ``VoiceSearch`` with the ranking law every backend follows, its
common-word plans (``common_plan``), ``VoiceScope`` for a turn ranking, and what a
search and the aggregates return (``VoiceRow``, ``VoiceIndexStats``).

Records as ``memgraph.store.rows`` makes them: stdlib only, no ``dataclasses``
at run time (the fast paths build them).
"""

from __future__ import annotations

from memgraph.store.rows import record

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


__all__ = [
    "BARE_COMMAND",
    "CANDIDATES",
    "COMMON_SHARE",
    "VoiceIndexStats",
    "VoiceRow",
    "VoiceScope",
    "VoiceSearch",
    "common_plan",
]
