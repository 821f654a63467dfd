"""The command `hook install` and `sleep --install` write: an absolute path to this
memgraph, even when the venv holding it is not on PATH (s40 audit: a bare
`memgraph` was written, a hook Claude Code and cron could never start)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from profiles.voice.hooks import default_command
from profiles.wakeup.install import default_base


def _venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_script: bool) -> Path:
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text("")
    if with_script:
        script = bin_dir / "memgraph"
        script.write_text("#!/bin/sh\n")
        script.chmod(0o755)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setenv("PATH", str(empty))  # memgraph not on PATH: venv not activated
    return bin_dir


def test_the_script_beside_the_interpreter_is_used_when_not_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = _venv(tmp_path, monkeypatch, with_script=True)
    assert default_base() == str(bin_dir / "memgraph")
    assert default_command() == f"{bin_dir / 'memgraph'} hook session-end"
    settings = tmp_path / "settings.json"
    settings.write_text('{"model": "opus"}')
    result = CliRunner().invoke(app, ["hook", "install", "--settings", str(settings)])
    assert result.exit_code == 0, result.output
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == (
        f"{bin_dir / 'memgraph'} hook session-start"
    )
    assert f"{bin_dir / 'memgraph'} hook session-end" in result.output


def test_without_a_script_the_interpreter_runs_the_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = _venv(tmp_path, monkeypatch, with_script=False)
    assert default_base() == f"{bin_dir / 'python'} -m memgraph.cli"
