"""Re-weight the repo cut offline from ``bench_repo_localise.py --dump`` rows.

    python bench/bench_repo_localise_offline.py DUMP.jsonl [--grid] [--losses N]

Each dumped row holds one commit's truth files and the cut's raw score
components (text BM25, PageRank, code mentions, history BM25 over the newest
25/50/100/200 commits, the position of the newest commit that touched each
module). This script ranks them again as ``rank_modules`` does, for other
weights, and reports recall@5 / @10 beside the BM25 baseline on a split fixed
before looking: per repo, commits in history order, the OLDER half chooses
(``--grid`` prints every setting on it, best minimum gain over BM25 first) and
the NEWER half and the whole are reported. The product's setting must
reproduce the live ``cut`` row (checked: the script stops if it does not).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from context_cut.repo_cut import ALPHA, MENTION_WEIGHT, TEST_WEIGHT
from context_cut.repo_history import HISTORY_WEIGHT, HISTORY_WINDOW


@dataclass(frozen=True)
class Setting:
    alpha: float = ALPHA
    mention: float = MENTION_WEIGHT
    history: float = HISTORY_WEIGHT
    window: int = HISTORY_WINDOW
    recency: float = 0.0  # + recency / (1 + position of the newest commit touching it / 10)
    base: float = 0.0  # + base x BM25 over the whole file text (the baseline) / its best
    path: int = 3  # times the path's terms count in the text match (dumped: 0, 1, 3, 5)
    folder: float = 0.0  # + folder x BM25 over the subjects of commits touching the folder

    def label(self) -> str:
        return (
            f"a{self.alpha:g} m{self.mention:g} h{self.history:g} n{self.window} "
            f"r{self.recency:g} b{self.base:g} p{self.path} f{self.folder:g}"
        )


PRODUCT = Setting()


def _norm(scores: dict[str, float]) -> float:
    return max(scores.values(), default=0.0) or 1.0


def rank(row: dict[str, Any], s: Setting) -> list[str]:
    text, ppr, named = row["text" if s.path == 3 else f"text_p{s.path}"], row["ppr"], row["named"]
    folder = row[f"pastdir{s.window}"] if s.folder else {}
    top_folder = _norm(folder)
    past = row[f"past{s.window}"] if s.history else {}
    base = row["bm25"] if s.base else {}
    last = row["last"] if s.recency else {}
    best, top_ppr, top_past, top_base = _norm(text), _norm(ppr), _norm(past), _norm(base)
    tests = set(row["tests"])
    if not text and not named and not past:
        return []  # rank_modules returns nothing (the baseline term is offline only)
    out = []
    for p in row["allowed"]:
        score = (
            text.get(p, 0.0) / best
            + (s.alpha * ppr.get(p, 0.0) / top_ppr if text else 0.0)
            + s.mention * named.get(p, 0.0)
            + s.history * past.get(p, 0.0) / top_past
            + s.base * base.get(p, 0.0) / top_base
            + s.folder * folder.get(p, 0.0) / top_folder
            + (s.recency / (1 + last[p] / 10) if p in last else 0.0)
        ) * (TEST_WEIGHT if p in tests else 1.0)
        if score > 0:
            out.append((p, score))
    out.sort(key=lambda ps: (-ps[1], ps[0]))
    return [p for p, _s in out]


def recall(ranked: list[str], truth: list[str], k: int) -> float:
    return len(set(truth) & set(ranked[:k])) / len(truth)


def baseline(row: dict[str, Any]) -> list[str]:
    return [p for p, _s in sorted(row["bm25"].items(), key=lambda kv: (-kv[1], kv[0]))]


def splits(rows: list[dict[str, Any]]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """repo -> {older, newer, whole}: halves by history order (fixed before looking)."""
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        path = Path(r["repo"])
        name = path.parent.name if path.name == "repo" else path.name
        by_repo[f"{name}@{r['rev']}"].append(r)
    out = {}
    for repo, rs in by_repo.items():
        rs.sort(key=lambda r: r["order"])
        half = len(rs) // 2
        out[repo] = {"older": rs[:half], "newer": rs[half:], "whole": rs}
    return out


def gain(rows: list[dict[str, Any]], s: Setting, k: int = 5) -> tuple[float, float]:
    cut = statistics.mean(recall(rank(r, s), r["truth"], k) for r in rows)
    base = statistics.mean(recall(baseline(r), r["truth"], k) for r in rows)
    return cut, base


def table(parts: dict[str, dict[str, list[dict[str, Any]]]], settings: list[Setting]) -> None:
    for s in settings:
        print(f"setting {s.label()}")
        for repo, halves in parts.items():
            cells = []
            for name in ("older", "newer", "whole"):
                rows = halves[name]
                c5, b5 = gain(rows, s, 5)
                c10, b10 = gain(rows, s, 10)
                cells.append(
                    f"{name} ({len(rows)}) cut {c5:.3f}/{c10:.3f} bm25 {b5:.3f}/{b10:.3f} "
                    f"{(c5 - b5) * 100:+.1f}"
                )
            print(f"  {repo:22} " + " | ".join(cells))


def grid(parts: dict[str, dict[str, list[dict[str, Any]]]]) -> list[tuple[float, Setting]]:
    found = []
    for a, h, n, r, b, path, f in itertools.product(
        (0.1, 0.25, 0.5),
        (0.0, 0.3, 0.5),
        (50, 100),
        (0.0, 0.1),
        (0.0, 0.5),
        (1, 3, 5),
        (0.0, 0.1, 0.2),
    ):
        if not h and not f and n != HISTORY_WINDOW:
            continue
        s = Setting(a, MENTION_WEIGHT, h, n, r, b, path, f)
        gains = []
        for halves in parts.values():
            c, base = gain(halves["older"], s)
            gains.append(c - base)
        found.append((min(gains), s))
    found.sort(key=lambda gs: (-gs[0], gs[1].label()))
    return found


def losses(rows: list[dict[str, Any]], s: Setting, n: int) -> None:
    """Commits where the cut's recall@5 is below the baseline's (older half only)."""
    shown = 0
    for r in rows:
        c, b = recall(rank(r, s), r["truth"], 5), recall(baseline(r), r["truth"], 5)
        if c < b and shown < n:
            shown += 1
            print(f"  {r['sha'][:8]} cut {c:.2f} bm25 {b:.2f}: {r['message'].splitlines()[0][:90]}")
            print(f"    truth {r['truth']}")
            print(f"    cut   {rank(r, s)[:5]}")
            print(f"    bm25  {baseline(r)[:5]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dump", type=Path, nargs="+")
    ap.add_argument("--grid", action="store_true", help="search settings on the older halves")
    ap.add_argument("--losses", type=int, default=0, help="show N older-half losses per repo")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    rows = [json.loads(line) for d in args.dump for line in d.open(encoding="utf-8")]
    for r in rows:  # the product's setting reproduces the live cut row's recall
        live = [p for p in r["cut"] if p in set(r["allowed"])]
        offline = rank(r, PRODUCT)
        for k in (5, 10):  # (scores are dumped to 5 decimals: near-ties may swap)
            same = recall(offline, r["truth"], k) == recall(live, r["truth"], k)
            assert same, f"offline recall differs from the live cut: {r['sha']}"
    parts = splits(rows)
    table(parts, [PRODUCT])
    if args.losses:
        for repo, halves in parts.items():
            print(f"{repo}: older-half commits where the cut loses to BM25 @5")
            losses(halves["older"], PRODUCT, args.losses)
    if args.grid:
        found = grid(parts)
        print("best minimum gain @5 over BM25 on the older halves:")
        for g, s in found[: args.top]:
            print(f"  {g * 100:+.1f}  {s.label()}")
        table(parts, [s for _g, s in found[:3]])


if __name__ == "__main__":
    main()
