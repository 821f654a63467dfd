"""`memgraph import conversations` end to end: the imported conversation is found by
`memgraph voice`, `memgraph recall` and `memgraph context` like a captured one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from context_cut.ceiling import output_tokens
from memgraph.cli.app import app

FIXTURES = Path(__file__).parents[2] / "profiles" / "voice" / "fixtures" / "imports"
runner = CliRunner()


def _memgraph(*args: str) -> subprocess.CompletedProcess[str]:
    """The real console entry (fast paths included), in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "memgraph.cli", *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=120,
        check=False,
    )


def test_imported_conversation_is_found_by_voice_recall_and_context() -> None:
    for name in ("chatgpt_conversations.json", "claude_conversations.json", "conversation.jsonl"):
        out = runner.invoke(app, ["import", "conversations", str(FIXTURES / name)])
        assert out.exit_code == 0, out.output
        assert out.stdout.startswith("imported ") and "0 skipped" not in out.stderr
    voice = _memgraph("voice", "catamaran")
    assert voice.returncode == 0, voice.stderr
    assert "Jadrolinija catamaran leaves Split" in voice.stdout

    recall = runner.invoke(app, ["recall", "when does the boat to Hvar leave", "--json"])
    assert recall.exit_code == 0, recall.output
    rows = [json.loads(line) for line in recall.stdout.splitlines()]
    assert rows and any("catamaran" in r["text"] for r in rows[:2])

    recall = runner.invoke(app, ["recall", "lighthouse novel", "--project", "conversation"])
    assert recall.exit_code == 0 and "Ines: I finally finished the lighthouse" in recall.stdout

    # the JSON surface carries whole node documents, so its budget (a ceiling on the
    # printed output, framing included: context_cut.ceiling) must be roomier
    ctx = runner.invoke(app, ["context", "drip irrigation tomatoes", "--budget", "1500", "--json"])
    assert ctx.exit_code == 0, ctx.output
    packet = json.loads(ctx.stdout)
    claims = [n["claim"] for n in packet["nodes"]]
    assert any("drip irrigation" in c for c in claims)
    assert output_tokens(ctx.stdout) <= 1500
    lines = runner.invoke(app, ["context", "drip irrigation tomatoes", "--budget", "300"])
    assert "drip irrigation run for tomatoes" in lines.stdout
    assert output_tokens(lines.stdout) <= 300
    text = runner.invoke(app, ["context", "how long did the novel take", "--budget", "400"])
    # the answer turn follows the question turn: it comes with its date and speaker
    assert "2023-05-08 13:58 Ines: Three weeks, mostly on the train." in text.stdout


def test_import_cli_reports_bad_records_and_strict(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(
        '{"session": "s", "speaker": "A", "ts": "2024-01-01", "text": "fine words"}\n'
        "{oops\n"
        '{"session": "s", "speaker": "A", "ts": "never", "text": "x"}\n',
        encoding="utf-8",
    )
    strict = runner.invoke(app, ["import", "conversations", str(path), "--strict"])
    assert strict.exit_code == 1
    assert strict.stderr.count("bad record:") == 2 and "nothing imported" in strict.stderr
    out = runner.invoke(app, ["import", "conversations", str(path), "--json"])
    assert out.exit_code == 0
    assert out.stderr.splitlines() == [
        "bad record: line 2: not a JSON object",
        "bad record: line 3: ts must be ISO 8601 or epoch seconds",
    ]
    counts = json.loads(out.stdout)
    assert counts["new"] == 1 and counts["bad_records"] == 2
    again = runner.invoke(app, ["import", "conversations", str(path)])
    assert "0 new" in again.stdout and "1 unchanged" in again.stdout


def test_import_cli_usage_errors(tmp_path: Path) -> None:
    out = runner.invoke(app, ["import", "conversations", str(tmp_path)])
    assert out.exit_code == 1 and "not a regular file" in out.output
    assert "Traceback" not in out.output
    out = runner.invoke(
        app, ["import", "conversations", str(FIXTURES / "conversation.jsonl"), "--format", "x"]
    )
    assert out.exit_code == 2 and "unknown format" in out.output


def test_problem_lines_past_the_cap_are_counted_with_changed_texts(tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    first.write_text(
        '{"session": "s", "speaker": "A", "ts": "2024-01-01", "text": "a", "id": "r1"}\n',
        encoding="utf-8",
    )
    assert runner.invoke(app, ["import", "conversations", str(first)]).exit_code == 0
    again = tmp_path / "again.jsonl"
    again.write_text(
        '{"session": "s", "speaker": "A", "ts": "2024-01-01", "text": "b", "id": "r1"}\n'
        + "{oops\n" * 1001,
        encoding="utf-8",
    )
    out = runner.invoke(app, ["import", "conversations", str(again)])
    assert out.exit_code == 0
    lines = out.stderr.splitlines()
    # 1,001 bad lines (1,000 shown) and one changed text (shown): one line not shown
    assert sum("not a JSON object" in line for line in lines) == 1000
    assert sum("text differs" in line for line in lines) == 1
    assert lines[-1] == "bad record: ... and 1 more"
