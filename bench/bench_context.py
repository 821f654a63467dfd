"""Benchmark: ``select_context_cut`` on a 100k-node graph, in process.

    python bench/bench_context.py [--nodes 100000] [--queries 60] [--db PATH] [--vectors]

The graph (mix of profiles, summaries covering clusters, summaries of
summaries, dependency and contradiction edges) is generated deterministically
and built through the engine once; the store file is reused on later runs
(default /tmp/memgraph-bench-context-<nodes>.db). Queries are three words drawn
from random nodes' claims, so their term frequencies are realistic. Prints
p50/p95/max per cut. ``--vectors`` also indexes the graph into an in-memory
Qdrant with the hash embedder and measures the hybrid path.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from context_cut import select_context_cut
from memgraph.documents import (
    AnchorKind,
    CutName,
    MemoryAnchor,
    MemoryContextQuery,
    MemoryEdge,
    MemoryNode,
    MemorySummary,
    ProfileName,
    SummarizeCluster,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import edge_id, node_id, summary_id
from memgraph.store import open_store

T0 = datetime(2026, 1, 1, tzinfo=UTC)
MIX = [  # profile, kind, state, share
    ("repo_architecture", "component", "observed", 0.22),
    ("repo_dataflow", "flow", "observed", 0.13),
    ("evidence", "observation", "observed", 0.12),
    ("voice", "message", "captured", 0.15),
    ("agency_pressure", "obligation", "active", 0.06),
    ("role_self", "stance", "proposed", 0.06),
    ("short_term", "observation", "active", 0.10),
    ("incubation", "idea", "active", 0.06),
    ("candidate_intervention", "suggestion", "queued", 0.06),
    ("artifact", "commit", "observed", 0.04),
]
DOMAINS = [f"dom{i}" for i in range(20)]


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    syll = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "den", "par", "qu", "ex", "or", "im"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syll) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def make_nodes(n: int, rng: random.Random) -> list[MemoryNode]:
    vocab = vocabulary(rng)
    weights = [1.0 / (i + 1) ** 0.9 for i in range(len(vocab))]  # Zipf-ish
    shares = [m[3] for m in MIX]
    nodes: list[MemoryNode] = []
    for i in range(n):
        profile, kind, state, _ = rng.choices(MIX, weights=shares)[0]
        words = rng.choices(vocab, weights=weights, k=rng.randint(12, 30))
        anchors = []
        if profile in ("evidence", "voice"):
            anchors = [
                MemoryAnchor(
                    id=f"a-{i:08x}",
                    kind=AnchorKind.transcript,
                    ref=f"/t/{i % 500}.jsonl",
                    line=i % 900 + 1,
                )
            ]
        nodes.append(
            MemoryNode(
                id=node_id(profile, kind, str(i)),
                domain_id=rng.choice(DOMAINS),
                profile=ProfileName(profile),
                kind=kind,
                title=" ".join(words[:6]),
                claim=" ".join(words),
                lifecycle=state,
                anchors=anchors,
                created_at=T0,
                updated_at=T0,
                valid_from=T0,
                salience=rng.random(),
                confidence=rng.random(),
            )
        )
    return nodes


def build(path: Path, n: int) -> None:
    rng = random.Random(42)
    store = open_store(path)
    nodes = make_nodes(n, rng)
    t = time.perf_counter()
    for i in range(0, n, 5000):
        apply_patch(store, new_patch([UpsertNode(node=x) for x in nodes[i : i + 5000]]))
    edges: list[Any] = []
    repo = [x for x in nodes if x.profile.value == "repo_architecture"]
    for a in repo:
        b = rng.choice(repo)
        if a.id != b.id:
            edges.append(
                MemoryEdge(
                    id=edge_id("depends_on", a.id, b.id),
                    source_id=a.id,
                    target_id=b.id,
                    kind="depends_on",
                    profile=ProfileName.repo_architecture,
                    lifecycle="observed",
                )
            )
    ev = [x for x in nodes if x.profile.value == "evidence"]
    for a in rng.sample(ev, len(ev) // 10):
        b = rng.choice(ev)
        if a.id != b.id:
            edges.append(
                MemoryEdge(
                    id=edge_id("contradicts", a.id, b.id),
                    source_id=a.id,
                    target_id=b.id,
                    kind="contradicts",
                    profile=ProfileName.evidence,
                    lifecycle="observed",
                )
            )
    for i in range(0, len(edges), 5000):
        apply_patch(store, new_patch([UpsertEdge(edge=e) for e in edges[i : i + 5000]]))
    # summaries over clusters of 10 nodes (a fifth of the graph), then summaries of 10 summaries
    pool = rng.sample(nodes, n // 5)
    level1: list[MemorySummary] = []
    for i in range(0, len(pool), 10):
        members = pool[i : i + 10]
        ids = [m.id for m in members]
        level1.append(
            MemorySummary(
                id=summary_id("bench", *ids),
                domain_id=members[0].domain_id,
                covers_node_ids=ids,
                target=members[0].title,
                claim="cluster: " + members[0].claim[:120],
                confidence=rng.choice([0.3, 0.7, 0.9]),
            )
        )
    level2 = [
        MemorySummary(
            id=summary_id("bench2", *[s.id for s in level1[i : i + 10]]),
            domain_id="dom0",
            covers_summary_ids=[s.id for s in level1[i : i + 10]],
            target=level1[i].target,
            claim="area: " + level1[i].claim[:80],
            confidence=0.8,
        )
        for i in range(0, len(level1), 10)
    ]
    for batch in (level1, level2):
        for i in range(0, len(batch), 2000):
            apply_patch(
                store, new_patch([SummarizeCluster(summary=s) for s in batch[i : i + 2000]])
            )
    print(
        f"built {n} nodes, {len(edges)} edges, {len(level1) + len(level2)} summaries "
        f"in {time.perf_counter() - t:.1f}s -> {path}"
    )
    store.close()


def queries(path: Path, k: int, rng: random.Random, n_nodes: int) -> list[str]:
    store = open_store(path)
    with store.reader() as r:
        ids = [node_id(m[0], m[1], str(rng.randrange(n_nodes))) for m in MIX for _ in range(k)]
        found = list(r.get_nodes(ids).values())
    store.close()
    rng.shuffle(found)
    return [" ".join(rng.sample(n.claim.split(), 3)) for n in found[:k]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--db", type=Path)
    ap.add_argument("--vectors", action="store_true")
    args = ap.parse_args()
    path = args.db or Path(f"/tmp/memgraph-bench-context-{args.nodes}.db")
    if not path.exists():
        build(path, args.nodes)
    store = open_store(path)
    print(f"store {path}: {store.counts()} load {os.getloadavg()[0]:.2f} cpus {os.cpu_count()}")
    texts = queries(path, args.queries, random.Random(7), args.nodes)
    nerve = None
    if args.vectors:
        from context_cut.embedders import HashEmbedder
        from context_cut.vector_index import VectorIndex
        from context_cut.vector_sync import sync_index
        from context_cut.vectors import VectorNerve

        index = VectorIndex.open(path=":memory:")
        t = time.perf_counter()
        report = sync_index(store, index, HashEmbedder(256))
        print(f"indexed: {report.line()} in {time.perf_counter() - t:.1f}s")
        nerve = VectorNerve(index, HashEmbedder(256))
    for cut in CutName:
        times, cpu = [], []
        for text in texts:
            q = MemoryContextQuery(text=text, cut=cut, budget_tokens=args.budget)
            t, c = time.perf_counter(), time.process_time()
            packet = select_context_cut(store, q, nerve)
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            assert packet.tokens_used <= args.budget
        times.sort()
        p95 = times[int(len(times) * 0.95) - 1]
        # CPU time is what the cut costs; wall time also holds waits for a shared CPU
        print(
            f"{cut.value:12} wall p50 {statistics.median(times):6.1f} ms  p95 {p95:6.1f} ms  "
            f"max {times[-1]:6.1f} ms | cpu p50 {statistics.median(cpu):6.1f} ms  "
            f"({len(times)} queries{', hybrid' if nerve else ''})"
        )
    store.close()


if __name__ == "__main__":
    main()
