"""SQLite voice message index: implements ``VoiceIndex`` (search, stats, a session's
messages, reindex) over the tables of ``voice_schema.py`` (schema versions 3-8), which
every node write keeps in step inside its own transaction. ``voice_tri``
(``voice_substring.py``) is the trigram index behind substring search.

Stdlib only at import: ``memgraph voice`` runs this module without pydantic.
"""

from __future__ import annotations

import re
import sqlite3

from memgraph.errors import StoreError
from memgraph.fts import plan_words, query_terms, to_fts5_query
from memgraph.store.rows import as_dict
from memgraph.store.sqlite_ext import voice_substring as substring
from memgraph.store.sqlite_ext.common_words import frequencies, newest_floor
from memgraph.store.sqlite_ext.turn_index import SQLiteTurnIndex
from memgraph.store.sqlite_ext.voice_schema import (
    INSERT_ROW,
    IS_MESSAGE,
    MIGRATIONS,
    NEW_NODE_ROWS,
    PACKED_DOC_TRIGGERS,
    columns,
)
from memgraph.store.voice_rows import (
    BARE_COMMAND,
    VoiceIndexStats,
    VoiceRow,
    VoiceSearch,
    common_plan,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.documents import MemoryNode
    from memgraph.store.sqlite_ext.base import Conns


def _filters(q: VoiceSearch) -> tuple[list[str], list[object]]:
    # the index holds live (non-retired) messages; a forgotten one is a tombstone
    where = ["v.lifecycle != 'forgotten'"]
    args: list[object] = []
    if q.since is not None:
        where.append("v.ts >= ?")
        args.append(q.since)
    if q.until is not None:
        where.append("v.ts <= ?")
        args.append(q.until)
    if q.as_of is not None:
        where.append("v.ingested_at <= ?")
        args.append(q.as_of)
        # a version superseded after as_of was the current text then
        where.append(
            "(v.lifecycle != 'superseded' OR (SELECT json_extract(mg_doc(x.doc), "
            "'$.attributes.superseded_at') FROM nodes AS x WHERE x.rowid = v.rowid) > ?)"
        )
        args.append(q.as_of)
    else:
        # a transcript record whose text changed: only its newest version is current
        where.append("v.lifecycle != 'superseded'")
    if q.project:
        where.append("(v.project = ? COLLATE NOCASE OR v.constellation = ? COLLATE NOCASE)")
        args += [q.project, q.project]
    if q.unclassified:
        where.append("v.classification IS NULL")
    elif q.classification:
        where.append("v.classification = ? COLLATE NOCASE")
        args.append(q.classification)
    if q.session_prefix:
        # safe names hold no GLOB metacharacters, so this is an indexed prefix match
        where.append("v.session_id GLOB ?")
        args.append(q.session_prefix + "*")
    if q.only is not None:
        where.append(f"v.node_id IN ({','.join('?' * len(q.only))})")
        args += list(q.only)
    if not q.bare_commands:
        # voice_rows.BARE_COMMAND; the title (first line, short) is tested first so the
        # body is read only for the few messages that start with "/"
        where.append(
            "NOT EXISTS (SELECT 1 FROM nodes AS x WHERE x.rowid = v.rowid"
            " AND x.title GLOB '/[A-Za-z]*' AND x.body GLOB '/[A-Za-z]*'"
            " AND x.body NOT GLOB ?)"
        )
        args.append("*[ \t\n\r\f\v]*")
    return where, args


def _recent_sessions(
    conn: sqlite3.Connection, where: list[str], args: list[object], n: int
) -> list[str]:
    found: list[str] = []
    rows = conn.execute(
        f"SELECT v.session_id FROM voice_index AS v WHERE {' AND '.join(where)} ORDER BY v.ts DESC",
        args,
    )
    for (sid,) in rows:  # walks the ts index newest first; stops after n sessions
        if sid not in found:
            found.append(sid)
            if len(found) == n:
                break
    return found


# json_extract ends a text at U+0000 (SQLite's C string): the few documents whose
# JSON holds the escape come whole (the last column), their claim parsed in Python
# (mg_doc inflates a row once, however many times it is called on it)
_HIT_COLUMNS = """v.ts, v.constellation, v.session_id, v.project,
    coalesce(json_extract(mg_doc(n.doc), '$.claim'), ''), v.classification, v.confidence,
    v.voice_page, v.node_id,
    CASE WHEN instr(mg_doc(n.doc), '\\u0000') > 0 THEN mg_doc(n.doc) END"""


def _claim(text: object, doc: object) -> str:
    if isinstance(doc, str):
        import json  # (not at import: the lean voice path is start-up bound)

        claim = json.loads(doc).get("claim")
        return claim if isinstance(claim, str) else ""
    return text if isinstance(text, str) else str(text)


def _row(r: tuple[object, ...]) -> VoiceRow:
    score, ts, const, sid, project, text, cls, conf, page, nid, doc = r
    return VoiceRow(
        score=float(score),  # type: ignore[arg-type]
        ts=str(ts),
        constellation=str(const),
        session_id=str(sid),
        project=str(project),
        text=_claim(text, doc),
        classification=None if cls is None else str(cls),
        confidence=None if conf is None else float(conf),  # type: ignore[arg-type]
        voice_page=None if page is None else str(page),
        node_id=str(nid),
    )


_BARE = re.compile(BARE_COMMAND)


def search_conn(conn: sqlite3.Connection, q: VoiceSearch) -> list[VoiceRow]:
    """``VoiceIndex.search`` on an open connection (inside a read snapshot).

    ``bare_commands=False``: bare slash commands are rare, and testing every
    candidate row against its node costs ~50% more on a common word. So the search
    runs without that filter first and, only when a bare command is among the rows
    it returns, again with it. Same answer: leaving out rows that are not in the
    top ``limit`` cannot change the top ``limit`` (whole-word or substring tier).
    ``recent_sessions`` picks sessions by their newest message, which a bare command
    can be: that case always filters in SQL, as do listings (newest first, they stop
    at ``limit`` rows anyway)."""
    if not q.bare_commands and q.recent_sessions == 0 and q.query.strip():
        rows = _search_conn(conn, VoiceSearch(**{**as_dict(q), "bare_commands": True}))
        if not any(_BARE.fullmatch(r.text) for r in rows):
            return rows
    return _search_conn(conn, q)


def _search_conn(conn: sqlite3.Connection, q: VoiceSearch) -> list[VoiceRow]:
    match = to_fts5_query(q.query) if q.query.strip() else ""
    if q.query.strip() and not match:
        return []
    if q.only is not None and not q.only:
        return []
    where, args = _filters(q)
    if q.recent_sessions > 0:
        sessions = _recent_sessions(conn, where, args, q.recent_sessions)
        if not sessions:
            return []
        where.append(f"v.session_id IN ({','.join('?' * len(sessions))})")
        args += sessions
    clause = " AND ".join(where)
    if not match:
        rows = conn.execute(
            f"SELECT 0.0, {_HIT_COLUMNS} FROM voice_index AS v JOIN nodes AS n "
            f"ON n.rowid = v.rowid WHERE {clause} ORDER BY v.ts DESC, v.node_id DESC LIMIT ?",
            [*args, q.limit],
        ).fetchall()
        rows.reverse()  # listings read oldest to newest, like a transcript
        return [_row(r) for r in rows]
    # Match the message text (body) only: the title is a cut copy of its first
    # line, and a word cut in half there must not match.
    body = f"body : ({match})"
    try:
        plan, floor = _common_plan(conn, q, body, clause, args)
        bounded, values = clause, args
        if plan != "full":  # the newest candidates only (rowid >= floor)
            bounded, values = f"{clause} AND node_fts.rowid >= ?", [*args, floor]
        if plan == "recent":
            cursor = conn.execute(_recent_sql(bounded), [body, *values, q.demote, q.limit])
        else:
            ref = conn.execute("SELECT julianday(max(ts)) FROM voice_index").fetchone()[0] or 0.0
            params = [q.demote, ref, float(q.recency_days), body, *values, q.limit]
            cursor = conn.execute(_ranked_sql(bounded), params)
        hits = [_row(r) for r in cursor.fetchall()]
        if not q.word and len(hits) < q.limit:
            hits += _partial_tier(conn, q, clause, args, hits)
    except sqlite3.OperationalError as exc:
        raise StoreError(f"voice search failed: {exc}") from None
    return hits


def _ranked_sql(clause: str) -> str:
    # node_fts drives the join (CROSS JOIN fixes the order): one FTS scan, then
    # rowid lookups, instead of probing FTS once per filtered index row.
    return f"""
        WITH m AS (
            SELECT v.rowid AS rid, v.ts AS ts, v.node_id AS nid,
                   coalesce(v.classification = ?, 0) AS tier,
                   bm25(node_fts, 0.0, 1.0)
                     * (0.5 + 0.5 / (1.0 + max(0.0, ? - v.day) / ?)) AS score
            FROM node_fts CROSS JOIN voice_index AS v ON v.rowid = node_fts.rowid
            WHERE node_fts MATCH ? AND {clause}
            ORDER BY tier, score, ts DESC, nid LIMIT ?
        )
        SELECT m.score, {_HIT_COLUMNS}
        FROM m JOIN voice_index AS v ON v.rowid = m.rid JOIN nodes AS n ON n.rowid = m.rid
        ORDER BY m.tier, m.score, m.ts DESC, m.nid"""


def _recent_sql(clause: str) -> str:
    # no bm25(): it would count every match of every phrase first (its idf)
    return f"""
        WITH m AS (
            SELECT v.rowid AS rid FROM node_fts CROSS JOIN voice_index AS v
            ON v.rowid = node_fts.rowid WHERE node_fts MATCH ? AND {clause}
        )
        SELECT 0.0, {_HIT_COLUMNS}
        FROM m JOIN voice_index AS v ON v.rowid = m.rid JOIN nodes AS n ON n.rowid = m.rid
        ORDER BY coalesce(v.classification = ?, 0), v.ts DESC, v.node_id LIMIT ?"""


def _common_plan(
    conn: sqlite3.Connection, q: VoiceSearch, body: str, clause: str, args: list[object]
) -> tuple[str, int]:
    """(plan, lowest candidate rowid) for a keyword query (``VoiceSearch``, ``common_plan``).

    First one walk of the newest matches, stopped after the cap (most queries end
    here: at most that many matches rank fully); past that, the words' document
    frequencies (``common_words.frequencies``)."""
    words = plan_words(q.query)
    cap = max(q.candidates, q.limit)  # never fewer candidates than hits asked for
    if not words or q.candidates < 1:
        return "full", 0
    floor = newest_floor(conn, body, clause, args, cap)
    if not floor:  # at most `cap` matches: rank them all
        return "full", 0
    figures = frequencies(conn, words)
    if figures is None:
        return "full", 0
    nodes, found = figures
    return common_plan(nodes, min(found.get(w, 0) for w in words)), floor


def _partial_tier(
    conn: sqlite3.Connection,
    q: VoiceSearch,
    clause: str,
    args: list[object],
    whole: list[VoiceRow],
) -> list[VoiceRow]:
    """Messages holding every term as a substring but not all as whole words (those
    came first): newest indexed first (rowid order), ``demote`` ones last."""
    if not substring.has_index(conn):
        return []
    expr = substring.match_expression(conn, query_terms(q.query))
    if expr is None:
        return []
    seen = [h.node_id for h in whole]
    not_seen = f" AND v.node_id NOT IN ({','.join('?' * len(seen))})" if seen else ""
    # voice_tri drives the join in descending rowid order, so LIMIT stops the scan early
    rows = conn.execute(
        f"""SELECT 0.0, {_HIT_COLUMNS}
        FROM {substring.TABLE} AS t CROSS JOIN voice_index AS v ON v.rowid = t.rowid
        JOIN nodes AS n ON n.rowid = v.rowid
        WHERE t.{substring.TABLE} MATCH ? AND {clause}{not_seen}
        ORDER BY t.rowid DESC LIMIT ?""",
        [expr, *args, *seen, q.limit - len(whole)],
    ).fetchall()
    hits = [_row(r) for r in rows]
    return sorted(hits, key=lambda h: h.classification == q.demote)


def stats_conn(conn: sqlite3.Connection) -> VoiceIndexStats:
    # Each aggregate is answered from its own index (covering scans), not the table;
    # forgotten tombstones (few, found through their partial index) are subtracted.
    messages, classified = conn.execute(
        "SELECT count(*), count(classification) FROM voice_index"
    ).fetchone()
    live = "WHERE lifecycle != 'forgotten' ORDER BY ts"
    first = conn.execute(f"SELECT ts FROM voice_index {live} LIMIT 1").fetchone()
    last = conn.execute(f"SELECT ts FROM voice_index {live} DESC LIMIT 1").fetchone()
    sessions = conn.execute("SELECT count(DISTINCT session_id) FROM voice_index").fetchone()[0]
    pages = conn.execute("SELECT count(DISTINCT voice_page) FROM voice_index").fetchone()[0]
    by_const = dict(
        conn.execute("SELECT constellation, count(*) FROM voice_index GROUP BY constellation")
    )
    by_cls = dict(
        conn.execute("SELECT classification, count(*) FROM voice_index GROUP BY classification")
    )
    gone = conn.execute(
        "SELECT session_id, constellation, classification, voice_page,"
        " NOT EXISTS (SELECT 1 FROM voice_index AS l WHERE l.session_id = f.session_id"
        " AND l.lifecycle != 'forgotten'),"
        " voice_page IS NOT NULL AND NOT EXISTS (SELECT 1 FROM voice_index AS p"
        " WHERE p.voice_page = f.voice_page AND p.lifecycle != 'forgotten')"
        " FROM voice_index AS f INDEXED BY voice_index_forgotten WHERE lifecycle = 'forgotten'"
    ).fetchall()
    for _, const, cls, _, _, _ in gone:
        by_const[const] -= 1
        by_cls[cls] -= 1
    classified -= sum(1 for g in gone if g[2] is not None)
    sessions -= len({g[0] for g in gone if g[4]})
    pages -= len({g[3] for g in gone if g[5]})
    from memgraph.store.sqlite_ext.ledger import totals_conn

    ledger, ledger_dropped = totals_conn(conn)
    return VoiceIndexStats(
        messages=int(messages) - len(gone),
        sessions=int(sessions),
        pages=int(pages),
        classified=int(classified),
        first=first[0] if first and first[0] else None,
        last=last[0] if last and last[0] else None,
        by_constellation=tuple((str(k), int(c)) for k, c in by_const.items() if c > 0),
        by_classification=tuple(
            (None if k is None else str(k), int(c)) for k, c in by_cls.items() if c > 0
        ),
        ledger=ledger,
        ledger_dropped=ledger_dropped,
        forgotten=len(gone),
    )


class SQLiteVoiceIndex:
    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def search(self, request: VoiceSearch) -> list[VoiceRow]:
        with self.conns.read() as conn:
            return search_conn(conn, request)

    def stats(self) -> VoiceIndexStats:
        with self.conns.read() as conn:
            return stats_conn(conn)

    def session_messages(self, session_id: str) -> list[MemoryNode]:
        from memgraph.documents import MemoryNode
        from memgraph.store.docpack import unpack

        with self.conns.read() as conn:
            rows = conn.execute(
                "SELECT n.doc FROM voice_message_session v JOIN nodes n ON n.rowid = v.node_rowid"
                " WHERE v.session_id = ?",
                (session_id,),
            ).fetchall()
        return [MemoryNode.model_validate_json(unpack(r[0])) for r in rows]

    def session_span(self, session_id: str) -> tuple[str, str] | None:
        with self.conns.read() as conn:
            row = conn.execute(
                "SELECT min(ts), max(ts) FROM voice_message_session WHERE session_id = ?",
                (session_id,),
            ).fetchone()
        if row is None or not row[0] or not row[1]:
            return None
        return str(row[0]), str(row[1])

    def reindex(self) -> tuple[int, int]:
        with self.conns.write() as conn:
            conn.execute("DELETE FROM voice_index")
            conn.execute(
                f"{INSERT_ROW} SELECT {columns('n')} FROM nodes AS n WHERE {IS_MESSAGE.format('n')}"
            )
            # 'rebuild' re-reads the external content table (nodes): an index op, no graph write.
            conn.execute("INSERT INTO node_fts(node_fts) VALUES ('rebuild')")
            for statement in substring.REBUILD_SQL:
                conn.execute(statement)
            messages = conn.execute("SELECT count(*) FROM voice_index").fetchone()[0]
            nodes = conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
        return int(messages), int(nodes)


__all__ = [
    "MIGRATIONS",
    "NEW_NODE_ROWS",
    "PACKED_DOC_TRIGGERS",
    "SQLiteTurnIndex",
    "SQLiteVoiceIndex",
    "search_conn",
]
