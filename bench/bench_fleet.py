"""Fleet benchmark: the SQLite file and a PostgreSQL server side by side, same data, one run.

    python bench/bench_fleet.py                       # a throwaway local server (PG binaries)
    python bench/bench_fleet.py --url postgresql://u@host/db_for_bench   # an existing, empty db
    python bench/bench_fleet.py --nodes 20000 --pages 10000 --mb 10 --writers 16

Figures (each for sqlite and postgres, in this order, alternating where it matters):

- bulk upsert: ``--nodes`` component nodes in one patch through ``apply_patch``
  (validation, receipts, text index in the same transaction): nodes/s.
- voice search on ``--pages`` sessions (``gen_vault.py``'s generator; the
  PostgreSQL store is filled by ``snapshot export | import`` of the SQLite one,
  which is also the migration path, timed): p50 of the library query
  (``indexes(store).voice.search``) over a few query shapes, and p50 of the whole
  process ``memgraph voice QUERY`` (a fresh interpreter each run; ``psycopg``: the
  PostgreSQL lean path through psycopg instead of the libpq client, for reference).
- hook capture of a ``--mb`` MB transcript: ``memgraph hook session-end`` as
  Claude Code runs it (JSON on stdin, a fresh process), median of ``--runs``.
- ``--writers`` concurrent hook writers (separate processes), each capturing
  its own small transcripts back to back: sustained captures/s, and the store
  must then hold every message (0 lost) with one receipt per node.

The machine is shared: every figure line carries the load average, and the
two stores are measured in the same run on the same data so their ratio is
what to read. Targets (issue 16): PostgreSQL search <= 2x SQLite's time; bulk
>= 10k nodes/s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

QUERIES = ("fact", "deploy config", '"page session"', "merg*", "release notes window")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {os.cpu_count()} cpus"


def cli() -> list[str]:
    exe = Path(sys.executable).with_name("memgraph")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "memgraph.cli"]


def p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# -- bulk upsert ---------------------------------------------------------------------


def bulk(locations: dict[str, str], n: int) -> None:
    from bench_store import make_nodes

    from memgraph.documents import UpsertNode
    from memgraph.engine import apply_patch, new_patch
    from memgraph.store import open_store

    nodes = make_nodes(n, random.Random(20260101))
    for name, loc in locations.items():
        store = open_store(loc)
        try:
            server = _backend_pid(store)
            cpu0, srv0 = time.process_time(), _proc_cpu(server)
            t = time.perf_counter()
            apply_patch(store, new_patch([UpsertNode(node=x) for x in nodes], proposer="bench"))
            dt = time.perf_counter() - t
            cpu = time.process_time() - cpu0 + _proc_cpu(server) - srv0
            assert store.counts()["nodes"] >= n
        finally:
            store.close()
        print(
            f"bulk upsert {name:8s}: {n / dt:8,.0f} nodes/s wall, {n / cpu:8,.0f} nodes per cpu-s "
            f"(client + server process; {n} nodes, {dt:.1f} s; {load()})"
        )


def _backend_pid(store: Any) -> int | None:
    """The PostgreSQL backend serving ``store`` (its CPU is part of each write)."""
    conn = getattr(store, "conn", None)
    if conn is None or not hasattr(conn, "info"):
        return None
    return int(conn.info.backend_pid)


def _proc_cpu(pid: int | None) -> float:
    """utime + stime of a local process in seconds (0 when it is not readable)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _reaped_cpu(pid: int | None) -> float:
    """cutime + cstime of a local process in seconds: the CPU of its children that
    have exited (the postmaster's: every backend of a finished connection)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def _cpu_ms(cpu0: float, server0: float, server: int | None) -> float:
    """Client + server-backend CPU since (cpu0, server0), in ms (clock ticks: coarse)."""
    return (time.process_time() - cpu0 + _proc_cpu(server) - server0) * 1000


# -- voice search --------------------------------------------------------------------


def build_vault(root: Path, pages: int, pg_url: str) -> None:
    import gen_vault

    from memgraph.store import open_store

    if gen_vault.main(["--out", str(root), "--pages", str(pages)]) != 0:
        raise SystemExit("gen_vault failed")
    sqlite = open_store(root / "home" / "memgraph.db")
    t = time.perf_counter()
    snap = sqlite.export_snapshot()
    sqlite.close()
    pg = open_store(pg_url)
    pg.import_snapshot(snap)
    pg.close()
    dt = time.perf_counter() - t
    print(
        f"migrate sqlite -> postgres (snapshot export | import): {len(snap.nodes)} nodes, "
        f"{len(snap.receipts)} receipts in {dt:.1f} s ({load()})"
    )


def search_in_process(locations: dict[str, str], iterations: int) -> None:
    from memgraph.store import open_store
    from memgraph.store.interfaces import indexes
    from memgraph.store.voice_rows import VoiceSearch

    stores = {name: open_store(loc) for name, loc in locations.items()}
    servers = {name: _backend_pid(store) for name, store in stores.items()}
    try:
        for q in QUERIES:
            request = VoiceSearch(query=q, limit=20)
            times: dict[str, list[float]] = {name: [] for name in stores}
            cpu: dict[str, list[float]] = {name: [] for name in stores}
            hits: dict[str, list[str]] = {}
            for _ in range(iterations):
                for name, store in stores.items():  # alternate: same load for both
                    c, srv, t = time.process_time(), _proc_cpu(servers[name]), time.perf_counter()
                    rows = indexes(store).voice.search(request)
                    times[name].append((time.perf_counter() - t) * 1000)
                    cpu[name].append(_cpu_ms(c, srv, servers[name]))
                    hits[name] = [r.node_id for r in rows]
            same = len({tuple(h) for h in hits.values()}) == 1
            print(
                f"voice search in-process {q!r:24s}: "
                + "  ".join(
                    f"{n} p50 {p50(t):6.2f} ms (cpu mean {statistics.fmean(cpu[n]):5.1f})"
                    for n, t in times.items()
                )
                + f"  ratio {p50(times['postgres']) / p50(times['sqlite']):.2f}x"
                + f"  hits {len(hits['sqlite'])} same-order {same} ({load()})"
            )
    finally:
        for store in stores.values():
            store.close()


TURN_QUERIES = ((("deploy", False), ("config", False)), (("merg", True), ("release", False)))


def turns_in_process(locations: dict[str, str], iterations: int) -> None:
    """Turn ranking (``TurnIndex.rank_any``, context_cut.turns) on both stores."""
    from memgraph.store import open_store
    from memgraph.store.interfaces import indexes
    from memgraph.store.voice_rows import VoiceScope

    stores = {name: open_store(loc) for name, loc in locations.items()}
    servers = {name: _backend_pid(store) for name, store in stores.items()}
    try:
        for words in TURN_QUERIES:
            times: dict[str, list[float]] = {name: [] for name in stores}
            cpu: dict[str, list[float]] = {name: [] for name in stores}
            hits: dict[str, list[str]] = {}
            for _ in range(iterations):
                for name, store in stores.items():
                    turns = indexes(store).turns
                    assert turns is not None, name
                    c, srv, t = time.process_time(), _proc_cpu(servers[name]), time.perf_counter()
                    found = turns.rank_any(list(words), VoiceScope(), 20)
                    times[name].append((time.perf_counter() - t) * 1000)
                    cpu[name].append(_cpu_ms(c, srv, servers[name]))
                    hits[name] = [f"{score:.9f}" for _, score in found]
            # the same scores in the same order (ids of equal scores may differ: SQLite
            # leaves ties in index order, and an imported copy has another index order)
            same = len({tuple(h) for h in hits.values()}) == 1
            label = " ".join(w + ("*" if p else "") for w, p in words)
            print(
                f"turn ranking in-process {label!r:22s}: "
                + "  ".join(
                    f"{n} p50 {p50(t):6.2f} ms (cpu mean {statistics.fmean(cpu[n]):5.1f})"
                    for n, t in times.items()
                )
                + f"  ratio {p50(times['postgres']) / p50(times['sqlite']):.2f}x"
                + f"  hits {len(hits['sqlite'])} same-scores {same} ({load()})"
            )
    finally:
        for store in stores.values():
            store.close()


def search_whole_process(
    envs: dict[str, dict[str, str]], runs: int, postmaster: int | None = None
) -> None:
    """p50 wall of ``memgraph voice QUERY`` per store, with the client process's CPU
    and (PostgreSQL, a local server) the CPU of the backend its connection ran
    (the postmaster's reaped children: background workers add a little)."""
    times: dict[str, list[float]] = {name: [] for name in envs}
    cpu: dict[str, list[float]] = {name: [] for name in envs}
    server: dict[str, list[float]] = {name: [] for name in envs}
    for _ in range(runs):
        for name, env in envs.items():
            reaped = _reaped_cpu(postmaster)
            before, t = os.times(), time.perf_counter()
            proc = subprocess.run(
                [*cli(), "voice", QUERIES[0]], env=env, capture_output=True, check=False
            )
            times[name].append((time.perf_counter() - t) * 1000)
            after = os.times()
            spent = after.children_user + after.children_system
            cpu[name].append((spent - before.children_user - before.children_system) * 1000)
            server[name].append((_reaped_cpu(postmaster) - reaped) * 1000)
            if proc.returncode != 0:
                raise SystemExit(f"memgraph voice ({name}) failed: {proc.stderr.decode()[-500:]}")
    print(
        f"voice search whole process {QUERIES[0]!r}: "
        + "  ".join(
            f"{n} p50 {p50(t):6.0f} ms (cpu mean {statistics.fmean(cpu[n]):4.0f}"
            + (f" + server {statistics.fmean(server[n]):3.0f}" if n != "sqlite" else "")
            + ")"
            for n, t in times.items()
        )
        + f"  ratio {p50(times['postgres']) / p50(times['sqlite']):.2f}x ({runs} runs; {load()};"
        " cpu: the client process + the server backend, clock ticks)"
    )


# -- hook capture ----------------------------------------------------------------------


def hook_payload(transcript: Path) -> bytes:
    return json.dumps(
        {
            "session_id": transcript.stem,
            "transcript_path": str(transcript),
            "cwd": "/home/u/work/atlas",
            "hook_event_name": "SessionEnd",
            "reason": "prompt_input_exit",
        }
    ).encode()


def run_hook(transcript: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(
        [*cli(), "hook", "session-end"],
        input=hook_payload(transcript),
        env=env,
        capture_output=True,
        check=False,
    )
    dt = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"hook failed: {proc.stderr.decode()[-500:]}")
    return dt


def hook_capture(root: Path, envs: dict[str, dict[str, str]], mb: float, runs: int) -> None:
    from bench_hook import generate

    files = []
    for i in range(runs + 1):
        path = root / "big" / f"{uuid.UUID(int=i + 1, version=4)}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        size = generate(path, mb, 100, seed=i)
        files.append(path)
    times: dict[str, list[float]] = {name: [] for name in envs}
    for env in envs.values():
        run_hook(files[0], env)  # creates/migrates the store: not what a hook pays
    for f in files[1:]:
        for name, env in envs.items():
            times[name].append(run_hook(f, env) * 1000)
    print(
        f"hook capture {size / 1e6:.1f} MB transcript: "
        + "  ".join(f"{n} median {p50(t):6.0f} ms" for n, t in times.items())
        + f" ({runs} runs each; {load()})"
    )


def concurrent_writers(
    root: Path,
    envs: dict[str, dict[str, str]],
    writers: int,
    per_writer: int,
    count_messages: Callable[[str], int],
) -> None:
    from bench_hook import generate

    for name, env in envs.items():
        files = []
        for w in range(writers):
            for i in range(per_writer):
                path = root / f"w-{name}" / f"{uuid.UUID(int=(w + 1) * 1000 + i, version=4)}.jsonl"
                path.parent.mkdir(parents=True, exist_ok=True)
                generate(path, 0.05, 8, seed=w * 1000 + i)
                files.append(path)
        run_hook(files[0], env)  # the store exists before the clock starts
        rest = files[1:]
        chunks = [rest[w::writers] for w in range(writers)]
        t = time.perf_counter()
        with ThreadPoolExecutor(writers) as pool:  # each thread drives one hook process at a time
            list(pool.map(lambda chunk, e=env: [run_hook(f, e) for f in chunk], chunks))
        dt = time.perf_counter() - t
        stored = count_messages(name)
        print(
            f"{writers} concurrent hook writers {name:8s}: {len(rest) / dt:6.1f} captures/s "
            f"({len(rest)} captures in {dt:.1f} s; {stored} messages stored, "
            f"{8 * len(files)} expected; {load()})"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="an empty PostgreSQL database (default: a throwaway server)")
    ap.add_argument("--nodes", type=int, default=20_000)
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--mb", type=float, default=10.0)
    ap.add_argument("--writers", type=int, default=16)
    ap.add_argument("--per-writer", type=int, default=4)
    ap.add_argument("--skip", default="", help="comma list of: bulk,search,hook,writers")
    ap.add_argument(
        "--search-stores",
        metavar="SQLITE_FILE,PG_URL",
        help="search figures on these two stores holding the same data (no vault build)",
    )
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))

    server: Any = None
    if args.url:
        urls = [args.url] * 4
    else:
        from memgraph.store.postgres.server import LocalServer

        # durability as SQLite's WAL + synchronous=NORMAL: commits are not fsynced
        server = LocalServer.start(settings={"synchronous_commit": "off"})
        urls = [server.create_database() for _ in range(4)]
    print(f"python {sys.version.split()[0]}; postgres {urls[0].split('@')[-1]}; {load()}")
    try:
        with tempfile.TemporaryDirectory(prefix="mg-fleet-") as tmp:
            root = Path(tmp)

            def env(name: str, part: str, url: str) -> dict[str, str]:
                e = {
                    **os.environ,
                    "MEMGRAPH_HOME": str(root / part / "home"),
                    "MEMGRAPH_VAULT": str(root / part / f"vault-{name}"),
                    "MEMGRAPH_CONFIG": str(root / "none.toml"),
                    "HOME": str(root / "userhome"),
                }
                e.pop("MEMGRAPH_STORE", None)
                if name == "postgres":
                    e["MEMGRAPH_STORE"] = url
                return e

            if "bulk" not in skip:
                bulk({"sqlite": str(root / "bulk.db"), "postgres": urls[0]}, args.nodes)
            if "search" not in skip:
                sqlite_file, pg_url = str(root / "search" / "home" / "memgraph.db"), urls[1]
                if args.search_stores:
                    sqlite_file, pg_url = args.search_stores.split(",", 1)
                else:
                    build_vault(root / "search", args.pages, pg_url)
                pair = {"sqlite": sqlite_file, "postgres": pg_url}
                search_in_process(pair, args.iterations)
                envs = {n: env(n, "search", pg_url) for n in ("sqlite", "postgres")}
                envs["sqlite"]["MEMGRAPH_HOME"] = str(Path(sqlite_file).parent)
                # the lean PostgreSQL path through psycopg instead of libpq (reference)
                envs["psycopg"] = {**envs["postgres"], "MEMGRAPH_PG_CLIENT": "psycopg"}
                postmaster = None
                if server is not None:
                    pidfile = server.datadir / "postmaster.pid"
                    postmaster = int(pidfile.read_text().split()[0])
                search_whole_process(envs, args.runs * 3, postmaster)
                turns_in_process(pair, args.iterations)
            if "hook" not in skip:
                hook_capture(
                    root, {n: env(n, "hook", urls[2]) for n in ("sqlite", "postgres")}, args.mb,
                    args.runs,
                )  # fmt: skip
            if "writers" not in skip:
                envs = {n: env(n, "writers", urls[3]) for n in ("sqlite", "postgres")}

                def count(name: str) -> int:
                    from memgraph.store import open_store

                    loc = urls[3] if name == "postgres" else str(root / "writers/home/memgraph.db")
                    store = open_store(loc)
                    try:
                        return sum(1 for _ in store.iter_nodes("voice", "message"))
                    finally:
                        store.close()

                concurrent_writers(root, envs, args.writers, args.per_writer, count)
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
