"""The repo cut's ranking: a linear model over the module index's signals.

Each signal is computed for every module and normalised by the best module for
this text (so a weight means the same on any repo); the score is their
weighted sum, test modules x ``TEST_WEIGHT`` (``repo_cut.py``).

Signals (``Signals``):
- ``text``: BM25 of the task's words (``repo_query.query_weights``) over each
  module's path, docstring, public names and term profile; ``text_rr``: 1 / (1 +
  its rank in that order); ``clause``: the best score the module gets from one
  clause of a many-clause text (``; , . -`` split, each clause normalised on its
  own: a commit naming three changes has three first files);
- ``ppr``: personalised PageRank over the import graph seeded by the 20 best text
  matches; ``named``: the code-mention score (``mentions.py``);
- ``sym``: BM25 over the words of the module's top-level names;
- ``past50`` / ``past100``: BM25 over the subjects of the newest 50 / 100 commits
  that touched the module (``repo_history.py``);
- priors: ``recency`` 1 / (1 + position / 10) of the newest commit touching it
  (of the newest ``RECENT``), ``count`` how many of the newest 50 did, ``size``
  log(1 + its term count) / log(1 + the largest module's); the ``short_*`` forms
  count only for a text of at most ``SHORT_TERMS`` words (where the words say
  least).

The weights were FITTED, not hand-set: a pairwise logistic ranker (RankNet,
linear) over 12 other repositories' commit histories (flask, werkzeug, jinja,
attrs, sqlite-utils, llm, starlette, httpcore, black, typer, structlog,
marshmallow; 200 commits each, query = the commit message, truth = the files it
touched, graph = the repo at its parent), shrunk towards the weights the cut had
before (0.75 fitted + 0.25 before; lambda chosen by leaving one training repo out)
(``bench/bench_repo_localise_learn.py``; notes/repo.md, 2026-12-06 (learn35)).
This project, click, httpx, requests and rich were not used to fit them.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from context_cut.repo_query import query_weights
from profiles.repo_scan.facts import terms

if TYPE_CHECKING:
    from context_cut.repo_index import ModuleIndex

RECENT = 100  # the newest commits whose position counts for recency
SHORT_TERMS = 6  # a text of at most this many distinct words is "short"
MAX_CLAUSES = 8
_CLAUSE = re.compile(r"[;\n]+|\.\s+|,\s+|\s+-\s+|\s+\+\s+|[()]")

# Fitted weights (see the module docstring); "text" is the unit.
WEIGHTS: dict[str, float] = {
    "text": 1.0,
    "ppr": 0.396,
    "named": 1.24,
    "past50": 0.394,
    "past100": 0.665,
    "recency": 0.227,
    "sym": 0.556,
    "count": 0.161,
    "text_rr": 0.498,
    "size": 0.509,
    "short_recency": 0.305,
    "short_count": 0.235,
    "clause": 0.49,
}
EVIDENCE = ("text", "named", "past50", "past100", "sym", "clause")  # the words matched


def _normed(scores: dict[str, float]) -> dict[str, float]:
    top = max(scores.values(), default=0.0)
    return {p: s / top for p, s in scores.items()} if top > 0 else {}


def clauses(text: str, weights: dict[str, float]) -> list[set[str]]:
    """The query words of each clause of ``text`` (clauses of 2+ of them, at most
    ``MAX_CLAUSES``); [] for a text of fewer than two such clauses."""
    parts = [set(terms(c)) & set(weights) for c in _CLAUSE.split(text[:4000])]
    parts = [c for c in parts if len(c) >= 2]
    return parts[:MAX_CLAUSES] if len(parts) >= 2 else []


def clause_scores(index: ModuleIndex, text: str, weights: dict[str, float]) -> dict[str, float]:
    """Best per-clause normalised BM25 of each module; {} for a one-clause text."""
    best: dict[str, float] = {}
    for clause in clauses(text, weights):
        for p, s in _normed(index.bm25({t: weights[t] for t in clause})).items():
            if s > best.get(p, 0.0):
                best[p] = s
    return best


def signals(
    index: ModuleIndex, text: str, mentions: bool = True, history: bool = True
) -> dict[str, dict[str, float]]:
    """Signal -> module -> value in [0, 1] (``named`` as ``mentions.py`` scores it)."""
    query = query_weights(text)
    raw = index.bm25(query)
    order = sorted(raw, key=lambda p: -raw[p])  # stable: ties keep index order
    out: dict[str, dict[str, float]] = {
        "text": _normed(raw),
        "text_rr": {p: 1 / (1 + i) for i, p in enumerate(order)},
        "named": index.mentions.scores(text) if mentions else {},
        "sym": _normed(index.symbols.bm25(query)) if index.symbols else {},
        "clause": clause_scores(index, text, query),
    }
    seeds = {p: raw[p] for p in order[:20]}
    out["ppr"] = _normed(index.walk.rank(seeds)) if seeds else {}
    past50 = index.history if history else None
    past100 = index.history100 if history else None
    out["past50"] = _normed(past50.bm25(query)) if past50 else {}
    out["past100"] = _normed(past100.bm25(query)) if past100 else {}
    out["recency"] = {p: 1 / (1 + i / 10) for p, i in index.newest.items() if i < RECENT}
    out["count"] = _normed({p: float(n) for p, n in index.touches.items()})
    top = math.log(1 + max(index.length.values(), default=1))
    out["size"] = {p: math.log(1 + n) / top for p, n in index.length.items() if n} if top else {}
    short = len(query) <= SHORT_TERMS
    out["short_recency"] = out["recency"] if short else {}
    out["short_count"] = out["count"] if short else {}
    return out


def model_scores(
    index: ModuleIndex, text: str, mentions: bool = True, history: bool = True
) -> tuple[dict[str, float], set[str]]:
    """Module -> weighted sum of its signals (before the test factor), and the
    modules some word of the text matched (the rest rank by the priors alone)."""
    sig = signals(index, text, mentions, history)
    scores: dict[str, float] = {}
    for name, values in sig.items():
        w = WEIGHTS[name]
        if w:
            for p, v in values.items():
                scores[p] = scores.get(p, 0.0) + w * v
    matched = {p for name in EVIDENCE for p in sig[name]}
    return scores, matched
