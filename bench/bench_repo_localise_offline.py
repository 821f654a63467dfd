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
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from context_cut.repo_cut import MENTION_WEIGHT, TEST_WEIGHT
from context_cut.repo_history import HISTORY_WEIGHT, HISTORY_WINDOW
from context_cut.repo_query import FALLBACK_MODULES
from profiles.repo_scan.facts import terms

# The hand-set cut's PageRank weight (before context_cut/repo_model.py): the replay of
# dumps from before reproduces that cut.
ALPHA = 0.25


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
    fallback: bool = True  # fill up to FALLBACK_MODULES with recently changed modules
    variant: str = ""  # "_c": cleaned message, "_s": stemmed terms (bench_repo_localise_extra)

    def label(self) -> str:
        return (
            f"a{self.alpha:g} m{self.mention:g} h{self.history:g} n{self.window} "
            f"r{self.recency:g} b{self.base:g} p{self.path} f{self.folder:g}"
            + ("" if self.fallback else " nofallback")
            + (f" v{self.variant}" if self.variant else "")
        )


PRODUCT = Setting()


def _norm(scores: dict[str, float]) -> float:
    return max(scores.values(), default=0.0) or 1.0


def rank(row: dict[str, Any], s: Setting, extra: dict[str, float] | None = None) -> list[str]:
    """The cut's order for ``row`` under ``s`` (plus ``extra``: path -> score
    already weighted, for candidate signals), with the recency fallback over every
    module as the product has it, then restricted to the row's candidates."""
    ranked = _scored(row, s, extra or {})
    if s.fallback and len(ranked) < FALLBACK_MODULES:
        have = set(ranked)
        recent = [p for p in row.get("recent", []) if p not in have]
        ranked += recent[: FALLBACK_MODULES - len(ranked)]
    allowed = set(row["allowed"])
    return [p for p in ranked if p in allowed]


def _scored(row: dict[str, Any], s: Setting, extra: dict[str, float]) -> list[str]:
    text, ppr, named = row["text" if s.path == 3 else f"text_p{s.path}"], row["ppr"], row["named"]
    if s.variant:  # (dumped for the product's path weight and window only)
        text, ppr = row[f"text{s.variant}"], row[f"ppr{s.variant}"]
        named = row.get(f"named{s.variant}", named)
    folder = row[f"pastdir{s.window}"] if s.folder else {}
    top_folder = _norm(folder)
    past = row[f"past{s.window}{s.variant}"] if s.history else {}
    base = row["bm25"] if s.base else {}
    last = row["last"] if s.recency else {}
    best, top_ppr, top_past, top_base = _norm(text), _norm(ppr), _norm(past), _norm(base)
    tests = set(row["tests"])
    if not text and not named and not past:
        return []  # rank_modules matches nothing (the baseline term is offline only)
    out = []
    modules = set(row["allowed"]) | set(text) | set(named) | set(past) | set(extra)
    for p in sorted(modules | (set(ppr) if text else set())):
        score = (
            text.get(p, 0.0) / best
            + (s.alpha * ppr.get(p, 0.0) / top_ppr if text else 0.0)
            + s.mention * named.get(p, 0.0)
            + s.history * past.get(p, 0.0) / top_past
            + s.base * base.get(p, 0.0) / top_base
            + s.folder * folder.get(p, 0.0) / top_folder
            + (s.recency / (1 + last[p] / 10) if p in last else 0.0)
            + extra.get(p, 0.0)
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


# Repos whose older halves choose; every other repo in the dumps only confirms.
CHOOSERS = ("pallets+click", "encode+httpx")


def _chooses(repo: str, own: str) -> bool:
    name = repo.split("@")[0]
    return name in CHOOSERS or name == own


Ranker = Callable[[dict[str, Any]], list[str]]


def pooled(parts: dict[str, dict[str, list[dict[str, Any]]]], label: str, fn: Ranker) -> None:
    """Recall@5 change against the product, commit by commit, pooled over the
    choosing rows (older halves of this project, click, httpx) and the confirming
    rows (their newer halves and every other repo whole), with the commits it wins
    and loses; then the cut's gain over BM25 per repo (whole). One commit is ~1
    point of a repo's figure but only ~0.2-0.3 of a pooled one."""
    own = next(iter(parts)).split("@")[0]  # the first dump: this project
    choose: list[float] = []
    confirm: list[float] = []
    per = []
    for repo, halves in parts.items():
        for half in ("older", "newer"):
            for r in halves[half]:
                d = recall(fn(r), r["truth"], 5) - recall(rank(r, PRODUCT), r["truth"], 5)
                (choose if half == "older" and _chooses(repo, own) else confirm).append(d)
        rows = halves["whole"]
        c = statistics.mean(recall(fn(r), r["truth"], 5) for r in rows)
        b = statistics.mean(recall(baseline(r), r["truth"], 5) for r in rows)
        per.append(f"{repo.split('@')[0][-8:]} {(c - b) * 100:+5.1f}")

    def cell(ds: list[float]) -> str:
        wins, lost = sum(d > 0 for d in ds), sum(d < 0 for d in ds)
        return f"{statistics.mean(ds) * 100:+5.2f} ({wins}w/{lost}l)"

    print(f"  {label:26} choose {cell(choose)} confirm {cell(confirm)} | " + " ".join(per))


def _seam(r: dict[str, Any]) -> dict[str, float]:
    """Test seam: a test module's text + mention score to the module it is named after."""

    def stem(p: str) -> str:
        name = p.rsplit("/", 1)[-1].rsplit(".", 1)[0].strip("_")
        return name.removeprefix("test_").removesuffix("_test").strip("_")

    out: dict[str, float] = {}
    best = _norm(r["text"])
    for t, mods in r["seam"].items():
        score = r["text"].get(t, 0.0) / best + r["named"].get(t, 0.0)
        for m in mods:
            if score and stem(m) == stem(t):
                out[m] = max(out.get(m, 0.0), score)
    return out


def _cochange(r: dict[str, Any], k: int = 5, n: int = 100) -> dict[str, float]:
    """P(file | a top-k module changed) over the newest n commits, by rank."""
    top = rank(r, PRODUCT)[:k]
    touched: Counter[str] = Counter()
    pairs: dict[str, Counter[str]] = defaultdict(Counter)
    for files in r["hist"][:n]:
        if len(files) > 20:
            continue
        touched.update(files)
        for s in top:
            if s in files:
                pairs[s].update(f for f in files if f != s)
    out: Counter[str] = Counter()
    for i, s in enumerate(top):
        for f, c in pairs[s].items():
            out[f] += c / touched[s] / (i + 1)
    return dict(out)


def _reweighted(row: dict[str, Any], weights: dict[str, float]) -> dict[str, Any]:
    """``row`` with text, PageRank and history recomputed for other query-term
    weights, from the dumped term statistics (qtf/len, hqtf/hlen, edges)."""
    from context_cut.repo_index import ModuleIndex, personalised_pagerank

    def bm25(qtf: dict[str, dict[str, int]], length: dict[str, int]) -> dict[str, float]:
        docs = {p: Counter() for p in length}
        for t, posting in qtf.items():
            for p, n in posting.items():
                docs[p][t] = n
        return ModuleIndex(docs, set(), [], length=dict(length)).bm25(weights)

    text = bm25(row["qtf"], row["len"]) if row["len"] else {}
    seeds = dict(sorted(text.items(), key=lambda kv: -kv[1])[:20])
    edges = [(a, b) for a, b in row["edges"]]
    out = dict(row)
    out["text"] = text
    out["ppr"] = personalised_pagerank(sorted(row["len"]), edges, seeds)
    out["past50"] = bm25(row["hqtf"], row["hlen"]) if row.get("hlen") else {}
    return out


def _scaled(scores: dict[str, float], w: float) -> dict[str, float]:
    top = _norm(scores)
    return {p: w * v / top for p, v in scores.items()}


def candidates(parts: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    """Signals not in the cut (bench_repo_localise_extra.py), one at a time."""
    print("candidate signals, recall@5 change against the product (pooled):")
    nofb = Setting(fallback=False)
    pooled(parts, "no recency fallback", lambda r: rank(r, nofb))
    plain = {}  # every word weighs 1 (no scope prefix): the cut before 2026-12-04 18:15
    for rows in parts.values():
        for r in rows["whole"]:
            plain[r["sha"]] = _reweighted(r, dict.fromkeys(terms(r["message"]), 1.0))
    pooled(parts, "no scope prefix weight", lambda r: rank(plain[r["sha"]], PRODUCT))
    pooled(parts, "neither (the cut before)", lambda r: rank(plain[r["sha"]], nofb))
    pooled(parts, "cleaned message", lambda r: rank(r, Setting(variant="_c")))
    pooled(parts, "stemmed terms", lambda r: rank(r, Setting(variant="_s")))
    for w in (0.1, 0.3, 0.5):
        pooled(parts, f"symbol names {w:g}", lambda r, w=w: rank(r, PRODUCT, _scaled(r["sym"], w)))
    for w in (0.1, 0.2):
        pooled(parts, f"test seam {w:g}", lambda r, w=w: rank(r, PRODUCT, _scaled(_seam(r), w)))
        pooled(parts, f"co-change {w:g}", lambda r, w=w: rank(r, PRODUCT, _scaled(_cochange(r), w)))
    for w in (0.05, 0.1):
        pooled(parts, f"recency prior {w:g}", lambda r, w=w: rank(r, Setting(recency=w)))
        pooled(
            parts, f"change count {w:g}", lambda r, w=w: rank(r, PRODUCT, _scaled(r["count50"], w))
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dump", type=Path, nargs="+")
    ap.add_argument("--grid", action="store_true", help="search settings on the older halves")
    ap.add_argument("--losses", type=int, default=0, help="show N older-half losses per repo")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument(
        "--candidates", action="store_true", help="pooled change of each candidate signal"
    )
    args = ap.parse_args()
    rows = [json.loads(line) for d in args.dump for line in d.open(encoding="utf-8")]
    for r in rows:  # the hand-set setting reproduces the live cut row's recall (older dumps)
        if r.get("cut_model"):
            continue  # dumped after the fitted model (repo_model.py): not a replay of it
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
    if args.candidates:
        candidates(parts)
    if args.grid:
        found = grid(parts)
        print("best minimum gain @5 over BM25 on the older halves:")
        for g, s in found[: args.top]:
            print(f"  {g * 100:+.1f}  {s.label()}")
        table(parts, [s for _g, s in found[:3]])


if __name__ == "__main__":
    main()
