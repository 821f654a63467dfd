"""Benchmark: whole-process start-up of the everyday commands, beside `python -c pass`.

    python bench/bench_startup.py [--runs 15] [--context-db PATH] [--vault-out DIR]

Each round runs every command once (interleaved, so load hits all alike):
`python -c pass` (the reference), `memgraph --version`, `--help`, `voice --help`,
`wake` and `note` (a store with 20 sessions of two personas, built here through
the CLI), `recall "..."`, `voice fact --limit 10` and `context "..." --cut role` on
a generated vault's store (bench/gen_vault.py, 2,000 pages / ~29k messages, built
into --vault-out on first use and reused), and `context "..." --cut role --budget
1500` on the 100k-node store of bench/bench_context.py (default
/tmp/memgraph-bench-context-100000.db; build it with `python bench/bench_context.py`
first, else that row is skipped). Two import-only rows split `context`'s figure:
the modules its lean process imports, run without doing anything, and of those
pydantic with the document models (what a path that builds documents pays; the
lean `context`/`recall` text paths read plain objects and import neither). No embedder is configured (the lexical-only
paths). Byte-code is compiled first (`compileall`: with PYTHONDONTWRITEBYTECODE=1
every run would otherwise recompile). Prints median / p95 / min wall and median CPU
(user+sys of the child) per command and the load average before and after
(figures go to notes/benchmarks.md).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMGRAPH = Path(sys.executable).parent / "memgraph"
# every module of ours the lean `context --cut role` process imports (a test checks the
# list against a real run)
CONTEXT_MODULES = (
    "memgraph.cli", "memgraph.cli.context_fast", "memgraph.cli.ranked", "context_cut.api",
    "context_cut.ceiling", "context_cut.render", "context_cut.standing", "memgraph.store.sqlite",
    "memgraph.store.postgres", "memgraph.store.sqlite_ext.activity",
    "memgraph.store.sqlite_ext.ledger", "memgraph.store.sqlite_ext.registry",
    "memgraph.store.sqlite_ext.scrub", "memgraph.store.sqlite_ext.session",
    "memgraph.store.sqlite_ext.standing", "memgraph.store.sqlite_ext.terms",
    "memgraph.store.sqlite_ext.voice_index", "profiles.voice.project", "profiles.wakeup.standing",
    "memgraph.terminal",
)  # fmt: skip
# import-only processes run as `memgraph.cli.main` runs a lean path: GC off, no plugin
# scan, no interpreter teardown
_LEAN = "import gc, os; gc.disable(); os.environ.setdefault('PYDANTIC_DISABLE_PLUGINS', '__all__')"
# the import floor of `context`: its modules, without running anything
CONTEXT_IMPORTS = f"{_LEAN}; import {', '.join(CONTEXT_MODULES)}; os._exit(0)"
# pydantic and the document models a context packet is made of: what a read path that
# builds documents pays on top of its own work (the lean context/recall no longer do)
PYDANTIC_FLOOR = f"{_LEAN}; import memgraph.documents.context; os._exit(0)"


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms: user+sys of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[:300]}")
    return elapsed, cpu


def _vault_store(out: Path) -> Path:
    """A generated vault's store (2,000 pages), built once into ``out``."""
    db = out / "home" / "memgraph.db"
    if not db.is_file():
        gen = [sys.executable, str(ROOT / "bench" / "gen_vault.py"), "--out", str(out)]
        subprocess.run([*gen, "--pages", "2000"], check=True)
    return db


def _wake_home(base: Path, env: dict[str, str]) -> None:
    mg = [str(MEMGRAPH)]
    for i in range(20):
        persona = "alice" if i % 2 else "bob"
        sid = f"s{i:02d}"
        for args in (
            ["session", "start", sid, "--persona", persona],
            ["note", f"note {i}: the retry budget is per request", "--session", sid],
        ):
            subprocess.run([*mg, *args], env=env, check=True, capture_output=True)


def _editable_finder() -> bool:
    """True when setuptools' editable-install finder is on sys.meta_path.

    A fresh `pip install -e .` of this flat layout (three top-level packages) installs a
    meta-path finder whose `.pth` imports pathlib, re and fnmatch in EVERY process: +25-30 ms
    on `python -c pass` and every command here (measured 2026-12-05: 50 vs 20 ms). A regular
    install, or `pip install -e . --config-settings editable_mode=compat` (a plain path
    `.pth`), does not pay it, so figures taken with the finder are not a user's start-up.
    """
    probe = "import sys; print(int(any('__editable__' in repr(f) for f in sys.meta_path)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    return done.stdout.strip() == "1"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument(
        "--context-db", type=Path, default=Path("/tmp/memgraph-bench-context-100000.db")
    )
    ap.add_argument(
        "--vault-out", type=Path, default=Path("/tmp/memgraph-bench-startup-vault"),
        help="gen_vault.py --out for the recall/voice/context rows (built when absent)",
    )  # fmt: skip
    args = ap.parse_args()
    for pkg in ("memgraph", "profiles", "context_cut"):
        compileall.compile_dir(ROOT / pkg, quiet=1)
    if _editable_finder():
        print(
            "WARNING: setuptools' editable finder is installed (+25-30 ms per process); "
            "reinstall with `pip install -e . --config-settings editable_mode=compat` "
            "to time what a regular install starts in"
        )
    tmp = Path(tempfile.mkdtemp(prefix="memgraph-bench-startup-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGRAPH_")}
    env.update(
        MEMGRAPH_HOME=str(tmp / "home"),
        MEMGRAPH_VAULT=str(tmp / "vault"),
        MEMGRAPH_WORKSPACE=str(tmp / "ws"),
        MEMGRAPH_CONFIG=str(tmp / "none.toml"),
        COLUMNS="100",
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    _wake_home(tmp, env)
    vault_db = str(_vault_store(args.vault_out))
    mg = str(MEMGRAPH)
    commands: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "memgraph --version": [mg, "--version"],
        "memgraph --help": [mg, "--help"],
        "memgraph voice --help": [mg, "voice", "--help"],
        "memgraph wake": [mg, "wake"],
        "memgraph note": [mg, "note", "the retry budget is per request", "--session", "s00"],
        "memgraph voice fact --limit 10 (2k pages)": [
            mg, "voice", "fact", "--limit", "10", "--home", str(args.vault_out / "home"),
        ],
        "memgraph recall (2k pages)": [mg, "recall", "retry the gateway cache", "--store", vault_db],
        "memgraph context --cut role (2k pages)": [
            mg, "context", "retry the gateway cache", "--cut", "role", "--store", vault_db,
        ],
    }  # fmt: skip
    if args.context_db.is_file():
        commands["memgraph context --cut role --budget 1500 (100k)"] = [
            mg, "context", "retry budget cache", "--cut", "role", "--budget", "1500",
            "--store", str(args.context_db),
        ]  # fmt: skip
    else:
        print(f"(no {args.context_db}: run bench/bench_context.py to add the context row)")
    # Where context's time goes, in the same run: its imports alone, and of those
    # the pydantic floor (pydantic + the document models the cut reads and packs).
    commands["imports only: context's modules"] = [sys.executable, "-c", CONTEXT_IMPORTS]
    commands["imports only: pydantic + documents"] = [sys.executable, "-c", PYDANTIC_FLOOR]
    load0 = os.getloadavg()
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # one warm-up each
        _run(argv, env)
    for _ in range(args.runs):
        for name, argv in commands.items():
            wall, cpu = _run(argv, env)
            times[name].append(wall)
            cpus[name].append(cpu)
    load1 = os.getloadavg()
    ref = statistics.median(times["python -c pass"])
    ref_cpu = statistics.median(cpus["python -c pass"])
    print(
        f"{args.runs} runs, cpus {os.cpu_count()}, load before {load0[0]:.2f}/{load0[1]:.2f}, "
        f"after {load1[0]:.2f}/{load1[1]:.2f}"
    )
    for name, values in times.items():
        values.sort()
        med = statistics.median(values)
        p95 = values[max(0, int(len(values) * 0.95) - 1)]
        cpu = statistics.median(cpus[name])
        print(
            f"{name:50} median {med:6.1f} ms  p95 {p95:6.1f} ms  min {values[0]:6.1f} ms"
            f"  cpu {cpu:6.1f} ms ({cpu / ref_cpu:4.1f}x python's)"
            f"  ({med - ref:+.1f} ms over python -c pass)"
        )


if __name__ == "__main__":
    main()
