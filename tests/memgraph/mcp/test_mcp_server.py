"""The MCP server as a real subprocess, driven by the SDK's stdio client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from memgraph.config import load_settings  # noqa: E402
from memgraph.mcp_server import MemgraphTools  # noqa: E402

Seed = Callable[[Path], dict[str, str]]


def _payload(result: Any) -> Any:
    """Structured content when present, else the JSON text block."""
    if getattr(result, "structured_content", None) is not None:
        data = result.structured_content
        return data.get("result", data) if isinstance(data, dict) else data
    text = result.content[0].text
    return json.loads(text)


async def _drive(env: dict[str, str]) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgraph.cli", "mcp"],
        env={**env, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    out: dict[str, Any] = {}
    async with Client(params, read_timeout_seconds=60) as client:
        tools = await client.list_tools()
        out["tools"] = sorted(t.name for t in tools.tools)
        out["search"] = _payload(await client.call_tool("voice_search", {"query": "backoff"}))
        out["bad_limit"] = await client.call_tool("voice_search", {"query": "x", "limit": 0})
        out["bad_type"] = await client.call_tool("voice_search", {"query": "x", "limit": "many"})
        out["bad_since"] = await client.call_tool(
            "voice_search", {"query": "x", "since": "not-a-date"}
        )
        out["stats"] = _payload(await client.call_tool("voice_stats", {}))
        out["note"] = _payload(await client.call_tool("note", {"text": "from mcp"}))
        out["wake"] = _payload(await client.call_tool("wake", {}))
        out["bad_cut"] = await client.call_tool("context", {"text": "cache", "cut": "nope"})
        out["context"] = _payload(
            await client.call_tool("context", {"text": "cache etag", "cut": "repo", "budget": 300})
        )
        # still alive after every bad call
        out["after"] = _payload(await client.call_tool("voice_search", {"query": "jitter"}))
    return out


def test_server_lists_and_calls_every_tool(tmp_path: Path, seed_store: Seed) -> None:
    env = seed_store(tmp_path)
    out = anyio.run(_drive, env)

    assert out["tools"] == [
        "context",
        "note",
        "propose",
        "remember",
        "voice_search",
        "voice_stats",
        "wake",
    ]
    texts = [hit["text"] for hit in out["search"]]
    assert any("exponential backoff" in t for t in texts)
    assert set(out["search"][0]) >= {
        "timestamp",
        "constellation",
        "session_id",
        "project",
        "text",
        "classification",
        "confidence",
        "voice_page",
    }
    for bad in ("bad_limit", "bad_type", "bad_since", "bad_cut"):
        assert out[bad].is_error, bad
    assert out["stats"]["messages"] >= 10
    assert out["note"]["session_id"] == "mcp-session-1"
    assert out["wake"]["text"] == "from mcp"
    assert out["context"]["tokens_used"] <= 300
    assert any("jitter" in hit["text"] for hit in out["after"])


def test_search_matches_cli_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed_store: Seed
) -> None:
    """voice_search returns the same objects as `memgraph voice --json`."""
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    env = seed_store(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    tools = MemgraphTools(load_settings())
    result = CliRunner().invoke(app, ["voice", "backoff", "--json"])
    assert result.exit_code == 0, result.output
    cli = [json.loads(line) for line in result.output.splitlines() if line.strip()]
    assert tools.voice_search("backoff") == cli


def test_http_refuses_non_loopback() -> None:
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    result = CliRunner().invoke(app, ["mcp", "--http", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "loopback" in result.output
