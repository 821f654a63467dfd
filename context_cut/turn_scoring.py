"""Scoring pieces of the turn ranking (``context_cut.turns``): fusion of the
lexical and dense rankings, lexical feedback, session scores, diverse top k, and
the months a question names (answer types: ``context_cut.answer_types``).

Each is driven by a ``TurnWeights`` knob; the defaults and what was tried are in
notes/recall.md (tuned on LoCoMo conversations 26 and 30 only).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from context_cut.answer_types import MONTHS
from context_cut.candidates import query_terms
from context_cut.embedders import fold

TYPE_CHECKING = False
if TYPE_CHECKING:
    from context_cut.turn_weights import TurnWeights
    from context_cut.turns import RankedTurn
    from memgraph.documents import MemoryNode  # or a plain one: memgraph.documents.plain


def normalised(
    ranking: Sequence[tuple[str, float]], minmax: bool = False, top: float = 0.0
) -> dict[str, float]:
    """Scores scaled to [0, 1] by the best (``minmax``: and the worst) in the ranking
    (``top``: by that score when it is higher, e.g. another ranking's best)."""
    if not ranking:
        return {}
    top = max(top, max(s for _, s in ranking))
    low = min(s for _, s in ranking)
    if top <= 0 or (minmax and top <= low):
        return {n: 0.0 for n, _ in ranking}
    floor = low if minmax else min(0.0, low)
    return {n: (s - floor) / (top - floor) for n, s in ranking}


def fuse(
    bm25: Sequence[tuple[str, float]],
    vector: Sequence[tuple[str, float]],
    weights: TurnWeights,
    late: Sequence[tuple[str, float]] = (),
) -> dict[str, float]:
    """Each turn's own score: the lexical, dense and late-interaction rankings fused."""
    if weights.rrf > 0:
        k = weights.rrf
        own: dict[str, float] = {}
        for ranking, w in ((bm25, weights.lexical), (vector, weights.dense), (late, weights.late)):
            for i, (n, _) in enumerate(ranking, start=1):
                own[n] = own.get(n, 0.0) + w * (k + 1) / (k + i)
        return own
    b, v = normalised(bm25), normalised(vector, weights.dense_floor)
    own = {n: weights.lexical * b.get(n, 0.0) + weights.dense * v.get(n, 0.0) for n in {*b, *v}}
    for n, s in normalised(late, minmax=True).items():
        own[n] = own.get(n, 0.0) + weights.late * s
    return own


def feedback_terms(
    docs: dict[str, MemoryNode], own: dict[str, float], skip: set[str], weights: TurnWeights
) -> list[str]:
    """Words the best turns share that the rest of the pool rarely says: a
    second lexical round on them finds the same topic said in other words."""
    bags = {nid: set(query_terms(node.claim or node.title)) for nid, node in docs.items()}
    df: dict[str, int] = {}
    for bag in bags.values():
        for w in bag:
            df[w] = df.get(w, 0) + 1
    top = sorted((n for n in bags if own.get(n, 0.0) > 0), key=lambda n: (-own[n], n))
    gain: dict[str, float] = {}
    for nid in top[: weights.prf_docs]:
        for w in bags[nid]:
            if w in skip or len(w) < 3 or w.isdigit():
                continue
            gain[w] = gain.get(w, 0.0) + own[nid] * math.log((len(bags) + 1) / (df[w] + 0.5))
    return sorted(gain, key=lambda w: (-gain[w], w))[: weights.prf_terms]


def sessions_of(
    docs: dict[str, MemoryNode],
    prev_of: dict[str, str],
    next_of: dict[str, str],
    scores: dict[str, float],
) -> dict[str, str]:
    """The session of each scored turn (an unread neighbour: its neighbour's)."""
    out: dict[str, str] = {}
    for nid, node in docs.items():
        sid = node.attributes.get("session_id")
        if isinstance(sid, str):
            out[nid] = sid
    for nid in scores:
        if nid not in out:
            for other in (prev_of.get(nid), next_of.get(nid)):
                if other is not None and other in out:
                    out[nid] = out[other]
                    break
    return out


def session_boost(
    scores: dict[str, float], own: dict[str, float], session_of: dict[str, str], share: float
) -> None:
    """Add ``share`` of the best own score in its session to each turn's score."""
    best: dict[str, float] = {}
    for nid, sid in session_of.items():
        best[sid] = max(best.get(sid, 0.0), own.get(nid, 0.0))
    for nid in scores:
        found = session_of.get(nid)
        if found is not None:
            scores[nid] += share * best[found]


def diverse(
    scored: list[RankedTurn],
    limit: int,
    weights: TurnWeights,
    prev_of: dict[str, str],
    next_of: dict[str, str],
) -> list[RankedTurn]:
    """The best ``limit`` turns, greedily: a turn beside a taken one counts
    ``adjacent`` of its score, and ``session`` per turn already taken from its
    session (so ten results are not one exchange ten times over)."""
    adjacent, session = weights.adjacent, weights.session
    if adjacent >= 1.0 and session >= 1.0:
        return scored[:limit]
    taken: list[RankedTurn] = []
    chosen: set[str] = set()
    per_session: dict[str, int] = {}
    rest = list(scored)
    while rest and len(taken) < limit:
        best_i, best = 0, -1.0
        for i, t in enumerate(rest):
            if t.score <= best:
                break  # sorted: nothing later can beat the best discounted score
            nid = t.node.id
            value = t.score
            if prev_of.get(nid) in chosen or next_of.get(nid) in chosen:
                value *= adjacent
            sid = t.node.attributes.get("session_id")
            if isinstance(sid, str) and per_session.get(sid):
                value *= session ** per_session[sid]
            if value > best:
                best_i, best = i, value
        pick = rest.pop(best_i)
        taken.append(replace(pick, score=best))
        chosen.add(pick.node.id)
        sid = pick.node.attributes.get("session_id")
        if isinstance(sid, str):
            per_session[sid] = per_session.get(sid, 0) + 1
    return taken


# -- a question naming a month ------------------------------------------------------

_MONTH_NAMES = MONTHS.split("|")[:12]
_MONTH_Q = re.compile(
    r"\b(?:in|of|during|since|early|late|mid|last|this) (" + "|".join(_MONTH_NAMES) + r")\b"
    r"|\b(" + "|".join(m for m in _MONTH_NAMES if m != "may") + r")\b",
    re.I,
)


def months_named(text: str) -> set[int]:
    """The months (1-12) a question names ("in June", "July 2023"; "may" only after a
    preposition, so "may" the verb is not May)."""
    return {_MONTH_NAMES.index(fold(a or b)) + 1 for a, b in _MONTH_Q.findall(text)}
