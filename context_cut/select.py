"""Summary or descent.

For the candidate nodes of a query, the summaries covering them are found
(and the summaries covering those, up to ``MAX_DEPTH`` levels). From the top:

- a summary STANDS IN for everything it covers when it is fresh, its
  confidence is at least the query's threshold, and no covered candidate is a
  strong hit;
- otherwise the cut DESCENDS: to the summaries it covers (decided the same
  way) and to its covered nodes.

A strong hit is a node the query names specifically: every query term occurs
in its text (with at least two terms, or the single term in its title), or
its vector similarity is at least ``STRONG_COSINE``. Descent on a strong hit
keeps exact nodes for exact questions; stand-in keeps broad questions short.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from context_cut.candidates import Candidate
from context_cut.embedders import fold
from memgraph.documents.enums import FreshnessState

if TYPE_CHECKING:
    from memgraph.documents.views import NodeView, SummaryView

MAX_DEPTH = 4
STRONG_COSINE = 0.85
# descended, covered nodes the query did not hit rank below every hit
CONTEXT_FACTOR = 0.3

_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(fold(text)))


def is_strong_hit(node: NodeView, cand: Candidate | None, terms: list[str]) -> bool:
    if cand is None:
        return False
    if cand.vector_score is not None and cand.vector_score >= STRONG_COSINE:
        return True
    if not terms:
        return False
    body = _words(" ".join((node.title, node.claim, node.question, node.tension)))
    if not all(t in body for t in terms):
        return False
    return len(terms) >= 2 or terms[0] in _words(node.title)


@dataclass
class Decision:
    summary_id: str
    action: str  # "stand_in" | "descend"
    reason: str


@dataclass
class Unit:
    """A ranked unit of context: a node, or a summary standing in for its cover."""

    score: float
    node: NodeView | None = None
    summary: SummaryView | None = None

    @property
    def key(self) -> str:
        if self.summary is not None:
            return f"summary:{self.summary.id}"
        assert self.node is not None
        return f"node:{self.node.id}"


@dataclass
class Selection:
    units: list[Unit] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    stood_in: dict[str, str] = field(default_factory=dict)  # covered id -> summary id
    missing: set[str] = field(default_factory=set)  # covered ids the store lacks
    descended_stale: list[SummaryView] = field(default_factory=list)


class SummaryGraph:
    """The summaries relevant to a candidate set: those covering a candidate
    (transitively upward) and those they cover (downward, for descent)."""

    def __init__(self) -> None:
        self.summaries: dict[str, SummaryView] = {}

    def add(self, summaries: Iterable[SummaryView]) -> set[str]:
        new = {s.id for s in summaries if s.id not in self.summaries}
        self.summaries.update((s.id, s) for s in summaries if s.id in new)
        return new

    def roots(self) -> list[SummaryView]:
        covered = {c for s in self.summaries.values() for c in s.covers_summary_ids}
        return [s for sid, s in self.summaries.items() if sid not in covered]


def usable(s: SummaryView, threshold: float) -> str | None:
    """Why ``s`` cannot stand in (None when it can)."""
    if s.freshness.state is FreshnessState.stale:
        changed = ", ".join(s.freshness.stale_ids[:5]) or s.freshness.reason or "sources"
        return f"stale ({changed} changed)"
    if s.confidence < threshold:
        return f"confidence {s.confidence:.2f} < {threshold:.2f}"
    return None


class NodeLoader(Protocol):
    def __call__(self, ids: Iterable[str]) -> Mapping[str, NodeView]: ...


def select(
    ranked: list[tuple[Candidate, NodeView]],
    graph: SummaryGraph,
    load: NodeLoader,
    terms: list[str],
    threshold: float,
    admits: Callable[[NodeView], bool],
    *,
    strict_cover: bool = False,
) -> Selection:
    """Decide stand-in or descent for every summary over the ranked candidates.

    ``load`` reads covered nodes from the store (only when a descent or the
    public-surface check needs them); ``admits`` says whether the cut shows a
    node at all. With
    ``strict_cover`` (the persona's public surface) a summary covering any node
    the cut does not admit never stands in: it would speak for private nodes.
    """
    sel = Selection()
    cand_by_id = {c.node_id: (c, n) for c, n in ranked}
    best = max((c.score for c, _ in ranked), default=1.0) or 1.0
    placed: set[str] = set()

    def node_score(nid: str) -> float | None:
        hit = cand_by_id.get(nid)
        return hit[0].score / best if hit else None

    def subtree_nodes(s: SummaryView, seen: set[str]) -> list[str]:
        out = list(s.covers_node_ids)
        for cid in s.covers_summary_ids:
            child = graph.summaries.get(cid)
            if child is not None and cid not in seen:
                seen.add(cid)
                out += subtree_nodes(child, seen)
        return out

    cache: dict[str, NodeView | None] = {i: n for i, (_, n) in cand_by_id.items()}

    def nodes_of(ids: Sequence[str]) -> dict[str, NodeView]:
        rest = [i for i in ids if i not in cache]
        if rest:
            got = load(rest)
            cache.update((i, got.get(i)) for i in rest)
        sel.missing.update(i for i in ids if cache[i] is None)
        return {i: n for i in ids if (n := cache[i]) is not None}

    def all_admitted(ids: list[str]) -> bool:
        # chunked, so the first private node ends the check without reading the rest
        for i in range(0, len(ids), 16):
            chunk = ids[i : i + 16]
            docs = nodes_of(chunk)
            if not all(n in docs and admits(docs[n]) for n in chunk):
                return False
        return True

    def place_node(nid: str, node: NodeView | None, score: float) -> None:
        if nid in placed or node is None or not admits(node):
            return
        placed.add(nid)
        sel.units.append(Unit(score=score, node=node))

    def decide(s: SummaryView, depth: int, parent_score: float) -> None:
        if s.id in placed:
            return
        placed.add(s.id)
        inside = subtree_nodes(s, {s.id})
        hit_scores = [x for nid in inside if (x := node_score(nid)) is not None]
        if not hit_scores and usable(s, threshold) is not None:
            # a sibling cluster the query did not touch, and not fit to stand
            # in: context of context, left out rather than expanded
            sel.decisions.append(Decision(s.id, "skip", "no hit below, not usable"))
            return
        score = max(hit_scores, default=parent_score)
        strong = [
            nid
            for nid in inside
            if nid in cand_by_id and is_strong_hit(cand_by_id[nid][1], cand_by_id[nid][0], terms)
        ]
        why_not = usable(s, threshold)
        if why_not is None and strict_cover and not all_admitted(inside):
            why_not = "covers nodes outside the public surface"
        if why_not is None and not strong:
            sel.decisions.append(Decision(s.id, "stand_in", "fresh and confident"))
            sel.units.append(Unit(score=score, summary=s))
            for nid in inside:
                sel.stood_in.setdefault(nid, s.id)
                placed.add(nid)
            return
        reason = why_not or f"strong hit on {', '.join(sorted(strong)[:3])}"
        sel.decisions.append(Decision(s.id, "descend", reason))
        if s.freshness.state is FreshnessState.stale:
            sel.descended_stale.append(s)
        if depth < MAX_DEPTH:
            for cid in s.covers_summary_ids:
                child = graph.summaries.get(cid)
                if child is None:
                    sel.missing.add(cid)
                else:
                    decide(child, depth + 1, score * CONTEXT_FACTOR)
        docs = nodes_of(s.covers_node_ids)
        for nid in s.covers_node_ids:
            own = node_score(nid)
            place_node(nid, docs.get(nid), own if own is not None else score * CONTEXT_FACTOR)

    for root in sorted(graph.roots(), key=lambda s: s.id):
        decide(root, 0, 0.0)
    for cand, node in ranked:
        if cand.node_id not in placed and admits(node):
            placed.add(cand.node_id)
            sel.units.append(Unit(score=cand.score / best, node=node))
    sel.units.sort(key=lambda u: (-u.score, u.key))
    return sel
