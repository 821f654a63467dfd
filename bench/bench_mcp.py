"""Benchmark the MCP server's `voice_search` against the same calls in process.

    python bench/gen_vault.py --out /tmp/mg-bench          # once (~10k pages)
    python bench/bench_mcp.py --out /tmp/mg-bench [--calls 100]

A real MCP session (the SDK's stdio client starting `python -m memgraph.cli mcp`)
makes ``--calls`` `voice_search` calls over a rotation of queries; each call's
round trip is timed. The reference, in the same run: the same calls in process on
an open store (``search_voice`` + the JSON form the tool returns). Issue 22's
budget: MCP p50 <= 1.5x the in-process p50. Prints the machine load.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ("fact", "schema migration", "deploy", "cache", "error", "retry", "index", "token")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def in_process(db: Path, calls: int) -> list[float]:
    from memgraph.store import open_store
    from profiles.voice.output import format_json
    from profiles.voice.search import VoiceQuery, search_voice

    store = open_store(db, for_reading=True)
    times = []
    try:
        for i in range(calls + 5):
            t0 = time.perf_counter()
            hits = search_voice(store, VoiceQuery(query=QUERIES[i % len(QUERIES)], limit=20))
            [json.loads(format_json(h)) for h in hits]
            if i >= 5:  # the first calls warm the page cache, as the MCP session's do
                times.append((time.perf_counter() - t0) * 1000)
    finally:
        store.close()
    return times


async def over_mcp(home: Path, calls: int) -> list[float]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, "MEMGRAPH_HOME": str(home), "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memgraph.cli", "mcp"], env=env
    )
    times = []
    async with Client(params, read_timeout_seconds=120) as client:
        for i in range(calls + 5):
            t0 = time.perf_counter()
            result = await client.call_tool(
                "voice_search", {"query": QUERIES[i % len(QUERIES)], "limit": 20}
            )
            elapsed = (time.perf_counter() - t0) * 1000
            if result.is_error:
                raise SystemExit(f"voice_search failed over MCP: {result.content}")
            if i >= 5:
                times.append(elapsed)
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="What gen_vault.py --out wrote.")
    ap.add_argument("--calls", type=int, default=100)
    args = ap.parse_args(argv)
    home = args.out / "home"
    db = home / "memgraph.db"
    if not db.is_file():
        print(
            f"no store under {args.out}; run bench/gen_vault.py --out {args.out}", file=sys.stderr
        )
        return 2
    import anyio

    for package in ("memgraph", "profiles", "context_cut"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cpus, load avg {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results: dict[str, Any] = {}
    # alternate the two sides twice so both see the same load
    mine: list[float] = []
    ref: list[float] = []
    for _ in range(2):
        mine += anyio.run(over_mcp, home, args.calls // 2)
        ref += in_process(db, args.calls // 2)
    m50, r50 = statistics.median(mine), statistics.median(ref)
    results["mcp"] = (m50, _pct(mine, 0.95))
    results["in_process"] = (r50, _pct(ref, 0.95))
    print(f"MCP voice_search, {len(mine)} calls: p50 {m50:.2f} ms  p95 {_pct(mine, 0.95):.2f} ms")
    print(f"same calls in process, open store: p50 {r50:.2f} ms  p95 {_pct(ref, 0.95):.2f} ms")
    print(f"ratio MCP/in-process (p50): {m50 / r50:.2f}x  (budget <= 1.5x)")
    load = os.getloadavg()
    print(f"load avg after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
