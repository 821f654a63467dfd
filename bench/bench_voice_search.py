"""Benchmark `memgraph voice` against `rg -i` over the same pages, side by side.

    python bench/gen_vault.py --out /tmp/mg-bench          # once (~10k pages)
    python bench/bench_voice_search.py --out /tmp/mg-bench [--runs 31]
    python bench/gen_vault.py --out /tmp/mg-nat --words natural   # 'the' in ~36 %
    python bench/bench_voice_search.py --out /tmp/mg-nat --only-common --common the

Whole process: ``memgraph voice "fact" --since <date>`` (the installed console
script, so the FAST_PATHS lean path) and ``rg -i fact <vault>``, run alternately
so both see the same machine load; medians and p90s. In process: p50/p95 of the
library query (``search_voice`` on an open store; ``fast.voice_search`` cold) for a few query shapes.
Common words (issue 22): ``memgraph voice WORD --limit 10`` against ``rg -i -c WORD``
for each ``--common`` word, with the share of messages that hold it.
Prints the machine load so noisy figures can be recognised.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _time(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall ms, CPU ms (user+sys of the child: what load on a shared box cannot inflate
    much), output lines."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True)
    elapsed = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if proc.returncode not in (0, 1):  # rg exits 1 when nothing matched
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr[:300]!r}")
    return elapsed, cpu, proc.stdout.count(b"\n")


# Issue 19: the budget also covers a substring query, a CJK query and a very common
# word with --limit 10 (the generated vault has no CJK text: that query measures the
# trigram-vocabulary lookup and the no-hit line, against rg finding nothing either).
EXTRA_QUERIES = (
    (["igrat"], "igrat"),  # substring only: no word is "igrat"
    (["方案"], "方案"),
    (["the", "--limit", "10"], "the"),
)


def share(db: Path, word: str) -> str:
    """How many voice messages hold ``word`` as a whole word (the workload's shape)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        total = conn.execute("SELECT count(*) FROM voice_index").fetchone()[0]
        having = conn.execute(
            "SELECT count(*) FROM node_fts JOIN voice_index AS v ON v.rowid = node_fts.rowid "
            "WHERE node_fts MATCH ?",
            (f'body : ("{word}")',),
        ).fetchone()[0]
    finally:
        conn.close()
    return f"{word!r} in {having:,} of {total:,} messages ({100 * having / max(total, 1):.0f} %)"


def whole_process(
    out: Path, runs: int, since: str, query: str, common: list[str], only_common: bool
) -> list[float]:
    memgraph = shutil.which("memgraph") or str(Path(sys.executable).parent / "memgraph")
    rg = shutil.which("rg")
    if rg is None:
        raise SystemExit("ripgrep (rg) not found: apt-get install -y ripgrep")
    env = {**os.environ, "MEMGRAPH_HOME": str(out / "home")}
    cases = [] if only_common else [([query, "--since", since], query), *EXTRA_QUERIES]
    # issue 22: a common word with --limit 10 against `rg -i -c WORD` (counts per file)
    cases += [([word, "--limit", "10"], word) for word in common]
    ratios = []
    print(f"whole process, {runs} runs each, alternating (wall; cpu = user+sys):")
    for args, pattern in cases:
        ours = [memgraph, "voice", *args]
        count = ["-c"] if pattern in common else []
        theirs = [rg, "-i", *count, pattern, str(out / "vault")]
        if pattern in common:
            print(f"  common word: {share(out / 'home' / 'memgraph.db', pattern)}")
        for cmd in (ours, theirs):  # warm the page cache and the interpreter's files
            _time(cmd, env)
        mine: list[float] = []
        grep: list[float] = []
        mine_cpu: list[float] = []
        grep_cpu: list[float] = []
        lines = (0, 0)
        for _ in range(runs):
            a, ac, la = _time(ours, env)
            b, bc, lb = _time(theirs, env)
            mine.append(a)
            grep.append(b)
            mine_cpu.append(ac)
            grep_cpu.append(bc)
            lines = (la, lb)
        m, g = statistics.median(mine), statistics.median(grep)
        ratios.append(m / g)
        shown = " ".join(args)
        print(f"  memgraph voice {shown}: median {m:.1f} ms  p90 {_pct(mine, 0.9):.1f} ms  "
              f"cpu {statistics.median(mine_cpu):.1f} ms  ({lines[0]} lines)")  # fmt: skip
        print(f"  rg -i {' '.join(count)} {pattern} <vault>: median {g:.1f} ms  "
              f"p90 {_pct(grep, 0.9):.1f} ms  "
              f"cpu {statistics.median(grep_cpu):.1f} ms  ({lines[1]} lines)")  # fmt: skip
        print(f"  ratio memgraph/rg (wall medians): {m / g:.2f}x")
    return ratios


def in_process(out: Path, iterations: int, since: str) -> None:
    """The library call a long-lived caller (MCP server, context cut) makes: an open
    store (its normal 64 MB page cache), ``search_voice`` per query. Also the cold
    case (a fresh connection per query, as each CLI process has)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from memgraph.store.sqlite import SQLiteStore
    from memgraph.store.sqlite_ext import fast
    from profiles.voice import search as core

    db = out / "home" / "memgraph.db"
    store = SQLiteStore(db, readonly=True)
    store.conn.execute("PRAGMA cache_size=-65536")  # what a writable SQLiteStore sets
    since_dt = core.parse_when(since)
    shapes = {
        "fact --since": core.VoiceQuery(query="fact", since=since_dt),
        "fact": core.VoiceQuery(query="fact"),
        '"schema migration"': core.VoiceQuery(query='"schema migration"'),
        "tes* --project orion": core.VoiceQuery(query="tes*", project="orion"),
        "the (very common word)": core.VoiceQuery(query="the"),
        "the --limit 10": core.VoiceQuery(query="the", limit=10),
        "code --limit 10 (86 %)": core.VoiceQuery(query="code", limit=10),
        "igrat (substring only)": core.VoiceQuery(query="igrat"),
        "tion (substring, many)": core.VoiceQuery(query="tion"),
        "方案 (CJK, 2 chars)": core.VoiceQuery(query="方案"),
        "fact --word": core.VoiceQuery(query="fact", word=True),
        "--recent": core.VoiceQuery(recent=True),
        "--session <prefix>": core.VoiceQuery(session="0"),
    }
    print(f"in process, open store, search_voice ({iterations} iterations):")
    for name, q in shapes.items():
        core.search_voice(store, q)  # warm
        times, cpu = [], []
        for _ in range(iterations):
            t0, c0 = time.perf_counter(), time.thread_time()
            hits = core.search_voice(store, q)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
        print(f"  {name:<26} p50 {statistics.median(times):7.2f} ms  "
              f"p95 {_pct(times, 0.95):7.2f} ms  cpu p50 {statistics.median(cpu):6.2f} ms  "
              f"({len(hits)} hits)")  # fmt: skip
    t0 = time.perf_counter()
    core.voice_stats(store)
    print(f"  --stats                    once {(time.perf_counter() - t0) * 1000:7.2f} ms")
    store.close()
    cold = []
    q = shapes["fact --since"]
    for _ in range(max(5, iterations // 5)):
        t0 = time.perf_counter()
        request = core.search_request(q)
        assert request is not None
        fast.voice_search(db, request)  # opens a fresh connection, as the CLI does
        cold.append((time.perf_counter() - t0) * 1000)
    print(f"  cold (new connection) 'fact --since': p50 {statistics.median(cold):.2f} ms")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="What gen_vault.py --out wrote.")
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--since", default="2026-06-01")
    ap.add_argument("--query", default="fact")
    ap.add_argument(
        "--common",
        default="the,code",
        help="common words timed with --limit 10 against `rg -i -c WORD` ('' for none)",
    )
    ap.add_argument(
        "--only-common", action="store_true", help="only the common-word cases, no in-process"
    )
    args = ap.parse_args(argv)
    if not (args.out / "home" / "memgraph.db").is_file():
        print(
            f"no store under {args.out}; run bench/gen_vault.py --out {args.out}", file=sys.stderr
        )
        return 2
    pages = sum(1 for _ in (args.out / "vault").rglob("*.md"))
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cpus, load avg {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}; {pages} pages")  # fmt: skip
    import compileall  # precompiled, as an installed package is (PYTHONDONTWRITEBYTECODE)

    root = Path(__file__).resolve().parents[1]
    for package in ("memgraph", "profiles"):
        compileall.compile_dir(str(root / package), quiet=1)
    common = [w for w in args.common.split(",") if w]
    whole_process(args.out, args.runs, args.since, args.query, common, args.only_common)
    if not args.only_common:
        in_process(args.out, args.iterations, args.since)
    load = os.getloadavg()
    print(f"load avg after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
