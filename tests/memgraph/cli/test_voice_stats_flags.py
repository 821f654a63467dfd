"""`memgraph voice --stats` with a query or a filter: refused with what to drop. The
filter was silently ignored, so `--stats --project atlas` printed the whole index's
counts as if they were atlas's. Typer and the lean path."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
from _capture_helpers import PROMPTS, claude_records, write_transcript

from memgraph.cli import voice_fast
from memgraph.cli.app import app

runner = CliRunner()


@pytest.fixture
def captured(isolated_env: Path) -> Path:
    path = write_transcript(isolated_env / "t" / "s.jsonl", claude_records(PROMPTS))
    data = {"session_id": "s", "transcript_path": str(path), "cwd": "/nonexistent/atlas"}
    assert runner.invoke(app, ["hook", "session-end"], input=json.dumps(data)).exit_code == 0
    return path


@pytest.mark.parametrize(
    ("args", "drop"),
    [
        (["--project", "atlas"], "--project"),
        (["hook", "--since", "7d"], "the query and --since"),
        (["--recent"], "--recent"),
        (["--session", "s", "--type", "decision"], "--type and --session"),
    ],
)
def test_stats_with_a_filter_says_what_to_drop(
    captured: Path, capsys: pytest.CaptureFixture[str], args: list[str], drop: str
) -> None:
    said = (
        f"Error: --stats describes the whole index, not a query or filter: drop {drop}, "
        "or search without --stats"
    )
    out = runner.invoke(app, ["voice", "--stats", *args])
    assert out.exit_code == 2 and out.stderr.splitlines() == [said]
    assert voice_fast.run(["--stats", *args]) == 2
    assert capsys.readouterr().err.splitlines() == [said]


def test_stats_alone_still_reports(captured: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = runner.invoke(app, ["voice", "--stats", "--json"])
    assert out.exit_code == 0 and json.loads(out.stdout)["messages"] >= 3
    assert voice_fast.run(["--stats", "--json", "--utc"]) == 0
    assert json.loads(capsys.readouterr().out)["messages"] >= 3
