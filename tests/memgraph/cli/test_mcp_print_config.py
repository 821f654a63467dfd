"""`memgraph mcp --print-config`: a client entry with absolute paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


def test_print_config_is_json_with_absolute_paths(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(isolated_env)
    monkeypatch.setenv("MEMGRAPH_HOME", "relative-home")
    result = runner.invoke(app, ["mcp", "--print-config", "--workspace", "ws"])
    assert result.exit_code == 0, result.output
    entry = json.loads(result.stdout)["mcpServers"]["memgraph"]
    command = Path(entry["command"])
    assert command.is_absolute() and command.exists()
    assert entry["args"][-1] == "mcp"
    assert entry["env"]["MEMGRAPH_HOME"] == str(isolated_env / "relative-home")
    assert entry["env"]["MEMGRAPH_WORKSPACE"] == str(isolated_env / "ws")
    assert entry["env"]["MEMGRAPH_VAULT"] == str(isolated_env / "vault")


def test_the_printed_command_runs_this_memgraph(isolated_env: Path) -> None:
    result = runner.invoke(app, ["mcp", "--print-config"])
    entry = json.loads(result.stdout)["mcpServers"]["memgraph"]
    argv = [entry["command"], *entry["args"][:-1], "--version"]
    done = subprocess.run(argv, capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("memgraph ")
    assert sys.executable  # the entry never depends on the client's PATH
