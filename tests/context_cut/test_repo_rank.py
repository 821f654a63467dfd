"""The repo cut's ranking over precomputed structures (``context_cut/repo_rank.py``)
gives what the dict-based code it replaced gave: the same scores in the same
order, on generated graphs and documents and on this project's own scan.

The reference functions below are the replaced code, kept verbatim (only
renamed): personalised PageRank pushing shares through dicts of sets, BM25
scoring every document for every query term, and the module term counts built
path-first. On CPython 3.11 the floats are equal bit for bit; from 3.12 on
``sum`` of floats compensates rounding, so PageRank is compared to 1e-12 there.
"""

from __future__ import annotations

import math
import sys
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_cut.repo_cut import RepoCutRequest, _index, rank_modules, repo_cut
from context_cut.repo_index import ModuleIndex, module_terms
from context_cut.repo_model import signals
from context_cut.repo_query import query_weights
from context_cut.repo_rank import Walk
from memgraph.documents import MemoryNode, ProfileName
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.facts import terms
from profiles.repo_scan.scan import ScanRequest, scan_repo

NOW = datetime(2026, 12, 5, tzinfo=UTC)
EXACT = sys.version_info < (3, 12)
DAMPING = 0.85
K1, B = 1.2, 0.75


def reference_pagerank(
    nodes: list[str], edges: list[tuple[str, str]], seeds: dict[str, float], iters: int = 30
) -> dict[str, float]:
    if not seeds:
        return {}
    total = sum(seeds.values())
    tele = {k: v / total for k, v in seeds.items()}
    nbrs: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        if a != b:
            nbrs[a].add(b)
            nbrs[b].add(a)
    rank = dict.fromkeys(nodes, 0.0)
    rank.update(tele)
    for _ in range(iters):
        nxt = dict.fromkeys(nodes, 0.0)
        dangling = 0.0
        for u, r in rank.items():
            if not r:
                continue
            out = nbrs.get(u)
            if out:
                share = DAMPING * r / len(out)
                for v in out:
                    nxt[v] += share
            else:
                dangling += DAMPING * r
        for k, w in tele.items():
            nxt[k] += (1 - DAMPING + dangling) * w
        rank = nxt
    return rank


def reference_bm25(
    tfs: dict[str, Counter[str]], query: list[str] | dict[str, float]
) -> dict[str, float]:
    length = {key: sum(tf.values()) for key, tf in tfs.items()}
    df: Counter[str] = Counter()
    for tf in tfs.values():
        df.update(tf.keys())
    avg = (sum(length.values()) / len(tfs) or 1.0) if tfs else 1.0
    n = len(tfs)
    scores: dict[str, float] = {}
    weights = query if isinstance(query, dict) else dict.fromkeys(query, 1.0)
    idf = {t: w * math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t, w in weights.items()}
    for key, tf in tfs.items():
        s = 0.0
        norm = K1 * (1 - B + B * length[key] / avg)
        for t in weights:
            f = tf.get(t)
            if f:
                s += idf[t] * f * (K1 + 1) / (f + norm)
        if s > 0:
            scores[key] = s
    return scores


def reference_module_terms(node: MemoryNode) -> Counter[str]:
    path = str(node.attributes.get("path", node.title))
    tf = Counter(terms(path) * 3 + terms(node.claim))
    profile = (node.attributes.get("facts") or {}).get("terms") or {}
    tf.update({str(t): int(n) for t, n in profile.items()})
    return tf


def _same(got: dict[str, float], want: dict[str, float]) -> None:
    assert list(got) == list(want)  # same keys, same order
    if EXACT:
        assert list(got.values()) == list(want.values())
    else:
        assert all(math.isclose(got[k], want[k], rel_tol=1e-12, abs_tol=1e-300) for k in want)


@st.composite
def graphs(draw: Any) -> tuple[list[str], list[tuple[str, str]], dict[str, float]]:
    n = draw(st.integers(1, 40))
    nodes = [f"m{i:02d}" for i in range(n)]
    draw(st.randoms()).shuffle(nodes)  # node order is the caller's, not sorted
    pair = st.tuples(st.sampled_from(nodes), st.sampled_from(nodes))
    edges = draw(st.lists(pair, max_size=120))  # self-loops and repeats included
    picked = draw(st.lists(st.sampled_from(nodes), max_size=25, unique=True))
    weight = st.floats(1e-6, 1e6, allow_nan=False, allow_infinity=False)
    seeds = {k: draw(weight) for k in picked}
    return nodes, edges, seeds


@settings(max_examples=300, deadline=None)
@given(graphs(), st.integers(0, 40))
def test_walk_ranks_as_the_dict_pagerank(
    graph: tuple[list[str], list[tuple[str, str]], dict[str, float]], iters: int
) -> None:
    nodes, edges, seeds = graph
    walk = Walk(nodes, edges)
    want = reference_pagerank(nodes, edges, seeds, iters)
    _same(walk.rank(seeds, iters), want)
    _same(walk.rank(seeds, iters), want)  # the arrays are not consumed by a query


def test_walk_refuses_an_edge_outside_its_nodes() -> None:
    with pytest.raises(KeyError, match="leaves the graph"):
        Walk(["a", "b"], [("a", "c")])


TERM = st.sampled_from([f"t{i}" for i in range(30)])


@st.composite
def documents(draw: Any) -> dict[str, Counter[str]]:
    keys = draw(st.lists(st.text("abcxyz/._", min_size=1, max_size=6), max_size=30, unique=True))
    counts = st.dictionaries(TERM, st.integers(0, 9), max_size=15)  # 0: a key adding nothing
    return {k: Counter(draw(counts)) for k in keys}


QUERY = st.one_of(
    st.lists(TERM, max_size=12),
    st.dictionaries(TERM, st.sampled_from([0.0, 0.5, 1.0, 3.0]), max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(documents(), st.lists(QUERY, min_size=1, max_size=4))
def test_postings_score_as_every_document_scored(
    docs: dict[str, Counter[str]], queries: list[list[str] | dict[str, float]]
) -> None:
    index = ModuleIndex(docs, set(), [])
    for query in queries:  # later queries reuse the postings of earlier ones
        got = index.bm25(query)
        want = reference_bm25(docs, query)
        assert list(got.items()) == list(want.items())


PROFILE_VALUE = st.one_of(st.integers(0, 50), st.booleans(), st.floats(0, 50), st.just("3"))


@settings(max_examples=200, deadline=None)
@given(
    st.text(min_size=1, max_size=40),
    st.text(max_size=80),
    st.dictionaries(st.text(max_size=8), PROFILE_VALUE, max_size=12),
)
def test_module_terms_count_as_before(path: str, claim: str, profile: dict[str, Any]) -> None:
    node = MemoryNode(
        id="n1",
        domain_id="repo:x",
        profile=ProfileName.repo_architecture,
        kind="module",
        title=path,
        claim=claim,
        lifecycle="observed",
        created_at=NOW,
        updated_at=NOW,
        attributes={"path": path, "facts": {"terms": profile}},
    )
    assert module_terms(node) == reference_module_terms(node)


ROOT = Path(__file__).resolve().parents[2]
TASKS = [
    "repo cut: rank modules by BM25 and personalised PageRank",
    "store/postgres: keep the term statistics in the same transaction",
    "voice capture of a new session through the lean writer",
    "fix `mentions.py` when a backtick span holds a dotted name",
    "memgraph context --cut repo returns file:line anchors",
    "scan_repo() rescans only the files whose hash changed",
    "summary stale propagation to parents after an edit",
    "Typo",
    "MEMGRAPH_HOME and the config resolver",
    "tree-sitter parsers for rust and go",
    "packet budget estimate_tokens for long claims",
    "history node of the last commits of HEAD",
]


def test_the_cut_on_this_project_ranks_over_the_same_signals() -> None:
    """The fitted model's text, PageRank and history signals (repo_model.py) are
    the reference functions' scores, normalised; the cut is their weighted sum."""
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=ROOT, name="self", link_commits=False))
    first = repo_cut(store, RepoCutRequest(text=TASKS[0], repo="self", voice=False))
    assert first.ranked
    from profiles.repo_scan.graph import repo_node_id

    with store.reader() as reader:
        repo_node = reader.get_nodes([repo_node_id("self")])[repo_node_id("self")]
    index = _index(store, "self", repo_node, sorted(repo_node.attributes["manifest"]))
    assert len(index.tf) > 100 and index.edges
    for text in TASKS:
        sig = signals(index, text)
        query = query_weights(text)
        text_scores = reference_bm25(index.tf, query)
        assert index.history is not None  # this project is a git checkout
        past = reference_bm25(index.history.tf, query)
        seeds = dict(sorted(text_scores.items(), key=lambda kv: -kv[1])[:20])
        ppr = reference_pagerank(index.paths, index.edges, seeds)
        for name, want in (("text", text_scores), ("past50", past), ("ppr", ppr)):
            top = max(want.values(), default=0.0)
            want = {p: v / top for p, v in want.items() if v > 0} if top else {}
            got = {p: v for p, v in sig[name].items() if v > 0}
            assert set(got) == set(want), name
            assert all(math.isclose(got[k], want[k], rel_tol=1e-9) for k in want), name
        got_rank = rank_modules(index, text)
        cut = repo_cut(store, RepoCutRequest(text=text, repo="self", voice=False))
        assert cut.ranked == got_rank
