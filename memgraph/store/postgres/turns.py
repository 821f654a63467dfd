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

Common words (``rows.common_plan``): when more than ``max(limit, CANDIDATES)``
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
from memgraph.store.rows import CANDIDATES, VoiceScope, common_plan

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


def _ranked_sql(
    phrases: list[Phrase],
    lexemes: list[list[str]],
    candidates: str,
    title_weight: float,
    weights: list[float],
    avgdl: float,
) -> tuple[str, list[object]]:
    """The best rows by FTS5's bm25 computed by the server, in the Python path's
    order of operations (so the same doubles): per word ``f = title_weight * t + b``
    (``t`` its instances in the title's tsvector, ``b`` its ``voice_terms`` tf),
    ``sum(w * f * (k1 + 1) / (f + k1 * (1 - b + b * ntok / avgdl)))``. The text
    before the candidates' scope arguments; then the match, the floor, the limit."""
    f8, k = "::float8", len(phrases)
    titles, bodies, args = [], [], list[object]()
    for i, ((word,), prefix) in enumerate(phrases):
        # the tsquery (lexemes as given, not normalised) skips titles without the word
        test = "starts_with(u.lexeme, %s)" if prefix else "u.lexeme = %s"
        titles.append(
            f"CASE WHEN n.fts_title @@ %s::tsquery THEN (SELECT sum(cardinality(u.positions))"
            f" FROM unnest(n.fts_title) u WHERE {test}) ELSE 0 END AS t{i}"
        )
        args += [phrase_tsquery(phrases[i]), word]
    for i in range(k):
        bodies.append(f"sum(tf) FILTER (WHERE term = ANY(%s)) AS b{i}")
    args += [*lexemes, sorted({x for found in lexemes for x in found})]
    freqs = ", ".join(f"%s{f8} * t{i} + coalesce(b{i}, 0) AS f{i}" for i in range(k))
    score = " + ".join(f"%s{f8} * f{i} * %s{f8} / (f{i} + norm)" for i in range(k))
    hit = " OR ".join(f"f{i} <> 0" for i in range(k))
    head_args: list[object] = []
    for w in weights:
        head_args += [w, K1 + 1.0]
    # the title's instances from its tsvector (one pass per row), the body's from
    # the words' voice_terms ranges (index-only, hashed once: no probe per row)
    sql = (
        f"SELECT id, score FROM (SELECT id, seq, {hit} AS hit, {score} AS score FROM"
        f" (SELECT id, seq, {freqs}, %s{f8} * (%s{f8} + %s{f8} * ntok / %s{f8}) AS norm"
        f" FROM (SELECT n.id, n.seq, n.ntok, {', '.join(titles)}, b.* FROM nodes n LEFT JOIN"
        f" (SELECT node_id AS bid, {', '.join(bodies)} FROM voice_terms WHERE term = ANY(%s)"
        f" GROUP BY node_id) b ON b.bid = n.id"
        f"{candidates.replace(' FROM nodes n ', ' ', 1)} AND n.seq >= %s OFFSET 0) c"
        ") g) s WHERE hit ORDER BY score DESC, seq LIMIT %s"
    )
    mid = [*([title_weight] * k), K1, 1 - B, B, avgdl]
    return sql, [*head_args, *mid, *args]


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
                sql, sql_args = _ranked_sql(
                    phrases, lexemes, candidates, title_weight, weights, avgdl
                )
                found = conn.execute(sql, [*sql_args, *args, match, floor, limit]).fetchall()
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
