"""Benchmark: the repo cut with MiniLM configured, whole process, before and after the
subject vectors stored at scan time (context_cut/repo_vectors.py), and the scan's cost
of storing them.

    python bench/bench_repo_vectors.py --before SRC_A --after SRC_B [--clone DIR] [--rounds 3]

SRC_A / SRC_B are code trees (``git archive main | tar -x -C SRC_A``; this checkout),
each compiled first (``python -m compileall -q memgraph context_cut profiles``: with
PYTHONDONTWRITEBYTECODE=1 a process would otherwise compile every module it imports).
Every command runs as ``python -m memgraph.cli ...`` with the tree first on
PYTHONPATH, the same interpreter, a temp MEMGRAPH_HOME and no config file.

1. Scan (SRC_B): a fresh store with no embedder and with MiniLM (which also embeds
   and stores the window's 50 subjects), ``--rounds`` each, then a rescan with no
   change both ways, then ``--rounds`` commits (one file each) each rescanned both
   ways (what the post-commit hook runs: the MiniLM one embeds the new subject).
2. ``memgraph context TEXT --cut repo --repo CLONE`` with MiniLM: each text x round,
   SRC_A then SRC_B (alternating), beside ``python -c pass``; wall and CPU
   (user + sys of the child) p50. SRC_A embeds the 50 subjects in every process,
   SRC_B reads the file the scan wrote.
   Also SRC_B with no embedder (the floor the cut had before MiniLM).
3. Per text, SRC_A vs SRC_B: the printed packets, and ``--json --limit 200`` packets
   (but the time they were made) under a budget that keeps every module: equal.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# each has past subjects at cosine >= 0.6 on this project's window (the signal fires)
TEXTS = (
    "word vectors for the words of stored voice messages",
    "the MCP stdio server reads lines from a terminal",
    "the SessionStart hook refuses a bad payload",
)


def run(tree: Path, env: dict[str, str], *args: str) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, stdout) of ``python -m memgraph.cli *args``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "memgraph.cli", *args] if args else [sys.executable, "-c", "pass"]
    proc = subprocess.run(
        cmd, cwd=tree, env={**env, "PYTHONPATH": str(tree)}, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def p50(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, required=True)
    ap.add_argument("--clone", type=Path, help="repository to scan (default: a clone of --after)")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    trees = {"before": a.before.resolve(), "after": a.after.resolve()}
    for tree in trees.values():
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "memgraph", "context_cut", "profiles"],
            cwd=tree,
            check=True,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""},
        )
    tmp = Path(tempfile.mkdtemp(prefix="bench-repo-vectors-"))
    try:
        clone = a.clone
        if clone is None:
            clone = tmp / "clone"
            subprocess.run(
                ["git", "clone", "-q", str(a.after.resolve()), str(clone)],
                check=True,
            )
        base = {k: v for k, v in os.environ.items() if not k.startswith("MEMGRAPH_")}
        base["MEMGRAPH_CONFIG"] = str(tmp / "absent.toml")

        def env(home: Path, embedder: str) -> dict[str, str]:
            return {**base, "MEMGRAPH_HOME": str(home), "MEMGRAPH_EMBEDDER": embedder}

        after = trees["after"]
        print(f"clone {clone} @ {subprocess.getoutput(f'git -C {clone} log -1 --format=%h')}")
        print(f"uptime: {subprocess.getoutput('uptime').strip()}")
        scans: dict[str, list[tuple[float, float]]] = {}
        for r in range(a.rounds):
            for embedder in ("none", "minilm"):
                home = tmp / f"scan-{embedder}-{r}"
                wall, cpu, out = run(after, env(home, embedder), "repo", "scan", str(clone))
                scans.setdefault(f"full scan, {embedder}", []).append((wall, cpu))
                if r == 0 and embedder == "minilm":
                    print("  " + out.strip().replace("\n", "\n  "))
                wall, cpu, out = run(after, env(home, embedder), "repo", "scan", str(clone))
                scans.setdefault(f"rescan no change, {embedder}", []).append((wall, cpu))
        for r in range(a.rounds):  # one commit: a one-file rescan that also moves HEAD
            target = clone / "memgraph" / "hashing.py"
            target.write_text(target.read_text() + f"\n# bench edit {r}\n")
            subprocess.run(["git", "-C", str(clone), "add", "-A"], check=True)
            who = ("-c", "user.name=b", "-c", "user.email=b@b")
            subject = f"hashing: bench edit number {r}"
            subprocess.run(["git", "-C", str(clone), *who, "commit", "-qm", subject], check=True)
            for embedder in ("none", "minilm"):
                home = tmp / f"scan-{embedder}-0"
                wall, cpu, out = run(after, env(home, embedder), "repo", "scan", str(clone))
                scans.setdefault(f"commit + rescan, {embedder}", []).append((wall, cpu))
                if r == 0 and embedder == "minilm":
                    print("  " + out.strip().replace("\n", "\n  "))
        for name, pairs in scans.items():
            walls, cpus = [w for w, _ in pairs], [c for _, c in pairs]
            print(f"{name:28s} wall p50 {p50(walls)} s, CPU p50 {p50(cpus)} s")
        home = tmp / "scan-minilm-0"  # a store scanned with MiniLM: the vector file is there
        times: dict[str, list[tuple[float, float]]] = {"python -c pass": []}
        outputs: dict[tuple[str, ...], Any] = {}
        print(f"uptime: {subprocess.getoutput('uptime').strip()}")
        for _r in range(a.rounds):
            for text in TEXTS:
                times["python -c pass"].append(run(after, base)[:2])
                args = ("context", text, "--cut", "repo", "--repo", str(clone))
                for name, tree in trees.items():
                    wall, cpu, out = run(tree, env(home, "minilm"), *args)
                    times.setdefault(f"{name}, MiniLM", []).append((wall, cpu))
                    outputs[(name, text)] = out
                times.setdefault("after, none", []).append(run(after, env(home, "none"), *args)[:2])
        print(f"uptime: {subprocess.getoutput('uptime').strip()}")
        for name, pairs in times.items():
            walls, cpus = [w for w, _ in pairs], [c for _, c in pairs]
            print(
                f"context --cut repo, {name:14s} wall p50 {p50(walls)} s "
                f"(min {min(walls):.2f}, max {max(walls):.2f}), CPU p50 {p50(cpus)} s  n={len(walls)}"
            )
        # the whole ranking: 200 modules, a budget that drops none of them
        wide = ("--json", "--limit", "200", "--budget", "200000")
        for text in TEXTS:
            for name, tree in trees.items():
                args = ("context", text, "--cut", "repo", "--repo", str(clone), *wide)
                packet = json.loads(run(tree, env(home, "minilm"), *args)[2])
                packet.pop("ingested_at", None)
                outputs[(name, text, "wide")] = packet
            same = outputs[("before", text)] == outputs[("after", text)]
            wide_same = outputs[("before", text, "wide")] == outputs[("after", text, "wide")]
            ranked = outputs[("after", text, "wide")]["nodes"]
            print(
                f"same output before/after: {same}, same 200-module packet: {wide_same} "
                f"({len(ranked)} nodes; {text[:40]}...)"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
