"""memgraph probe: each monitoring exit code from a real store and transcript tree."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


def _transcript(root: Path, n_prompts: int = 4) -> Path:
    sid = str(uuid.uuid4())
    path = root / "-home-ada-src-atlas" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n_prompts):
        lines.append(
            json.dumps(
                {
                    "parentUuid": None,
                    "isSidechain": False,
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": f"please refactor module number {i} of {sid[:4]}",
                    },
                    "uuid": str(uuid.uuid4()),
                    "timestamp": f"2026-11-30T10:0{i}:00.000Z",
                    "userType": "external",
                    "cwd": "/home/ada/src/atlas",
                    "sessionId": sid,
                    "version": "2.1.97",
                    "gitBranch": "main",
                }
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(path, (an_hour_ago, an_hour_ago))
    return path


def _probe(roots: Path) -> tuple[int, dict[str, object]]:
    result = runner.invoke(app, ["probe", "--json", "--transcripts", str(roots)])
    return result.exit_code, json.loads(result.output)


def _backfill(roots: Path) -> None:
    result = runner.invoke(app, ["voice", "--backfill", "--transcripts", str(roots)])
    assert result.exit_code == 0, result.output


def test_unknown_without_transcript_roots(tmp_path: Path) -> None:
    code, data = _probe(tmp_path / "nowhere")
    assert code == 3
    assert data["status"] == "UNKNOWN"


def test_unknown_when_no_session_completed(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    code, data = _probe(tmp_path / "t")
    assert code == 3
    assert str(data["reason"]).startswith("no completed sessions")


def test_ok_after_backfill(tmp_path: Path) -> None:
    roots = tmp_path / "t"
    for _ in range(3):
        _transcript(roots)
    _transcript(roots, n_prompts=1)  # too few messages: skipped with a reason, still accounted
    _backfill(roots)
    code, data = _probe(roots)
    assert code == 0, data
    assert data["completed"] == 4 and data["accounted"] == 4
    assert data["remediation"] is None
    text = runner.invoke(app, ["probe", "--transcripts", str(roots)]).output
    assert text.startswith("VOICE OK - ")
    assert "| coverage=100%;60;30" in text


def test_warning_when_coverage_below_60(tmp_path: Path) -> None:
    roots = tmp_path / "t"
    for _ in range(2):
        _transcript(roots)
    _backfill(roots)
    for _ in range(3):
        _transcript(roots)  # completed after the backfill: not accounted for
    code, data = _probe(roots)
    assert code == 1, data
    assert data["coverage"] == 0.4
    assert str(data["remediation"]).startswith("memgraph voice --backfill --since ")


def test_critical_when_coverage_below_30(tmp_path: Path) -> None:
    roots = tmp_path / "t"
    for _ in range(4):
        _transcript(roots)
    code, data = _probe(roots)
    assert code == 2, data
    out = runner.invoke(app, ["probe", "--transcripts", str(roots)]).output
    assert out.startswith("VOICE CRITICAL - ")
    assert "remediation: memgraph voice --backfill --since " in out


def test_changed_transcript_is_no_longer_accounted(tmp_path: Path) -> None:
    roots = tmp_path / "t"
    path = _transcript(roots)
    _backfill(roots)
    assert _probe(roots)[0] == 0
    with path.open("a", encoding="utf-8") as fh:
        fh.write("{}\n")
    an_hour_ago = time.time() - 3600
    os.utime(path, (an_hour_ago, an_hour_ago))
    code, data = _probe(roots)
    assert code == 2 and data["accounted"] == 0
