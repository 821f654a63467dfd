"""Benchmark the MCP server's `voice_search` against the same calls in process.

    python bench/gen_vault.py --out /tmp/mg-bench          # once (~10k pages)
    python bench/bench_mcp.py --out /tmp/mg-bench [--calls 100] [--server lean|sdk|both]

``--calls`` `voice_search` calls over a rotation of queries, each round trip timed, by
two clients of the server started as ``python -m memgraph.cli mcp`` (the lean stdio
loop, ``memgraph/mcp_stdio.py``): the MCP SDK's own ``Client`` (what harnesses use)
and a raw JSON-RPC client (one line written, one line read, blocking pipes: the
transport floor). ``--server sdk`` (or ``both``) also runs the SDK's ``MCPServer`` over
stdio (``memgraph.mcp_server.build_server``, the server before the lean loop) to show
where the per-call cost went. The reference, in the same run: the same calls in
process on an open store (``search_voice`` + the JSON form the tool returns), and
the lean loop's ``handle_line`` called in process (its protocol work, no pipes).
Issue 22's budget: MCP p50 <= 1.5x the in-process p50.

Also the start-up: process start to the ``initialize`` reply (median of three).
Besides wall time per call, CPU ms per call: the server process's (from
``/proc/<pid>/stat``) and the client's own (``time.process_time``). Prints the load.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ("fact", "schema migration", "deploy", "cache", "error", "retry", "index", "token")
WARM = 5  # the first calls warm the page cache and the imports; not timed
SERVERS = {
    "lean": ["-m", "memgraph.cli", "mcp"],
    "sdk": [
        "-c",
        "from memgraph.config import load_settings\n"
        "from memgraph.mcp_server import build_server\n"
        "from memgraph.mcp_wire import run_stdio\n"
        "run_stdio(build_server(load_settings()))",
    ],
}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _cpu_ms(pid: int) -> float:
    """User + system CPU of a process so far, in ms (0 when /proc cannot say)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _children() -> list[int]:
    """Pids of this process's children (the SDK client's server process)."""
    pids: list[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return pids


class Run:
    """Wall ms per call, and CPU ms per call of the server and of the client."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.server_cpu = 0.0
        self.client_cpu = 0.0
        self.calls = 0

    def add(self, other: Run) -> None:
        self.wall += other.wall
        self.server_cpu += other.server_cpu
        self.client_cpu += other.client_cpu
        self.calls += other.calls


def in_process(db: Path, calls: int) -> Run:
    from memgraph.store import open_store
    from profiles.voice.output import format_json
    from profiles.voice.search import VoiceQuery, search_voice

    run = Run()
    store = open_store(db, for_reading=True)
    try:
        for i in range(calls + WARM):
            if i == WARM:
                cpu0 = time.process_time()
            t0 = time.perf_counter()
            hits = search_voice(store, VoiceQuery(query=QUERIES[i % len(QUERIES)], limit=20))
            [json.loads(format_json(h)) for h in hits]
            if i >= WARM:
                run.wall.append((time.perf_counter() - t0) * 1000)
        run.client_cpu = (time.process_time() - cpu0) * 1000
    finally:
        store.close()
    run.calls = calls
    return run


def lean_in_process(home: Path, calls: int) -> Run:
    """The lean loop's ``handle_line`` on request lines, no pipes: the protocol's own
    cost (parse, argument checks, result JSON) on top of the tool."""
    from memgraph.config import load_settings
    from memgraph.mcp_stdio import LeanServer

    run = Run()
    server = LeanServer(load_settings(home=home))
    try:
        for i in range(calls + WARM):
            args = {"query": QUERIES[i % len(QUERIES)], "limit": 20}
            params = {"name": "voice_search", "arguments": args}
            line = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params})
            if i == WARM:
                cpu0 = time.process_time()
            t0 = time.perf_counter()
            reply = server.handle_line(line.encode() + b"\n")
            if i >= WARM:
                run.wall.append((time.perf_counter() - t0) * 1000)
            if reply is None or b'"isError":false' not in reply:
                raise SystemExit(f"lean loop: {reply!r:.300}")
        run.client_cpu = (time.process_time() - cpu0) * 1000
    finally:
        server.close()
    run.calls = calls
    return run


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "MEMGRAPH_HOME": str(home), "PYTHONPATH": str(ROOT)}


async def sdk_client(home: Path, calls: int, server: str) -> Run:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=SERVERS[server], env=_env(home))
    run = Run()
    async with Client(params, read_timeout_seconds=120) as client:
        (pid,) = _children()
        for i in range(calls + WARM):
            if i == WARM:
                cpu0, server0 = time.process_time(), _cpu_ms(pid)
            t0 = time.perf_counter()
            result = await client.call_tool(
                "voice_search", {"query": QUERIES[i % len(QUERIES)], "limit": 20}
            )
            elapsed = (time.perf_counter() - t0) * 1000
            if result.is_error:
                raise SystemExit(f"voice_search failed over MCP: {result.content}")
            if i >= WARM:
                run.wall.append(elapsed)
        run.client_cpu = (time.process_time() - cpu0) * 1000
        run.server_cpu = _cpu_ms(pid) - server0
    run.calls = calls
    return run


def raw_client(home: Path, calls: int, server: str) -> Run:
    """JSON-RPC by hand over the pipes: the legacy handshake, then one line per call."""
    proc = subprocess.Popen(
        [sys.executable, *SERVERS[server]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(home),
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()
        reply: dict[str, Any] = json.loads(stdout.readline())
        if "error" in reply or reply.get("result", {}).get("isError"):
            raise SystemExit(f"raw MCP client: {str(reply)[:300]}")
        return reply

    run = Run()
    try:
        info = {"name": "bench-raw", "version": "0"}
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info}
        ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        for i in range(calls + WARM):
            if i == WARM:
                cpu0, server0 = time.process_time(), _cpu_ms(proc.pid)
            args = {"query": QUERIES[i % len(QUERIES)], "limit": 20}
            t0 = time.perf_counter()
            ask(
                {
                    "jsonrpc": "2.0",
                    "id": i + 1,
                    "method": "tools/call",
                    "params": {"name": "voice_search", "arguments": args},
                }
            )
            if i >= WARM:
                run.wall.append((time.perf_counter() - t0) * 1000)
        run.client_cpu = (time.process_time() - cpu0) * 1000
        run.server_cpu = _cpu_ms(proc.pid) - server0
    finally:
        stdin.close()
        proc.wait(timeout=30)
    run.calls = calls
    return run


def startup(home: Path, server: str) -> float:
    """ms from starting the server process to its reply to ``initialize``."""
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "0"},
    }
    line = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *SERVERS[server]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(home),
    )
    out, _ = proc.communicate(line.encode() + b"\n", timeout=120)
    elapsed = (time.perf_counter() - t0) * 1000
    if b'"protocolVersion"' not in out:
        raise SystemExit(f"{server} server: no initialize reply: {out[:300]!r}")
    return elapsed


def _line(name: str, run: Run, ref: float | None) -> str:
    p50 = statistics.median(run.wall)
    ratio = f"  {p50 / ref:.2f}x" if ref else "       "
    cpu = (
        f"client {run.client_cpu / run.calls:5.2f} ms + server {run.server_cpu / run.calls:5.2f} ms"
        if run.server_cpu
        else f"{run.client_cpu / run.calls:5.2f} ms (one process)"
    )
    return (
        f"{name:<28} p50 {p50:6.2f} ms  p95 {_pct(run.wall, 0.95):6.2f} ms{ratio}  cpu/call: {cpu}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="What gen_vault.py --out wrote.")
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--server", choices=("lean", "sdk", "both"), default="lean")
    ap.add_argument("--rounds", type=int, default=2, help="Alternations of all sides.")
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
    servers = ("lean", "sdk") if args.server == "both" else (args.server,)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cpus, load avg {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    runs: dict[str, Run] = {"in process, open store": Run(), "lean loop in process": Run()}
    for server in servers:
        runs[f"{server} server, SDK client"] = Run()
        runs[f"{server} server, raw client"] = Run()
    share = max(1, args.calls // args.rounds)
    # alternate every side, round by round, so all see the same load
    for _ in range(args.rounds):
        runs["in process, open store"].add(in_process(db, share))
        runs["lean loop in process"].add(lean_in_process(home, share))
        for server in servers:
            runs[f"{server} server, SDK client"].add(anyio.run(sdk_client, home, share, server))
            runs[f"{server} server, raw client"].add(raw_client(home, share, server))
    ref = statistics.median(runs["in process, open store"].wall)
    print(f"voice_search, {share * args.rounds} calls each (ratio: p50 / in-process p50)")
    for name, run in runs.items():
        print(_line(name, run, None if name.startswith("in process,") else ref))
    print("budget: MCP p50 <= 1.5x in process (issue 22)")
    for server in servers:
        starts = sorted(startup(home, server) for _ in range(3))
        print(f"{server} server: start to initialize reply, median of 3: {starts[1]:.0f} ms")
    load = os.getloadavg()
    print(f"load avg after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
