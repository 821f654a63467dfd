"""Semantic repo-cut signals (MiniLM), measured on ``bench_repo_localise.py --dump``
rows the k17 way (notes/repo.md, 2026-12-05 (m17)).

    python bench/bench_repo_localise_semantic.py THIS.jsonl CLICK.jsonl HTTPX.jsonl ...

The dumps must carry ``dense`` / ``dense_s`` / ``rel`` / ``rqtf``
(``bench_repo_localise_extra.semantic_components``: written when the optional
MiniLM loads). The first dump is this project's (its older half chooses, with
click's and httpx's; every other half confirms: ``bench_repo_localise_offline.pooled``).
Each line is a signal's recall@5 change against the product, commit by commit,
pooled over the choosing and the confirming rows, with the commits won and lost,
then cut - BM25 @5 per repo (whole). Signals:
- dense: + w x cosine(message, module profile) for every module (``_s``: the
  subject's vector); ``minmax``: the cosine rescaled to 0..1 over the row's
  modules; ``gated``: only for modules the text / mention / history match found;
- related round: the message words' nearest vocabulary words (cosine >= t, top 5
  per word) searched as a second BM25 round, + w x its score / the first round's
  best (``sim``: each word weighted by its cosine); ``expand``: the same words
  added to the message's query at weight w x cosine (text match and PageRank
  seeds recomputed);
- ``--nearest`` (instead of the above): semantic nearest past commits. The message's
  MiniLM vector against each of the newest N non-merge commits before it (``git log``
  of the dumped repo; their subjects, or whole messages with ``--bodies``); the k
  nearest at cosine >= c give each file they touched (20 files at most) their best
  cosine (``max``) or the sum (``sum``), divided by the row's best, x w.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repo_localise_offline import (  # bench/ is on the path
    PRODUCT,
    _norm,
    _reweighted,
    pooled,
    rank,
    recall,
    splits,
    table,
)

from context_cut.repo_index import ModuleIndex
from context_cut.repo_query import query_weights

Row = dict[str, Any]


def dense(r: Row, w: float, key: str = "dense", mode: str = "raw") -> dict[str, float]:
    cos: dict[str, float] = r[key]
    if mode == "minmax":
        lo, hi = min(cos.values(), default=0.0), max(cos.values(), default=1.0)
        span = (hi - lo) or 1.0
        return {p: w * (c - lo) / span for p, c in cos.items()}
    if mode == "gated":
        found = set(r["text"]) | set(r["named"]) | set(r["past50"])
        return {p: w * c for p, c in cos.items() if p in found}
    if mode.startswith("top"):  # only the product's top N are re-ordered
        head = set(rank(r, PRODUCT)[: int(mode[3:])])
        return {p: w * c for p, c in cos.items() if p in head}
    if mode == "rrf":  # + w / (1 + dense rank / 5) for the dense top 10
        order = sorted(cos, key=lambda p: (-cos[p], p))[:10]
        return {p: w / (1 + i / 5) for i, p in enumerate(order)}
    return {p: w * c for p, c in cos.items()}


def _form(word: str, own: set[str]) -> bool:
    """A form of a message word: both share their first 4 letters (or the
    shorter one whole): "law"/"laws", "classify"/"classifying"."""
    return any(word[: min(4, len(t))] == t[: min(4, len(word))] for t in own)


def related(r: Row, least: float, per: int = 5, strict: bool = False) -> list[tuple[str, float]]:
    own = set(query_weights(r["message"]))
    taken: dict[str, int] = {}
    out = []
    for word, s, src in r["rel"]:  # best first
        if s < least or (strict and _form(word, own)) or taken.get(src, 0) >= per:
            continue
        taken[src] = taken.get(src, 0) + 1
        out.append((word, s))
    return out


def related_round(
    r: Row, w: float, least: float, sim: bool = False, per: int = 5, strict: bool = False
) -> dict[str, float]:
    words = {word: (s if sim else 1.0) for word, s in related(r, least, per, strict)}
    if not words or not r["len"]:
        return {}
    docs: dict[str, Counter[str]] = {p: Counter() for p in r["len"]}
    for t in words:
        for p, n in r["rqtf"].get(t, {}).items():
            docs[p][t] = n
    second = ModuleIndex(docs, set(), [], length=dict(r["len"])).bm25(words)
    best = _norm(r["text"])
    return {p: w * s / best for p, s in second.items()}


def expanded(r: Row, w: float, least: float) -> Row:
    weights = dict(query_weights(r["message"]))
    extra = {word: w * s for word, s, _src in r["rel"] if s >= least and word not in weights}
    qtf = dict(r["qtf"])
    qtf.update({t: r["rqtf"].get(t, {}) for t in extra})
    row = dict(r)
    row["qtf"] = qtf
    return _reweighted(row, {**weights, **extra})


_GIT_LOG = ["git"]
# %s as the scanner's history node has it (profiles/repo_scan/history.py: a subject
# wrapped over several lines is one line); %B for --bodies
_FORMAT = ["--no-merges", "--name-only", "--format=%x01%H%x00%s%x00"]
_FORMAT_BODIES = ["--no-merges", "--name-only", "--format=%x01%H%x00%B%x00"]
_PAST: dict[tuple[str, int, bool], list[tuple[str, str, list[str]]]] = {}


def past_commits(r: Row, n: int, bodies: bool) -> list[tuple[str, str, list[str]]]:
    """(sha, subject or message, files) of the newest ``n`` non-merge commits before
    the row's commit (its parent's history, as the scanner's history node has it)."""
    key = (r["sha"], n, bodies)
    if key not in _PAST:
        fmt = _FORMAT_BODIES if bodies else _FORMAT
        out = subprocess.run(
            [*_GIT_LOG, "-C", r["repo"], "log", f"-n{n}", *fmt, r["sha"] + "^"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        got = []
        for chunk in out.split("\x01")[1:]:
            sha, msg, files = chunk.split("\x00", 2)
            text = msg.strip()
            got.append((sha, text, [f for f in files.split("\n") if f.strip()]))
        _PAST[key] = got
    return _PAST[key]


def nearest_commits(
    r: Row, vec: dict[str, Any], k: int, least: float, mode: str, n: int, bodies: bool
) -> dict[str, float]:
    q = vec["q" + r["sha"]]
    sims = sorted(
        ((float(vec[sha] @ q), files) for sha, _t, files in past_commits(r, n, bodies)),
        key=lambda sf: -sf[0],
    )[:k]
    modules = set(r["len"])
    out: dict[str, float] = {}
    for sim, files in sims:
        if sim < least or len(files) > 20:
            continue
        for f in files:
            if f in modules:
                out[f] = max(out.get(f, 0.0), sim) if mode == "max" else out.get(f, 0.0) + sim
    top = _norm(out)
    return {p: v / top for p, v in out.items()}


def embed_messages(rows: list[Row], n: int, bodies: bool) -> dict[str, Any]:
    """MiniLM vectors of each row's message (key ``"q" + sha``) and of the subjects
    (or messages) of the newest ``n`` commits before it (key: their sha)."""
    import time

    import numpy as np

    from context_cut.minilm_numpy import NumpyMiniLM

    model = NumpyMiniLM()
    texts: dict[str, str] = {}
    for r in rows:
        texts["q" + r["sha"]] = r["message"][:4000]
        for sha, text, _files in past_commits(r, n, bodies):
            texts[sha] = text[:4000]
    keys = list(texts)
    vec: dict[str, Any] = {}
    t = time.perf_counter()
    for start in range(0, len(keys), 64):
        chunk = keys[start : start + 64]
        for key, v in zip(chunk, model.embed([texts[c] for c in chunk]), strict=True):
            vec[key] = np.asarray(v, dtype=np.float32)
    print(f"  embedded {len(keys)} messages in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    return vec


def nearest_main(rows: list[Row], parts: Any, n: int, bodies: bool) -> None:
    vec = embed_messages(rows, n, bodies)
    for k in (3, 10):
        for least in (0.4, 0.5, 0.6):
            for mode in ("max", "sum"):
                for w in (0.05, 0.1, 0.2, 0.3):
                    pooled(
                        parts,
                        f"nearest n{n} k{k} c{least:g} {mode} w{w:g}",
                        lambda r, k=k, c=least, m=mode, w=w: rank(
                            r,
                            PRODUCT,
                            {
                                p: w * v
                                for p, v in nearest_commits(r, vec, k, c, m, n, bodies).items()
                            },
                        ),
                    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dump", type=Path, nargs="+")
    ap.add_argument("--nearest", action="store_true", help="semantic nearest past commits")
    ap.add_argument("--past", type=int, default=50, help="past commits searched (--nearest)")
    ap.add_argument("--bodies", action="store_true", help="whole past messages, not subjects")
    args = ap.parse_args()
    rows = [
        json.loads(line)
        for d in args.dump
        for line in d.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    parts = splits(rows)
    table(parts, [PRODUCT])
    if args.nearest:
        nearest_main(rows, parts, args.past, args.bodies)
        return
    missing = [r["sha"][:10] for r in rows if "dense" not in r]
    if missing:
        sys.exit(f"{len(missing)} rows without semantic keys (MiniLM not loaded?): {missing[:5]}")
    for repo, halves in parts.items():  # how far the dense vectors alone get
        rs = halves["whole"]
        alone = statistics.mean(
            recall(
                [p for p in sorted(r["dense"], key=lambda p: -r["dense"][p]) if p in r["allowed"]],
                r["truth"],
                5,
            )
            for r in rs
        )
        print(f"  {repo}: dense alone recall@5 {alone:.3f}")

    def extra(fn: Callable[[Row], dict[str, float]]) -> Callable[[Row], list[str]]:
        return lambda r: rank(r, PRODUCT, fn(r))

    for w in (0.05, 0.1, 0.2, 0.3, 0.5):
        pooled(parts, f"dense {w:g}", extra(lambda r, w=w: dense(r, w)))
    for w in (0.1, 0.2, 0.3):
        pooled(parts, f"dense_s {w:g}", extra(lambda r, w=w: dense(r, w, "dense_s")))
    for w in (0.05, 0.1, 0.2, 0.3):
        pooled(parts, f"dense minmax {w:g}", extra(lambda r, w=w: dense(r, w, mode="minmax")))
    for w in (0.05, 0.1, 0.15, 0.2, 0.3, 0.5):
        pooled(parts, f"dense gated {w:g}", extra(lambda r, w=w: dense(r, w, mode="gated")))
    for mode in ("top5", "top10", "top20", "rrf"):
        for w in (0.05, 0.1, 0.2):
            pooled(parts, f"dense {mode} {w:g}", extra(lambda r, w=w, m=mode: dense(r, w, mode=m)))
    for least in (0.5, 0.6, 0.7, 0.8):
        for per in (1, 2, 5):
            for w in (0.05, 0.1, 0.15, 0.2):
                pooled(
                    parts,
                    f"related strict t{least:g} p{per} w{w:g}",
                    extra(
                        lambda r, w=w, t=least, k=per: related_round(r, w, t, per=k, strict=True)
                    ),
                )
    for least in (0.5, 0.6):
        for w in (0.1, 0.2, 0.3, 0.5):
            pooled(
                parts,
                f"related t{least:g} w{w:g}",
                extra(lambda r, w=w, t=least: related_round(r, w, t)),
            )
        for w in (0.2, 0.3):
            pooled(
                parts,
                f"related sim t{least:g} w{w:g}",
                extra(lambda r, w=w, t=least: related_round(r, w, t, sim=True)),
            )
    whole = [r for halves in parts.values() for r in halves["whole"]]
    for least in (0.5, 0.6):
        for w in (0.2, 0.5):
            done = {r["sha"]: rank(expanded(r, w, least), PRODUCT) for r in whole}
            pooled(parts, f"expand t{least:g} w{w:g}", lambda r, d=done: d[r["sha"]])


if __name__ == "__main__":
    main()
