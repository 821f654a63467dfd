"""``memgraph mcp``: the MCP server (stdio by default; loopback HTTP on request)."""

from __future__ import annotations

from pathlib import Path

import typer

from memgraph.errors import UsageError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def mcp(
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP instead of stdio."),
    host: str = typer.Option("127.0.0.1", "--host", help="Loopback address for --http."),
    port: int = typer.Option(8765, "--port", help="Port for --http."),
    home: Path | None = typer.Option(None, "--home", help="Store directory (MEMGRAPH_HOME)."),
    workspace: Path | None = typer.Option(None, "--workspace", help="Where session notes live."),
) -> None:
    """Run the MCP server (tools: voice_search, note, wake, context, voice_stats)."""
    from memgraph.config import load_settings
    from memgraph.mcp_server import build_server, run_stdio

    if http and host not in LOOPBACK:
        # No network listener beyond this machine: the store holds private words.
        raise UsageError(f"--host must be a loopback address ({', '.join(LOOPBACK)}), not {host}")
    settings = load_settings(home=home, workspace=workspace)
    server = build_server(settings)
    try:
        if http:
            server.run("streamable-http", host=host, port=port)
        else:
            from memgraph.terminal import MCP_NOTICE, stdin_notice

            stdin_notice(MCP_NOTICE)
            run_stdio(server)
    except BaseExceptionGroup as group:  # anyio wraps Ctrl-C in a task group's error
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        raise


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
