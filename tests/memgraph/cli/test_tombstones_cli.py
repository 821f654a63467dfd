"""Forgotten messages (tombstones) stay out of `memgraph voice` and `memgraph recall`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from memgraph.cli.app import app

sys.path.insert(0, str(Path(__file__).parents[2] / "profiles" / "voice"))
from _capture_helpers import SID, claude_records, write_transcript

runner = CliRunner()
PROMPTS = ["the launch phrase is quokka-marmalade", "fix the retry loop", "add jitter", "ok go"]


def _captured_then_forgotten(env: Path) -> None:
    path = write_transcript(env / "transcripts" / f"{SID}.jsonl", claude_records(PROMPTS))
    payload = json.dumps({"session_id": SID, "transcript_path": str(path), "cwd": "/nonexistent"})
    hook = runner.invoke(app, ["hook", "session-end"], input=payload)
    assert hook.exit_code == 0, hook.output
    gone = runner.invoke(app, ["forget", "--query", "quokka", "--yes"])
    assert gone.exit_code == 0, gone.output


def test_voice_search_and_listing_leave_tombstones_out(isolated_env: Path) -> None:
    _captured_then_forgotten(isolated_env)
    hit = runner.invoke(app, ["voice", "forgotten"])
    assert hit.exit_code == 0, hit.output
    assert "[forgotten]" not in hit.stdout and hit.stdout == ""
    assert "no hits for 'forgotten'" in hit.stderr
    listing = runner.invoke(app, ["voice", "--recent", "--all", "--json"])
    assert listing.exit_code == 0, listing.output
    rows = [json.loads(line) for line in listing.stdout.splitlines()]
    assert len(rows) == 3 and all("forgotten" not in r["text"] for r in rows)
    plain = runner.invoke(app, ["voice", "--recent"])
    assert plain.exit_code == 0 and "[forgotten]" not in plain.stdout
    assert "fix the retry loop" in plain.stdout


def test_voice_fast_path_leaves_tombstones_out(isolated_env: Path) -> None:
    """The stdlib fast path (a real process) reads the same index."""
    _captured_then_forgotten(isolated_env)
    proc = subprocess.run(
        [sys.executable, "-m", "memgraph.cli", "voice", "--recent"],
        capture_output=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"[forgotten]" not in proc.stdout and b"add jitter" in proc.stdout


def test_recall_leaves_tombstones_out(isolated_env: Path) -> None:
    _captured_then_forgotten(isolated_env)
    out = runner.invoke(app, ["recall", "forgotten", "--mode", "bm25", "--json"])
    assert out.exit_code == 0, out.output
    assert "[forgotten]" not in out.stdout and out.stdout == ""
    kept = runner.invoke(app, ["recall", "retry loop", "--mode", "bm25", "--json"])
    assert kept.exit_code == 0, kept.output
    assert "fix the retry loop" in kept.stdout
