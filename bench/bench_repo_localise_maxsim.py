"""Late interaction (MaxSim over MiniLM token states) as a repo-cut signal, measured
the k17 way on ``bench_repo_localise.py --dump`` rows (notes/repo.md, 2026-12-06 (r17)).

    python bench/bench_repo_localise_maxsim.py THIS.jsonl [REQUESTS.jsonl ...] [--cache DIR]

Per dumped commit: every candidate module (the row's ``allowed``: non-test source
files at the parent) gets a short text read from git at the parent commit (its
path with separators as spaces, its module docstring, its public top-level names
with underscores as spaces; what the cut's text match indexes, less the term
profile), embedded as MiniLM token states (``NumpyMiniLM.embed_tokens``, 256 pieces
at most; cached per blob hash in ``--cache``). The commit message as written is
embedded the same way; its pieces minus stop words and punctuation, each weighted
by its IDF over the row's modules (as ``token_vectors.maxsim`` does), score each
module by the weighted mean of their best cosine against the module's pieces. The
score, min-max normalised over the row's modules, joins the product's final score at
``+ w x minmax`` (``all``) or only for MaxSim's own top 20 (``top20``). Printed per
setting and repo: recall@5 of the product and the fused ranking (older half / newer
half / whole), commits won / lost, and cut - BM25 @5 (whole). NOT kept in the product.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import math
import pickle
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repo_localise_offline import (  # bench/ is on the path
    PRODUCT,
    baseline,
    rank,
    recall,
    splits,
)

from context_cut.candidates import STOPWORDS
from context_cut.minilm_numpy import NumpyMiniLM
from context_cut.token_vectors import _punctuation

Row = dict[str, Any]
WEIGHTS = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
MODES = ("all", "top20")


def _git(repo: str, *args: str) -> bytes:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True).stdout


def module_text(path: str, source: str) -> str:
    """Path words, module docstring, public top-level names (underscores as spaces)."""
    words = path.removesuffix(".py").replace("/", " ").replace("_", " ").replace(".", " ")
    doc, names = "", []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return f"{words}. {source[:1500]}"
    doc = ast.get_docstring(tree) or ""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    public = [n.replace("_", " ").strip() for n in names if not n.startswith("_")]
    return f"{words}. {doc} {', '.join(public)}"


class States:
    """Module token states per blob hash (and message states per text), on disk."""

    def __init__(self, cache: Path) -> None:
        self.model = NumpyMiniLM()
        self.path = cache / "maxsim-states.pkl"
        self.data: dict[str, Any] = {}
        if self.path.exists():
            self.data = pickle.loads(self.path.read_bytes())
        self.embedded = 0

    def get(self, keys_texts: list[tuple[str, str]]) -> list[Any]:
        todo = [(k, t) for k, t in keys_texts if k not in self.data]
        todo = list(dict(todo).items())
        for i in range(0, len(todo), 16):
            chunk = todo[i : i + 16]
            for (k, _t), st in zip(
                chunk, self.model.embed_tokens([t for _k, t in chunk]), strict=True
            ):
                self.data[k] = st
            self.embedded += len(chunk)
        return [self.data[k] for k, _t in keys_texts]

    def save(self) -> None:
        self.path.write_bytes(pickle.dumps(self.data))


def maxsim_scores(states: States, r: Row) -> dict[str, float]:
    import numpy as np

    repo = r["repo"]
    parent = _git(repo, "rev-parse", r["sha"] + "^").decode().strip()
    blobs = {}
    for line in _git(repo, "ls-tree", "-r", parent).decode("utf-8", "replace").splitlines():
        meta, path = line.split("\t", 1)
        blobs[path] = meta.split()[2]
    mods = [p for p in r["allowed"] if p in blobs]
    need = []
    for p in mods:
        key = f"m:{blobs[p]}:{p}"
        if key in states.data:
            need.append((key, ""))
        else:
            src = _git(repo, "cat-file", "-p", blobs[p]).decode("utf-8", "replace")
            need.append((key, module_text(p, src)))
    docs = states.get(need)
    msg = r["message"]
    (qids, qvec) = states.get([("q:" + hashlib.sha1(msg.encode()).hexdigest(), msg)])[0]
    keep = [
        not _punctuation(p) and p.removeprefix("##") not in STOPWORDS
        for p in states.model.pieces(qids)
    ]
    if any(keep):
        qids, qvec = np.asarray(qids)[keep], np.asarray(qvec)[keep]
    if not len(qids) or not mods:
        return {}
    n = len(mods)
    sets = [set(np.asarray(d[0]).tolist()) for d in docs]
    df = [sum(int(t) in s for s in sets) for t in qids]
    weights = np.array([max(0.05, math.log((n + 1) / (d + 0.5))) for d in df])
    out = {}
    for p, (_ids, dvec) in zip(mods, docs, strict=True):
        if len(dvec) == 0:
            continue
        sims = np.asarray(dvec, np.float32) @ np.asarray(qvec, np.float32).T
        out[p] = float(sims.max(axis=0) @ weights / weights.sum())
    return out


def fused(r: Row, w: float, mode: str) -> list[str]:
    ms: dict[str, float] = r["maxsim"]
    if not ms or w == 0:
        return rank(r, PRODUCT)
    lo, hi = min(ms.values()), max(ms.values())
    span = (hi - lo) or 1.0
    keep = set(sorted(ms, key=lambda p: (-ms[p], p))[:20]) if mode == "top20" else set(ms)
    extra = {p: w * (s - lo) / span for p, s in ms.items() if p in keep}
    return rank(r, PRODUCT, extra)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", nargs="+", type=Path)
    ap.add_argument("--cache", type=Path, default=Path("/tmp"))
    args = ap.parse_args()
    states = States(args.cache)
    rows: list[Row] = []
    for d in args.dumps:
        for line in d.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            r["maxsim"] = maxsim_scores(states, r)
            rows.append(r)
        states.save()
        print(f"{d}: {len(rows)} rows so far, {states.embedded} texts embedded", flush=True)
    parts = splits(rows)
    for repo, halves in parts.items():
        whole = halves["whole"]
        prod = statistics.mean(recall(rank(r, PRODUCT), r["truth"], 5) for r in whole)
        base = statistics.mean(recall(baseline(r), r["truth"], 5) for r in whole)
        alone = statistics.mean(
            recall(
                [p for p in sorted(r["maxsim"], key=lambda p: (-r["maxsim"][p], p))],
                r["truth"],
                5,
            )
            for r in whole
        )
        print(
            f"{repo}: {len(whole)} rows; product @5 {prod:.3f}, BM25 {base:.3f} "
            f"(cut - BM25 {(prod - base) * 100:+.1f}); MaxSim alone @5 {alone:.3f}"
        )
        for mode in MODES:
            for w in WEIGHTS:
                cells = []
                for half in ("older", "newer", "whole"):
                    rs = halves[half]
                    ds = [
                        recall(fused(r, w, mode), r["truth"], 5)
                        - recall(rank(r, PRODUCT), r["truth"], 5)
                        for r in rs
                    ]
                    won, lost = sum(x > 0 for x in ds), sum(x < 0 for x in ds)
                    cells.append(f"{half} {statistics.mean(ds) * 100:+5.2f} ({won}w/{lost}l)")
                fu = statistics.mean(recall(fused(r, w, mode), r["truth"], 5) for r in whole)
                print(
                    f"  {mode:5} w={w:<4g} " + " | ".join(cells) + f" | @5 {fu:.3f} "
                    f"cut - BM25 {(fu - base) * 100:+.1f}"
                )


if __name__ == "__main__":
    main()
