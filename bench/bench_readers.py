"""Benchmark the transcript readers (hook latency and backfill throughput).

    python bench/bench_readers.py [--corpus ../shared/corpus/real] [--hook-mb 10]
                                  [--backfill-mb 100] [--repeat 5]

Budgets (issue 3): hook on a 10 MB transcript < 300 ms for the whole process;
backfill >= 30 MB/s of JSONL. Test files are built from the real corpus's Claude
Code lines (their natural mix of tool output, assistant turns, progress and
prompts), concatenated until the target size, in a temporary directory. Because
the copies repeat the same prompts, every repeated prompt is a replay suspect
(prefilter rule 16), so the figures include the rule's second pass: a worst case.
Prints one line per figure; results go to notes/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from profiles.voice.readers import ReadOptions, read_transcript  # noqa: E402

MB = 1024 * 1024


def build(corpus: Path, out: Path, size_mb: float) -> Path:
    """Concatenate corpus Claude Code files (whole lines) up to size_mb."""
    sources = sorted((corpus / "claude-code").glob("*.jsonl"))
    target = int(size_mb * MB)
    written = 0
    with out.open("wb") as fh:
        while written < target:
            for src in sources:
                data = src.read_bytes()
                fh.write(data)
                written += len(data)
                if written >= target:
                    break
    return out


def best_of(repeat: int, fn: object) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "real")
    ap.add_argument("--hook-mb", type=float, default=10.0)
    ap.add_argument("--backfill-mb", type=float, default=100.0)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not (args.corpus / "claude-code").is_dir():
        sys.exit(f"corpus not found at {args.corpus}")

    print(f"python {sys.version.split()[0]}, cpus {os.cpu_count()}, load {os.getloadavg()}")
    corpus_files = sorted(
        p for d in ("claude-code", "codex") for p in (args.corpus / d).glob("*.jsonl")
    )
    corpus_bytes = sum(p.stat().st_size for p in corpus_files)

    def read_corpus(fast: bool = True) -> None:
        for p in corpus_files:
            read_transcript(p, ReadOptions(fast_skip=fast))

    for fast in (True, False):
        ts = best_of(args.repeat, lambda fast=fast: read_corpus(fast))
        label = "fast" if fast else "slow (json.loads every line)"
        print(
            f"corpus {len(corpus_files)} files {corpus_bytes / MB:.1f} MB, {label}: "
            f"best {corpus_bytes / MB / min(ts):.0f} MB/s, median "
            f"{corpus_bytes / MB / statistics.median(ts):.0f} MB/s"
        )

    with tempfile.TemporaryDirectory() as tmp:
        hook = build(args.corpus, Path(tmp) / "hook.jsonl", args.hook_mb)
        size = hook.stat().st_size
        ts = best_of(args.repeat, lambda: read_transcript(hook))
        n = len(read_transcript(hook).messages)
        print(
            f"hook file {size / MB:.1f} MB ({n} messages): read_transcript in-process "
            f"best {min(ts) * 1000:.0f} ms, median {statistics.median(ts) * 1000:.0f} ms"
        )
        read = (
            "from profiles.voice.readers import read_transcript; "
            "r = read_transcript(Path(sys.argv[1])); print(len(r.messages))"
        )
        # The second variant stubs the `profiles` and `profiles.voice` package
        # __init__ modules (which import the pydantic documents for the profile
        # registry) to show what the reader itself costs in a hook process.
        stub = (
            "import types; "
            "[sys.modules.setdefault(n, types.ModuleType(n)).__setattr__('__path__', [d]) "
            f"for n, d in (('profiles', {str(ROOT / 'profiles')!r}), "
            f"('profiles.voice', {str(ROOT / 'profiles' / 'voice')!r}))]; "
        )
        variants = (
            ("python start only", "pass"),
            ("start + import, no read", read.split(";")[0]),
            ("start + import + read: the hook budget", read),
            ("same, profiles/__init__ stubbed", stub + read),
        )
        for label, code in variants:
            code = "import sys; from pathlib import Path; " + code
            whole = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-c", code, str(hook)],
                    check=True,
                    cwd=ROOT,
                    capture_output=True,
                )
                whole.append(time.perf_counter() - t0)
            print(
                f"hook file {size / MB:.1f} MB, subprocess [{label}]: "
                f"best {min(whole) * 1000:.0f} ms, median {statistics.median(whole) * 1000:.0f} ms"
            )

        big = build(args.corpus, Path(tmp) / "backfill.jsonl", args.backfill_mb)
        size = big.stat().st_size
        ts = best_of(max(1, args.repeat // 2), lambda: read_transcript(big))
        print(
            f"backfill file {size / MB:.0f} MB: best {size / MB / min(ts):.0f} MB/s, "
            f"median {size / MB / statistics.median(ts):.0f} MB/s"
        )


if __name__ == "__main__":
    main()
