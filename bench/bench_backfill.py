"""Backfill benchmarks (issues 3 and 22), one command each.

    python bench/bench_backfill.py tree  [--mb 113] [--repeat 3]  # MB/s over a real-looking tree + store size
    python bench/bench_backfill.py small [--sessions 2000]   # sessions/s, many small sessions
    python bench/bench_backfill.py rerun [--runs 7]    # `memgraph voice --backfill`, nothing new
    python bench/bench_backfill.py synthetic [--mb 150]      # issue 3's generated tree

Trees are REAL-LOOKING: the Claude Code files of ``../shared/corpus/real`` (whole
files for ``tree``; ~25 KB slices of them for ``small``), each copy moved into a
new session (fresh ``sessionId``, fresh record uuids), spread over five project
directories. Built at bench time in a temporary directory (or ``--tree DIR``,
reused when it exists), never committed. References, timed in the same run:
``orjson.loads`` of every line of every file of the tree (``json`` without orjson);
for ``rerun``, the in-process rerun loop and ``python -c pass``.

Budgets (issue 22): tree >= 100 MB/s; small >= 200 sessions/s; rerun with
nothing new <= 150 ms whole process; store size <= 3x the markdown pages.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_hook import CORPUS, generate, reference_parse

PROJECTS = ("atlas", "zeta", "orion", "vega", "lyra")


def _corpus_records(corpus: Path) -> list[list[dict[str, object]]]:
    out = []
    for src in sorted((corpus / "claude-code").glob("*.jsonl")):
        recs = []
        for raw in src.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if isinstance(rec, dict):
                recs.append(rec)
        out.append(recs)
    if not out:
        raise SystemExit(f"no Claude Code transcripts under {corpus}")
    return out


def _is_prompt(rec: dict[str, object]) -> bool:
    msg = rec.get("message")
    return (
        rec.get("type") == "user" and isinstance(msg, dict) and isinstance(msg.get("content"), str)
    )


def build_real_tree(
    corpus: Path,
    root: Path,
    total_mb: float,
    slice_bytes: int | None = None,
    seed: int = 7,
    max_files: int | None = None,
) -> int:
    """Write session files under ``root`` until ``total_mb`` (or ``max_files``);
    returns the file count. ``slice_bytes`` None: whole corpus files; else
    consecutive slices of up to that size (ending at half of it once they hold 4
    typed prompts), without tool records over an eighth of it: small sessions,
    most of which still get a page."""
    rng = random.Random(seed)
    sources = _corpus_records(corpus)
    pieces: list[list[dict[str, object]]] = []
    for recs in sources:
        if slice_bytes is None:
            pieces.append(recs)
            continue
        cur: list[dict[str, object]] = []
        size = prompts = 0
        for rec in recs:
            length = len(json.dumps(rec))
            if length > slice_bytes // 8 and not _is_prompt(rec):
                continue  # a small session: no huge tool output
            cur.append(rec)
            size += length
            prompts += _is_prompt(rec)
            if (size >= slice_bytes // 2 and prompts >= 4) or size >= slice_bytes:
                pieces.append(cur)
                cur, size, prompts = [], 0, 0
        if cur:
            pieces.append(cur)
    written = files = 0
    copy = 0
    while written < total_mb * 1e6:
        for piece in pieces:
            copy += 1
            sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            path = root / f"-home-u-work-{rng.choice(PROJECTS)}" / f"{sid}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            remap: dict[str, str] = {}
            lines = []
            for rec in piece:
                rec = dict(rec)
                if "sessionId" in rec:
                    rec["sessionId"] = sid
                for key in ("uuid", "parentUuid"):
                    old = rec.get(key)
                    if isinstance(old, str):
                        rec[key] = remap.setdefault(
                            old, str(uuid.uuid5(uuid.NAMESPACE_OID, f"{copy}:{old}"))
                        )
                lines.append(json.dumps(rec, ensure_ascii=False) + "\n")
            data = "".join(lines).encode("utf-8")
            path.write_bytes(data)
            written += len(data)
            files += 1
            if written >= total_mb * 1e6 or files == max_files:
                break
        if files == max_files:
            break
    return files


def build_synthetic_tree(root: Path, total_mb: float, seed: int = 7) -> int:
    rng = random.Random(seed)
    written = i = 0
    while written < total_mb * 1e6:
        project = rng.choice(PROJECTS)
        sid = uuid.UUID(int=rng.getrandbits(128), version=4)
        path = root / f"-home-u-work-{project}" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        mb = rng.choice((0.2, 0.5, 1.0, 1.0, 2.0, 4.0))
        written += generate(path, mb, rng.randint(20, 60), seed=i)
        i += 1
    return i


def tree_reference(tree: Path) -> float:
    return sum(reference_parse(p) for p in sorted(tree.rglob("*.jsonl")))


def store_size(store_file: Path, vault: Path) -> None:
    """Store bytes vs page bytes, and the stored payload per table."""
    pages = sum(p.stat().st_size for p in vault.rglob("*.md") if p.name != "log.md")
    conn = sqlite3.connect(store_file)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = store_file.stat().st_size
    parts = []
    try:
        for name, used in conn.execute(
            "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8"
        ):
            parts.append(f"{name} {used / 1e6:.1f}")
    except sqlite3.OperationalError:
        parts.append("(no dbstat)")
    conn.close()
    ratio = size / pages if pages else float("inf")
    print(
        f"store size: {size / 1e6:.1f} MB for {pages / 1e6:.1f} MB of pages = {ratio:.2f}x "
        f"(budget <= 3x); largest (MB): {', '.join(parts)}"
    )


def _children_cpu() -> float:
    """CPU seconds of the child processes that ended (the backfill's read-ahead)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load() -> str:
    a, b, c = os.getloadavg()
    return f"load avg {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cpus"


def run_in_process(tree: Path, tmp: Path, unit: str, repeat: int = 1) -> None:
    """``repeat`` backfills of the tree, each into a fresh store and vault; the
    figures of each, then their medians. ``cpu`` is the process's (the hashing
    thread included), ``main`` the calling thread's alone (what wall time cannot
    go below: the hashing runs on the second core), ``read-ahead process`` the
    CPU of the child that reads transcripts ahead (profiles.voice.readahead)."""
    from memgraph.store import open_store
    from profiles.voice.backfill import BackfillRequest, run_backfill

    files = len(list(tree.rglob("*.jsonl")))
    walls: list[float] = []
    cpus: list[float] = []
    mains: list[float] = []
    children: list[float] = []
    for i in range(repeat):
        run = tmp / f"run{i}"
        run.mkdir()
        store_file = run / "mg.db"
        store = open_store(store_file)
        request = BackfillRequest(roots=[tree], vault=run / "vault")
        cpu0, main0, child0 = time.process_time(), time.thread_time(), _children_cpu()
        first = run_backfill(store, request)
        cpu, main = time.process_time() - cpu0, time.thread_time() - main0
        child = _children_cpu() - child0
        rerun = run_backfill(store, request)
        store.close()
        mb = first.bytes_read / 1e6
        walls.append(first.seconds)
        cpus.append(cpu)
        mains.append(main)
        children.append(child)
        print(_load())
        print(
            f"backfill: {files} transcripts, {mb:.1f} MB in {first.seconds:.2f} s wall "
            f"({mb / first.seconds:.1f} MB/s, {files / first.seconds:.0f} sessions/s), "
            f"{cpu:.2f} s cpu ({mb / cpu:.1f} MB/s cpu; main thread {main:.2f} s; read-ahead "
            f"process {child:.2f} s, total {cpu + child:.2f} s); {first.counts()}"
        )
        print(
            f"rerun in process: {rerun.seconds * 1000:.0f} ms for {len(rerun.outcomes)} transcripts"
        )
    ref = tree_reference(tree)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    if repeat > 1:
        print(
            f"median of {repeat}: {wall:.2f} s wall ({mb / wall:.1f} MB/s), {cpu:.2f} s cpu "
            f"({mb / cpu:.1f} MB/s cpu), main thread {statistics.median(mains):.2f} s, "
            f"read-ahead process {statistics.median(children):.2f} s"
        )
    print(
        f"reference, per-line parse of the same files: {ref:.2f} s ({mb / ref:.0f} MB/s); "
        f"backfill/reference time {wall / ref:.1f}x"
    )
    if unit == "MB":
        verdict = "met" if mb / wall >= 100 else "NOT met"
        print(f"budget >= 100 MB/s: {verdict}")
    else:
        verdict = "met" if files / wall >= 200 else "NOT met"
        print(f"budget >= 200 sessions/s: {verdict}")
    store_size(tmp / f"run{repeat - 1}" / "mg.db", tmp / f"run{repeat - 1}" / "vault")


def run_rerun(tree: Path, tmp: Path, runs: int) -> None:
    env = {
        **os.environ,
        "MEMGRAPH_HOME": str(tmp / "home"),
        "MEMGRAPH_VAULT": str(tmp / "vault"),
        "MEMGRAPH_CONFIG": str(tmp / "none.toml"),
        "MEMGRAPH_TRANSCRIPTS": str(tree),
    }
    exe = Path(sys.executable).with_name("memgraph")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memgraph.cli"]
    first = subprocess.run([*cmd, "voice", "--backfill"], env=env, capture_output=True)
    if first.returncode != 0:
        raise SystemExit(f"backfill failed: {first.stderr.decode()}")
    walls, bare, loop = [], [], []
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run([*cmd, "voice", "--backfill"], env=env, capture_output=True)
        walls.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(f"rerun failed: {proc.stderr.decode()}")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t)
    from memgraph.store import open_store
    from profiles.voice.backfill import BackfillRequest, run_backfill

    store = open_store(tmp / "home" / "memgraph.db")
    for _ in range(runs):
        loop.append(run_backfill(store, BackfillRequest(roots=[tree], vault=tmp / "vault")).seconds)
    store.close()
    files = len(list(tree.rglob("*.jsonl")))
    med = statistics.median(walls) * 1000
    print(_load())
    print(f"last output: {proc.stdout.decode().strip()[:200]}")
    print(
        f"rerun with nothing new, {files} transcripts, whole process: median {med:.0f} ms "
        f"({', '.join(f'{x * 1000:.0f}' for x in walls)}); its own loop in process: median "
        f"{statistics.median(loop) * 1000:.1f} ms; python -c pass: median "
        f"{statistics.median(bare) * 1000:.0f} ms; budget <= 150 ms: "
        f"{'met' if med <= 150 else 'NOT met'}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("tree", "small", "rerun", "synthetic"))
    ap.add_argument("--mb", type=float, default=None)
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument(
        "--repeat", type=int, default=1, help="tree/small/synthetic: backfills, fresh stores"
    )
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--tree", type=Path, default=None, help="keep/reuse the generated tree here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        tree = args.tree or tmp / "projects"
        if not tree.exists() or not any(tree.rglob("*.jsonl")):
            started = time.perf_counter()
            if args.mode == "synthetic":
                build_synthetic_tree(tree, args.mb or 150.0)
            elif args.mode == "tree":
                build_real_tree(args.corpus, tree, args.mb or 113.0)
            else:  # small sessions (also the rerun's tree)
                build_real_tree(args.corpus, tree, 1e9, slice_bytes=30_000, max_files=args.sessions)
            n = len(list(tree.rglob("*.jsonl")))
            print(f"generated {n} transcripts in {time.perf_counter() - started:.1f} s")
        if args.mode == "rerun":
            run_rerun(tree, tmp, args.runs)
        else:
            unit = "MB" if args.mode in ("tree", "synthetic") else "sessions"
            run_in_process(tree, tmp, unit, max(1, args.repeat))


if __name__ == "__main__":
    main()
