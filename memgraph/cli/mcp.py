"""``memgraph mcp``: the MCP server (stdio by default; loopback HTTP on request)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer

from memgraph.errors import UsageError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def mcp(
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP instead of stdio."),
    host: str = typer.Option("127.0.0.1", "--host", help="Loopback address for --http."),
    port: int = typer.Option(8765, "--port", help="Port for --http."),
    home: Path | None = typer.Option(None, "--home", help="Store directory (MEMGRAPH_HOME)."),
    workspace: Path | None = typer.Option(None, "--workspace", help="Where session notes live."),
    print_config: bool = typer.Option(
        False,
        "--print-config",
        help="Print the MCP client entry (JSON, absolute paths) for this memgraph and exit.",
    ),
) -> None:
    """Run the MCP server (tools: voice_search, note, wake, context, remember, propose,
    voice_stats)."""
    if print_config:
        import json

        print(json.dumps({"mcpServers": {"memgraph": client_entry(home, workspace)}}, indent=2))
        return
    from memgraph.config import load_settings

    if http and host not in LOOPBACK:
        # No network listener beyond this machine: the store holds private words.
        raise UsageError(f"--host must be a loopback address ({', '.join(LOOPBACK)}), not {host}")
    if http:
        _check_port(host, port)
    settings = load_settings(home=home, workspace=workspace)
    try:
        if http:
            from memgraph.mcp_server import build_server

            build_server(settings).run("streamable-http", host=host, port=port)
        else:
            # stdio: the lean JSON-RPC loop (no SDK round trip per call; issue 22)
            from memgraph.mcp_stdio import run
            from memgraph.terminal import MCP_NOTICE, stdin_notice

            stdin_notice(MCP_NOTICE)
            run(settings)
    except BaseExceptionGroup as group:  # anyio wraps Ctrl-C in a task group's error
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        raise


def _check_port(host: str, port: int) -> None:
    """A port out of range, or one already taken, is one Error line (it was uvicorn's
    traceback, or its log line and exit 3)."""
    import socket

    from memgraph.errors import ConfigError

    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, not {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    probe = socket.socket(family, socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        probe.bind((host, port))
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on {host} port {port}: {exc.strerror or exc}; pick another --port"
        ) from None
    finally:
        probe.close()


def client_entry(home: Path | None = None, workspace: Path | None = None) -> dict[str, Any]:
    """The ``mcpServers`` entry any MCP client takes: command + args, and the store
    settings given here or in the environment, as absolute paths."""
    from memgraph.config import ENV_PREFIX
    from memgraph.executable import command_line

    argv = [*command_line(), "mcp"]
    env = {
        k: v
        for k, v in os.environ.items()
        if k.startswith(ENV_PREFIX) and k[len(ENV_PREFIX) :].lower() in ("home", "vault", "config")
    }
    for name, value in (("HOME", home), ("WORKSPACE", workspace)):
        if value is not None:
            env[ENV_PREFIX + name] = str(value)
    env = {k: str(Path(v).expanduser().absolute()) for k, v in sorted(env.items())}
    entry: dict[str, Any] = {"command": argv[0], "args": argv[1:]}
    if env:
        entry["env"] = env
    return entry


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
