"""Benchmark: the vector engines side by side, and `memgraph recall` whole process.

    python bench/bench_vectors.py [--sizes 10000,100000] [--dim 384] [--queries 50]
                                  [--engines edge,qdrant-client] [--recall 100000]

Part 1, per engine and size, 384-d vectors (seeded, normalised, drawn around
200 random centres so neighbours exist), three payload profiles: upsert
points/s (persisted: Edge flushes, qdrant-client local mode writes its
SQLite), query and filtered-query (one profile, a third of the points) p50/p95
in process, reopen-to-first-answer in a fresh process, disk size. Edge is
measured before and after its HNSW optimise pass (timed separately: it runs in
`memgraph index`, never inside a search).

Part 2 (`--recall N`, 0 to skip): a SQLite store of N voice messages indexed
into Qdrant Edge with `--recall-embedder` (`hash`: the CLI's 256-d hash
embedder; `minilm`: all-MiniLM-L6-v2 in numpy, 384-d), optimised; then
`memgraph recall --embedder <it>` as a whole process (query embedding
included), beside `python -c pass` in the same run, wall and CPU (the child's
user+sys) and the load on every line. Bytecode is precompiled first (this
machine sets PYTHONDONTWRITEBYTECODE=1).

MiniLM embeds ~60 short texts a second on one core here, so its store says
`--distinct` different texts (default 5,000, each message's text is text
`i // (N / distinct)`) and embeds each distinct text once (a cache in front of
the real model; every one of the N points is stored, manifests through the
engine as for hash).

    python bench/bench_vectors.py --sizes "" --recall 100000 --recall-embedder hash,minilm \
        --recall-dir /tmp/mg-recall
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROFILES = ("voice", "short_term", "repo_architecture")


def _vectors(n: int, dim: int, seed: int = 7) -> Any:
    import numpy as np

    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((200, dim)).astype("float32")
    picks = rng.integers(0, 200, n)
    v = centres[picks] + 0.6 * rng.standard_normal((n, dim)).astype("float32")
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p * (len(xs) - 1)))]


def _du(path: Path) -> int:
    # allocated blocks, not apparent sizes: Edge preallocates sparse files
    return sum(
        f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file() and not f.is_symlink()
    )


def _open(engine: str, where: Path) -> Any:
    from context_cut.vector_index import VectorIndex

    return VectorIndex.open(path=where, engine=engine)


def _queries(index: Any, coll: str, qs: Any, where: dict[str, list[str]] | None) -> list[float]:
    times = []
    for q in qs:
        t = time.perf_counter()
        index.query(coll, q, 10, where)
        times.append((time.perf_counter() - t) * 1000)
    return times


REOPEN = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[3])
from context_cut.vector_index import VectorIndex
t1 = time.perf_counter()
index = VectorIndex.open(path=sys.argv[1], engine=sys.argv[2])
q = [1.0 / (int(sys.argv[4]) ** 0.5)] * int(sys.argv[4])
index.query("mg_bench", q, 10)
t2 = time.perf_counter()
print((t1 - t0) * 1000, (t2 - t1) * 1000)
"""


def engine_rows(engine: str, n: int, dim: int, nq: int) -> list[str]:
    from context_cut.vector_backends import VectorPoint

    vecs = _vectors(n, dim)
    qs = [list(map(float, q)) for q in _vectors(nq, dim, seed=99)]
    tmp = Path(tempfile.mkdtemp(prefix=f"mg-vec-{engine}-"))
    try:
        index = _open(engine, tmp)
        index.ensure_collection("mg_bench", dim)
        t = time.perf_counter()
        batch = 1000
        for i in range(0, n, batch):
            rows = vecs[i : i + batch].tolist()
            pts = [
                VectorPoint(f"n-{j:016x}", rows[j - i], "node", PROFILES[j % 3])
                for j in range(i, min(n, i + batch))
            ]
            index.backend.upsert("mg_bench", pts)
        index.close()  # Edge flushes here: the figure is for persisted points
        upsert_s = time.perf_counter() - t
        index = _open(engine, tmp)
        out = [f"{engine:13} n={n:>7}  upsert {n / upsert_s:>9,.0f} pts/s ({upsert_s:.1f} s)"]

        def measure(label: str) -> None:
            _queries(index, "mg_bench", qs[:3], None)  # warm caches
            plain = _queries(index, "mg_bench", qs, None)
            filt = _queries(index, "mg_bench", qs, {"profile": ["short_term"]})
            out.append(
                f"{'':13} {label:9} query p50 {_pct(plain, 0.5):7.2f} ms p95 {_pct(plain, 0.95):7.2f}"
                f" | filtered p50 {_pct(filt, 0.5):7.2f} ms p95 {_pct(filt, 0.95):7.2f}"
            )

        measure("as-built")
        if engine == "edge":
            t = time.perf_counter()
            index.backend.optimize("mg_bench")
            out.append(
                f"{'':13} optimise (HNSW build, off the search path) {time.perf_counter() - t:.1f} s"
            )
            measure("optimised")
        index.close()
        imports, reopen = [], []
        for _ in range(3):
            r = subprocess.run(
                [sys.executable, "-c", REOPEN, str(tmp), engine, str(ROOT), str(dim)],
                capture_output=True,
                text=True,
                check=True,
            )
            a, b = (float(x) for x in r.stdout.split())
            imports.append(a)
            reopen.append(b)
        out.append(
            f"{'':13} reopen-to-first-answer (fresh process) median "
            f"{statistics.median(reopen):.0f} ms (+ {statistics.median(imports):.0f} ms of "
            f"imports); disk {_du(tmp) / 2**20:.0f} MiB"
        )
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class _CachedEmbedder:
    """The real model, each distinct text embedded once (bench store building)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.dimension = inner.name, inner.dimension
        self.cache: dict[str, list[float]] = {}

    def embed(self, texts: Any) -> list[list[float]]:
        todo = sorted({t for t in texts if t not in self.cache})
        for i in range(0, len(todo), 256):
            chunk = todo[i : i + 256]
            self.cache.update(zip(chunk, self.inner.embed(chunk), strict=True))
        return [self.cache[t] for t in texts]


def _embedder(kind: str) -> Any:
    from context_cut.embedders import make_embedder

    return make_embedder(kind)


def build_recall_store(
    n: int, where: Path, embedder: str = "hash", distinct: int = 0
) -> tuple[Path, Path]:
    import random

    from context_cut.vector_index import VectorIndex
    from context_cut.vector_sync import sync_index
    from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName, UpsertNode
    from memgraph.engine import apply_patch, new_patch
    from memgraph.ids import anchor_id, node_id
    from memgraph.store import open_store

    rnd = random.Random(3)
    words = [
        "cache",
        "token",
        "gateway",
        "retry",
        "deploy",
        "schema",
        "index",
        "vector",
        "budget",
        "packet",
        "window",
        "commit",
        "session",
        "note",
        "voice",
        "page",
        "migrate",
        "postgres",
        "sqlite",
        "qdrant",
        "edge",
        "partition",
        "summary",
        "stale",
        "review",
        "accept",
        "reject",
        "sleep",
        "wake",
        "hook",
        "capture",
        "search",
        "recall",
        "context",
        "role",
        "persona",
    ]
    db, qdir = where / "mg.db", where / "qdrant"
    store = open_store(db)
    from datetime import UTC, datetime, timedelta

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    texts = [" ".join(rnd.choice(words) for _ in range(12)) for _ in range(distinct)]
    for start in range(0, n, 20_000):
        ops = []
        for i in range(start, min(n, start + 20_000)):
            if distinct:
                text = texts[i * distinct // n]
            else:
                text = " ".join(rnd.choice(words) for _ in range(12))
            nid = node_id("voice", "message", "bench", str(i))
            ops.append(
                UpsertNode(
                    node=MemoryNode(
                        id=nid,
                        domain_id="voice:bench",
                        profile=ProfileName.voice,
                        kind="message",
                        title=text[:80],
                        claim=text,
                        lifecycle="captured",
                        valid_from=t0 + timedelta(minutes=i),
                        created_at=t0 + timedelta(minutes=i),
                        updated_at=t0 + timedelta(minutes=i),
                        anchors=[
                            MemoryAnchor(
                                id=anchor_id("transcript", "bench", str(i)),
                                kind=AnchorKind.transcript,
                                ref=f"bench.jsonl:{i}",
                            )
                        ],
                        attributes={"session_id": f"s{i // 50}", "project": "bench"},
                    )
                )
            )
        apply_patch(store, new_patch(ops, proposer="bench", reason="recall store"))
    index = VectorIndex.open(path=qdir, engine="edge")
    t = time.perf_counter()
    model = _embedder(embedder)
    if distinct:
        model = _CachedEmbedder(model)
    report = sync_index(store, index, model, batch=2000, optimize=True)
    print(
        f"  indexed {report.embedded} vectors in {time.perf_counter() - t:.1f} s "
        f"({embedder} embedder, {distinct or n} distinct texts, manifests through the "
        f"engine, HNSW optimise included)"
    )
    index.close()
    store.close()
    return db, qdir


def _recall_in_process(db: Path, qdir: Path, runs: int, embedder: str) -> list[float]:
    from context_cut.api import RecallRequest, recall
    from context_cut.vectors import open_nerve
    from memgraph.store import open_store

    store = open_store(db)
    nerve = open_nerve(_embedder(embedder), path=qdir, engine="edge")
    qs = ["retry the gateway cache", "deploy schema index", "voice page migrate", "sleep wake hook"]
    times = []
    try:
        for i in range(runs):
            t = time.perf_counter()
            recall(store, RecallRequest(text=qs[i % len(qs)], limit=10), nerve)
            times.append((time.perf_counter() - t) * 1000)
    finally:
        nerve.index.close()
        store.close()
    return times


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms of the child: user + sys) of one whole process."""
    before = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    wall = (time.perf_counter() - t) * 1000
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu * 1000


def _summary(xs: list[tuple[float, float]]) -> str:
    walls, cpus = [w for w, _ in xs], [c for _, c in xs]
    return (
        f"median {statistics.median(walls):.0f} ms (min {min(walls):.0f}), "
        f"CPU median {statistics.median(cpus):.0f} ms (min {min(cpus):.0f})"
    )


def recall_rows(
    n: int, runs: int, keep: Path | None = None, embedder: str = "hash", distinct: int = 0
) -> list[str]:
    compileall.compile_dir(str(ROOT / "memgraph"), quiet=1)
    compileall.compile_dir(str(ROOT / "context_cut"), quiet=1)
    compileall.compile_dir(str(ROOT / "profiles"), quiet=1)
    where = keep or Path(tempfile.mkdtemp(prefix="mg-recall-"))
    try:
        if keep is not None and (keep / "mg.db").is_file():
            db, qdir = keep / "mg.db", keep / "qdrant"  # built by an earlier run
        else:
            where.mkdir(parents=True, exist_ok=True)
            db, qdir = build_recall_store(n, where, embedder, distinct)
        exe = str(Path(sys.executable).parent / "memgraph")
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
        cmd = [
            exe,
            "recall",
            "retry the gateway cache",
            "--store",
            str(db),
            "--embedder",
            embedder,
            "--qdrant-path",
            str(qdir),
            "--limit",
            "10",
        ]
        first = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if first.returncode != 0:
            return [f"recall failed: {first.stderr.strip()}"]
        inproc = _recall_in_process(db, qdir, runs * 5, embedder)
        load0 = os.getloadavg()[0]
        base, whole = [], []
        for _ in range(runs):
            base.append(_timed([sys.executable, "-c", "pass"], env))
            whole.append(_timed(cmd, env))
        load = f"load {load0:.2f}-{os.getloadavg()[0]:.2f}"
        return [
            f"memgraph recall --embedder {embedder}, {n:,} vectors (Edge, optimised), "
            f"whole process, {runs} runs: {_summary(whole)}; {load}; "
            f"hits {len(first.stdout.splitlines())}",
            f"python -c pass (same run): {_summary(base)}",
            f"recall in process (store and nerve open, {embedder} query embedding "
            f"included): p50 {_pct(inproc, 0.5):.1f} ms p95 {_pct(inproc, 0.95):.1f} ms",
        ]
    finally:
        if keep is None:
            shutil.rmtree(where, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--engines", default="edge,qdrant-client")
    ap.add_argument("--recall", type=int, default=100_000, help="store size for part 2; 0 skips")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument(
        "--recall-embedder",
        default="hash",
        help="hash, minilm or both (hash,minilm): one part-2 store each",
    )
    ap.add_argument(
        "--distinct",
        type=int,
        default=None,
        help="distinct message texts in the part-2 store (default: all for hash, 5000 for minilm)",
    )
    ap.add_argument(
        "--recall-dir",
        type=Path,
        default=None,
        help="keep the part-2 stores here, <dir>/<embedder> (built when absent, reused when present)",
    )
    ap.add_argument(
        "--client-max",
        type=int,
        default=10_000,
        help="skip qdrant-client local mode above this size (it upserts ~40-800 pts/s)",
    )
    args = ap.parse_args()
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  load {os.getloadavg()[0]:.2f}  "
        f"cores {os.cpu_count()}"
    )
    for n in (int(s) for s in args.sizes.split(",") if s):
        for engine in args.engines.split(","):
            if engine == "qdrant-client" and n > args.client_max:
                print(f"qdrant-client n={n:>7}  skipped (--client-max {args.client_max})")
                continue
            for line in engine_rows(engine, n, args.dim, args.queries):
                print(line, flush=True)
    for embedder in args.recall_embedder.split(",") if args.recall else []:
        if embedder not in ("hash", "minilm"):
            ap.error(f"--recall-embedder: {embedder!r} is not hash or minilm")
        distinct = args.distinct
        if distinct is None:
            distinct = 5000 if embedder == "minilm" else 0
        keep = args.recall_dir / embedder if args.recall_dir is not None else None
        for line in recall_rows(args.recall, args.runs, keep, embedder, min(distinct, args.recall)):
            print(line, flush=True)
    print(f"# done, load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
