"""Does a repository's own history tune the cut's weights? An online simulation.

    python bench/bench_repo_localise_selfcal.py DUMP.jsonl ... [--warm 50 --every 25
        --margin 0.005 --window 0]

Commit i of a dump (oldest first) is ranked with weights fitted on commits < i of
the SAME repository only: from the product's fitted weights (``repo_model.WEIGHTS``),
coordinate ascent on mean recall@5 over those past commits, each weight scaled by
0 / 0.5 / 0.75 / 1.33 / 2, a move kept only when it gains more than ``margin``;
refitted every ``every`` commits after the first ``warm`` (``window``: only the
newest that many past commits; 0 = all). Causal, so its figure is out of sample.
A product could do the same as the scanner moves HEAD one commit at a time (the
graph at the parent is the store before the rescan). notes/repo.md, 2026-12-07
(s37): noise-sized, not built.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repo_localise_learn import FEATURES, Item, features, recalls
from bench_repo_localise_offline import baseline, recall

from context_cut.repo_model import WEIGHTS

# the model's signal names -> the learn bench's feature names
_NAMES = {"count": "count50", "clause": "clause_max"}
PRODUCT = np.array(
    [{_NAMES.get(k, k): v for k, v in WEIGHTS.items()}.get(f, 0.0) for f in FEATURES]
)
FREE = [FEATURES.index(_NAMES.get(k, k)) for k in WEIGHTS if k != "text"]
SCALES = (0.0, 0.5, 0.75, 1.33, 2.0)


def mean_recall(items: list[Item], w: np.ndarray) -> float:
    return float(recalls(items, w).mean())


def ascend(items: list[Item], margin: float, rounds: int = 2) -> np.ndarray:
    w = PRODUCT.copy()
    best = mean_recall(items, w)
    for _ in range(rounds):
        moved = False
        for j in FREE:
            pick: tuple[float, np.ndarray] | None = None
            for scale in SCALES:
                t = w.copy()
                t[j] = w[j] * scale
                if np.allclose(t, w):
                    continue
                v = mean_recall(items, t)
                if v > best + margin and (pick is None or v > pick[0]):
                    pick = (v, t)
            if pick is not None:
                best, w = pick
                moved = True
        if not moved:
            break
    return w


def simulate(rows: list[dict[str, Any]], args: Any) -> tuple[float, float, float, int, int]:
    rows = sorted(rows, key=lambda r: r["order"])
    items = [features(r) for r in rows]
    base = np.mean([recall(baseline(r), r["truth"], 5) for r in rows])
    prod = recalls(items, PRODUCT)
    w = PRODUCT
    own = []
    for i, it in enumerate(items):
        if i >= args.warm and (i - args.warm) % args.every == 0:
            past = items[max(0, i - args.window) : i] if args.window else items[:i]
            w = ascend(past, args.margin)
        own.append(recalls([it], w)[0])
    got = np.array(own)
    return base, prod.mean(), got.mean(), int((got > prod).sum()), int((got < prod).sum())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", type=Path, nargs="+")
    ap.add_argument("--warm", type=int, default=50)
    ap.add_argument("--every", type=int, default=25)
    ap.add_argument("--margin", type=float, default=0.005)
    ap.add_argument("--window", type=int, default=0)
    args = ap.parse_args()
    for path in args.dumps:
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        base, prod, own, won, lost = simulate(rows, args)
        print(
            f"{path.stem:28} n={len(rows):3} cut-bm25 @5: product {100 * (prod - base):+5.1f}"
            f" self-tuned {100 * (own - base):+5.1f} ({won}w/{lost}l)",
            flush=True,
        )


if __name__ == "__main__":
    main()
