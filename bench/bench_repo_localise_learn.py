"""Learn the repo cut's weights on OTHER repositories' histories, judge on ours.

    python bench/bench_repo_localise_learn.py --train T1.jsonl ... --eval E1.jsonl ...

Every earlier weight change (notes/repo.md k17..r17) was chosen on the older
halves of this project, click and httpx and confirmed on the rest: ~350
choosing commits, so a signal that moves 1-2 points sits in the noise. Here the
weights are fitted on dumps of repositories nobody tuned on (``--train``), and
the five judged repositories (``--eval``) are all out of sample.

Per (commit, candidate module) a feature vector of the dumped components, each
normalised by its best module in that commit as ``rank_modules`` does, plus
interactions with a short message (priors matter where the words say little).
The model is linear (so the product could carry it as weights) and fitted by
coordinate ascent on the mean over training repos of recall@5 (each repo
weighs the same), starting at the product's weights.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repo_localise_offline import PRODUCT, _cochange, baseline, rank, recall, splits

from context_cut.repo_model import RECENT, SHORT_TERMS
from context_cut.repo_model import clauses as split_clauses
from context_cut.repo_query import query_weights

FEATURES = [
    "text",
    "ppr",
    "named",
    "past50",
    "past25",
    "past100",
    "bm25",
    "recency",
    "prose",
    "prose_f",
    "sym",
    "count50",
    "cochange",
    "pastdir50",
    "text_rr",
    "bm25_rr",
    "size",
    "short_recency",
    "short_count",
    "short_cochange",
    "short_bm25",
    "short_ppr",
    "clause_max",
    "clause_top",
    "long_clause",
    "long_named",
    "long_text_rr",
    "long_recency",
    "long_size",
    "long_count",
    "long_ppr",
    "long_sym",
    "long_past100",
    "long_text",
    "nearest",
    "pastbody",
]
START = {"text": 1.0, "ppr": 0.25, "named": 1.0, "past50": 0.3, "recency": 0.001}


def clauses(r: dict[str, Any]) -> tuple[dict[str, float], set[str]]:
    """Best clause-normalised text score per module and the clauses' top modules
    (a message of one clause: nothing); the clauses as the product splits them."""
    from context_cut.repo_rank import Postings

    weights = query_weights(r["message"])
    parts = split_clauses(r["message"], {t: weights.get(t, 1.0) for t in r["qtf"]})
    if not parts:
        return {}, set()
    docs: dict[str, dict[str, int]] = {p: {} for p in r["len"]}
    for t, post in r["qtf"].items():
        for p, n in post.items():
            docs.setdefault(p, {})[t] = n
    length = {p: r["len"].get(p, 1) for p in docs}
    post = Postings(docs, length)
    best: dict[str, float] = {}
    tops: set[str] = set()
    for c in parts:
        sc = post.scores({t: weights.get(t, 1.0) for t in c})
        if not sc:
            continue
        top = max(sc.values())
        for p, v in sc.items():
            best[p] = max(best.get(p, 0.0), v / top)
        tops.add(max(sc, key=lambda p: (sc[p], p)))
    return best, tops


def _n(d: dict[str, float]) -> tuple[dict[str, float], float]:
    return d, (max(d.values(), default=0.0) or 1.0)


def features(r: dict[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Candidates (allowed modules), their feature matrix, and the truth mask."""
    mods = list(r["allowed"])
    nterms = len(r["qtf"]) or 1
    short = 1.0 if nterms <= SHORT_TERMS else 0.0
    text, tb = _n(r["text"])
    has_text = 1.0 if r["text"] else 0.0
    comp = {k: _n(r.get(k) or {}) for k in ("ppr", "past50", "past25", "past100", "bm25")}
    comp.update({k: _n(r.get(k) or {}) for k in ("prose", "prose_f", "sym", "count50", "pastbody")})
    comp["pastdir50"] = _n(r.get("pastdir50") or {})
    comp["cochange"] = _n(_cochange(r))
    text_rank = {p: i for i, (p, _s) in enumerate(sorted(r["text"].items(), key=lambda kv: -kv[1]))}
    base_rank = {p: i for i, p in enumerate(baseline(r))}
    lengths = r["len"]
    top_len = math.log(1 + max(lengths.values(), default=1))
    last = r["last"]
    cmax, ctop = clauses(r)
    long = 1.0 if nterms > 12 else 0.0
    x = np.zeros((len(mods), len(FEATURES)))
    for i, p in enumerate(mods):
        row = {
            "text": text.get(p, 0.0) / tb,
            "ppr": has_text * comp["ppr"][0].get(p, 0.0) / comp["ppr"][1],
            "named": r["named"].get(p, 0.0),
            "recency": 1 / (1 + last[p] / 10) if last.get(p, 999) < RECENT else 0.0,
            "text_rr": 1 / (1 + text_rank[p]) if p in text_rank else 0.0,
            "bm25_rr": 1 / (1 + base_rank[p]) if p in base_rank else 0.0,
            "size": math.log(1 + lengths.get(p, 0)) / top_len,
        }
        for k in ("past50", "past25", "past100", "bm25", "prose", "prose_f", "sym", "pastbody"):
            row[k] = comp[k][0].get(p, 0.0) / comp[k][1]
        for k in ("count50", "cochange", "pastdir50"):
            row[k] = comp[k][0].get(p, 0.0) / comp[k][1]
        row["short_recency"] = short * row["recency"]
        row["short_count"] = short * row["count50"]
        row["short_cochange"] = short * row["cochange"]
        row["short_bm25"] = short * row["bm25"]
        row["short_ppr"] = short * row["ppr"]
        row["clause_max"] = cmax.get(p, 0.0)
        row["clause_top"] = 1.0 if p in ctop else 0.0
        row["long_clause"] = long * row["clause_max"]
        row["long_named"] = long * row["named"]
        row["long_text_rr"] = long * row["text_rr"]
        for k in ("recency", "size", "ppr", "sym", "past100", "text"):
            row[f"long_{k}"] = long * row[k]
        row["long_count"] = long * row["count50"]
        row["nearest"] = r.get("nearest", {}).get(p, 0.0)  # --nearest: MiniLM, else 0
        x[i] = [row[f] for f in FEATURES]
    truth = np.array([p in set(r["truth"]) for p in mods])
    return mods, x, truth


Item = tuple[list[str], np.ndarray, np.ndarray]  # ``features``: candidates, matrix, truth


def recalls(items: list[Item], w: np.ndarray, k: int = 5) -> np.ndarray:
    """Recall@k of each commit when its candidates are ranked by ``x @ w``."""
    out = np.empty(len(items))
    for j, (mods, x, truth) in enumerate(items):
        s = x @ w
        # ties by path, as the cut sorts (-score, path)
        order = sorted(range(len(mods)), key=lambda i: (-s[i], mods[i]))[:k]
        out[j] = truth[order].sum() / truth.sum()
    return out


class Data:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.items = [features(r) for r in rows]
        self.repo = [r["repo"] for r in rows]

    def recalls(self, w: np.ndarray, k: int = 5) -> np.ndarray:
        return recalls(self.items, w, k)

    def objective(self, w: np.ndarray) -> float:
        rec = self.recalls(w)
        by: dict[str, list[float]] = {}
        for repo, v in zip(self.repo, rec, strict=True):
            by.setdefault(repo, []).append(float(v))
        return statistics.mean(statistics.mean(v) for v in by.values())


def fit(data: Data, rounds: int, fixed: set[str]) -> np.ndarray:
    w = np.array([START.get(f, 0.0) for f in FEATURES])
    best = data.objective(w)
    print(f"start objective {best:.4f}")
    steps = (-0.5, -0.2, -0.1, -0.05, 0.05, 0.1, 0.2, 0.5)
    for rnd in range(rounds):
        moved = False
        for j, f in enumerate(FEATURES):
            if f in fixed:
                continue
            cand = None
            for d in steps:
                t = w.copy()
                t[j] = max(0.0, t[j] + d) if f != "size" else t[j] + d
                if np.allclose(t, w):
                    continue
                v = data.objective(t)
                if v > best + 1e-4 and (cand is None or v > cand[0]):
                    cand = (v, t)
            if cand is not None:
                best, w = cand
                moved = True
        print(
            f"round {rnd + 1}: objective {best:.4f} "
            + " ".join(f"{f}={v:g}" for f, v in zip(FEATURES, w, strict=True) if v)
        )
        if not moved:
            break
    return w


def fit_pairs(data: Data, fixed: set[str], l2: float, negatives: int) -> np.ndarray:
    """Pairwise logistic regression (RankNet, linear): every truth module of a
    commit against its ``negatives`` best-scored other modules by the product's
    weights; each repo's pairs weigh the same; L2 towards 0; full-batch gradient
    descent (convex: one optimum, unlike the greedy ascent)."""
    start = np.array([START.get(f, 0.0) for f in FEATURES])
    free = np.array([f not in fixed for f in FEATURES])
    diffs, weights = [], []
    per_repo: dict[str, int] = {}
    for repo in data.repo:
        per_repo[repo] = per_repo.get(repo, 0) + 1
    for (_mods, x, truth), repo in zip(data.items, data.repo, strict=True):
        s = x @ start
        neg = [i for i in np.argsort(-s) if not truth[i]][:negatives]
        pos = np.flatnonzero(truth)
        if not len(pos) or not neg:
            continue
        d = (x[pos][:, None, :] - x[neg][None, :, :]).reshape(-1, x.shape[1])
        diffs.append(d)
        weights.append(np.full(len(d), 1.0 / (len(d) * per_repo[repo])))
    dx = np.concatenate(diffs)[:, free]
    wt = np.concatenate(weights)
    wt /= wt.sum()
    w = start[free].copy()
    lr = 0.5
    for _ in range(3000):
        z = dx @ w
        p = 1 / (1 + np.exp(np.clip(z, -30, 30)))  # d/dz log(1+e^-z) = -p
        grad = -(dx * (wt * p)[:, None]).sum(0) + l2 * w
        w -= lr * grad
    out = start.copy()
    out[free] = w
    text = out[FEATURES.index("text")]
    return out / (text if text > 0 else 1.0)


def cross_validate(train: list[dict[str, Any]], fixed: set[str], args: Any) -> None:
    """Leave one training repo out: fit on the others, judge the held-out repo at
    each shrink toward the product; mean change of recall@5 over held-out repos."""
    start = np.array([START.get(f, 0.0) for f in FEATURES])
    repos = sorted({r["repo"] for r in train})
    data = {repo: Data([r for r in train if r["repo"] == repo]) for repo in repos}
    lambdas = (0.25, 0.5, 0.75, 1.0)
    gains: dict[float, list[float]] = {lam: [] for lam in lambdas}
    for held in repos:
        rest = Data([r for r in train if r["repo"] != held])
        w = fit_pairs(rest, set(fixed), args.l2, args.negatives)
        prod = data[held].recalls(start).mean()
        for lam in lambdas:
            gains[lam].append(100 * (data[held].recalls((1 - lam) * start + lam * w).mean() - prod))
        print(
            f"  held out {Path(held).parent.name:32} "
            + " ".join(f"l{lam:g} {gains[lam][-1]:+5.1f}" for lam in lambdas)
        )
    for lam in lambdas:
        g = gains[lam]
        print(
            f"  lambda {lam:g}: mean {statistics.mean(g):+.2f}, min {min(g):+.1f}, "
            f"repos down {sum(x < 0 for x in g)}"
        )


def add_nearest(rows: list[dict[str, Any]], cache: Path, moved: dict[str, str]) -> None:
    """Each row's ``nearest``: the product's MiniLM nearest-past-commit signal
    (``repo_nearest.nearest_files`` over the newest ``HISTORY_WINDOW`` subjects
    before the commit). Computed once per commit sha into ``cache`` (JSON lines;
    ~1 min per 200-commit repo); ``moved`` maps a dump's recorded repo path to
    where that repository is now."""
    from bench_repo_localise_semantic import past_commits

    from context_cut.repo_history import HISTORY_WINDOW
    from context_cut.repo_nearest import configured_embedder, nearest_files

    known: dict[str, dict[str, float]] = {}
    if cache.exists():
        for line in cache.open(encoding="utf-8"):
            got = json.loads(line)
            known[got["sha"]] = got["nearest"]
    todo = [dict(r, repo=moved.get(r["repo"], r["repo"])) for r in rows if r["sha"] not in known]
    if todo:
        embedder, notice = configured_embedder("minilm")
        if embedder is None:
            sys.exit(f"--nearest needs the MiniLM extra: {notice}")
        with cache.open("a", encoding="utf-8") as out:
            for r in todo:
                past = [list(c) for c in past_commits(r, HISTORY_WINDOW, False)]
                near = nearest_files(embedder, r["message"], past, set(r["len"]))
                known[r["sha"]] = near
                out.write(json.dumps({"sha": r["sha"], "nearest": near}) + "\n")
    for r in rows:
        r["nearest"] = known[r["sha"]]


def report(rows: list[dict[str, Any]], w: np.ndarray, label: str) -> None:
    parts = splits(rows)
    print(label)
    allc, allp = [], []
    for repo, halves in parts.items():
        data = Data(halves["whole"])
        learned = data.recalls(w)
        prod = np.array([recall(rank(r, PRODUCT), r["truth"], 5) for r in halves["whole"]])
        base = np.array([recall(baseline(r), r["truth"], 5) for r in halves["whole"]])
        d = learned - prod
        allc.extend(learned - prod)
        allp.append(repo)
        print(
            f"  {repo:40} n={len(prod):3} product {prod.mean():.3f} learned {learned.mean():.3f} "
            f"bm25 {base.mean():.3f} | cut-bm25 {100 * (prod.mean() - base.mean()):+5.1f} -> "
            f"{100 * (learned.mean() - base.mean()):+5.1f} ({(d > 0).sum()}w/{(d < 0).sum()}l)"
        )
    print(f"  pooled change {100 * statistics.mean(allc):+.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=Path, nargs="+", required=True)
    ap.add_argument("--eval", type=Path, nargs="+", required=True)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--pairs", action="store_true", help="pairwise logistic, not coordinate ascent")
    ap.add_argument("--l2", type=float, default=0.001)
    ap.add_argument("--cv", action="store_true", help="leave-one-training-repo-out only")
    ap.add_argument("--shrink", type=float, default=1.0, help="lambda: (1-l) product + l fitted")
    ap.add_argument("--negatives", type=int, default=30)
    ap.add_argument(
        "--own", type=Path, help="a dump whose OLDER half trains and NEWER half is judged"
    )
    ap.add_argument("--own-weight", type=int, default=1, help="times the older half counts")
    ap.add_argument("--only", default="", help="comma list: fit only these features")
    ap.add_argument("--drop", default="", help="comma list: features kept at 0")
    ap.add_argument(
        "--nearest", type=Path, help="cache file: add the MiniLM nearest-commit feature"
    )
    ap.add_argument(
        "--bodies",
        type=int,
        default=0,
        help="add the pastbody feature: BM25 over the bodies of the newest N past commits",
    )
    ap.add_argument("--body-cap", type=int, default=1000, help="characters of a body read")
    ap.add_argument("--moved", default="", help="OLD=NEW,...: dumped repo paths now elsewhere")
    args = ap.parse_args()
    moved = dict(m.split("=", 1) for m in args.moved.split(",") if "=" in m)

    def load(ps: list[Path]) -> list[dict[str, Any]]:
        rows = [json.loads(x) for p in ps for x in p.open(encoding="utf-8")]
        if args.nearest:
            add_nearest(rows, args.nearest, moved)
        if args.bodies:
            from bench_repo_localise_bodies import add_bodies

            add_bodies(rows, args.bodies, args.body_cap, moved)
        return rows

    train = load(args.train)
    newer: list[dict[str, Any]] = []
    if args.own:
        halves = next(iter(splits(load([args.own])).values()))
        for i in range(args.own_weight):
            train += [dict(r, repo=f"{r['repo']}#{i}") for r in halves["older"]]
        newer = halves["newer"]
    only = {f for f in args.only.split(",") if f}
    fixed = {"text"} | ({f for f in FEATURES if f not in only} if only else set())
    fixed |= {f for f in args.drop.split(",") if f}
    if args.cv:
        fixed.discard("text")
        cross_validate(train, fixed, args)
        return
    if args.pairs:
        fixed.discard("text")  # scale is free in the logistic fit; divided out after
        w = fit_pairs(Data(train), fixed, args.l2, args.negatives)
        start = np.array([START.get(f, 0.0) for f in FEATURES])
        w = (1 - args.shrink) * start + args.shrink * w
        print("weights " + " ".join(f"{f}={v:.3g}" for f, v in zip(FEATURES, w, strict=True) if v))
    else:
        w = fit(Data(train), args.rounds, fixed)
    report(train, w, "train repos:")
    report(load(args.eval), w, "eval repos (out of sample):")
    if newer:
        report(newer, w, "own repo, newer half (out of sample in time):")


if __name__ == "__main__":
    main()
