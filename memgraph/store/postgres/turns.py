"""PostgreSQL turn index (``interfaces.TurnIndex``): scoped OR-BM25 over voice messages.

The twin of ``memgraph.store.sqlite_ext.turn_index`` (``context_cut.turns``,
turn-level recall). FTS5's ``bm25(node_fts, title_weight, 1.0)`` for rows
matching ANY word: the text index over title + body (``nodes_fts``) finds the
live, current voice messages in the scope, the corpus figures come from
``node_stats`` and one GIN count per word. A word's instances in a body are
its ``voice_terms`` tf (key probes; a prefix sums the lexemes it starts), in a
title they are counted on the text (``fts.count_hits``), so scores equal
SQLite's. Each word is tokenised as FTS5 tokenises a quoted string
(``'lake" OR "x'`` is the phrase "lake or x"); such a phrase of several tokens,
or a prefix of more than ``PREFIX_TERMS`` lexemes, is counted on the bodies.

Common words (``voice_rows.common_plan``): when more than ``max(limit, CANDIDATES)``
messages in scope match and every plain word is in >= 1/``COMMON_SHARE`` of
all nodes (each prefix a prefix of one of them), only that many matches
inserted last (``nodes.seq``, SQLite's rowid order) are ranked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memgraph.store.postgres.fts import (
    Phrase,
    count_hits,
    idf,
    phrase_tsquery,
    tokens,
    tsquery_text,
)
from memgraph.store.postgres.schema import FTS, N_FTS
from memgraph.store.voice_rows import CANDIDATES, VoiceScope, common_plan

if TYPE_CHECKING:
    from memgraph.store.postgres.store import PostgresStore

K1, B = 1.2, 0.75


def _scope_sql(scope: VoiceScope) -> tuple[str, list[object]]:
    # live messages, and only a record's current version (SQLite's voice_index
    # holds no retired row; voice_messages does)
    where = ["v.lifecycle <> 'retired'", "v.lifecycle <> 'superseded'"]
    args: list[object] = []
    for column, value in (
        ("project", scope.project),
        ("session_id", scope.session_id),
        ("constellation", scope.constellation),
    ):
        if value is not None:
            where.append(f"v.{column} = %s")
            args.append(value)
    if scope.since is not None:
        where.append("v.ts >= %s")
        args.append(scope.since)
    return " AND ".join(where), args


def _phrases(words: Sequence[tuple[str, bool]]) -> list[Phrase]:
    """Each word as FTS5 reads ``"word"`` (``"word"*``): its tokens, adjacent."""
    found: list[Phrase] = []
    for word, prefix in words:
        toks = tokens(word) if word else []
        if toks:
            found.append((tuple(toks), prefix))
    return list(dict.fromkeys(found))


PREFIX_TERMS = 64  # a prefix standing for more lexemes is counted on the texts


def _lexemes(conn: Any, phrases: list[Phrase]) -> list[list[str]] | None:
    """The body lexemes each one-token phrase counts in ``voice_terms`` (a prefix:
    the live messages' lexemes it starts); None when some phrase needs the text."""
    found: list[list[str]] = []
    for words, prefix in phrases:
        if len(words) != 1:
            return None
        word = words[0]
        if not prefix:
            found.append([word])
            continue
        rows = conn.execute(
            "SELECT term FROM voice_df WHERE term >= %s AND term < %s AND n > 0 LIMIT %s",
            (word, word[:-1] + chr(ord(word[-1]) + 1), PREFIX_TERMS + 1),
        ).fetchall()
        if len(rows) > PREFIX_TERMS:
            return None
        found.append([str(r[0]) for r in rows])
    return found


def _titles(phrases: list[Phrase]) -> tuple[str, list[object]]:
    """Each word's instances in ``n.fts_title`` (a title without it: 0 unread; the
    tsquery holds the lexemes as given, not normalised, as the counts do)."""
    cols, args = [], list[object]()
    for i, ((word,), prefix) in enumerate(phrases):
        test = "starts_with(u.lexeme, %s)" if prefix else "u.lexeme = %s"
        cols.append(
            f"CASE WHEN n.fts_title @@ %s::tsquery THEN (SELECT sum(cardinality(u.positions))"
            f" FROM unnest(n.fts_title) u WHERE {test}) ELSE 0 END AS t{i}"
        )
        args += [phrase_tsquery(phrases[i]), word]
    return ", ".join(cols), args


def _bodies(lexemes: list[list[str]]) -> tuple[str, list[object]]:
    """``b.*``: each word's ``voice_terms`` tf per message holding any (index-only
    ranges, hashed once: no probe per row), ``ntok`` and the node id ``bid``."""
    cols = ", ".join(f"sum(tf) FILTER (WHERE term = ANY(%s)) AS b{i}" for i in range(len(lexemes)))
    every = sorted({x for found in lexemes for x in found})
    sql = (
        f"SELECT node_id AS bid, min(ntok) AS bntok, {cols} FROM voice_terms"
        " WHERE term = ANY(%s) GROUP BY node_id"
    )
    return sql, [*lexemes, every]


def _scored(
    k: int, title_weight: float, weights: list[float], avgdl: float
) -> tuple[str, str, list[object], list[object]]:
    """(outer columns ``hit, score``, inner columns ``f0.., norm``, their arguments):
    FTS5's bm25 in the Python path's order of operations (so the same doubles):
    per word ``f = title_weight * t + b``, ``sum(w * f * (k1 + 1) / (f + k1 * (1 - b
    + b * ntok / avgdl)))``."""
    f8 = "::float8"
    freqs = ", ".join(f"%s{f8} * t{i} + coalesce(b{i}, 0) AS f{i}" for i in range(k))
    inner = f"{freqs}, %s{f8} * (%s{f8} + %s{f8} * ntok / %s{f8}) AS norm"
    score = " + ".join(f"%s{f8} * f{i} * %s{f8} / (f{i} + norm)" for i in range(k))
    outer = f"{' OR '.join(f'f{i} <> 0' for i in range(k))} AS hit, {score} AS score"
    outer_args: list[object] = []
    for w in weights:
        outer_args += [w, K1 + 1.0]
    return outer, inner, outer_args, [*([title_weight] * k), K1, 1 - B, B, avgdl]


def _ranked_sql(
    phrases: list[Phrase], lexemes: list[list[str]], candidates: str, scored: tuple[Any, ...]
) -> tuple[str, list[object]]:
    """The best rows of the candidates from ``seq`` on (common words), ranked by the
    server. The text before the candidates' scope arguments; then the match, the
    floor, the limit."""
    outer, inner, outer_args, inner_args = scored
    titles, title_args = _titles(phrases)
    bodies, body_args = _bodies(lexemes)
    sql = (
        f"SELECT id, score FROM (SELECT id, seq, {outer} FROM (SELECT id, seq, {inner}"
        f" FROM (SELECT n.id, n.seq, n.ntok, {titles}, b.* FROM nodes n LEFT JOIN ({bodies}) b"
        f" ON b.bid = n.id{candidates.replace(' FROM nodes n ', ' ', 1)} AND n.seq >= %s"
        " OFFSET 0) c) g) s WHERE hit ORDER BY score DESC, seq LIMIT %s"
    )
    return sql, [*outer_args, *inner_args, *title_args, *body_args]


def _postings_sql(
    phrases: list[Phrase],
    lexemes: list[list[str]],
    scope: tuple[str, list[object]] | None,
    scored: tuple[Any, ...],
    limit: int,
) -> tuple[str, list[object]]:
    """Every match ranked by the server without reading a message row: the body
    postings (``_bodies``) and the titles holding a word (``nodes_title_voice``,
    migration 89), the scope by key (no scope: leave out the superseded, a small
    index); only the rows at or above the ``limit``-th score read ``seq`` (ties)."""
    outer, inner, outer_args, inner_args = scored
    titles, title_args = _titles(phrases)
    bodies, body_args = _bodies(lexemes)
    k = len(phrases)
    if scope is None:
        keep = "NOT EXISTS (SELECT 1 FROM voice_messages v WHERE v.node_id = c.id"
        keep += " AND v.lifecycle = 'superseded')"
        keep_args: list[object] = []
    else:
        keep = f"EXISTS (SELECT 1 FROM voice_messages v WHERE v.node_id = c.id AND {scope[0]})"
        keep_args = scope[1]
    merged = ", ".join(f"coalesce(t.t{i}, 0) AS t{i}, b.b{i}" for i in range(k))
    sql = (
        f"WITH b AS ({bodies}), t AS (SELECT n.id, n.ntok, {titles} FROM nodes n"
        " WHERE n.fts_title @@ %s::tsquery AND n.profile = 'voice' AND n.kind = 'message'"
        " AND n.lifecycle <> 'retired'),"
        " c AS (SELECT coalesce(b.bid, t.id) AS id, coalesce(b.bntok, t.ntok) AS ntok,"
        f" {merged} FROM b FULL JOIN t ON t.id = b.bid),"
        f" sc AS (SELECT id, score FROM (SELECT id, {outer} FROM (SELECT id, {inner} FROM c"
        f" WHERE {keep}) g) s WHERE hit),"
        " cut AS (SELECT score FROM sc ORDER BY score DESC LIMIT 1 OFFSET %s)"
        " SELECT sc.id, sc.score FROM sc JOIN nodes n ON n.id = sc.id"
        " WHERE NOT EXISTS (SELECT 1 FROM cut) OR sc.score >= (SELECT score FROM cut)"
        " ORDER BY sc.score DESC, n.seq LIMIT %s"
    )
    args = [
        *body_args,
        *title_args,
        tsquery_text(phrases, "|"),
        *outer_args,
        *inner_args,
        *keep_args,
        limit - 1,
        limit,
    ]
    return sql, args


class PgTurnIndex:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def rank_any(
        self,
        words: Sequence[tuple[str, bool]],
        scope: VoiceScope,
        limit: int,
        title_weight: float = 1.0,
    ) -> list[tuple[str, float]]:
        phrases = _phrases(words)
        if not phrases or limit <= 0:
            return []
        clause, args = _scope_sql(scope)
        match = tsquery_text(phrases, "|")
        counts = ", ".join(
            f"(SELECT count(*) FROM nodes WHERE {FTS} @@ to_tsquery('memgraph_text', %s))"
            for _ in phrases
        )
        # the text index finds the rows, each then meets the scope by primary key
        candidates = (
            " FROM nodes n CROSS JOIN LATERAL (SELECT 1 FROM voice_messages v"
            f" WHERE v.node_id = n.id AND {clause} OFFSET 0) v"
            f" WHERE {N_FTS} @@ to_tsquery('memgraph_text', %s)"
            " AND n.profile = 'voice' AND n.kind = 'message'"
        )
        with self.store.reader() as txn:
            conn = txn.conn
            head = conn.execute(
                f"SELECT nodes, tokens, {counts} FROM node_stats",
                [phrase_tsquery(p) for p in phrases],
            ).fetchone()
            if head is None:
                return []
            nodes, total = int(head[0]), int(head[1])
            dfs = [int(c) for c in head[2:]]
            floor = self._floor(conn, words, phrases, dfs, nodes, candidates, [*args, match], limit)
            lexemes = _lexemes(conn, phrases)
            if lexemes is not None:  # ranked by the server: only the best rows travel
                avgdl = total / nodes if nodes and total else 1.0
                weights = [idf(nodes, h) for h in dfs]
                law = _scored(len(phrases), title_weight, weights, avgdl)
                if floor:  # common words: the newest candidates by the text index
                    sql, sql_args = _ranked_sql(phrases, lexemes, candidates, law)
                    sql_args += [*args, match, floor, limit]
                else:
                    unscoped = scope == VoiceScope()
                    within = None if unscoped else (clause, args)
                    sql, sql_args = _postings_sql(phrases, lexemes, within, law, limit)
                found = conn.execute(sql, sql_args).fetchall()
                return [(str(nid), float(score)) for nid, score in found]
            # a quoted word of several tokens: count on the texts
            rows = conn.execute(
                f"SELECT n.id, n.seq, n.ntok, n.title, n.body{candidates} AND n.seq >= %s",
                [*args, match, floor],
            ).fetchall()
        body_tf = [count_hits(phrases, r[4]) for r in rows]
        avgdl = total / nodes if nodes and total else 1.0
        weights = [idf(nodes, h) for h in dfs]
        scored: list[tuple[float, int, str]] = []
        for (nid, seq, ntok, title, *_), body in zip(rows, body_tf, strict=True):
            freqs = [
                title_weight * t + b for t, b in zip(count_hits(phrases, title), body, strict=True)
            ]
            if not any(freqs):
                continue
            norm = K1 * (1 - B + B * int(ntok) / avgdl)
            score = sum(
                w * f * (K1 + 1.0) / (f + norm) for w, f in zip(weights, freqs, strict=True)
            )
            scored.append((-score, int(seq), str(nid)))
        scored.sort()
        return [(nid, -score) for score, _, nid in scored[:limit]]

    def _floor(
        self,
        conn: Any,
        words: Sequence[tuple[str, bool]],
        phrases: list[Phrase],
        dfs: list[int],
        nodes: int,
        candidates: str,
        args: list[object],
        limit: int,
    ) -> int:
        """The lowest ``seq`` ranked: bounded only when more than ``max(limit,
        CANDIDATES)`` messages in scope match and every plain word is common."""
        plain = [w for w, prefix in words if w and not prefix]
        stems = [w for w, prefix in words if w and prefix]
        if not plain or not all(any(p.startswith(s) for p in plain) for s in stems):
            return 0
        # a word's document frequency is its own lexeme's (SQLite reads its vocabulary)
        df = {p[0][0]: n for p, n in zip(phrases, dfs, strict=True) if len(p[0]) == 1 and not p[1]}
        if common_plan(nodes, min(df.get(w, 0) for w in plain)) == "full":
            return 0
        cap = max(limit, CANDIDATES)
        beyond = conn.execute(
            f"SELECT n.seq{candidates} ORDER BY n.seq DESC LIMIT 2 OFFSET %s",
            [*args, cap - 1],
        ).fetchall()
        return int(beyond[0][0]) if len(beyond) == 2 else 0

    def in_scope(self, ids: Sequence[str], scope: VoiceScope) -> set[str]:
        if not ids:
            return set()
        clause, args = _scope_sql(scope)
        with self.store.reader() as txn:
            rows = txn.conn.execute(
                f"SELECT v.node_id FROM voice_messages v WHERE v.node_id = ANY(%s) AND {clause}",
                [list(dict.fromkeys(ids)), *args],
            ).fetchall()
        return {str(r[0]) for r in rows}


__all__ = ["PgTurnIndex"]
