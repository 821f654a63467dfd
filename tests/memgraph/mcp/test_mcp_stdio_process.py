"""`memgraph mcp` (the lean stdio loop) as a real process: a raw JSON-RPC client over
the pipes, and the MCP SDK's own client in both of its connect modes."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from memgraph.config import load_settings
from memgraph.mcp_server import MemgraphTools

Seed = Callable[[Path], dict[str, str]]
WAIT = 60.0  # seconds before a missing reply fails the test (a hang, not a timing)


class Raw:
    """One line out, one line back, over the server's pipes."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **env, "PYTHONPATH": os.pathsep.join(sys.path)},
        )

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], WAIT)
        if not ready:
            pytest.fail("no reply: the server hangs")
        line = self.proc.stdout.readline()
        assert line.endswith(b"\n"), line
        out: dict[str, Any] = json.loads(line)
        return out

    def ask(self, message: dict[str, Any] | bytes) -> dict[str, Any]:
        self.send(message if isinstance(message, bytes) else json.dumps(message).encode())
        return self.reply()

    def finish(self) -> tuple[int, bytes, bytes]:
        out, err = self.proc.communicate(timeout=WAIT)
        return self.proc.returncode, out, err


def _call(rid: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def test_raw_client_session_and_hostile_lines(tmp_path: Path, seed_store: Seed) -> None:
    env = seed_store(tmp_path)
    raw = Raw([sys.executable, "-m", "memgraph.cli", "mcp"], env)
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw"}}
    first = raw.ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
    assert first["result"]["protocolVersion"] == "2025-06-18"
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    names = [t["name"] for t in raw.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})[
        "result"]["tools"]]  # fmt: skip
    assert "voice_search" in names and "voice_stats" in names
    hostile = [
        b"{not json",
        b"\x00\x01\x02",
        b"[" * 50_000,
        b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"voice_stats"}}',
        b'{"jsonrpc":"2.0","id":[1],"method":"ping"}',
        b'{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage"}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"voice_stats"}',
    ]
    for line in hostile:
        reply = raw.ask(line)
        assert reply["error"]["code"] in (-32700, -32600, -32601, -32602), (line[:40], reply)
    bad = raw.ask(_call(4, "voice_search", {"query": "a\ud800b"}))
    assert bad["result"]["isError"] and "'query'" in bad["result"]["content"][0]["text"]
    hits = raw.ask(_call(5, "voice_search", {"query": "backoff"}))["result"]
    assert hits["isError"] is False
    expected = MemgraphTools(load_settings(home=Path(env["MEMGRAPH_HOME"]))).voice_search("backoff")
    assert hits["structuredContent"] == {"result": expected}
    code, rest, _ = raw.finish()  # stdin closed: the server ends, cleanly
    assert code == 0 and rest == b""


STRAY = """
import sys
from memgraph.config import load_settings
from memgraph.mcp_server import MemgraphTools
from memgraph.mcp_stdio import run

def noisy(self):
    print("stray output from a tool")
    sys.stdout.flush()
    return {"ok": True}

MemgraphTools.voice_stats = noisy
run(load_settings())
"""


def test_stray_prints_go_to_stderr_not_the_wire(tmp_path: Path, seed_store: Seed) -> None:
    env = seed_store(tmp_path)
    raw = Raw([sys.executable, "-c", STRAY], env)
    out = raw.ask(_call(1, "voice_stats", {}))
    assert out["result"]["structuredContent"] == {"ok": True}
    assert raw.ask({"jsonrpc": "2.0", "id": 2, "method": "ping"})["result"] == {}
    code, rest, err = raw.finish()
    assert code == 0 and rest == b""
    assert b"stray output from a tool" in err


async def _sdk_session(env: dict[str, str], mode: str) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.exceptions import MCPError

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgraph.cli", "mcp"],
        env={**env, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    out: dict[str, Any] = {}
    async with Client(params, read_timeout_seconds=WAIT, mode=mode) as client:
        out["version"] = client.protocol_version
        out["tools"] = [t.name for t in (await client.list_tools()).tools]
        out["search"] = await client.call_tool("voice_search", {"query": "backoff", "limit": 3})
        out["bad"] = await client.call_tool("voice_search", {"query": "x", "limit": "many"})
        try:
            await client.call_tool("no_such_tool", {})
        except MCPError as exc:
            out["unknown"] = exc.error.code
        out["after"] = await client.call_tool("voice_stats", {})
    return out


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_talks_to_the_lean_loop(tmp_path: Path, seed_store: Seed, mode: str) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    env = seed_store(tmp_path)
    out = anyio.run(_sdk_session, env, mode)
    # auto asks server/discover first, gets -32601, and falls back to initialize
    assert out["version"] == "2025-11-25"
    assert out["tools"][0] == "voice_search" and len(out["tools"]) == 7
    tools = MemgraphTools(load_settings(home=Path(env["MEMGRAPH_HOME"])))
    assert out["search"].is_error is False
    assert out["search"].structured_content == {"result": tools.voice_search("backoff", limit=3)}
    assert out["bad"].is_error is True
    assert "'limit'" in out["bad"].content[0].text
    assert out["unknown"] == -32602
    assert out["after"].structured_content["messages"] >= 10


def test_the_stdio_command_imports_no_sdk(tmp_path: Path, seed_store: Seed) -> None:
    """`memgraph mcp` answers without the MCP SDK, anyio or the SDK's protocol models
    (their import was ~600 ms of the SDK server's start-up, notes/benchmarks.md k22m)."""
    env = seed_store(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memgraph.cli", "mcp"],
        input=json.dumps(_call(1, "voice_search", {"query": "backoff"})).encode() + b"\n",
        capture_output=True,
        env={**os.environ, **env, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=WAIT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["result"]["isError"] is False
    imported = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "memgraph" in imported  # the listing is real
    assert not imported & {"mcp", "mcp_types", "anyio", "httpx", "starlette", "uvicorn"}
