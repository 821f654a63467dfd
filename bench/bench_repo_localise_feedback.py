"""Pseudo-relevance feedback over modules (RM3-style), measured the k17 way on
``bench_repo_localise.py --dump`` rows (notes/repo.md, 2026-12-06 (p17)).

    python bench/bench_repo_localise_feedback.py THIS.jsonl CLICK.jsonl HTTPX.jsonl ...

(dumps made with ``MG_BENCH_FEEDBACK=1``; NOT kept in the product: the notes say why.)

The first dump is this project's (its older half chooses, with click's and httpx's;
every other half confirms: ``bench_repo_localise_offline.pooled``). The dump's ``fb``
(``bench_repo_localise_extra.feedback_components``) holds, per feedback source
(``cut``: the product's ranking without test modules; ``text``: the text match alone),
number of feedback modules k and number of expansion terms m, the BM25 of the
expansion terms alone (each term weighted by its feedback weight, the best 1) over
the modules. Candidates, one line each (pooled recall@5 change against the
product, commits won / lost, then cut - BM25 @5 per repo):
- ``full``: the expansion terms join the query at ``beta`` x their weight (the text
  match becomes text + beta x feedback, so the PageRank seeds, the top 20 of the
  new text match, move too);
- ``topN``: only the product's top N modules are re-scored, + beta x feedback / the
  best text score (a re-order of the first ranking; no PageRank change).
``--mode=full`` / ``--mode=top20`` / ``--mode=top30`` keep only those candidates,
``--source=cut`` / ``--source=text`` one source; ``--kind=u`` (each expansion term
weight 1) / ``--kind=r`` (only terms in at most a tenth of the modules) the term
variants, for k 2-3 and m 10-20 (dumped for those only); ``--halves`` adds each
repo half's change and the confirming pool without the last dump (rich).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repo_localise_offline import (  # bench/ is on the path
    PRODUCT,
    _chooses,
    _norm,
    pooled,
    rank,
    recall,
    splits,
    table,
)

from context_cut.repo_rank import Walk

Row = dict[str, Any]
SOURCES = ("cut", "text")
KS = (1, 2, 3)
MS = (5, 10, 20)
BETAS = (0.1, 0.2, 0.3, 0.5)
_WALKS: dict[str, Walk] = {}
_BASE: dict[str, list[str]] = {}


def _walk(r: Row) -> Walk:
    key = r["repo"] + r["sha"]
    if key not in _WALKS:  # one per row, kept for every setting
        _WALKS[key] = Walk(sorted(r["len"]), [(a, b) for a, b in r["edges"]])
    return _WALKS[key]


def full(r: Row, key: str, beta: float) -> list[str]:
    """The product's ranking with the expansion terms in the query at ``beta``."""
    fb = r["fb"].get(key) or {}
    if not fb or not r["text"]:
        return rank(r, PRODUCT)
    text = dict(r["text"])
    for p, s in fb.items():
        text[p] = text.get(p, 0.0) + beta * s
    seeds = dict(sorted(text.items(), key=lambda kv: -kv[1])[:20])
    out = dict(r)
    out["text"] = text
    out["ppr"] = _walk(r).rank(seeds)
    return rank(out, PRODUCT)


def base(r: Row) -> list[str]:
    key = r["repo"] + r["sha"]
    if key not in _BASE:
        _BASE[key] = rank(r, PRODUCT)
    return _BASE[key]


def rescore(r: Row, key: str, beta: float, top: int) -> list[str]:
    """The product's top ``top`` re-scored with + beta x feedback / best text score."""
    fb = r["fb"].get(key) or {}
    if not fb or not r["text"]:
        return base(r)
    best = _norm(r["text"])
    head = base(r)[:top]
    extra = {p: beta * fb[p] / best for p in head if p in fb}
    return rank(r, PRODUCT, extra)


def halves(parts: dict[str, dict[str, list[Row]]], fn: Callable[[Row], list[str]]) -> None:
    """Recall@5 change against the product per repo and half (won / lost), and the
    confirming pool without its last repo (the one whose half carried a candidate)."""
    cells, rest = [], []
    names = list(parts)
    own = names[0].split("@")[0]
    for repo, rows in parts.items():
        for half in ("older", "newer"):
            ds = [
                recall(fn(r), r["truth"], 5) - recall(rank(r, PRODUCT), r["truth"], 5)
                for r in rows[half]
            ]
            won, lost = sum(d > 0 for d in ds), sum(d < 0 for d in ds)
            name = repo.split("@")[0].split("+")[-1]
            cells.append(f"{name}/{half[0]} {100 * sum(ds) / len(ds):+.1f} ({won}/{lost})")
            if repo != names[-1] and not (half == "older" and _chooses(repo, own)):
                rest += ds
    last = names[-1].split("@")[0].split("+")[-1]
    mean = 100 * sum(rest) / len(rest) if rest else 0.0
    won, lost = sum(d > 0 for d in rest), sum(d < 0 for d in rest)
    print("    " + " ".join(cells) + f" | confirm without {last} {mean:+.2f} ({won}/{lost})")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    only = {a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--mode=")}
    rows = [
        json.loads(line)
        for d in args
        for line in Path(d).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    for r in rows:  # the PageRank over the dumped edges reproduces the dumped one
        if r["text"]:
            seeds = dict(sorted(r["text"].items(), key=lambda kv: -kv[1])[:20])
            again = _walk(r).rank(seeds)
            top = _norm(again)
            assert all(
                abs(again[p] / top - v / _norm(r["ppr"])) < 1e-3 for p, v in r["ppr"].items()
            )
    parts = splits(rows)
    table(parts, [PRODUCT])
    fns: list[tuple[str, Callable[[Row], list[str]]]] = []
    sources = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--source=")]
    kinds = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--kind=")]
    for source in sources or SOURCES:
        for k in KS if not kinds else (2, 3):
            for m, kind in (
                [(m, "") for m in MS] if not kinds else [(m, x) for m in (10, 20) for x in kinds]
            ):
                key = f"{source}{k}m{m}{kind}"
                for beta in BETAS:
                    if not only or "full" in only:
                        fns.append(
                            (f"full {key} b{beta:g}", lambda r, k=key, b=beta: full(r, k, b))
                        )
                    for top in (20, 30):
                        if not only or f"top{top}" in only:
                            fns.append(
                                (
                                    f"top{top} {key} b{beta:g}",
                                    lambda r, k=key, b=beta, t=top: rescore(r, k, b, t),
                                )
                            )
    for label, fn in fns:
        memo: dict[str, list[str]] = {}  # pooled ranks each row twice (half, whole)

        def once(
            r: Row, fn: Callable[[Row], list[str]] = fn, memo: dict[str, list[str]] = memo
        ) -> list[str]:
            key = r["repo"] + r["sha"]
            if key not in memo:
                memo[key] = fn(r)
            return memo[key]

        pooled(parts, label, once)
        if "--halves" in sys.argv:
            halves(parts, once)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
