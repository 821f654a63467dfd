"""Benchmark: localise a commit's files from its message with the repo cut,
beside plain BM25 over file text, on real git history.

    python bench/bench_repo_localise.py [--repo PATH[@REV] ...] [--max-commits 60]
        [--weights 0,0.3,0.5,2] [--rev REV] [--dump FILE.jsonl]

``--dump`` appends one JSON line per scored commit (truth, the cut's top 10, its raw
score components, the baseline's scores); ``bench_repo_localise_offline.py`` re-weights
them on a fixed older/newer split without scanning again.

For every non-merge commit touching 1-5 non-test source files (newest first,
up to --max-commits per repo): query = the commit message, graph = the repo at
the parent commit, truth = the touched non-test source files that exist at the
parent. The graph comes from one ``git clone --shared --no-checkout`` of the
repo into a temp dir, checked out (detached) at each parent in turn and
scanned incrementally into one store, so the scanner sees the git history as
of the parent (its ``history`` node: the subjects of the last commits of HEAD)
and never the commit being localised (checked for every commit). Both rankings
are restricted to the parent's non-test source files. Prints recall@5 and @10
for:
- repo cut (BM25 over module names/docstrings/public names + personalised
  PageRank over the import graph + the code-mention boost + BM25 over each
  module's past commit subjects, as ``memgraph context --cut repo`` ranks);
- the same ranking with other code-mention weights (``--weights``; 0 = no
  mention boost), other history weights (``--history-weights``; 0 = no
  history) and shorter history windows (``--history-windows``), from the same
  index in the same run;
- the cut's text match alone (no PageRank);
- BM25 over each file's full text (the baseline).
Per repo it also prints the cut's median time in process: the first cut at each
parent (a new scan version: it builds the module index) and the same cut again
(index cached, as repeated cuts over an unchanged scan run: "warm").
First, code-mention extraction on hostile text (backticks, dots, regex
metacharacters, binary) at 12.5k / 25k / 50k characters: time should double
with the size (linear), and stop growing past the read cap.
``--rev`` (or ``PATH@REV`` per repo) picks the newest commit considered
(default HEAD; give a sha to score the same window of history again after new
commits land).
The default repo is this project (its worktree shares the project's .git).
A bare mirror works too (``git log`` and ``git archive`` need no work tree).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repo_localise_extra import extra_components  # bench/ is on the path

from context_cut.repo_cut import (
    MENTION_WEIGHT,
    RankOptions,
    RepoCutRequest,
    rank_modules,
    repo_cut,
)
from context_cut.repo_history import HISTORY_WEIGHT, HISTORY_WINDOW, history_docs, history_node
from context_cut.repo_index import ModuleIndex, bm25, personalised_pagerank
from context_cut.repo_query import query_weights
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.context import is_test
from profiles.repo_scan.facts import terms
from profiles.repo_scan.files import language_of
from profiles.repo_scan.scan import ScanRequest, scan_repo

SOURCE = {"python", "rust", "typescript", "tsx", "javascript", "go"}


@dataclass
class Commit:
    sha: str
    parent: str
    message: str
    files: list[str]


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def _source(path: str) -> bool:
    return language_of(path) in SOURCE and not is_test(path)


def commits(repo: Path, limit: int, rev: str = "HEAD") -> list[Commit]:
    fmt = "--format=%x1e%H %P%x1f%B%x1f"
    out = _git(repo, "log", "--no-merges", "-z", "--name-only", fmt, rev, "--")
    found: list[Commit] = []
    for record in out.decode("utf-8", "replace").split("\x1e"):
        if not record.strip():
            continue
        head, message, files_part = record.split("\x1f", 2)
        shas = head.split()
        if len(shas) != 2:
            continue  # root commit (no parent) or a merge
        files = [f.strip("\n") for f in files_part.split("\x00") if f.strip("\n")]
        touched = sorted({f for f in files if _source(f)})
        if 1 <= len(touched) <= 5:
            found.append(Commit(shas[0], shas[1], message.strip(), touched))
        if len(found) >= limit:
            break
    return found


def checkout(work: Path, sha: str) -> list[str]:
    """Check ``work`` out at ``sha`` (detached); its non-test source files."""
    _git(work, "checkout", "-q", "--detach", "-f", sha)
    out = _git(work, "ls-tree", "-r", "-z", "--name-only", "HEAD")
    return sorted(n for n in out.decode("utf-8", "replace").split("\0") if n and _source(n))


def recall(ranked: list[str], truth: set[str], k: int) -> float:
    return len(truth & set(ranked[:k])) / len(truth)


@dataclass
class Variants:
    mention: list[float]  # other code-mention weights
    history: list[float]  # other history weights
    windows: list[int]  # shorter history windows (at the default history weight)

    def names(self) -> list[str]:
        return [
            "cut",
            *(f"cut-m{w:g}" for w in self.mention),
            *(f"cut-h{w:g}" for w in self.history),
            *(f"cut-n{n}" for n in self.windows),
            "cut-text",
            "bm25",
        ]


def _with_window(index: ModuleIndex, commits: list[object], window: int) -> ModuleIndex:
    other = copy.copy(index)
    docs = history_docs(commits, set(index.tf), window)
    other.history = ModuleIndex(docs, set(), []) if docs else None
    return other


def _names(v: Variants) -> list[str]:
    return v.names()


def _round(scores: dict[str, float], allowed: set[str] | None = None) -> dict[str, float]:
    return {p: round(s, 5) for p, s in scores.items() if s and (allowed is None or p in allowed)}


def components(
    index: ModuleIndex, message: str, commits_seen: list[object], allowed: set[str]
) -> dict[str, object]:
    """The cut's score components for one commit (raw, unnormalised), for
    offline re-weighting (``--dump``): text BM25, PageRank, code mentions,
    history BM25 over the newest 25/50/100/200 commits, and per module the
    position of the newest commit that touched it and how many of the newest
    50 did."""
    query = query_weights(message)  # as rank_modules weighs the words
    text = index.bm25(query)
    seeds = dict(sorted(text.items(), key=lambda kv: -kv[1])[:20])
    out: dict[str, object] = {
        "text": _round(text),
        "ppr": _round(personalised_pagerank(index.paths, index.edges, seeds)),
        "named": _round(index.mentions.scores(message)),
    }
    paths = set(index.tf)
    for n in (25, 50, 100, 200):
        docs = history_docs(commits_seen, paths, n)
        out[f"past{n}"] = _round(bm25_counts(docs, query)) if docs else {}
    for weight in (0, 1, 5):  # the path's terms counted ``weight`` times instead of 3
        tf = {}
        for p, counts in index.tf.items():
            shifted = counts.copy()
            for t in terms(p):
                shifted[t] += weight - 3
            tf[p] = +shifted
        out[f"text_p{weight}"] = _round(bm25_counts(tf, query))
    for n in (50, 100):  # history per folder: subjects of commits touching a sibling
        folder_docs: dict[str, Counter[str]] = {}
        for p, counts in history_docs(commits_seen, paths, n).items():
            folder_docs.setdefault(p.rpartition("/")[0], Counter()).update(counts)
        empty: Counter[str] = Counter()
        docs = {p: folder_docs.get(p.rpartition("/")[0], empty) for p in paths}
        docs = {p: c for p, c in docs.items() if c}
        out[f"pastdir{n}"] = _round(bm25_counts(docs, query)) if docs else {}
    last: dict[str, int] = {}
    count: dict[str, int] = {}
    for i, row in enumerate(commits_seen):
        for f in row[2] or []:  # type: ignore[index]
            if f in paths:
                last.setdefault(f, i)
                if i < 50:
                    count[f] = count.get(f, 0) + 1
    out["last"] = {p: i for p, i in last.items() if p in allowed}
    out["recent"] = index.recent[:20]  # the cut's recency fallback (repo_query.py)
    out["count50"] = count
    out["tests"] = sorted(index.tests)
    return out


def bm25_counts(docs: dict[str, object], query: list[str] | dict[str, float]) -> dict[str, float]:
    return ModuleIndex(dict(docs), set(), []).bm25(query)  # type: ignore[arg-type]


def run_repo(
    repo: Path,
    limit: int,
    variants: Variants,
    rev: str = "HEAD",
    history: int = 200,
    dump: list[dict[str, object]] | None = None,
    embedder: Any = None,
) -> dict[str, list[float]]:
    picked = commits(repo, limit, rev)
    picked.reverse()  # oldest first: each parent is an incremental rescan
    scores: dict[str, list[float]] = {
        f"{name}@{k}": [] for name in _names(variants) for k in (5, 10)
    }
    store = MemoryStore()
    tmp = Path(tempfile.mkdtemp(prefix="mg-localise-"))
    scan_s: list[float] = []
    cut_ms: list[float] = []
    warm_ms: list[float] = []
    tree = tmp / "work"
    subprocess.run(
        ["git", "clone", "-q", "--shared", "--no-checkout", str(repo), str(tree)],
        check=True,
        capture_output=True,
    )
    try:
        for c in picked:
            candidates = checkout(tree, c.parent)
            t = time.perf_counter()
            scan_repo(
                store, ScanRequest(path=tree, name="bench", link_commits=False, history=history)
            )
            scan_s.append(time.perf_counter() - t)
            past = history_node(store, "bench")
            commits_seen: list[object] = list(past.attributes["commits"]) if past else []
            # the commit being localised is never visible to the graph
            assert past is None or past.attributes["head"] == c.parent, "history not at parent"
            assert all(row[0] != c.sha for row in commits_seen), "truth commit in history"  # type: ignore[index]
            truth = set(c.files) & set(candidates)
            if not truth:
                continue
            allowed = set(candidates)
            t = time.perf_counter()
            cut = repo_cut(
                store, RepoCutRequest(text=c.message, repo="bench", limit=10, voice=False), embedder
            )
            cut_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()  # again, the module index cached: an unchanged scan
            repo_cut(
                store, RepoCutRequest(text=c.message, repo="bench", limit=10, voice=False), embedder
            )
            warm_ms.append((time.perf_counter() - t) * 1000)
            ranked = [p for p, _s in cut.ranked if p in allowed]
            from context_cut.repo_cut import _INDEX_CACHE

            index: ModuleIndex = next(reversed(_INDEX_CACHE.values()))
            text_only = index.bm25(query_weights(c.message))
            ranked_text = [
                p
                for p, _s in sorted(text_only.items(), key=lambda kv: (-kv[1], kv[0]))
                if p in allowed
            ]
            docs = {
                p: terms((tree / p).read_text(encoding="utf-8", errors="replace"))
                for p in candidates
            }
            base = bm25(docs, terms(c.message))
            ranked_base = [p for p, _s in sorted(base.items(), key=lambda kv: (-kv[1], kv[0]))]
            orders = {
                f"cut-m{w:g}": [
                    p
                    for p, _s in rank_modules(index, c.message, RankOptions(mentions=w != 0))
                    if p in allowed
                ]
                for w in variants.mention
            }
            for w in variants.history:
                ranked_h = rank_modules(index, c.message, RankOptions(history=w != 0))
                orders[f"cut-h{w:g}"] = [p for p, _s in ranked_h if p in allowed]
            for n in variants.windows:
                ranked_n = rank_modules(_with_window(index, commits_seen, n), c.message)
                orders[f"cut-n{n}"] = [p for p, _s in ranked_n if p in allowed]
            if dump is not None:
                row: dict[str, object] = {
                    "repo": str(repo),
                    "rev": rev,
                    "order": picked.index(c),
                    "sha": c.sha,
                    "message": c.message,
                    "truth": sorted(truth),
                    "allowed": sorted(allowed),
                    "cut": ranked[:10],
                    "cut_model": "fitted-1",  # repo_model.py (the offline replay is of the cut before)
                    "bm25": _round(base),
                }
                row.update(components(index, c.message, commits_seen, allowed))
                row.update(extra_components(store, index, c.message, commits_seen))
                if os.environ.get("MG_BENCH_PROSE") == "1":  # prose35 candidate, opt-in
                    from bench_repo_localise_prose import prose_components

                    row.update(prose_components(tree, index, c.message))
                dump.append(row)
            for k in (5, 10):
                scores[f"cut@{k}"].append(recall(ranked, truth, k))
                for name, order in orders.items():
                    scores[f"{name}@{k}"].append(recall(order, truth, k))
                scores[f"cut-text@{k}"].append(recall(ranked_text, truth, k))
                scores[f"bm25@{k}"].append(recall(ranked_base, truth, k))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    n = len(scores["cut@5"])
    print(
        f"{repo} @ {rev}: {n} commits scored of {len(picked)} picked; scan per parent "
        f"median {statistics.median(scan_s) * 1000:.0f} ms (first {scan_s[0]:.1f} s); "
        f"cut median {statistics.median(cut_ms):.0f} ms (builds the module index), "
        f"warm {statistics.median(warm_ms):.1f} ms (index cached); load {os.getloadavg()}"
    )
    return scores


def paired_gap(cut: list[float], base: list[float], draws: int = 4000) -> str:
    """The cut's lead over the baseline in points of recall, with its uncertainty.

    Both were scored on the same commits, so the per-commit differences are what
    varies: their standard error and a bootstrap 95 % interval (seeded, so the line
    is reproducible) say how far the point figure could move on another sample of
    commits of the same repo (at ~450 commits the SE is ~1.5 points; notes/repo.md,
    2026-12-07 (s39))."""
    diffs = [a - b for a, b in zip(cut, base, strict=True)]
    n = len(diffs)
    mean = statistics.fmean(diffs)
    se = statistics.pstdev(diffs) / n**0.5
    rng = random.Random(0)
    means = sorted(statistics.fmean(rng.choices(diffs, k=n)) for _ in range(draws))
    low, high = means[int(draws * 0.025)], means[int(draws * 0.975) - 1]
    won = sum(d > 0 for d in diffs)
    lost = sum(d < 0 for d in diffs)
    return (
        f"cut - bm25 @5 {100 * mean:+.1f} points (n {n}, {won} commits won / {lost} lost; "
        f"SE {100 * se:.1f}, bootstrap 95% [{100 * low:+.1f}, {100 * high:+.1f}])"
    )


def hostile_timing() -> None:
    from context_cut.mentions import MAX_TEXT, MentionTable

    table = MentionTable.build(
        {f"pkg/m{i}.py": [f"name_{i}"] for i in range(500)},
        {
            f"pkg/m{i}.py": [("commands", f"c-{i}"), ("options", "--o"), ("tools", "a")]
            for i in range(3)
        },
    )
    units = ["`", "a.", "a_", "`" + "x" * 199, ".*+?[](){}|^$\\", "()", "\x00\ufffd"]
    units.append(bytes(range(256)).decode("latin-1"))
    for n in (MAX_TEXT // 4, MAX_TEXT // 2, MAX_TEXT, MAX_TEXT * 20):
        t = time.perf_counter()
        for unit in units:
            table.scores((unit * (n // len(unit) + 1))[:n])
        ms = (time.perf_counter() - t) * 1000
        print(f"  mentions over {len(units)} hostile texts of {n:,} chars: {ms:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path, action="append", default=[])
    ap.add_argument("--max-commits", type=int, default=60)
    ap.add_argument(
        "--weights",
        default="0,0.3,0.5,2",
        help="other code-mention weights to score beside the default (0 = off)",
    )
    ap.add_argument(
        "--history-weights",
        default="0,0.2,0.5,1",
        help="other commit-history weights to score beside the default (0 = off)",
    )
    ap.add_argument(
        "--history-windows",
        default="25,100,200",
        help="shorter history windows (newest N commits) to score beside the stored one",
    )
    ap.add_argument(
        "--history",
        type=int,
        default=200,
        help="commits the scanner keeps (the cut row uses its own window of them)",
    )
    ap.add_argument("--rev", default="HEAD", help="newest commit considered (every repo)")
    ap.add_argument(
        "--dump",
        type=Path,
        help="write one JSON line per scored commit (truth, the cut's top 10, its score "
        "components, BM25 baseline scores) for offline analysis",
    )
    ap.add_argument(
        "--embedder",
        default="none",
        help="the cut's embedder (minilm: the nearest-past-commit signal, repo_nearest.py)",
    )
    args = ap.parse_args()
    from context_cut.embedders import make_embedder

    embedder = make_embedder(args.embedder)
    variants = Variants(
        [float(w) for w in args.weights.split(",") if w.strip()],
        [float(w) for w in args.history_weights.split(",") if w.strip()],
        [int(n) for n in args.history_windows.split(",") if n.strip()],
    )
    repos = args.repo or [Path(__file__).resolve().parents[1]]
    print(
        f"load: {os.getloadavg()}; cut mention weight {MENTION_WEIGHT:g}, "
        f"history weight {HISTORY_WEIGHT:g} over the newest {HISTORY_WINDOW}, "
        f"scanner history {args.history} commits"
    )
    hostile_timing()
    for given in repos:
        repo, rev = given, args.rev
        if not given.exists() and "@" in str(given):
            head, rev = str(given).rsplit("@", 1)
            repo = Path(head)
        rows: list[dict[str, object]] = []
        scores = run_repo(
            repo.resolve(), args.max_commits, variants, rev, args.history, rows, embedder
        )
        if args.dump:
            with args.dump.open("a", encoding="utf-8") as fh:
                for row in rows:
                    fh.write(json.dumps(row) + "\n")
        for name in _names(variants):
            r5 = statistics.mean(scores[f"{name}@5"]) if scores[f"{name}@5"] else 0.0
            r10 = statistics.mean(scores[f"{name}@10"]) if scores[f"{name}@10"] else 0.0
            print(f"  {name:9} recall@5 {r5:.3f}  recall@10 {r10:.3f}")
        if scores["cut@5"]:
            print("  " + paired_gap(scores["cut@5"], scores["bm25@5"]))


if __name__ == "__main__":
    main()
