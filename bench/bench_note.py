"""Whole-process timing of `memgraph note` (lean path) and, for contrast, `memgraph wake`.

    python bench/bench_note.py [N]

Runs N (default 30) `memgraph note` subprocesses against a fresh store with a
started session (temp dirs; your own store is untouched) and prints median and
p95 wall time in ms. Rerun on a quiet machine: figures on a shared box are noisy.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], env: dict[str, str], n: int) -> list[float]:
    out = []
    for i in range(n):
        start = time.perf_counter()
        subprocess.run(
            [*cmd, *([f"bench note {i}"] if cmd[-1] == "note" else [])],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        out.append((time.perf_counter() - start) * 1000)
    return out


def report(name: str, xs: list[float]) -> None:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    print(
        f"{name}: n={len(xs)} median={statistics.median(xs):.1f}ms p95={p95:.1f}ms min={xs[0]:.1f}ms"
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    exe = str(Path(sys.executable).with_name("memgraph"))
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "MEMGRAPH_HOME": f"{tmp}/home",
            "MEMGRAPH_WORKSPACE": f"{tmp}/ws",
            "XDG_CONFIG_HOME": f"{tmp}/config",
            "MEMGRAPH_SESSION": "bench",
        }
        subprocess.run(
            [exe, "session", "start", "bench"], env=env, check=True, stdout=subprocess.DEVNULL
        )
        report("python -c pass", timed([sys.executable, "-c", "pass"], env, n))
        report("memgraph note (lean path)", timed([exe, "note"], env, n))
        report("memgraph wake (typer path)", timed([exe, "wake"], env, max(5, n // 3)))
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
