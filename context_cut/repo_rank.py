"""The repo cut's ranking arithmetic over structures built once per module index.

1. ``Walk``: the import graph as arrays (each node's neighbours as sorted
   positions, its degree, the isolated nodes), and personalised PageRank as a
   power iteration over them. The graph is undirected (an import links both
   modules) and self-loops are dropped.
2. ``Postings``: BM25 (k1 1.2, b 0.75) over term -> (document, count) postings,
   so a query touches only the documents holding one of its terms. A term's
   postings are built the first time a query holds it (one pass over the
   documents, then cached): an index that answers one query costs no more than
   scoring every document did, and a process that answers many pays each term
   once.

Both give the same floats, in the same order, as the dict-based code they
replace (``tests/context_cut/test_repo_rank.py`` keeps that code as the
reference and compares on generated graphs and on this project): every sum adds
the same terms in the same order from 0.0, and every dict comes out in the
document order the old loops produced. A node's new rank is ``sum`` over its
neighbours' shares: left to right on CPython 3.11 (the bit-identical case);
from 3.12 on ``sum`` of floats compensates rounding, so the figures may differ
from the old loop's in the last bits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from operator import itemgetter, mul, truediv

DAMPING = 0.85
ITERATIONS = 30
K1, B = 1.2, 0.75


class Walk:
    """Personalised PageRank over a fixed undirected graph (edges walk both ways)."""

    __slots__ = ("deg", "divisor", "gather", "isolated", "nodes", "pos")

    def __init__(self, nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> None:
        self.nodes = list(nodes)
        self.pos = {n: i for i, n in enumerate(self.nodes)}
        linked: list[set[int]] = [set() for _ in self.nodes]
        for a, b in edges:
            if a == b:
                continue
            i, j = self.pos.get(a), self.pos.get(b)
            if i is None or j is None:
                raise KeyError(f"edge {a!r} -> {b!r} leaves the graph's nodes")
            linked[i].add(j)
            linked[j].add(i)
        self.deg = [len(s) for s in linked]
        self.divisor = [d or 1 for d in self.deg]  # an isolated node's share is never read
        self.isolated = [i for i, d in enumerate(self.deg) if not d]
        # A node's new rank adds its neighbours' shares in node order (the order the
        # old push loop visited them), fetched as one tuple; fewer than two are padded
        # with the always-0.0 slot after the last node (x + 0.0 == x).
        pad = len(self.nodes)
        self.gather = [
            itemgetter(*sorted(s), pad, pad) if len(s) < 2 else itemgetter(*sorted(s))
            for s in linked
        ]

    def rank(self, seeds: Mapping[str, float], iters: int = ITERATIONS) -> dict[str, float]:
        """node -> rank, in node order; teleport to ``seeds`` (weights, normalised).
        No seed: no rank ({})."""
        if not seeds:
            return {}
        total = sum(seeds.values())
        tele = [(self.pos[k], v / total) for k, v in seeds.items()]
        n = len(self.nodes)
        rank = [0.0] * n
        for i, w in tele:
            rank[i] = w
        for _ in range(iters):
            share = list(map(truediv, map(mul, repeat(DAMPING, n), rank), self.divisor))
            share.append(0.0)
            dangling = 0.0
            for i in self.isolated:
                r = rank[i]
                if r:
                    dangling += DAMPING * r
            rank = list(map(sum, [g(share) for g in self.gather], repeat(0.0, n)))
            for i, w in tele:
                rank[i] += (1 - DAMPING + dangling) * w
        return dict(zip(self.nodes, rank, strict=True))


class Postings:
    """BM25 over documents (key -> term counts), scored through term postings."""

    __slots__ = ("avg", "docs", "keys", "norm", "posted")

    def __init__(self, docs: Mapping[str, Mapping[str, int]], length: Mapping[str, int]) -> None:
        self.keys = list(docs)
        self.docs = [docs[k] for k in self.keys]
        total = sum(length[k] for k in self.keys)
        self.avg = (total / len(self.keys) or 1.0) if self.keys else 1.0
        self.norm = [K1 * (1 - B + B * length[k] / self.avg) for k in self.keys]
        self.posted: dict[str, list[tuple[int, int]]] = {}

    def posting(self, term: str) -> list[tuple[int, int]]:
        """(document position, count) of the documents holding ``term`` (a count
        of 0 counts for the document frequency, as a key of the counts, and adds
        nothing to the score)."""
        found = self.posted.get(term)
        if found is None:
            found = [(i, doc[term]) for i, doc in enumerate(self.docs) if term in doc]
            self.posted[term] = found
        return found

    def scores(self, weights: Mapping[str, float]) -> dict[str, float]:
        """key -> BM25 of the query (term -> weight; idf x weight), in document
        order, only documents scoring above 0."""
        n = len(self.keys)
        acc: dict[int, float] = {}
        for t, w in weights.items():
            hits = self.posting(t)
            df = len(hits)
            idf = w * math.log(1 + (n - df + 0.5) / (df + 0.5))
            norm = self.norm
            for i, f in hits:
                if f:
                    acc[i] = acc.get(i, 0.0) + idf * f * (K1 + 1) / (f + norm[i])
        keys = self.keys
        return {keys[i]: s for i, s in sorted(acc.items()) if s > 0}
