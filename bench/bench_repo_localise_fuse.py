"""Fusing the repo cut's ranking with the BM25 baseline's, by reciprocal rank (s39).

    python bench/bench_repo_localise_fuse.py --train DUMPS... --eval DUMPS...

The cut (``context_cut/repo_model.WEIGHTS`` over each dumped commit's signals, as
``bench_repo_localise_learn.py`` replays it) ranks the candidates; the baseline ranks
them by BM25 over the whole file text. Fused score of a module: 1 / (k + its cut rank)
+ w / (k + its baseline rank) (ranks from 1; the baseline's first 30 only). The rank
is the signal, not the score: ``bm25_rr`` as a linear feature of the fit (s37's S3) is
the w-only half of this. (k, w) are chosen on the twelve training repos (pooled
recall@5 change against the cut), then the held-out dumps are reported for that choice
and for every setting (so a choice that only suits one repo shows).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repo_localise_learn import FEATURES, features  # bench/ is on the path
from bench_repo_localise_offline import baseline

from context_cut.repo_model import WEIGHTS

NAMES = {"count": "count50", "clause": "clause_max"}
GRID_K = (1, 2, 5, 10, 20, 60)
GRID_W = (0.1, 0.2, 0.3, 0.5, 0.75)


def _weights() -> np.ndarray:
    w = {NAMES.get(k, k): v for k, v in WEIGHTS.items()}
    return np.array([w.get(f, 0.0) for f in FEATURES])


def _recall5(order: list[str], truth: set[str]) -> float:
    return len(truth & set(order[:5])) / len(truth)


def _orders(
    rows: list[dict[str, Any]], w: np.ndarray
) -> list[tuple[list[str], list[str], set[str]]]:
    out = []
    for r in rows:
        mods, x, _truth = features(r)
        s = x @ w
        cut = [mods[i] for i in sorted(range(len(mods)), key=lambda i: (-s[i], mods[i]))]
        out.append((cut, baseline(r)[:30], set(r["truth"])))
    return out


def _fused(cut: list[str], base: list[str], k: int, wb: float) -> list[str]:
    score: dict[str, float] = {}
    for i, p in enumerate(cut):
        score[p] = 1 / (k + i + 1)
    for i, p in enumerate(base):
        score[p] = score.get(p, 0.0) + wb / (k + i + 1)
    return sorted(score, key=lambda p: (-score[p], p))


def _by_repo(rows: list[dict[str, Any]], w: np.ndarray) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[tuple[Any, ...]]] = {}
    for r, o in zip(rows, _orders(rows, w), strict=True):
        out.setdefault(f"{Path(r['repo']).parent.name or r['repo']}@{r['rev'][:7]}", []).append(o)
    return out


def _lead(orders: list[tuple[Any, ...]], k: int | None, wb: float) -> tuple[float, float]:
    """(cut or fused - BM25 @5, fused - cut @5) in points."""
    cut = [_recall5(c, t) for c, _b, t in orders]
    base = [_recall5(b, t) for _c, b, t in orders]
    got = cut if k is None else [_recall5(_fused(c, b, k, wb), t) for c, b, t in orders]
    return 100 * (statistics.fmean(got) - statistics.fmean(base)), 100 * (
        statistics.fmean(got) - statistics.fmean(cut)
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=Path, nargs="+", required=True)
    ap.add_argument("--eval", type=Path, nargs="+", required=True)
    args = ap.parse_args()
    w = _weights()
    load = lambda ps: [json.loads(x) for p in ps for x in p.open(encoding="utf-8")]  # noqa: E731
    train, held = _by_repo(load(args.train), w), _by_repo(load(args.eval), w)
    grid = [(k, wb) for k in GRID_K for wb in GRID_W]
    pooled = {s: statistics.fmean(_lead(o, *s)[1] for o in train.values()) for s in grid}
    best = max(grid, key=lambda s: pooled[s])
    print("setting  train pooled change (repos down) | held out: cut - BM25 @5 -> fused")
    for s in sorted(grid, key=lambda s: -pooled[s]):
        down = sum(_lead(o, *s)[1] < 0 for o in train.values())
        held_s = "  ".join(
            f"{name.split('@')[0][-12:]} {_lead(o, None, 0)[0]:+.1f}->{_lead(o, *s)[0]:+.1f}"
            for name, o in held.items()
        )
        mark = " <- chosen on train" if s == best else ""
        print(f"k{s[0]:<3} w{s[1]:<5} {pooled[s]:+.2f} ({down:2d})  | {held_s}{mark}")


if __name__ == "__main__":
    main()
