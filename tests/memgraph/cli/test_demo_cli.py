"""`memgraph demo`: the whole loop on the bundled sample, offline, in its own dir."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_demo_shows_the_whole_loop(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    result = runner.invoke(app, ["demo", "--dir", str(work)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "captured 12 operator messages from 3 transcripts" in out
    assert "$ memgraph voice backoff\n[2026-04-14 14:30 UTC atlas 80166115]" in out
    # a note, then wake returns it
    assert "$ memgraph wake\nretry backoff is in;" in out
    # the generated repository's commit joins the message's window
    assert "$ memgraph windows show aw-2026-04-14-1430" in out
    assert "commit    atlas@" in out and "http client: exponential backoff" in out
    assert "message   80166115  the retry logic" in out
    # the repo scanned: the task's module comes with the words that led to its commit
    assert "operator words linked to retry.py through commits that touched it" in out
    repo_part = out.split("== a repo map", 1)[1].split("\n== ", 1)[0]
    assert "retry.py" in repo_part and "keeps hammering the upstream" in repo_part
    # and a context packet
    assert "-- role cut: " in out
    assert (work / "repos" / "atlas" / ".git").is_dir()
    assert (work / "home" / "memgraph.db").is_file()
    home = Path.home()
    assert not (home / ".local" / "share" / "memgraph").exists()  # nothing outside --dir


def test_demo_without_git_still_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = runner.invoke(app, ["demo", "--dir", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    assert "skipped: git cannot run" in result.output
    assert "== a repo map" not in result.output  # nothing to scan
    assert "-- role cut: " in result.output
