"""Candidate ranking: FTS5 BM25 always, Qdrant vectors when configured, RRF.

BM25 runs as an OR over the query's content words: one ``store.search`` per
term, scores summed. FTS5's bm25() of an OR query is exactly that sum, and an
OR is what a spoken query needs (``store.search`` alone ANDs every word, so
"why did we drop the cache" would need every word in one node).

Fusion is reciprocal-rank fusion: score = sum over rankers of 1 / (k + rank).
Vectors only add and re-order candidate ids; every document is then read
from the store, so nothing Qdrant holds can enter a packet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from context_cut.embedders import fold
from memgraph.errors import MemgraphError
from memgraph.store.interfaces import indexes
from memgraph.store.protocol import Store
from memgraph.store.rows import TermFrequencies

RRF_K = 60
MAX_TERMS = 12

# Words that carry no topic; searching them would only add noise and time.
_STOP = """a an and are as at be been but by can could did do does doing done for from had
    has have how i if in into is it its me my no not of on or our so than that the their
    them then there these they this those to too us was we were what when where which
    while who whom why will with would you your about again all also any just more most
    other same should some such only own very s t don now get got"""
STOPWORDS = frozenset(_STOP.split())

_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str) -> list[str]:
    """Content words of a query, folded, deduplicated, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(fold(text)):
        if word not in STOPWORDS and len(word) > 1:
            seen.setdefault(word, None)
    terms = list(seen)
    if not terms:  # a query of stopwords only still searches for something
        terms = list(dict.fromkeys(w for w in _WORD.findall(fold(text)) if len(w) > 1))
    return terms[:MAX_TERMS]


@dataclass
class Candidate:
    node_id: str
    score: float = 0.0  # fused (RRF), before cut weights
    bm25_rank: int | None = None
    bm25_score: float | None = None  # summed -bm25 (higher is better)
    vector_rank: int | None = None
    vector_score: float | None = None  # cosine


@dataclass
class CandidateSet:
    ranked: list[Candidate] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    vectors_used: bool = False

    def by_id(self) -> dict[str, Candidate]:
        return {c.node_id: c for c in self.ranked}


# A term in more than this share of nodes is treated as a stopword when the
# query has rarer terms: FTS5 clamps the IDF of a term in over half the nodes
# to ~0, and below that its weight is still small while it costs a scan of
# every node holding it.
COMMON_TERM_SHARE = 0.1
PRUNE_MIN_NODES = 5000  # below this every term is cheap: keep them all


def prune_common(freq: TermFrequencies, terms: Sequence[str]) -> list[str]:
    """Drop terms held by more than ``COMMON_TERM_SHARE`` of the nodes (keep the rarest
    one when every term is that common); nothing is dropped below ``PRUNE_MIN_NODES``."""
    if freq.nodes < PRUNE_MIN_NODES:
        return list(terms)
    df = dict(freq.df)
    rare = [t for t in terms if df.get(t, 0) <= freq.nodes * COMMON_TERM_SHARE]
    return rare or sorted(terms, key=lambda t: df.get(t, 0))[:1]


def bm25_ranking(
    store: Store, terms: Sequence[str], limit: int, profiles: Sequence[str] | None = None
) -> list[tuple[str, float]]:
    """(node id, -bm25) best first, OR semantics over ``terms``."""
    if not terms:
        return []
    if not profiles:
        stats = indexes(store).terms
        return stats.rank_any(prune_common(stats.frequencies(terms), terms), limit)
    # A profile filter: one store.search per term and profile. The sum of
    # single-term bm25 scores is the bm25 of the OR query.
    totals: dict[str, float] = {}
    per_term = max(limit * 4, 100)
    for term in terms:
        # a bare quoted term: to_fts5_query keeps it literal, so no syntax leaks
        hits = [h for p in profiles for h in store.search(f'"{term}"', per_term, profile=p)]
        for h in hits:
            totals[h.node_id] = totals.get(h.node_id, 0.0) - h.score
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:limit]


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, node_id in enumerate(ranking, start=1):
            scores[node_id] = scores.get(node_id, 0.0) + 1.0 / (k + rank)
    return scores


class VectorSource(Protocol):
    """What ``gather`` needs from a nerve (``context_cut.vectors.VectorNerve``)."""

    notices: list[str]

    def search(
        self, store: Store, text: str, limit: int, profiles: Sequence[str] | None = None
    ) -> list[tuple[str, float]]: ...


def gather(
    store: Store,
    text: str,
    limit: int,
    *,
    nerve: VectorSource | None = None,
    profiles: Sequence[str] | None = None,
    vector_profiles: Sequence[str] | None = None,
    lexical: bool = True,
) -> CandidateSet:
    """Rank up to ``limit`` candidate node ids for ``text``.

    ``profiles`` restricts BM25 to those profiles; the vector search asks only
    the partitions (and payload profiles) of ``vector_profiles`` (default
    ``profiles``). The caller still filters every hit on the stored document.
    """
    result = CandidateSet(terms=query_terms(text))
    bm25 = bm25_ranking(store, result.terms, limit, profiles) if lexical else []
    vector: list[tuple[str, float]] = []
    if nerve is not None:
        try:
            # over-fetch: some hits fall outside the cut's profiles
            wanted = vector_profiles if vector_profiles is not None else profiles
            vector = nerve.search(store, text, limit * 3, wanted)
            result.vectors_used = True
        except MemgraphError as exc:
            message = " ".join(str(exc).split())
            result.notices.append(f"vectors unavailable, BM25 only: {message}")
        result.notices += nerve.notices
        nerve.notices = []
    fused = rrf([[n for n, _ in bm25], [n for n, _ in vector]])
    cands = {n: Candidate(n) for n in fused}
    for rank, (n, s) in enumerate(bm25, start=1):
        cands[n].bm25_rank, cands[n].bm25_score = rank, s
    for rank, (n, s) in enumerate(vector, start=1):
        cands[n].vector_rank, cands[n].vector_score = rank, s
    for n, c in cands.items():
        c.score = fused[n]
    result.ranked = sorted(cands.values(), key=lambda c: (-c.score, c.node_id))
    return result
