"""PostgreSQL voice search: FTS5's BM25 over PostgreSQL's rows (``PgVoiceSearch``).

PostgreSQL finds the rows and the corpus figures (``node_stats``, GIN counts),
Python scores them with the formula SQLite uses, so both stores return the same
hits in the same order. ``indexes.PgVoiceIndex`` adds the index's other reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memgraph.fts import plan_words, query_terms
from memgraph.store.postgres.fts import (
    Phrase,
    bm25,
    count_hits,
    idf,
    parse_query,
    phrase_tsquery,
    tsquery_text,
)
from memgraph.store.postgres.schema import FTS
from memgraph.store.postgres.voice_sql import (
    HIT,
    NOT_BARE,
    VOICE_N,
    body_df,
    filters,
    is_bare,
    voice_row,
)
from memgraph.store.voice_rows import VoiceRow, VoiceSearch, common_plan

if TYPE_CHECKING:
    from memgraph.store.postgres.store import PostgresStore


class PgVoiceSearch:
    """Every search is ONE statement (one snapshot, one round trip): a server on
    another machine costs a network round trip per statement."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def search(self, request: VoiceSearch) -> list[VoiceRow]:
        q = request
        phrases = parse_query(q.query) if q.query.strip() else []
        if q.query.strip() and not phrases:
            return []
        if q.only is not None and not q.only:
            return []
        where, args = filters(q)
        head, head_args = "", []
        if q.recent_sessions > 0:
            head = (
                "WITH recent AS (SELECT v.session_id FROM voice_messages v"
                f" WHERE {' AND '.join(where)} GROUP BY v.session_id"
                " ORDER BY max(v.ts) DESC, v.session_id LIMIT %s) "
            )
            head_args = [*args, q.recent_sessions]
            where.append("v.session_id IN (SELECT session_id FROM recent)")
        clause = " AND ".join(where)
        if not phrases:
            rows = self.store.fetch_all(
                f"{head}SELECT v.node_id, v.ts, v.classification, {HIT}"
                " FROM voice_messages v JOIN nodes n ON n.id = v.node_id"
                f" WHERE {clause} ORDER BY v.ts DESC, v.node_id DESC LIMIT %s",
                [*head_args, *args, q.limit],
            )
            rows.reverse()  # listings read oldest to newest, like a transcript
            return [voice_row(0.0, r[0], r[1], r[2], r[3:]) for r in rows]
        return self._ranked(q, phrases, head, head_args, clause, args)

    def _ranked(
        self,
        q: VoiceSearch,
        phrases: list[Phrase],
        head: str,
        head_args: list[object],
        clause: str,
        args: list[object],
    ) -> list[VoiceRow]:
        one_word = all(len(words) == 1 for words, _ in phrases)
        if one_word and (len(phrases) == 1 or not any(prefix for _, prefix in phrases)):
            # (common words: _ranked_terms decides their plan before ranking)
            return self._ranked_terms(q, phrases, head, head_args, clause, args)
        # phrases of several words: the instances are counted on each candidate's
        # text (adjacency is not in voice_terms). Corpus figures ride on every
        # row: rows, tokens, the newest message's day (recency is measured from
        # it) and the rows holding each phrase
        having, having_args = body_df(phrases)
        rows = self.store.fetch_all(
            f"{head}SELECT s.*, v.node_id, v.ts, v.day, v.classification, n.ntok, n.seq, {HIT}"
            " FROM (SELECT nodes, tokens, (SELECT day FROM voice_messages"
            " WHERE lifecycle <> 'retired' ORDER BY ts DESC LIMIT 1) AS ref"
            f"{having} FROM node_stats) s CROSS JOIN nodes n"
            # the text index finds the rows, each then meets the filters by primary key
            " CROSS JOIN LATERAL (SELECT * FROM voice_messages v"
            f" WHERE v.node_id = n.id AND {clause} OFFSET 0) v"  # OFFSET 0: a nested loop
            # (no profile/kind test on n: the join keeps voice messages only, and
            # such a test can lure the planner onto the profile index)
            f" WHERE n.fts_body @@ to_tsquery('memgraph_text', %s) AND {VOICE_N}",
            [
                *head_args,
                *having_args,
                *args,
                tsquery_text(phrases),
            ],
        )
        if not rows:
            return self._partial_tier(q, clause, args, head, head_args, [])
        k = 3 + len(phrases)
        nodes, total, ref = rows[0][0], rows[0][1], float(rows[0][2] or 0.0)
        avgdl = total / nodes if nodes and total else 1.0
        weights = [idf(int(nodes), int(h)) for h in rows[0][3:k]]
        matched = []
        for r in rows:
            hit = r[k + 6 :]
            freqs = count_hits(phrases, hit[5])
            if all(freqs):
                matched.append((r[k : k + 6], freqs, hit))
        plan = self._plan(q, int(nodes), len(matched))
        if plan != "full":  # common words: the newest `candidates` matches only
            matched = sorted(matched, key=lambda m: int(m[0][5]))[-max(q.candidates, q.limit) :]
        scored: list[tuple[int, float, str, str, Sequence[Any]]] = []
        for (nid, ts, day, cls, ntok, _seq), freqs, hit in matched:
            if plan == "recent":  # the words tell nothing: newest first, score 0.0
                scored.append((1 if cls == q.demote else 0, 0.0, ts, nid, (cls, hit)))
                continue
            score = bm25(weights, freqs, int(ntok), avgdl)
            score *= 0.5 + 0.5 / (1.0 + max(0.0, ref - float(day)) / q.recency_days)
            scored.append((1 if cls == q.demote else 0, score, ts, nid, (cls, hit)))
        scored.sort(key=lambda x: x[3])
        scored.sort(key=lambda x: x[2], reverse=True)
        scored.sort(key=lambda x: (x[0], x[1]))
        top = scored[: q.limit]
        hits = [voice_row(sc, nid, ts, extra[0], extra[1]) for _, sc, ts, nid, extra in top]
        return hits + self._partial_tier(q, clause, args, head, head_args, hits)

    def _ranked_terms(
        self,
        q: VoiceSearch,
        phrases: list[Phrase],
        head: str,
        head_args: list[object],
        clause: str,
        args: list[object],
    ) -> list[VoiceRow]:
        """One-word phrases (or one prefix): BM25 in ONE statement over ``voice_terms``
        (migration 8: tf, length, day and class per lexeme and live message), so
        the server ranks and only the best ``limit`` rows travel. The arithmetic
        is ``fts.bm25``/``fts.idf`` term by term in the same order, so scores (and
        ties) are those of the Python path and of SQLite (tests compare them)."""
        if q.limit < 1:
            return []
        from memgraph.store.postgres import voice_words

        cap = max(q.candidates, q.limit)
        if len(phrases) > 1:  # several plain words: memgraph.store.postgres.voice_words
            hits, matched, nodes = voice_words.ranked_words(
                self, q, phrases, head, head_args, clause, args
            )
            plan = self._plan(q, nodes, matched)
            newest = None
        elif phrases[0][1] or q.candidates < 1 or not voice_words.over(self, phrases, cap):
            # a prefix (no counted word), or at most `cap` live messages hold the word
            hits, matched, nodes = self._one_term(q, phrases, head, head_args, clause, args)
            plan = "full"
        else:  # a frequent word: is it common, and do more than `cap` matches pass?
            newest = voice_words.newest(self, phrases, head, head_args, clause, args, cap + 1)
            nodes = int(self.store.fetch_all("SELECT nodes FROM node_stats")[0][0])
            plan = self._plan(q, nodes, len(newest))
            if plan == "full" and len(newest) <= cap:  # these are all the matches
                hits = voice_words.ranked_words(self, q, phrases, "", [], clause, args, newest)[0]
            elif plan == "full":
                hits, _, _ = self._one_term(q, phrases, head, head_args, clause, args)
        if plan != "full":  # common words: the newest `candidates` matches only
            return voice_words.bounded(
                self, q, phrases, plan, head, head_args, clause, args, newest
            )
        return hits + self._partial_tier(q, clause, args, head, head_args, hits)

    def _one_term(
        self,
        q: VoiceSearch,
        phrases: list[Phrase],
        head: str,
        head_args: list[object],
        clause: str,
        args: list[object],
    ) -> tuple[list[VoiceRow], int, int]:
        """(best hits, matches, node count) of one word or one prefix."""
        from memgraph.store.postgres.voice_words import LIVE, live_only

        if clause == f"{LIVE} AND {NOT_BARE}" and live_only(LIVE, phrases):
            # the CLI's default (no bare commands, nothing else): rank every live
            # match on the postings alone; when none of the best `limit` is a bare
            # command, they are the best `limit` without bare commands too (one
            # total order), else the exact statement below
            hits, matched, nodes, bodies = self._one_term_rows(
                q, phrases, head, head_args, LIVE, []
            )
            if not any(is_bare(b) for b in bodies):
                return hits, matched, nodes
        hits, matched, nodes, _ = self._one_term_rows(q, phrases, head, head_args, clause, args)
        return hits, matched, nodes

    def _one_term_rows(
        self,
        q: VoiceSearch,
        phrases: list[Phrase],
        head: str,
        head_args: list[object],
        clause: str,
        args: list[object],
    ) -> tuple[list[VoiceRow], int, int, list[str]]:
        from memgraph.store.postgres.voice_words import live_only

        cte = head.rstrip() + "," if head else "WITH"
        # one prefix: the live messages holding it are the rows of g
        having, having_args = body_df(phrases, "(SELECT count(*) FROM g)")
        parts, part_args = [], []
        for i, ((word,), prefix) in enumerate(phrases):
            if prefix:
                parts.append(
                    f"SELECT {i} AS i, node_id, sum(tf) AS tf, min(ntok) AS ntok, min(day) AS day,"
                    " min(classification) AS cls FROM voice_terms"
                    " WHERE term >= %s AND term < %s GROUP BY node_id"
                )
                part_args += [word, word[:-1] + chr(ord(word[-1]) + 1)]
            else:
                parts.append(
                    f"SELECT {i} AS i, node_id, tf, ntok, day, classification AS cls"
                    " FROM voice_terms WHERE term = %s"
                )
                part_args.append(word)
        k = 1  # the word's (or prefix's) postings: one index range
        grouped = f"SELECT node_id, ntok, day, cls, tf AS t0 FROM ({parts[0]}) p"
        # FTS5's bm25 term by term, in fts.bm25's order of operations
        f8 = "::float8"
        norm = f"(1.2{f8} * (0.25{f8} + 0.75{f8} * g.ntok / f.avgdl))"
        terms = []
        for i in range(k):
            w = f"ln(((f.nodes - f.n{i}){f8} + 0.5{f8}) / (f.n{i}{f8} + 0.5{f8}))"
            w = f"(CASE WHEN {w} > 0 THEN {w} ELSE 1e-6{f8} END)"
            terms.append(f"({w} * g.t{i} * (1.2{f8} + 1.0{f8}) / (g.t{i} + {norm}))")
        recency = f"(0.5{f8} + 0.5{f8} / (1.0{f8} + greatest(0.0{f8}, f.ref - g.day) / %s{f8}))"
        counts = ", ".join(f"n{i}" for i in range(k))
        # filters other than liveness (voice_terms holds live messages only)
        filtered = (
            f" JOIN voice_messages v ON v.node_id = g.node_id AND {clause}"
            if not live_only(clause, phrases)
            else ""
        )
        rows = self.store.fetch_all(
            f"{cte} g AS ({grouped}),"
            f" f(one, {counts}, nodes, avgdl, ref) AS MATERIALIZED (SELECT s.*, x.nodes,"
            " CASE WHEN x.nodes > 0 AND x.tokens > 0 THEN x.tokens::float8 / x.nodes"
            " ELSE 1.0::float8 END, coalesce((SELECT day FROM voice_messages"
            " WHERE lifecycle <> 'retired' ORDER BY ts DESC LIMIT 1), 0.0)"
            f" FROM node_stats x, (SELECT true AS one{having}) s),"
            f" sc AS (SELECT g.node_id, g.cls IS NOT DISTINCT FROM %s AS dm,"
            f" -({' + '.join(terms)}) * {recency} AS score FROM g{filtered} CROSS JOIN f),"
            " cut AS (SELECT dm, score FROM sc ORDER BY dm, score LIMIT 1 OFFSET %s)"
            f" SELECT (SELECT count(*) FROM sc), (SELECT nodes FROM f), sc.score, v.node_id,"
            f" v.ts, v.classification, {HIT} FROM sc"
            " JOIN voice_messages v ON v.node_id = sc.node_id JOIN nodes n ON n.id = sc.node_id"
            " WHERE NOT EXISTS (SELECT 1 FROM cut) OR (sc.dm, sc.score) <= (SELECT * FROM cut)"
            " ORDER BY sc.dm, sc.score, v.ts DESC, sc.node_id LIMIT %s",
            [
                *head_args,
                *part_args,
                *having_args,
                q.demote,
                q.recency_days,
                *(args if filtered else []),
                q.limit - 1,
                q.limit,
            ],
        )
        hits = [voice_row(float(r[2]), r[3], r[4], r[5], r[6:]) for r in rows]
        bodies = [str(r[11]) for r in rows]  # n.body (HIT's sixth column)
        return hits, int(rows[0][0]) if rows else 0, int(rows[0][1]) if rows else 0, bodies

    def _plan(self, q: VoiceSearch, nodes: int, matches: int) -> str:
        """``common_plan`` (``VoiceSearch``): only past ``candidates`` matches."""
        words = plan_words(q.query)
        if matches <= max(q.candidates, q.limit) or q.candidates < 1 or not words:
            return "full"
        # a lower bound first: the live messages holding each word in their body
        # (voice_df) and the other rows holding it in theirs (a small index); a
        # word past half of all nodes that way is certainly past half (``recent``)
        having, having_args = body_df([((w,), False) for w in words])
        lower = self.store.fetch_all(f"SELECT true{having}", having_args)[0][1:]
        if min(int(c) for c in lower) * 2 >= nodes > 0:
            return "recent"
        # else the exact document frequency over title and body (every row)
        counts = self.store.fetch_all(
            "SELECT "
            + ", ".join(
                f"(SELECT count(*) FROM nodes WHERE {FTS} @@ to_tsquery('memgraph_text', %s))"
                for _ in words
            ),
            [phrase_tsquery(((w,), False)) for w in words],
        )[0]
        return common_plan(nodes, min(int(c) for c in counts))

    def _partial_tier(
        self,
        q: VoiceSearch,
        clause: str,
        args: list[object],
        head: str,
        head_args: list[object],
        whole: list[VoiceRow],
    ) -> list[VoiceRow]:
        """Substring tier (``VoiceSearch``): messages holding every term as a
        case-insensitive substring and not whole-word hits, newest inserted first,
        ``demote`` ones last; pg_trgm's GIN index finds them."""
        if q.word or len(whole) >= q.limit:
            return []
        terms = [t.lower() for t in query_terms(q.query)]
        if not terms or any(len(t) < 2 for t in terms):
            return []
        likes = " AND ".join("lower(n.body) LIKE %s" for _ in terms)
        patterns = [
            "%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            for t in terms
        ]
        rows = self.store.fetch_all(
            f"{head}SELECT v.node_id, v.ts, v.classification, {HIT} FROM nodes n"
            " CROSS JOIN LATERAL (SELECT * FROM voice_messages v"
            f" WHERE v.node_id = n.id AND {clause} OFFSET 0) v"
            f" WHERE n.profile = 'voice' AND n.kind = 'message' AND {likes}"
            " AND NOT n.id = ANY(%s) ORDER BY n.seq DESC LIMIT %s",
            [*head_args, *args, *patterns, [h.node_id for h in whole], q.limit - len(whole)],
        )
        found = [voice_row(0.0, r[0], r[1], r[2], r[3:]) for r in rows]
        return sorted(found, key=lambda h: h.classification == q.demote)
