"""Candidate repo-cut signals measured and NOT kept, dumped for offline analysis.

``bench_repo_localise.py --dump`` adds these per commit (``extra_components``);
``bench_repo_localise_offline.py --candidates`` re-ranks with them. notes/repo.md
(2026-12-04 18:15) has the figures. Kept in the product from the same search:
the scope-prefix weights and the recency fallback (``context_cut/repo_query.py``).

- ``_c``: the components again for the message without boilerplate
  (``clean_text``: trailers, URLs, issue refs, shas, versions, bot blocks);
- ``_s``: text / history match over lightly stemmed terms (``stem``);
- ``sym`` / ``sym_s``: BM25 over the terms of each module's top-level names;
- ``seam``: test module -> the non-test modules it imports (the test seam);
- ``hist``: the file lists of the newest 100 commits seen (co-change);
- ``qtf`` / ``len`` (and ``hqtf`` / ``hlen`` for the history documents): each
  message term's count per module and the document lengths, so any weighting
  of the message's terms can be re-ranked offline; ``edges``: the import graph.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from context_cut.repo_cut import ModuleIndex, personalised_pagerank
from context_cut.repo_query import query_weights
from profiles.repo_scan.facts import terms

if TYPE_CHECKING:
    from memgraph.store.protocol import Store

_TRAILER = re.compile(
    r"^[ \t]*(?:-[ \t]*)?(?:co-authored-by|signed-off-by|reviewed-by|acked-by|tested-by"
    r"|reported-by|suggested-by|helped-by|cc|refs?|closes?|fixes|fixed|resolves?"
    r"|address(?:es)?|see|dependency-name|dependency-type|dependency-version|update-type"
    r"|updated-dependencies)[ \t]*:[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
_BOT_LINE = re.compile(
    r"^[ \t]*(?:-[ \t]*\[(?:release notes|changelog|commits)\]|bumps[ \t]+\[|---|\.\.\.)[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
_URL = re.compile(r"\b(?:https?|ftp)://[^\s)>\]]*", re.IGNORECASE)
_REVERT = re.compile(r"this reverts commit [0-9a-f]{7,40}\.?", re.IGNORECASE)
_ISSUE = re.compile(r"(?:\bGH-|(?<![\w&])#)\d+\b", re.IGNORECASE)
_SHA = re.compile(r"\b[0-9a-f]{12,40}\b")
_VERSION = re.compile(r"\bv?\d+(?:\.\d+)+(?:[a-z]+\d*)?\b", re.IGNORECASE)


def clean_text(text: str) -> str:
    """``text`` without trailers, bot blocks, URLs, issue refs, shas and versions
    (unchanged when nothing with letters would be left)."""
    out = text[:50_000]
    for pattern in (_TRAILER, _BOT_LINE, _URL, _REVERT, _ISSUE, _SHA, _VERSION):
        out = pattern.sub(" ", out)
    return out if re.search(r"[A-Za-z]{2}", out) else text


def stem(term: str) -> str:
    """Light suffix fold: closing / closed / close -> clos."""
    if len(term) > 6 and term.endswith("ing"):
        term = term[:-3]
    elif len(term) > 5 and term.endswith("ed"):
        term = term[:-2]
    if len(term) > 4 and term.endswith("e"):
        term = term[:-1]
    return term


def _round(scores: dict[str, float]) -> dict[str, float]:
    return {p: round(s, 5) for p, s in scores.items() if s}


def _bm25(docs: dict[str, Counter[str]], query: list[str] | dict[str, float]) -> dict[str, float]:
    return ModuleIndex(dict(docs), set(), []).bm25(query) if docs else {}


_SYMS: dict[int, dict[str, Counter[str]]] = {}


def symbol_docs(store: Store, index: ModuleIndex) -> dict[str, Counter[str]]:
    """Terms of each module's top-level names (functions, classes, constants)."""
    from profiles.repo_scan.graph import module_id

    if id(index) not in _SYMS:
        _SYMS.clear()
        with store.reader() as reader:
            nodes = reader.get_nodes([module_id("bench", p) for p in index.tf])
        docs: dict[str, Counter[str]] = {}
        for n in nodes.values():
            facts = n.attributes.get("facts") or {}
            words = [t for s in facts.get("symbols", []) if s for t in terms(str(s[0]))]
            if words:
                docs[str(n.attributes["path"])] = Counter(words)
        _SYMS[id(index)] = docs
    return _SYMS[id(index)]


def extra_components(
    store: Store, index: ModuleIndex, message: str, commits_seen: list[object]
) -> dict[str, object]:
    """The candidate signals above for one commit (raw scores, 5 decimals)."""
    out: dict[str, object] = {}
    cleaned = clean_text(message)
    query = query_weights(cleaned)
    text = index.bm25(query)
    seeds = dict(sorted(text.items(), key=lambda kv: -kv[1])[:20])
    out["text_c"] = _round(text)
    out["ppr_c"] = _round(personalised_pagerank(index.paths, index.edges, seeds))
    out["named_c"] = _round(index.mentions.scores(cleaned))
    out["past50_c"] = _round(index.history.bm25(query)) if index.history else {}
    squery = [stem(t) for t in query_weights(message)]
    stemmed: dict[str, Counter[str]] = {}
    for p, counts in index.tf.items():
        stemmed[p] = Counter()
        for t, n in counts.items():
            stemmed[p][stem(t)] += n
    text_s = _bm25(stemmed, squery)
    out["text_s"] = _round(text_s)
    seeds = dict(sorted(text_s.items(), key=lambda kv: -kv[1])[:20])
    out["ppr_s"] = _round(personalised_pagerank(index.paths, index.edges, seeds))
    hist_s: dict[str, Counter[str]] = {}
    for p, counts in (index.history.tf if index.history else {}).items():
        hist_s[p] = Counter()
        for t, n in counts.items():
            hist_s[p][stem(t)] += n
    out["past50_s"] = _round(_bm25(hist_s, squery))
    syms = symbol_docs(store, index)
    out["sym"] = _round(_bm25(syms, query_weights(message)))
    out["sym_s"] = _round(
        _bm25({p: Counter(stem(t) for t in c.elements()) for p, c in syms.items()}, squery)
    )
    seam: dict[str, set[str]] = {}
    for a, b in index.edges:
        if a in index.tests and b not in index.tests:
            seam.setdefault(a, set()).add(b)
    out["seam"] = {k: sorted(v) for k, v in seam.items()}
    words = set(query_weights(message))  # raw term statistics: re-rank any weighting offline
    out["qtf"] = {t: {p: c[t] for p, c in index.tf.items() if t in c} for t in words}
    out["len"] = index.length
    if index.history:
        h = index.history
        out["hqtf"] = {t: {p: c[t] for p, c in h.tf.items() if t in c} for t in words}
        out["hlen"] = h.length
    out["edges"] = sorted(set(index.edges))
    paths = set(index.tf)
    out["hist"] = [
        [f for f in (row[2] or []) if f in paths]  # type: ignore[index]
        for row in commits_seen[:100]
    ]
    return out
