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
  of the message's terms can be re-ranked offline; ``edges``: the import graph;
- ``dense`` / ``dense_s`` (m17, when the optional MiniLM loads): cosine between the
  message's (the subject's) MiniLM vector and each module's profile vector (path
  words, docstring, public names split into words; ``profile_text``), vectors
  cached by profile text across commits;
- ``rel`` / ``rqtf`` (m17): the related-words round: each word of the message ->
  the module vocabulary's nearest words (cosine >= 0.4, top 5 per word, not a
  message word nor a close variant of one: ``word_vectors.related_words``; the
  stricter form filter is offline) as [word, cosine, source], and each such
  word's count per module (BM25 offline: ``bench_repo_localise_semantic.py``).
  ``MG_BENCH_SEMANTIC=0`` leaves both out (the first parent of this project
  costs ~20 s of module-profile embedding, the vocabulary ~10 s);
- ``fb`` / ``fbterms`` (p17, only with ``MG_BENCH_FEEDBACK=1``): pseudo-relevance
  feedback over modules (``feedback_components``): per first ranking (the cut's,
  or the text match's), k feedback modules and m expansion terms, the BM25 of the
  expansion terms alone and the terms chosen (``bench_repo_localise_feedback.py``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from context_cut.repo_index import ModuleIndex, personalised_pagerank
from context_cut.repo_query import query_weights
from profiles.repo_scan.facts import terms

if TYPE_CHECKING:
    from memgraph.store.protocol import Store

_MODEL: list[Any] = []  # [NumpyMiniLM] once loaded, [None] when it cannot be
_VEC: dict[str, Any] = {}  # profile text / word -> unit vector (across commits)

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


def _model() -> Any:
    if not _MODEL and os.environ.get("MG_BENCH_SEMANTIC", "1") == "0":
        _MODEL.append(None)  # asked not to: the dump runs as before m17
    if not _MODEL:
        try:
            from context_cut.minilm_numpy import NumpyMiniLM

            _MODEL.append(NumpyMiniLM())
        except Exception as exc:  # the optional extra is missing: no semantic keys
            print(f"semantic candidates off: {exc}")
            _MODEL.append(None)
    return _MODEL[0]


def _vectors(model: Any, texts: list[str], prefix: str) -> list[Any]:
    """Unit vectors of ``texts``, embedding only the ones not seen before."""
    import numpy as np

    keys = [prefix + hashlib.sha1(t.encode("utf-8", "replace")).hexdigest() for t in texts]
    todo = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in _VEC))
    for start in range(0, len(todo), 256):
        chunk = todo[start : start + 256]
        for t, v in zip(chunk, model.embed(chunk), strict=True):
            key = prefix + hashlib.sha1(t.encode("utf-8", "replace")).hexdigest()
            _VEC[key] = np.asarray(v, dtype=np.float32)
    return [_VEC[k] for k in keys]


def profile_text(path: str, claim: str, public: list[str]) -> str:
    """What a module is about, for a sentence encoder: its path's words, its
    docstring (the claim before ``Public:``) and its public names as words."""
    doc = claim.split("\nPublic: ", 1)[0]
    if doc.startswith("Public: "):
        doc = ""
    names = " ".join(" ".join(terms(str(n))) for n in public[:60])
    stem = path.rsplit(".", 1)[0]
    return f"{' '.join(terms(stem))}. {' '.join(doc.split())[:1500]} {names}".strip()


_PROFILES: dict[int, dict[str, str]] = {}


def profiles(store: Store, index: ModuleIndex) -> dict[str, str]:
    from profiles.repo_scan.graph import module_id

    if id(index) not in _PROFILES:
        _PROFILES.clear()
        with store.reader() as reader:
            nodes = reader.get_nodes([module_id("bench", p) for p in index.tf])
        _PROFILES[id(index)] = {
            str(n.attributes["path"]): profile_text(
                str(n.attributes["path"]), n.claim or "", list(n.attributes.get("public") or [])
            )
            for n in nodes.values()
        }
    return _PROFILES[id(index)]


def semantic_components(store: Store, index: ModuleIndex, message: str) -> dict[str, object]:
    """``dense``, ``dense_s``, ``rel``, ``rqtf`` (above); {} without MiniLM."""
    import numpy as np

    from context_cut.word_table import WordTable, is_word
    from context_cut.word_vectors import related_words

    model = _model()
    if model is None:
        return {}
    out: dict[str, object] = {}
    prof = profiles(store, index)
    paths = sorted(prof)
    mods = np.stack(_vectors(model, [prof[p] for p in paths], "p:"))
    subject = message.strip().splitlines()[0] if message.strip() else message
    q, qs = _vectors(model, [message[:4000], subject[:1000]], "q:")
    out["dense"] = {p: round(float(c), 4) for p, c in zip(paths, mods @ q, strict=True)}
    out["dense_s"] = {p: round(float(c), 4) for p, c in zip(paths, mods @ qs, strict=True)}
    vocab = sorted({t for c in index.tf.values() for t in c if is_word(t)})
    table = WordTable(model.name, model.dimension, vocab, np.stack(_vectors(model, vocab, "w:")))
    query = [t for t in query_weights(message) if is_word(t)]
    rel = related_words(table, model, query, threshold=0.4, per_term=5)
    out["rel"] = [[r.word, r.similarity, r.source] for r in rel]
    out["rqtf"] = {r.word: {p: c[r.word] for p, c in index.tf.items() if r.word in c} for r in rel}
    return out


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
    out.update(semantic_components(store, index, message))
    if os.environ.get("MG_BENCH_FEEDBACK") == "1":  # p17: ~30 % more dump, opt-in
        out.update(feedback_components(index, message))
    return out


# --- p17: pseudo-relevance feedback over modules (RM3-style), notes/repo.md 2026-12-06 (p17)
FEEDBACK_K = (1, 2, 3)  # feedback modules: the first ranking's top k
FEEDBACK_M = (5, 10, 20)  # expansion terms: the top m by the feedback weight
FEEDBACK_KEEP = 120  # modules kept per feedback score dict (the rest cannot reach the top 5)
_DF: dict[int, tuple[Counter[str], int]] = {}


def _df(index: ModuleIndex) -> tuple[Counter[str], int]:
    """Document frequency of every term over the index's modules (cached per index)."""
    if id(index) not in _DF:
        _DF.clear()
        df: Counter[str] = Counter()
        for counts in index.tf.values():
            df.update(counts.keys())
        _DF[id(index)] = (df, len(index.tf))
    return _DF[id(index)]


def feedback_terms(
    index: ModuleIndex, docs: list[tuple[str, float]], query: set[str], m: int, kind: str = ""
) -> dict[str, float]:
    """RM-style expansion: term -> weight (the best = 1) of the ``m`` terms with the
    largest sum over the feedback modules of (score / best score) x tf / length x
    idf, leaving out the query's own terms, terms under 3 letters and numbers.
    ``kind`` "u": the same terms, each weight 1; "r": only terms in at most a tenth
    of the modules (rare ones), weighted as the default."""
    import math

    df, n = _df(index)
    top = max((s for _p, s in docs), default=0.0) or 1.0
    acc: Counter[str] = Counter()
    for p, s in docs:
        counts, length = index.tf[p], index.length[p] or 1
        for t, f in counts.items():
            if f and len(t) >= 3 and not t.isdigit() and t not in query:
                if kind == "r" and df[t] > n / 10:
                    continue
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                acc[t] += (s / top) * f / length * idf
    chosen = acc.most_common(m)
    best = chosen[0][1] if chosen else 1.0
    return {t: (1.0 if kind == "u" else w / best) for t, w in chosen if w > 0}


def feedback_components(index: ModuleIndex, message: str) -> dict[str, object]:
    """``fb``: "SOURCE k M" -> BM25 of the expansion terms alone (the top
    FEEDBACK_KEEP modules, raw), SOURCE ``cut`` = the product's ranking without
    test modules, ``text`` = the text match alone (tests included); ``fbterms``
    the chosen terms (weights) per key."""
    from context_cut.repo_cut import rank_modules

    query = query_weights(message)
    first = [(p, s) for p, s in rank_modules(index, message) if s > 0 and p not in index.tests]
    text = sorted(index.bm25(query).items(), key=lambda kv: (-kv[1], kv[0]))
    fb: dict[str, dict[str, float]] = {}
    fbterms: dict[str, dict[str, float]] = {}
    for source, ranked in (("cut", first), ("text", text)):
        for k in FEEDBACK_K:
            docs = ranked[:k]
            for m in FEEDBACK_M:
                key = f"{source}{k}m{m}"
                weights = feedback_terms(index, docs, set(query), m) if docs else {}
                scores = index.bm25(weights) if weights else {}
                keep = sorted(scores.items(), key=lambda kv: -kv[1])[:FEEDBACK_KEEP]
                fb[key] = _round(dict(keep))
                fbterms[key] = {t: round(w, 4) for t, w in weights.items()}
                for kind in ("u", "r") if k > 1 and m > 5 else ():
                    weights = feedback_terms(index, docs, set(query), m, kind) if docs else {}
                    scores = index.bm25(weights) if weights else {}
                    keep = sorted(scores.items(), key=lambda kv: -kv[1])[:FEEDBACK_KEEP]
                    fb[f"{key}{kind}"] = _round(dict(keep))
                    fbterms[f"{key}{kind}"] = {t: round(w, 4) for t, w in weights.items()}
    return {"fb": fb, "fbterms": fbterms}
