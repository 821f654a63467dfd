"""Gemini CLI chats and aider histories are discovered by backfill and probe (CLI)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


def _age(path: Path) -> Path:
    an_hour_ago = time.time() - 3600
    os.utime(path, (an_hour_ago, an_hour_ago))
    return path


def gemini_chat(root: Path) -> Path:
    folder = root / "tmp" / ("cd" * 32) / "chats"
    folder.mkdir(parents=True)
    messages = []
    for i in range(4):
        messages.append(
            {"id": f"u{i}", "timestamp": f"2026-11-30T10:0{i}:00.000Z", "type": "user",
             "content": f"add a retry to uploader step {i}"}
        )  # fmt: skip
        messages.append(
            {"id": f"g{i}", "timestamp": f"2026-11-30T10:0{i}:30.000Z", "type": "gemini",
             "content": "done"}
        )  # fmt: skip
    doc = {
        "sessionId": "6e1f0000-1111-4222-8333-444455556666",
        "projectHash": "cd" * 32,
        "startTime": "2026-11-30T10:00:00.000Z",
        "lastUpdated": "2026-11-30T10:04:00.000Z",
        "messages": messages,
    }
    path = folder / "session-2026-11-30T10-00-6e1f0000.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return _age(path)


def aider_repo(repo: Path) -> Path:
    repo.mkdir(parents=True)
    turns = "\n\n".join(f"#### make the parser stricter, part {i}  \n\nOk." for i in range(3))
    path = repo / ".aider.chat.history.md"
    path.write_text(f"\n# aider chat started at 2026-11-30 09:00:00\n\n{turns}\n", "utf-8")
    return _age(path)


@pytest.fixture
def roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    gemini_chat(tmp_path / "gemini")
    aider_repo(tmp_path / "repo")
    monkeypatch.setenv("MEMGRAPH_REPOS", str(tmp_path / "repo"))
    return tmp_path / "gemini"


def test_backfill_pages_gemini_and_known_repos_aider(roots: Path) -> None:
    result = runner.invoke(app, ["voice", "--backfill", "--json", "--transcripts", str(roots)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    outcomes = {Path(x["path"]).name: x for x in lines if "path" in x}
    assert outcomes[".aider.chat.history.md"]["status"] == "paged"
    assert outcomes[".aider.chat.history.md"]["message_count"] == 3
    chat = next(v for k, v in outcomes.items() if k.startswith("session-"))
    assert chat["status"] == "paged" and chat["message_count"] == 4
    found = runner.invoke(app, ["voice", "uploader", "--json"]).stdout.splitlines()
    assert len(found) == 4


def test_probe_accounts_for_them(roots: Path) -> None:
    runner.invoke(app, ["voice", "--backfill", "--transcripts", str(roots)])
    result = runner.invoke(app, ["probe", "--json", "--transcripts", str(roots)])
    data = json.loads(result.output)
    assert (data["completed"], data["accounted"]) == (2, 2), data
