"""Substrate benchmark: bulk upsert through the engine, then 2-hop reads.

    python bench/bench_store.py                    # 100k nodes + 300k edges (issue 2 budget)
    python bench/bench_store.py --nodes 10000      # quicker run
    python bench/bench_store.py --backend memory   # the in-memory backend

Everything goes through ``memgraph.engine.apply_patch`` (full validation,
profile law, receipts, FTS kept in the same transaction): one patch per
``--batch`` ops (default 20,000: measured fastest here; 5,000 costs ~15 % more
per node in commits, 50,000+ more in cache misses), nodes first, then edges.
The clock covers building each patch (``new_patch``) and applying it;
generating the node and edge documents is the caller's work, timed separately.

Reference (issue 22), timed in the same run: the rows the store wrote for the
nodes (node rows, FTS rows, receipts, patches) and the edges, read back and
inserted with plain ``sqlite3`` ``executemany`` into a fresh file with the store's
own tables and indexes (no triggers), one transaction per ``--batch`` rows, WAL
and ``synchronous=NORMAL`` like the store. ``ratio`` = engine nodes/s over that
floor's nodes/s (issue 22 budget: >= 0.8).

Budgets (DESIGN issue 2): bulk upsert >= 20k nodes/s; 2-hop read < 20 ms.
Prints one ``name: value`` line per figure; exit 1 when a budget is missed
(unless ``--no-check``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memgraph.documents import MemoryEdge, MemoryNode, ProfileName, UpsertEdge, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import edge_id, node_id
from memgraph.store import Store, open_store

NODE_BUDGET = 20_000.0  # nodes/s
BATCH_RATES: list[float] = []  # ops/s of each patch, in order (nodes first, then edges)
HOP2_BUDGET_MS = 20.0

WORDS = [
    "store",
    "engine",
    "patch",
    "receipt",
    "summary",
    "anchor",
    "profile",
    "lifecycle",
    "voice",
    "session",
    "window",
    "commit",
    "wiki",
    "claim",
    "tension",
    "question",
    "review",
    "stale",
    "fresh",
    "graph",
    "edge",
]


def make_nodes(n: int, rng: random.Random) -> list[MemoryNode]:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    nodes = []
    for i in range(n):
        at = base + timedelta(seconds=i)
        words = " ".join(rng.choice(WORDS) for _ in range(12))
        nodes.append(
            MemoryNode(
                id=node_id("repo_architecture", "component", f"bench-{i}"),
                domain_id=f"repo:bench-{i % 50}",
                profile=ProfileName.repo_architecture,
                kind="component",
                title=f"component {i} {words[:40]}",
                claim=f"component {i} does {words}",
                lifecycle="observed",
                created_at=at,
                updated_at=at,
                valid_from=at,
                ingested_at=at,
                source_hashes=[f"h{i}"],
                attributes={"index": i},
            )
        )
    return nodes


def make_edges(nodes: list[MemoryNode], m: int, rng: random.Random) -> list[MemoryEdge]:
    edges: dict[str, MemoryEdge] = {}
    n = len(nodes)
    while len(edges) < m:
        a, b = rng.randrange(n), rng.randrange(n)
        if a == b:
            continue
        src, dst = nodes[a].id, nodes[b].id
        eid = edge_id("depends_on", src, dst)
        if eid in edges:
            continue
        edges[eid] = MemoryEdge(
            id=eid,
            source_id=src,
            target_id=dst,
            kind="depends_on",
            profile=ProfileName.repo_architecture,
            lifecycle="observed",
            confidence=0.7,
        )
    return list(edges.values())


def bulk(store: Store, ops: list[UpsertNode] | list[UpsertEdge], batch: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) to apply ``ops`` in patches.

    CPU time is reported beside wall time because the machine is shared: it
    is what this process spent (SQLite runs in-process), whatever the load.
    """
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(0, len(ops), batch):
        t = time.perf_counter()
        result = apply_patch(store, new_patch(list(ops[i : i + batch]), proposer="bench"))
        assert len(result.receipts) == len(ops[i : i + batch])
        BATCH_RATES.append(len(result.receipts) / (time.perf_counter() - t))
    return time.perf_counter() - start, time.process_time() - cpu


def plain_reference(store_file: Path, out: Path, batch: int) -> tuple[float, float]:
    """(node-phase seconds, edge-phase seconds) of plain executemany of the rows the
    store wrote, in a fresh file with the same tables and indexes."""
    import sqlite3

    src = sqlite3.connect(f"file:{store_file}?mode=ro", uri=True)
    schema = [
        sql
        for (sql,) in src.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') "
            "AND name NOT LIKE 'node_fts_%' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        )
    ]
    fts = src.execute("SELECT sql FROM sqlite_master WHERE name = 'node_fts'").fetchone()[0]

    def rows(table: str) -> tuple[str, list[tuple[object, ...]]]:
        cols = [r[1] for r in src.execute(f"PRAGMA table_info({table})")]
        if table == "receipts":
            cols.remove("seq")  # AUTOINCREMENT, as the store lets SQLite assign it
        data = src.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY rowid").fetchall()
        marks = ", ".join("?" * len(cols))
        return f"INSERT INTO {table}({', '.join(cols)}) VALUES ({marks})", data

    node_sql, node_rows = rows("nodes")
    receipt_sql, receipt_rows = rows("receipts")
    patch_sql, patch_rows = rows("patches")
    edge_sql, edge_rows = rows("edges")
    src.close()
    dst = sqlite3.connect(out, isolation_level=None)
    dst.execute("PRAGMA journal_mode=WAL")
    dst.execute("PRAGMA synchronous=NORMAL")
    for sql in schema:
        if not sql.startswith("CREATE VIRTUAL"):
            dst.execute(sql)
    dst.execute(fts)
    n_nodes = len(node_rows)
    node_receipts, edge_receipts = receipt_rows[:n_nodes], receipt_rows[n_nodes:]
    n_patches = -(-n_nodes // batch)
    started = time.perf_counter()
    for i in range(0, n_nodes, batch):
        dst.execute("BEGIN IMMEDIATE")
        last = dst.execute("SELECT coalesce(max(rowid), 0) FROM nodes").fetchone()[0]
        dst.executemany(node_sql, node_rows[i : i + batch])
        dst.execute(
            "INSERT INTO node_fts(rowid, title, body) SELECT rowid, title, body FROM nodes "
            "WHERE rowid > ?",
            (last,),
        )
        dst.executemany(receipt_sql, node_receipts[i : i + batch])
        dst.executemany(patch_sql, patch_rows[i // batch : i // batch + 1])
        dst.execute("COMMIT")
    node_s = time.perf_counter() - started
    started = time.perf_counter()
    for k, i in enumerate(range(0, len(edge_rows), batch)):
        dst.execute("BEGIN IMMEDIATE")
        dst.executemany(edge_sql, edge_rows[i : i + batch])
        dst.executemany(receipt_sql, edge_receipts[i : i + batch])
        dst.executemany(patch_sql, patch_rows[n_patches + k : n_patches + k + 1])
        dst.execute("COMMIT")
    edge_s = time.perf_counter() - started
    dst.close()
    return node_s, edge_s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--edges-per-node", type=int, default=3)
    ap.add_argument("--batch", type=int, default=20_000, help="ops per patch")
    ap.add_argument("--reads", type=int, default=1000, help="2-hop reads to time")
    ap.add_argument("--backend", choices=("sqlite", "memory"), default="sqlite")
    ap.add_argument("--db", type=Path, default=None, help="store file (default: a temp dir)")
    ap.add_argument("--no-check", action="store_true", help="do not exit 1 on a missed budget")
    ap.add_argument("--no-reference", action="store_true", help="skip the plain sqlite3 floor")
    args = ap.parse_args(argv)

    rng = random.Random(20260101)
    t0 = time.perf_counter()
    nodes = make_nodes(args.nodes, rng)
    gen = time.perf_counter() - t0

    with tempfile.TemporaryDirectory(prefix="mg-bench-") as tmp:
        path = args.db or Path(tmp) / "bench.db"
        store = open_store(":memory:" if args.backend == "memory" else path)
        try:
            node_s, node_cpu = bulk(store, [UpsertNode(node=n) for n in nodes], args.batch)
            node_batches = [f"{r:,.0f}" for r in BATCH_RATES]
            # Edges are generated after the node ingest, as a streaming caller would:
            # holding 300k edge documents in memory during the node phase only
            # measures the harness (a bigger heap for every GC pass), not the store.
            t1 = time.perf_counter()
            edges = make_edges(nodes, args.nodes * args.edges_per_node, rng)
            gen += time.perf_counter() - t1
            edge_s, edge_cpu = bulk(store, [UpsertEdge(edge=e) for e in edges], args.batch)
            seeds = [rng.choice(nodes).id for _ in range(args.reads)]
            for seed in seeds[:20]:  # warm the page cache like a running server would
                store.neighbourhood(seed, 2)
            times = []
            sizes = []
            for seed in seeds:
                t = time.perf_counter()
                hood = store.neighbourhood(seed, 2)
                times.append((time.perf_counter() - t) * 1000)
                sizes.append(len(hood.nodes))
            counts = store.counts()
        finally:
            store.close()
        db_mb = path.stat().st_size / 1e6 if args.backend == "sqlite" else 0.0
        ref_node_s = ref_edge_s = 0.0
        if args.backend == "sqlite" and not args.no_reference:
            ref_node_s, ref_edge_s = plain_reference(path, Path(tmp) / "plain.db", args.batch)

    total = len(nodes) + len(edges)
    nodes_per_s = len(nodes) / node_s
    q = statistics.quantiles(times, n=100)
    p50, p95 = statistics.median(times), q[94]
    figures = {
        "backend": args.backend,
        "nodes": len(nodes),
        "edges": len(edges),
        "batch_ops": args.batch,
        "generate_docs_s": f"{gen:.1f}",
        "node_upsert_s": f"{node_s:.1f}",
        "nodes_per_s": f"{nodes_per_s:,.0f}",
        "nodes_per_cpu_s": f"{len(nodes) / node_cpu:,.0f}",
        "node_batches_per_s": " ".join(node_batches),
        "edge_upsert_s": f"{edge_s:.1f}",
        "edges_per_s": f"{len(edges) / edge_s:,.0f}",
        "edges_per_cpu_s": f"{len(edges) / edge_cpu:,.0f}",
        "ops_per_s_overall": f"{total / (node_s + edge_s):,.0f}",
        "receipts": counts["receipts"],
        "db_mb": f"{db_mb:.0f}",
        "hop2_reads": len(times),
        "hop2_nodes_mean": f"{statistics.mean(sizes):.1f}",
        "hop2_p50_ms": f"{p50:.2f}",
        "hop2_p95_ms": f"{p95:.2f}",
        "loadavg_1m": f"{os.getloadavg()[0]:.2f}",
    }
    if ref_node_s:
        figures["plain_sqlite3_nodes_per_s"] = f"{len(nodes) / ref_node_s:,.0f}"
        figures["plain_sqlite3_edges_per_s"] = f"{len(edges) / ref_edge_s:,.0f}"
        figures["ratio_nodes_vs_plain"] = f"{nodes_per_s / (len(nodes) / ref_node_s):.2f}"
        figures["ratio_edges_vs_plain"] = f"{(len(edges) / edge_s) / (len(edges) / ref_edge_s):.2f}"
    for key, value in figures.items():
        print(f"{key}: {value}")
    ok = nodes_per_s >= NODE_BUDGET and p95 < HOP2_BUDGET_MS
    print(f"budget: {'met' if ok else 'MISSED'} (>= {NODE_BUDGET:,.0f} nodes/s, 2-hop < 20 ms)")
    return 0 if ok or args.no_check else 1


if __name__ == "__main__":
    sys.exit(main())
