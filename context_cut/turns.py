"""Turn-level recall over voice messages: lexical and dense fused, turns in context.

A conversation turn is short and often only makes sense beside its neighbour:
"5 years already!" answers "How long have you been married?". So a turn is
scored on its own words AND on its neighbours' (``prev_turn``/``next_turn``,
set by ``memgraph import conversations``):

    final(t) = s(t) + PREV * s(prev(t)) + NEXT * s(next(t))
               + SESSION * max(s(u) for u in t's session)   (x SPEAKER when named)

where ``s`` is the fusion of a BM25 (OR over the query's content words, each
word also as a prefix of its stem so "pets" finds "pet"), normalised by its best
hit in the pool, and the cosine of the vector nerve, min-max normalised over the
pool. A turn whose speaker the query names ("What pet does Caroline have?") is
boosted, and the dense side is asked the question's content words without the
speakers' names (a packet asks the question as written); a question naming a month
prefers turns said in it, and a question of an answer type ("when", "where", "what books")
turns that say one (``context_cut.answer_types``). The scoring pieces live in
``context_cut.turn_scoring``, the weights (``TurnWeights``) in ``context_cut.turn_weights``.

Scope filters (project, session, constellation, since) are applied inside the
lexical query on SQLite (the voice index), so one conversation among many
still gets a full candidate pool; vector hits are over-fetched and filtered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from context_cut.answer_types import asked_types, typed_factor
from context_cut.candidates import VectorSource, bm25_ranking, query_terms
from context_cut.embedders import fold
from context_cut.token_vectors import late_for, late_query
from context_cut.turn_scoring import (
    diverse,
    feedback_terms,
    fuse,
    months_named,
    normalised,
    session_boost,
    sessions_of,
)
from context_cut.turn_weights import WEIGHTS, TurnWeights
from context_cut.word_vectors import prime, related_for
from memgraph.errors import MemgraphError
from memgraph.store.protocol import Store
from memgraph.store.rows import VoiceScope, iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.documents import MemoryNode  # or a plain one: memgraph.documents.plain
    from memgraph.store.interfaces import TurnIndex


@dataclass(frozen=True)
class TurnScope:
    project: str | None = None
    session_id: str | None = None
    constellation: str | None = None
    since: datetime | None = None

    def admits(self, node: MemoryNode) -> bool:
        if node.profile.value != "voice" or node.kind != "message":
            return False
        if node.lifecycle in ("retired", "superseded", "forgotten"):
            return False  # withdrawn, an older version of a changed record, a tombstone
        attrs = node.attributes
        if self.project is not None and attrs.get("project") != self.project:
            return False
        if self.session_id is not None and attrs.get("session_id") != self.session_id:
            return False
        if self.constellation is not None and attrs.get("constellation") != self.constellation:
            return False
        when = node.valid_from or node.created_at
        return self.since is None or when >= self.since


@dataclass
class RankedTurn:
    node: MemoryNode
    score: float
    bm25_rank: int | None = None
    vector_rank: int | None = None


@dataclass
class TurnRanking:
    turns: list[RankedTurn] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    vectors_used: bool = False
    considered: set[str] = field(default_factory=set)  # every id scored, kept or not
    related: list[str] = field(default_factory=list)  # stored words searched for them


_SUFFIXES = ("ing", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    """A crude suffix strip, used only as an FTS5 prefix ("camping" -> "camp*")."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _index(store: Store) -> TurnIndex | None:
    from memgraph.store.interfaces import indexes

    return indexes(store).turns


def _scope_row(scope: TurnScope) -> VoiceScope:
    since = iso(scope.since) if scope.since is not None else None
    return VoiceScope(scope.project, scope.session_id, scope.constellation, since)


def words(terms: Sequence[str], stems: bool = True) -> list[tuple[str, bool]]:
    """Each term as itself and (when it has a suffix to strip) its stem as a prefix."""
    out: list[tuple[str, bool]] = []
    for term in terms:
        out.append((term, False))
        root = stem(term) if stems else term
        if root != term:
            out.append((root, True))
    return out


def lexical_ranking(
    store: Store,
    terms: Sequence[str],
    scope: TurnScope,
    limit: int,
    stems: bool = True,
    title_weight: float = 1.0,
) -> list[tuple[str, float]]:
    """(node id, -bm25) of voice messages in ``scope``, best first."""
    if not terms:
        return []
    index = _index(store)
    if index is None:  # a backend without the turn index: generic BM25, scope read later
        return bm25_ranking(store, terms, limit * 4, ["voice"])
    return index.rank_any(words(terms, stems), _scope_row(scope), limit, title_weight)


def _in_scope_ids(store: Store, ids: Sequence[str], scope: TurnScope) -> set[str] | None:
    """Which of ``ids`` are voice messages in ``scope`` (None: cannot tell cheaply)."""
    index = _index(store)
    if index is None:
        return None
    return index.in_scope(ids, _scope_row(scope))


_NAME = re.compile(r"\w+", re.UNICODE)


def _named(text: str) -> set[str]:
    return {w for w in _NAME.findall(fold(text)) if len(w) > 1}


def _links(
    docs: dict[str, MemoryNode],
    ids: Sequence[str],
    prev_of: dict[str, str],
    next_of: dict[str, str],
) -> None:
    for nid in ids:
        node = docs.get(nid)
        if node is None:
            continue
        prev, nxt = node.attributes.get("prev_turn"), node.attributes.get("next_turn")
        if isinstance(prev, str):
            prev_of[nid] = prev
            next_of.setdefault(prev, nid)
        if isinstance(nxt, str):
            next_of[nid] = nxt
            prev_of.setdefault(nxt, nid)


def _dense_text(store: Store, text: str, bm25: Sequence[tuple[str, float]], how: int) -> str:
    """The text the dense side embeds (``TurnWeights.dense_query``)."""
    if how == 0:
        return text
    with store.reader() as reader:
        top = reader.get_nodes([n for n, _ in bm25[:8]])
    names = {
        w
        for node in top.values()
        if isinstance(node.attributes.get("speaker"), str)
        for w in _named(str(node.attributes["speaker"]))
    }
    if how == 2:
        kept = [t for t in query_terms(text) if t not in names]
    else:
        kept = [w for w in _NAME.findall(text) if fold(w) not in names]
    return " ".join(kept) or text


def rank_turns(
    store: Store,
    text: str,
    limit: int,
    *,
    nerve: VectorSource | None = None,
    scope: TurnScope | None = None,
    lexical: bool = True,
    weights: TurnWeights = WEIGHTS,
    packet: bool = False,
) -> TurnRanking:
    """Up to ``limit`` voice message turns for ``text``, best first (``packet``: for
    a context packet, which reads deeper than a top k)."""
    scope = scope or TurnScope()
    out = TurnRanking(terms=query_terms(text))
    pool = max(weights.pool, limit * 4)
    bm25 = (
        lexical_ranking(store, out.terms, scope, pool, weights.stems, weights.title_weight)
        if lexical
        else []
    )
    vector: list[tuple[str, float]] = []
    late: list[tuple[str, float]] = []
    if nerve is not None:
        try:
            how = weights.packet_dense_query if packet else weights.dense_query
            asked = _dense_text(store, text, bm25, how)
            query = late_query(nerve, text, asked) if weights.late > 0 else None
            if lexical and weights.related > 0:  # question words the word table lacks:
                prime(nerve, asked, out.terms)  # embedded in the question's batch
            hits = nerve.search(store, asked, pool * weights.fetch, ["voice"])
            out.vectors_used = True
        except MemgraphError as exc:
            out.notices.append("vectors unavailable, BM25 only: " + " ".join(str(exc).split()))
            hits = []
        out.notices += nerve.notices
        nerve.notices = []
        keep = _in_scope_ids(store, [n for n, _ in hits], scope)
        vector = [(n, s) for n, s in hits if keep is None or n in keep][:pool]
        if out.vectors_used and weights.late > 0:
            where = (scope.project, scope.constellation)
            late, why = late_for(
                nerve, query, lambda ids: _in_scope_ids(store, ids, scope), weights.late_pool, where
            )
            out.notices += [f"token vectors ignored: {why}; run `memgraph index`"] if why else []
    own = fuse(bm25, vector, weights, late)
    seeds = sorted(own, key=lambda n: (-own[n], n))[: max(limit * 4, weights.seeds)]
    with store.reader() as reader:
        docs = reader.get_nodes(seeds)
    # neighbours from the seeds' own links: a non-seed turn inherits from the seed
    # beside it without being read; only the turns that make the cut are read
    prev_of: dict[str, str] = {}
    next_of: dict[str, str] = {}
    _links(docs, list(docs), prev_of, next_of)
    named = _named(text)
    speakers = {
        w
        for node in docs.values()
        if isinstance(node.attributes.get("speaker"), str)
        for w in _named(str(node.attributes["speaker"]))
    }
    fresh: list[str] = []
    content = [t for t in out.terms if t not in speakers]
    if lexical and not weights.speaker_terms and content and len(content) < len(out.terms):
        bm25 = lexical_ranking(store, content, scope, pool, weights.stems, weights.title_weight)
        own = fuse(bm25, vector, weights, late)
        fresh = sorted(own, key=lambda n: (-own[n], n))[: len(seeds)]
    if lexical and weights.prf > 0:
        extra = feedback_terms(docs, own, {*out.terms, *speakers}, weights)
        second = lexical_ranking(store, extra, scope, pool, weights.stems, weights.title_weight)
        fb = normalised(second)
        for n, s in fb.items():
            own[n] = own.get(n, 0.0) + weights.prf * s
        fresh = sorted(own, key=lambda n: (-own[n], n))[: len(seeds)]
    if lexical and nerve is not None and weights.related > 0:
        least, per, common = weights.related_min, weights.related_per, weights.related_common
        out.related, why = related_for(nerve, content, speakers, least, per, common)
        out.notices += [f"word vectors ignored: {why}; run `memgraph index`"] if why else []
        second = lexical_ranking(
            store, out.related, scope, weights.pool, weights.stems, weights.title_weight
        )
        top = max((s for _, s in bm25), default=0.0) if weights.related_scale else 0.0
        for n, s in normalised(second, top=top).items():
            own[n] = own.get(n, 0.0) + weights.related * s
        if second:
            fresh = sorted(own, key=lambda n: (-own[n], n))[: len(seeds)]
    unread = [n for n in fresh if n not in docs]
    if unread:
        with store.reader() as reader:
            docs.update(reader.get_nodes(unread))
        _links(docs, unread, prev_of, next_of)
    scores: dict[str, float] = {}
    for nid in {*docs, *prev_of.values(), *next_of.values()}:
        score = own.get(nid, 0.0)
        p1, n1 = prev_of.get(nid), next_of.get(nid)
        if p1 is not None:
            score += weights.prev * own.get(p1, 0.0)
            p2 = prev_of.get(p1)
            if p2 is not None and weights.prev2:
                score += weights.prev2 * own.get(p2, 0.0)
        if n1 is not None:
            score += weights.next * own.get(n1, 0.0)
            n2 = next_of.get(n1)
            if n2 is not None and weights.next2:
                score += weights.next2 * own.get(n2, 0.0)
        if score > 0:
            scores[nid] = score
    if weights.sess_share > 0:  # a turn in a session that answers well counts more
        session_boost(scores, own, sessions_of(docs, prev_of, next_of, scores), weights.sess_share)
    order = sorted(scores, key=lambda n: (-scores[n], n))
    brank = {n: i for i, (n, _) in enumerate(bm25, start=1)}
    vrank = {n: i for i, (n, _) in enumerate(vector, start=1)}
    scored: list[RankedTurn] = []
    kinds = asked_types(text, weights)  # the answer types asked, with their multipliers
    months = months_named(text) if weights.month != 1.0 else set()
    # the speaker boost can lift a turn by at most ``weights.speaker``: read enough
    # turns that none below the window could overtake one inside it
    window = order[: max(limit * 3, 30)]
    missing = [n for n in window if n not in docs]
    if missing:
        with store.reader() as reader:
            docs.update(reader.get_nodes(missing))
    for nid in window:
        node = docs.get(nid)
        if node is None or not scope.admits(node):
            continue
        score = scores[nid]
        speaker = node.attributes.get("speaker")
        if isinstance(speaker, str) and named & _named(speaker):
            score *= weights.speaker
        if kinds:
            score *= typed_factor(kinds, node.claim or node.title, speakers)
        said = node.valid_from or node.created_at
        if months and said.month in months:
            score *= weights.month
        scored.append(RankedTurn(node, score, brank.get(nid), vrank.get(nid)))
    scored.sort(key=lambda t: (-t.score, t.node.id))
    out.considered = {*own, *scores}
    out.turns = diverse(scored, limit, weights, prev_of, next_of)
    return out
