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
from memgraph.store.rows import VoiceRow, VoiceSearch

if TYPE_CHECKING:
    from memgraph.store.postgres.indexes import PgVoiceIndex

LIVE = "v.lifecycle <> 'retired'"

# (demote, score, node id, classification)
Scored = tuple[int, float, str, "str | None"]


def ranked_words(
    index: PgVoiceIndex,
    q: VoiceSearch,
    phrases: list[Phrase],
    head: str,
    head_args: list[object],
    clause: str,
    args: list[object],
) -> tuple[list[VoiceRow], int]:
    """The best ``q.limit`` whole-word hits of several one-word phrases, and how many
    messages matched (every word, the filters)."""
    from memgraph.store.postgres.indexes import _HIT, _body_df, _row

    words = [p[0][0] for p in phrases]
    k = len(words)
    having, having_args = _body_df(phrases)
    tfs = ", ".join(f"p{i}.tf" for i in range(k))
    joins = "".join(
        f" JOIN voice_terms p{i} ON p{i}.term = %s AND p{i}.node_id = p0.node_id"
        for i in range(1, k)
    )
    # filters other than liveness (voice_terms holds live messages only)
    filtered = f" JOIN voice_messages v ON v.node_id = p0.node_id AND {clause}"
    if clause == LIVE:
        filtered = ""
    rows = index.store.fetch_all(
        f"{head}SELECT s.*, p0.node_id, p0.ntok, p0.day, p0.classification, {tfs}"
        " FROM (SELECT nodes, tokens, (SELECT day FROM voice_messages"
        " WHERE lifecycle <> 'retired' ORDER BY ts DESC LIMIT 1) AS ref"
        f"{having} FROM node_stats) s CROSS JOIN voice_terms p0{joins}{filtered}"
        " WHERE p0.term = %s",
        [*head_args, *having_args, *words[1:], *(args if filtered else []), words[0]],
    )
    if not rows or q.limit < 1:
        return [], len(rows)
    scored = _scores(q, rows, k)
    scored.sort(key=lambda s: (s[0], s[1]))
    cut = scored[min(q.limit, len(scored)) - 1][:2]
    best = {nid: (dm, score, cls) for dm, score, nid, cls in scored if (dm, score) <= cut}
    texts = index.store.fetch_all(
        f"SELECT v.node_id, v.ts, {_HIT} FROM voice_messages v JOIN nodes n"
        " ON n.id = v.node_id WHERE v.node_id = ANY(%s)",
        [list(best)],
    )
    found = [(best[r[0]], r[0], r[1], r[2:]) for r in texts if r[0] in best]
    found.sort(key=lambda f: f[1])
    found.sort(key=lambda f: f[2], reverse=True)
    found.sort(key=lambda f: f[0][:2])
    hits = [_row(score, nid, ts, cls, hit) for (_, score, cls), nid, ts, hit in found]
    return hits[: q.limit], len(rows)


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
