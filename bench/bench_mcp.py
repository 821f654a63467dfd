"""Benchmark the MCP server's `voice_search` against the same calls in process.

    python bench/gen_vault.py --out /tmp/mg-bench          # once (~10k pages)
    python bench/bench_mcp.py --out /tmp/mg-bench [--calls 100] [--server lean|sdk|both]

``--calls`` `voice_search` calls over a rotation of queries, each round trip timed, by
two clients of the server started as ``python -m memgraph.cli mcp`` (the lean stdio
loop, ``memgraph/mcp_stdio.py``): the MCP SDK's own ``Client`` (what harnesses use)
and a raw JSON-RPC client (one line written, one line read, blocking pipes: the
transport floor). ``--server sdk`` (or ``both``) also runs the SDK's ``MCPServer`` over
stdio (``memgraph.mcp_server.build_server``, the server before the lean loop) to show
where the per-call cost went. The reference: the same calls in process on an open
store (``search_voice`` + the JSON form the tool returns); also the lean loop's
``handle_line`` called in process (its protocol work, no pipes).

Every side is open at once and each query is made on every side in turn (the order
rotating from query to query), so all sides see the same load at the same moment: on
this shared 2-core machine, sides timed one after another differed by 20-30 % from
load alone. Besides the ratio of the p50s, the median of the paired ratios (each call
over the same query's in-process call, made moments apart): less sensitive to load
bursts and to the mix of cheap and dear queries. Issue 22's budget: MCP p50 <= 1.5x the
in-process p50.

Besides wall time per call, CPU ms per call: the server process's (from
``/proc/<pid>/stat``, summed over the calls) and the client's own
(``time.process_time``). Also the start-up: process start to the ``initialize`` reply
(median of three). Prints the load.
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
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
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
INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "b", "version": "0"},
}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _cpu_ms(pid: int | None) -> float:
    """User + system CPU of a process so far, in ms (0 when /proc cannot say)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _children() -> set[int]:
    """Pids of this process's children."""
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    return pids


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "MEMGRAPH_HOME": str(home), "PYTHONPATH": str(ROOT)}


def _args(i: int) -> dict[str, Any]:
    return {"query": QUERIES[i % len(QUERIES)], "limit": 20}


def _request(i: int) -> bytes:
    params = {"name": "voice_search", "arguments": _args(i)}
    return json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": params})


class Side:
    """One way of making the call: wall ms per timed call, CPU ms summed over them."""

    def __init__(self, name: str, call: Callable[[int], Awaitable[None]], pid: int | None) -> None:
        self.name, self.call, self.pid = name, call, pid
        self.wall: list[float] = []
        self.client_cpu = 0.0
        self.server_cpu = 0.0

    async def timed(self, i: int) -> None:
        cpu0, server0 = time.process_time(), _cpu_ms(self.pid)
        t0 = time.perf_counter()
        await self.call(i)
        elapsed = (time.perf_counter() - t0) * 1000
        if i >= WARM:
            self.wall.append(elapsed)
            self.client_cpu += (time.process_time() - cpu0) * 1000
            self.server_cpu += _cpu_ms(self.pid) - server0

    def line(self, ref: Side | None) -> str:
        p50, n = statistics.median(self.wall), len(self.wall)
        ratio = "               "
        if ref is not None:
            paired = statistics.median(a / b for a, b in zip(self.wall, ref.wall, strict=True))
            ratio = f"  {p50 / statistics.median(ref.wall):.2f}x ({paired:.2f}x)"
        cpu = (
            f"client {self.client_cpu / n:5.2f} ms + server {self.server_cpu / n:5.2f} ms"
            if self.pid
            else f"{self.client_cpu / n:5.2f} ms (one process)"
        )
        return f"{self.name:<28} p50 {p50:6.2f} ms  p95 {_pct(self.wall, 0.95):6.2f} ms{ratio}  cpu/call: {cpu}"


def in_process_side(db: Path, stack: AsyncExitStack) -> Side:
    from memgraph.store import open_store
    from profiles.voice.output import format_json
    from profiles.voice.search import VoiceQuery, search_voice

    store = open_store(db, for_reading=True)
    stack.callback(store.close)

    async def call(i: int) -> None:
        hits = search_voice(store, VoiceQuery(query=QUERIES[i % len(QUERIES)], limit=20))
        [json.loads(format_json(h)) for h in hits]

    return Side("in process, open store", call, None)


def lean_loop_side(home: Path, stack: AsyncExitStack) -> Side:
    from memgraph.config import load_settings
    from memgraph.mcp_stdio import LeanServer

    server = LeanServer(load_settings(home=home))
    stack.callback(server.close)

    async def call(i: int) -> None:
        reply = server.handle_line(_request(i).encode() + b"\n")
        if reply is None or b'"isError":false' not in reply:
            raise SystemExit(f"lean loop: {reply!r:.300}")

    return Side("lean loop in process", call, None)


async def sdk_client_side(home: Path, server: str, stack: AsyncExitStack) -> Side:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    before = _children()
    params = StdioServerParameters(command=sys.executable, args=SERVERS[server], env=_env(home))
    client = await stack.enter_async_context(Client(params, read_timeout_seconds=120))
    (pid,) = _children() - before

    async def call(i: int) -> None:
        result = await client.call_tool("voice_search", _args(i))
        if result.is_error:
            raise SystemExit(f"voice_search failed over MCP: {result.content}")

    return Side(f"{server} server, SDK client", call, pid)


def raw_client_side(home: Path, server: str, stack: AsyncExitStack) -> Side:
    """JSON-RPC by hand over the pipes: the handshake, then one line per call."""
    proc = subprocess.Popen(
        [sys.executable, *SERVERS[server]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(home),
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def ask(line: bytes) -> None:
        stdin.write(line + b"\n")
        stdin.flush()
        reply: dict[str, Any] = json.loads(stdout.readline())
        if "error" in reply or reply.get("result", {}).get("isError"):
            raise SystemExit(f"raw MCP client: {str(reply)[:300]}")

    def close() -> None:
        stdin.close()
        proc.wait(timeout=30)

    stack.callback(close)
    ask(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}).encode())
    stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    async def call(i: int) -> None:
        ask(_request(i).encode())

    return Side(f"{server} server, raw client", call, proc.pid)


async def measure(home: Path, calls: int, servers: tuple[str, ...]) -> list[Side]:
    async with AsyncExitStack() as stack:
        sides = [in_process_side(home / "memgraph.db", stack), lean_loop_side(home, stack)]
        for server in servers:
            sides.append(await sdk_client_side(home, server, stack))
            sides.append(raw_client_side(home, server, stack))
        for i in range(calls + WARM):
            for k in range(len(sides)):  # every side, the first one rotating
                await sides[(i + k) % len(sides)].timed(i)
    return sides


def startup(home: Path, server: str) -> float:
    """ms from starting the server process to its reply to ``initialize``."""
    line = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="What gen_vault.py --out wrote.")
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--server", choices=("lean", "sdk", "both"), default="lean")
    args = ap.parse_args(argv)
    home = args.out / "home"
    if not (home / "memgraph.db").is_file():
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
    sides = anyio.run(measure, home, args.calls, servers)
    print(
        f"voice_search, {args.calls} calls each, interleaved; ratio: p50 / in-process p50 "
        "(in brackets: the median of the per-query ratios, each call / the same query in process)"
    )
    for side in sides:
        print(side.line(None if side is sides[0] else sides[0]))
    print("budget: MCP p50 <= 1.5x in process (issue 22)")
    for server in servers:
        starts = sorted(startup(home, server) for _ in range(3))
        print(f"{server} server: start to initialize reply, median of 3: {starts[1]:.0f} ms")
    load = os.getloadavg()
    print(f"load avg after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
