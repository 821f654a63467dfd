"""More candidate repo-cut signals, measured on ``bench_repo_localise.py --dump`` rows
the k17 way and NOT kept (notes/repo.md, 2026-12-05 (l17)).

    python bench/bench_repo_localise_more.py THIS.jsonl CLICK.jsonl HTTPX.jsonl ...

The first dump is this project's (its older half chooses, with click's and httpx's;
every other half confirms: ``bench_repo_localise_offline.pooled``). Each line is a
signal's recall@5 change against the product, commit by commit, pooled over the
choosing and the confirming rows, with the commits won and lost, then cut - BM25
@5 per repo (whole). Signals, all from the dumped rows (the subject language also
reads ``git log`` of each dumped repo):
- query tf: a message word's weight x (1 + log n) / sqrt n / min(n, 2) for its n
  occurrences in the message (the product counts each word once);
- path phrase: + w when a module's file stem (its folder for ``__init__``) has 2+
  terms and they stand next to each other in the message ("repo cut" ->
  ``repo_cut.py``); optionally + w/2 for a 2+-term folder name;
- unimported: modules no non-test module imports (scripts, benches, examples) get
  - w, or x f; log in-degree: + w x log(1 + importers) / the repo's largest;
- subject language: a message word's weight / (1 + l x the share of the newest N
  past subjects holding it) (words of every commit, "fix", "add", weigh less);
- role folders: modules under a top folder named bench(marks)/examples/scripts/
  docs/tools weighted as tests (x0.5);
- clause tops: for a subject of 2+ ``;``-separated clauses, each clause's best
  module is put right after the cut's top ``keep``.
"""

from __future__ import annotations

import json
import math
import re
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
    TEST_WEIGHT,
    _norm,
    _reweighted,
    pooled,
    rank,
    splits,
    table,
)

from context_cut.repo_query import FALLBACK_MODULES, query_weights
from profiles.repo_scan.facts import terms

Row = dict[str, Any]
ROLE = {"bench", "benchmarks", "examples", "scripts", "docs", "tools"}


def _importers(r: Row) -> Counter[str]:
    tests = set(r["tests"])
    return Counter(b for a, b in r["edges"] if a not in tests and a != b)


def rank_factor(r: Row, factor: Callable[[str], float]) -> list[str]:
    """The product's ranking with each module's score x ``factor(path)``."""
    text, ppr, named, past = r["text"], r["ppr"], r["named"], r["past50"]
    best, top_ppr, top_past = _norm(text), _norm(ppr), _norm(past)
    tests = set(r["tests"])
    ranked: list[str] = []
    if text or named or past:
        out = []
        modules = set(r["allowed"]) | set(text) | set(named) | set(past)
        for p in sorted(modules | (set(ppr) if text else set())):
            score = (
                text.get(p, 0.0) / best
                + (PRODUCT.alpha * ppr.get(p, 0.0) / top_ppr if text else 0.0)
                + PRODUCT.mention * named.get(p, 0.0)
                + PRODUCT.history * past.get(p, 0.0) / top_past
            ) * ((TEST_WEIGHT if p in tests else 1.0) * factor(p))
            if score > 0:
                out.append((p, score))
        out.sort(key=lambda ps: (-ps[1], ps[0]))
        ranked = [p for p, _s in out]
    if len(ranked) < FALLBACK_MODULES:
        have = set(ranked)
        ranked += [p for p in r.get("recent", []) if p not in have][
            : FALLBACK_MODULES - len(ranked)
        ]
    allowed = set(r["allowed"])
    return [p for p in ranked if p in allowed]


def _next_to(seq: list[str], sub: list[str]) -> bool:
    n = len(sub)
    return any(seq[i : i + n] == sub for i in range(len(seq) - n + 1))


def path_phrase(r: Row, folder: bool = False) -> dict[str, float]:
    seq = terms(r["message"])
    out: dict[str, float] = {}
    for p in r["len"]:
        parts = p.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        if stem in ("__init__", "index", "mod", "__main__") and len(parts) > 1:
            stem = parts[-2]
        words = terms(stem)
        if len(words) >= 2 and _next_to(seq, words):
            out[p] = 1.0
        elif folder and len(parts) > 1:
            words = terms(parts[-2])
            if len(words) >= 2 and _next_to(seq, words):
                out[p] = 0.5
    return out


_SUBJECTS: dict[str, list[set[str]]] = {}


def past_subjects(r: Row, n: int = 200) -> list[set[str]]:
    """Terms of the newest ``n`` non-merge subjects before the commit (git)."""
    if r["sha"] not in _SUBJECTS:
        out = subprocess.run(
            ["git", "-C", r["repo"], "log", "--no-merges", f"-n{n}", "--format=%s", r["sha"] + "^"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        _SUBJECTS[r["sha"]] = [set(terms(s)) for s in out.splitlines()]
    return _SUBJECTS[r["sha"]]


def query_tf(r: Row, kind: str) -> dict[str, float]:
    count = Counter(terms(r["message"]))
    scale: dict[str, Callable[[int], float]] = {
        "log": lambda n: 1 + math.log(n),
        "sqrt": math.sqrt,
        "cap2": lambda n: float(min(n, 2)),
    }
    return {t: w * scale[kind](count[t]) for t, w in query_weights(r["message"]).items()}


def subject_language(r: Row, lam: float, n: int) -> dict[str, float]:
    subjects = past_subjects(r)[:n]
    share = Counter(t for s in subjects for t in s)
    total = len(subjects) or 1
    return {t: w / (1 + lam * share[t] / total) for t, w in query_weights(r["message"]).items()}


def _clauses(message: str) -> list[str]:
    subject = message.strip().splitlines()[0] if message.strip() else ""
    found = [c for c in re.split(r";\s+", subject) if len(terms(c)) >= 2]
    return found if len(found) >= 2 else []


def clause_tops(r: Row, keep: int, slots: int = 1) -> list[str]:
    base = rank(r, PRODUCT)
    tops: list[str] = []
    for clause in _clauses(r["message"]):
        order = rank(_reweighted(r, query_weights(clause)), PRODUCT)
        tops += [p for p in order[:slots] if p not in tops]
    head = base[:keep]
    out = head + [p for p in tops if p not in head]
    return out + [p for p in base if p not in out]


def main() -> None:
    rows = [
        json.loads(line)
        for d in sys.argv[1:]
        for line in Path(d).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    parts = splits(rows)
    table(parts, [PRODUCT])
    whole = [r for halves in parts.values() for r in halves["whole"]]

    def reweighted(weigh: Callable[[Row], dict[str, float]]) -> Callable[[Row], list[str]]:
        done = {r["sha"]: rank(_reweighted(r, weigh(r)), PRODUCT) for r in whole}
        return lambda r: done[r["sha"]]

    for kind in ("log", "sqrt", "cap2"):
        pooled(parts, f"query tf {kind}", reweighted(lambda r, k=kind: query_tf(r, k)))
    for w in (0.1, 0.2, 0.3, 0.5):
        pooled(
            parts, f"path phrase {w:g}", lambda r, w=w: rank(r, PRODUCT, _times(path_phrase(r), w))
        )
    for w in (0.1, 0.2):
        pooled(
            parts,
            f"path+folder phrase {w:g}",
            lambda r, w=w: rank(r, PRODUCT, _times(path_phrase(r, True), w)),
        )
    for w in (0.05, 0.1, 0.15, 0.2):
        pooled(
            parts,
            f"unimported -{w:g}",
            lambda r, w=w: rank(r, PRODUCT, {p: -w for p in r["len"] if not _importers(r)[p]}),
        )
    for f in (0.9, 0.8, 0.7):
        pooled(
            parts,
            f"unimported x{f:g}",
            lambda r, f=f: rank_factor(
                r, lambda p, d=_importers(r), t=set(r["tests"]): f if not d[p] and p not in t else 1
            ),
        )
    for w in (0.05, 0.1):
        pooled(parts, f"log in-degree {w:g}", lambda r, w=w: rank(r, PRODUCT, _indegree(r, w)))
    for lam, n in ((1, 200), (3, 200), (3, 50), (10, 200)):
        pooled(
            parts,
            f"subject language l{lam} n{n}",
            reweighted(lambda r, lam=lam, n=n: subject_language(r, lam, n)),
        )
    pooled(parts, "role folders x0.5", lambda r: rank_factor(r, _role))
    for keep in (0, 1, 2):
        pooled(parts, f"clause tops keep {keep}", lambda r, k=keep: clause_tops(r, k))
    pooled(parts, "clause tops keep 1, 2 each", lambda r: clause_tops(r, 1, 2))


def _times(scores: dict[str, float], w: float) -> dict[str, float]:
    return {p: w * v for p, v in scores.items()}


def _indegree(r: Row, w: float) -> dict[str, float]:
    d = _importers(r)
    top = math.log1p(max(d.values(), default=1))
    return {p: w * math.log1p(d[p]) / top for p in r["len"]}


def _role(p: str) -> float:
    return TEST_WEIGHT if "/" in p and p.split("/", 1)[0].lower() in ROLE else 1.0


if __name__ == "__main__":
    main()
