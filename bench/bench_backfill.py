"""Backfill throughput (MB/s of JSONL) over a generated transcripts tree.

Generates a ``~/.claude/projects``-like tree (several projects, sessions of
0.2-4 MB, mostly tool output, ~20-60 prompts each), then times
``run_backfill`` in-process on a fresh store and vault, and a second run
(everything unchanged). Budget: >= 30 MB/s.

    python bench/bench_backfill.py [--mb 150] [--tree DIR]   # DIR is reused if present
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_hook import generate

PROJECTS = ("atlas", "zeta", "orion", "vega", "lyra")


def build_tree(root: Path, total_mb: float, seed: int = 7) -> None:
    rng = random.Random(seed)
    written = 0
    i = 0
    while written < total_mb * 1e6:
        project = rng.choice(PROJECTS)
        sid = uuid.UUID(int=rng.getrandbits(128), version=4)
        path = root / f"-home-u-work-{project}" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        mb = rng.choice((0.2, 0.5, 1.0, 1.0, 2.0, 4.0))
        written += generate(path, mb, rng.randint(20, 60), seed=i)
        i += 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=150.0)
    ap.add_argument("--tree", type=Path, default=None, help="keep/reuse the generated tree here")
    args = ap.parse_args()
    from memgraph.store import open_store
    from profiles.voice.backfill import BackfillRequest, run_backfill

    with tempfile.TemporaryDirectory() as tmp:
        tree = args.tree or Path(tmp) / "projects"
        if not tree.exists() or not any(tree.rglob("*.jsonl")):
            started = time.perf_counter()
            build_tree(tree, args.mb)
            print(f"generated {tree} in {time.perf_counter() - started:.1f} s")
        store = open_store(Path(tmp) / "mg.db")
        request = BackfillRequest(roots=[tree], vault=Path(tmp) / "vault")
        cpu0 = time.process_time()
        first = run_backfill(store, request)
        cpu1 = time.process_time()
        second = run_backfill(store, request)
        load = os.getloadavg()
        files = len(first.outcomes)
        print(f"load avg {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cpus")
        print(
            f"first run : {files} transcripts, {first.bytes_read / 1e6:.1f} MB in "
            f"{first.seconds:.2f} s wall ({first.mb_per_s:.1f} MB/s), "
            f"{cpu1 - cpu0:.2f} s cpu ({first.bytes_read / 1e6 / (cpu1 - cpu0):.1f} MB/s cpu); "
            f"{first.counts()}"
        )
        print(
            f"rerun     : {second.seconds:.3f} s for {len(second.outcomes)} transcripts "
            f"{second.counts()}"
        )
        store.close()


if __name__ == "__main__":
    main()
