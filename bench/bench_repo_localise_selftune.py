"""Would a repo pick its own cut weights from its own past commits? (notes/repo.md,
2026-12-05 (s31); NOT kept: it loses on three of five repos.)

    python bench/bench_repo_localise_selftune.py THIS.jsonl CLICK.jsonl ...

Reads ``bench_repo_localise.py --dump`` rows. For each repo, commits in history
order: every setting of a fixed grid (PageRank weight x history weight x recency
prior x file-text BM25 x path-term count, 108 settings, the product's among them)
is scored on every commit once; then commit i is ranked with the setting that had
the best mean recall@5 over the M commits before it (at least ``WARM`` of them;
before that, the product), optionally only when it beats the product there by a
margin. Printed per repo: the product's cut - BM25 @5, the best single setting
in hindsight (an oracle: an upper bound for any fixed re-weighting of these
components) and each self-tuned variant.

Optimistic for the product by construction: a past commit is scored here at its
own parent state, while a scanner could only re-run past subjects against the
current graph.
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repo_localise_offline import (  # bench/ is on the path
    PRODUCT,
    Setting,
    baseline,
    rank,
    recall,
    splits,
)

WARM = 20  # commits seen before a repo chooses for itself
VARIANTS = ((30, 0.0), (50, 0.0), (100, 0.0), (50, 0.02), (100, 0.02), (0, 0.0), (0, 0.01))


def settings() -> list[Setting]:
    grid = [
        Setting(alpha=a, history=h, recency=r, base=b, path=p)
        for a, h, r, b, p in itertools.product(
            (0.1, 0.25, 0.5), (0.0, 0.3, 0.5), (0.0, 0.1), (0.0, 0.5), (1, 3, 5)
        )
    ]
    return list(dict.fromkeys([PRODUCT, *grid]))  # the product is column 0


def self_tuned(scores: list[list[float]], window: int, margin: float) -> list[float]:
    """Recall@5 per commit when each commit uses the setting best on the ones
    before it (``window`` 0: all of them)."""
    out = []
    for i, row in enumerate(scores):
        if i < WARM:
            out.append(row[0])
            continue
        past = scores[max(0, i - window) if window else 0 : i]
        means = [statistics.mean(col) for col in zip(*past, strict=True)]
        j = max(range(len(means)), key=lambda j: (means[j], j == 0))
        out.append(row[j] if means[j] >= means[0] + margin else row[0])
    return out


def main() -> None:
    rows: list[dict[str, Any]] = [
        json.loads(line) for d in sys.argv[1:] for line in Path(d).read_text("utf-8").splitlines()
    ]
    grid = settings()
    print(f"{len(grid)} settings; cut - BM25 recall@5 (points), whole repo")
    for repo, halves in splits(rows).items():
        rs = halves["whole"]
        scores = [[recall(rank(r, s), r["truth"], 5) for s in grid] for r in rs]
        base = statistics.mean(recall(baseline(r), r["truth"], 5) for r in rs)
        best = max(range(len(grid)), key=lambda j: statistics.mean(x[j] for x in scores))
        cells = [
            f"{repo[:20]:20} n{len(rs)}",
            f"product {100 * (statistics.mean(x[0] for x in scores) - base):+.1f}",
            f"oracle {100 * (statistics.mean(x[best] for x in scores) - base):+.1f}"
            f" ({grid[best].label()})",
        ]
        for window, margin in VARIANTS:
            got = statistics.mean(self_tuned(scores, window, margin))
            cells.append(f"M{window or 'all'}/d{margin:g} {100 * (got - base):+.1f}")
        print(" | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
