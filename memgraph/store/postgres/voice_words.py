"""Voice search of several plain words on PostgreSQL (``VoiceSearch``, issue 16).

``deploy config``: every word's postings are an index-only range of the
``voice_terms`` key (migration 88: ``(term, node_id) INCLUDE (tf, ntok, day,
classification)``), in node id order, so the server merge-joins the ranges and
no message row is visited; the corpus figures (rows, tokens, the newest day,
each word's document frequency) ride on every row. The statement is small on
purpose: a one-shot ``memgraph voice`` pays parse + plan once per process, and
the single statement with the ranking in SQL cost more to plan (~2.5 ms) than
to run. Python ranks the candidates with ``fts.bm25`` (the arithmetic the
phrase path and SQLite's scores agree with), and a second statement reads the
text of the best ``limit`` (ties at the cut included, ordered
``ts DESC, node_id``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memgraph.store.postgres.fts import Phrase, bm25, idf
from memgraph.store.voice_rows import VoiceRow, VoiceSearch

if TYPE_CHECKING:
    from memgraph.store.postgres.voice_search import PgVoiceSearch

# the filters of a search without any (voice_sql.filters): live, no tombstone
LIVE = "v.lifecycle NOT IN ('retired', 'forgotten')"
# the one lexeme of a forgotten message's body (profiles.voice.policy: a tombstone's
# title and claim are "[forgotten]", its other text fields empty)
TOMBSTONE = "forgotten"


def live_only(clause: str, phrases: list[Phrase]) -> bool:
    """Are the postings of these one-word phrases exactly the messages ``clause``
    keeps? ``voice_terms`` holds every non-retired message, forgotten tombstones
    included, but a tombstone's only lexeme is ``TOMBSTONE``: a query that cannot
    match it needs no ``voice_messages`` visit to leave tombstones out."""
    return clause == LIVE and not any(
        TOMBSTONE.startswith(words[0]) if prefix else words[0] == TOMBSTONE
        for words, prefix in phrases
    )


# (demote, score, node id, classification)
Scored = tuple[int, float, str, "str | None"]


def ranked_words(
    index: PgVoiceSearch,
    q: VoiceSearch,
    phrases: list[Phrase],
    head: str,
    head_args: list[object],
    clause: str,
    args: list[object],
    only: list[str] | None = None,
) -> tuple[list[VoiceRow], int, int]:
    """(the best ``q.limit`` whole-word hits of one-word phrases, how many messages
    matched every word and the filters, the node count). ``only``: rank these
    messages (already filtered) instead."""
    from memgraph.store.postgres.voice_sql import body_df

    words = [p[0][0] for p in phrases]
    k = len(words)
    having, having_args = body_df(phrases)
    tfs = ", ".join(f"p{i}.tf" for i in range(k))
    joins = "".join(
        f" JOIN voice_terms p{i} ON p{i}.term = %s AND p{i}.node_id = p0.node_id"
        for i in range(1, k)
    )
    # filters other than liveness (voice_terms holds live messages only)
    filtered = f" JOIN voice_messages v ON v.node_id = p0.node_id AND {clause}"
    if live_only(clause, phrases) or only is not None:
        filtered, head, head_args = "", "", []
    where, where_args = "p0.term = %s", list[object]([words[0]])
    if only is not None:
        where, where_args = f"{where} AND p0.node_id = ANY(%s)", [*where_args, only]
    rows = index.store.fetch_all(
        f"{head}SELECT s.*, p0.node_id, p0.ntok, p0.day, p0.classification, {tfs}"
        " FROM (SELECT nodes, tokens, (SELECT day FROM voice_messages"
        " WHERE lifecycle <> 'retired' ORDER BY ts DESC LIMIT 1) AS ref"
        f"{having} FROM node_stats) s CROSS JOIN voice_terms p0{joins}{filtered}"
        f" WHERE {where}",
        [*head_args, *having_args, *words[1:], *(args if filtered else []), *where_args],
    )
    if not rows or q.limit < 1:
        return [], len(rows), int(rows[0][0]) if rows else 0
    scored = _scores(q, rows, k)
    scored.sort(key=lambda s: (s[0], s[1]))
    cut = scored[min(q.limit, len(scored)) - 1][:2]
    best = {nid: (dm, score, cls) for dm, score, nid, cls in scored if (dm, score) <= cut}
    return _hits(index, q, best), len(rows), int(rows[0][0])


def _hits(
    index: PgVoiceSearch, q: VoiceSearch, best: dict[str, tuple[int, float, str | None]]
) -> list[VoiceRow]:
    """The rows of ``best`` ({node id: (demote, score, class)}) with their text, by
    (demote, score, ts DESC, node id), the first ``q.limit``."""
    from memgraph.store.postgres.voice_sql import HIT, voice_row

    texts = index.store.fetch_all(
        f"SELECT v.node_id, v.ts, {HIT} FROM voice_messages v JOIN nodes n"
        " ON n.id = v.node_id WHERE v.node_id = ANY(%s)",
        [list(best)],
    )
    found = [(best[r[0]], r[0], r[1], r[2:]) for r in texts if r[0] in best]
    found.sort(key=lambda f: f[1])
    found.sort(key=lambda f: f[2], reverse=True)
    found.sort(key=lambda f: f[0][:2])
    hits = [voice_row(score, nid, ts, cls, hit) for (_, score, cls), nid, ts, hit in found]
    return hits[: q.limit]


def over(index: PgVoiceSearch, phrases: list[Phrase], cap: int) -> bool:
    """Do more than ``cap`` live messages hold the (one, plain) word in their body?"""
    rows = index.store.fetch_all("SELECT n FROM voice_df WHERE term = %s", [phrases[0][0][0]])
    return bool(rows) and int(rows[0][0]) > cap


def newest(
    index: PgVoiceSearch,
    phrases: list[Phrase],
    head: str,
    head_args: list[object],
    clause: str,
    args: list[object],
    limit: int,
) -> list[str]:
    """The ``limit`` matches of every word meeting the filters inserted last
    (``nodes.seq``, SQLite's rowid order): the voice messages walked by ``seq``
    downwards, each word a probe of the ``voice_terms`` key (a common word is met
    every few rows)."""
    words = [p[0][0] for p in phrases]
    has = " AND ".join(
        "EXISTS (SELECT 1 FROM voice_terms t WHERE t.term = %s AND t.node_id = n.id)" for _ in words
    )
    filtered = f" JOIN voice_messages v ON v.node_id = n.id AND {clause}"
    if clause == LIVE:  # the same test on the node row
        filtered = ""
    rows = index.store.fetch_all(
        f"{head}SELECT n.id FROM nodes n{filtered} WHERE n.profile = 'voice'"
        " AND n.kind = 'message' AND n.lifecycle NOT IN ('retired', 'forgotten')"
        f" AND {has} ORDER BY n.seq DESC LIMIT %s",
        [*head_args, *(args if filtered else []), *words, limit],
    )
    return [str(r[0]) for r in rows]


def bounded(
    index: PgVoiceSearch,
    q: VoiceSearch,
    phrases: list[Phrase],
    plan: str,
    head: str,
    head_args: list[object],
    clause: str,
    args: list[object],
    found: list[str] | None = None,
) -> list[VoiceRow]:
    """Common words (``voice_rows.common_plan``): the newest ``max(candidates, limit)``
    matches meeting the filters (``newest``; ``found`` when the caller has them),
    ranked by the law (``"bounded"``) or ordered by time (``"recent"``, score 0.0)."""
    cap = max(q.candidates, q.limit)
    if found is None:
        found = newest(index, phrases, head, head_args, clause, args, cap)
    found = found[:cap]
    if plan != "recent":
        return ranked_words(index, q, phrases, "", [], clause, args, only=found)[0]
    rows = index.store.fetch_all(
        "SELECT node_id, ts, classification FROM voice_messages WHERE node_id = ANY(%s)",
        [found],
    )
    order = sorted(rows, key=lambda r: r[0])
    order.sort(key=lambda r: r[1], reverse=True)
    order.sort(key=lambda r: r[2] == q.demote)
    best = {str(nid): (int(cls == q.demote), 0.0, cls) for nid, _, cls in order[: q.limit]}
    return _hits(index, q, best)


def _scores(q: VoiceSearch, rows: Sequence[Any], k: int) -> list[Scored]:
    """``fts.bm25`` x recency of each candidate row (corpus figures first)."""
    nodes, total, ref = int(rows[0][0]), int(rows[0][1] or 0), float(rows[0][2] or 0.0)
    avgdl = total / nodes if nodes and total else 1.0
    weights = [idf(nodes, int(h)) for h in rows[0][3 : 3 + k]]
    scored: list[Scored] = []
    for r in rows:
        nid, ntok, day, cls = r[3 + k : 7 + k]
        score = bm25(weights, [int(t) for t in r[7 + k :]], int(ntok), avgdl)
        score *= 0.5 + 0.5 / (1.0 + max(0.0, ref - float(day)) / q.recency_days)
        scored.append((1 if cls == q.demote else 0, score, str(nid), cls))
    return scored


__all__ = ["ranked_words"]
