"""`memgraph mcp --http`: a port out of range or already taken is one Error line (it
was uvicorn's traceback, or its own log line and exit 3)."""

from __future__ import annotations

import socket

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_out_of_range_is_a_usage_error(port: str) -> None:
    out = runner.invoke(app, ["mcp", "--http", "--port", port])
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [f"Error: --port must be between 0 and 65535, not {port}"]


def test_a_port_in_use_is_one_error_line(isolated_env: object) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = runner.invoke(app, ["mcp", "--http", "--port", str(port)])
    assert out.exit_code == 1
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"Error: cannot listen on 127.0.0.1 port {port}: ")
    assert line.endswith("; pick another --port")
