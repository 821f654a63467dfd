"""`memgraph voice --backfill` and `memgraph voice extract`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

sys.path.insert(0, str(Path(__file__).parents[2] / "profiles" / "voice"))
from _capture_helpers import PROMPTS, SID, claude_records, write_transcript

runner = CliRunner()


def test_backfill_uses_env_roots_and_reruns_clean(isolated_env: Path) -> None:
    write_transcript(isolated_env / "transcripts" / "p" / f"{SID}.jsonl", claude_records(PROMPTS))
    first = runner.invoke(app, ["voice", "--backfill", "-v"])
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    assert lines[0] == "paged    atlas/voice/2026-04-14-80166115.md  (4 messages captured)"
    assert lines[-1].startswith("backfill: 1 transcript: 1 paged, 0 skipped, 0 errors; ")
    second = runner.invoke(app, ["voice", "--backfill", "--json"])
    assert second.exit_code == 0
    objs = [json.loads(line) for line in second.stdout.splitlines()]
    assert objs[0]["status"] == "unchanged" and objs[0]["session_id"] == SID
    assert objs[-1]["summary"]["unchanged"] == 1


def test_verbose_backfill_counts_what_it_captured_not_what_the_page_holds(
    isolated_env: Path,
) -> None:
    """`paged PAGE (N messages)` read as the page's count: these four prompts end in an
    "ok" (trivial acknowledgements stay off pages) and said `(4 messages)` of a page with
    3; a side-question transcript said `(1 message)` of a 27-message page."""
    write_transcript(isolated_env / "transcripts" / "p" / f"{SID}.jsonl", claude_records(PROMPTS))
    first = runner.invoke(app, ["voice", "--backfill", "-v"])
    assert first.exit_code == 0, first.output
    line = first.stdout.splitlines()[0]
    assert line == "paged    atlas/voice/2026-04-14-80166115.md  (4 messages captured)"
    page = isolated_env / "vault" / "atlas" / "voice" / "2026-04-14-80166115.md"
    assert "message_count: 3\n" in page.read_text(encoding="utf-8")


def test_a_lower_min_messages_pages_what_was_too_short(isolated_env: Path) -> None:
    """`voice --backfill --min-messages 1` after a default backfill said `1 skipped (1
    unchanged)` and wrote no page: the transcript had been recorded as done (too few
    messages) and was not read again; `render` has no minimum to lower either."""
    short = ["please wire the session-end hook into the settings file"]
    write_transcript(isolated_env / "transcripts" / "p" / f"{SID}.jsonl", claude_records(short))
    first = runner.invoke(app, ["voice", "--backfill"])
    assert first.exit_code == 0 and "1 too few messages" in first.stdout, first.output
    lower = runner.invoke(app, ["voice", "--backfill", "--min-messages", "1", "-v"])
    assert lower.exit_code == 0, lower.output
    assert lower.stdout.splitlines()[0].startswith("paged    atlas/voice/"), lower.stdout
    assert list((isolated_env / "vault" / "atlas" / "voice").glob("*.md"))
    again = runner.invoke(app, ["voice", "--backfill", "--min-messages", "1"])
    assert "0 paged, 1 skipped (1 unchanged)" in again.stdout


def test_backfill_flags(isolated_env: Path) -> None:
    root = isolated_env / "elsewhere"
    write_transcript(root / f"{SID}.jsonl", claude_records(PROMPTS))
    result = runner.invoke(
        app,
        [
            "voice",
            "--backfill",
            "--transcripts",
            str(root),
            "--project",
            "atlas",
            "--since",
            "2000-01-01",
            "--vault",
            str(isolated_env / "v2"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert (isolated_env / "v2" / "atlas" / "voice" / "2026-04-14-80166115.md").is_file()
    none = runner.invoke(
        app, ["voice", "--backfill", "--transcripts", str(root), "--project", "zz"]
    )
    assert "1 transcript: 0 paged, 1 skipped (1 unchanged)" in none.stdout


@pytest.mark.parametrize("value", ["last tuesday", "2026-13-01", "20"])
def test_backfill_bad_since_is_usage_error(value: str) -> None:
    result = runner.invoke(app, ["voice", "--backfill", "--since", value])
    assert result.exit_code == 2
    assert result.output.startswith("Error: ") and "--since" in result.output


def test_backfill_missing_root_warns(isolated_env: Path) -> None:
    result = runner.invoke(app, ["voice", "--backfill", "--transcripts", str(isolated_env / "no")])
    assert result.exit_code == 0
    assert "does not exist" in result.stderr


def test_extract_prints_qualifying_messages_and_writes_nothing(isolated_env: Path) -> None:
    path = write_transcript(isolated_env / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    result = runner.invoke(app, ["voice", "extract", str(path), "--json"])
    assert result.exit_code == 0, result.output
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["text"] for o in objs] == PROMPTS[:3]  # "ok" is trivial
    assert set(objs[0]) >= {"session_id", "uuid", "timestamp", "text"}
    assert objs[0]["timestamp"] == "2026-04-14T14:32:05.123000Z"
    assert not (isolated_env / "mg-home").exists() and not (isolated_env / "vault").exists()
    plain = runner.invoke(app, ["voice", "extract", str(path)])
    assert plain.stdout.splitlines()[0] == (
        "[2026-04-14 14:32 UTC 80166115] please wire the session-end hook into the settings file"
    )
    everything = runner.invoke(app, ["voice", "extract", str(path), "--json", "--all"])
    assert len(everything.stdout.splitlines()) == 4


def test_extract_missing_file_is_one_line_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["voice", "extract", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 1 and result.output.startswith("Error: ")


def test_extract_of_a_file_that_is_no_transcript_says_so(tmp_path: Path) -> None:
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0:root:/root:/bin/bash\nbin:x:1:1::/:/usr/bin/nologin\n")
    result = runner.invoke(app, ["voice", "extract", str(path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        f"Error: no transcript records read from {path} (2 lines): not a Claude Code, "
        "Codex or Gemini CLI transcript, nor an aider chat history\n"
    )


def test_extract_warnings_are_summed_up_by_reason(tmp_path: Path) -> None:
    records = claude_records(PROMPTS)
    records[0] = {**records[0], "timestamp": "not a time"}
    path = write_transcript(tmp_path / f"{SID}.jsonl", records)
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "user", "message": [1]}\n{"type": "user", "message": 7}\n')
    result = runner.invoke(app, ["voice", "extract", str(path)])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 2
    assert result.stderr == (
        "warning: 3 reader warnings: 1 bad timestamp, 2 records of an unknown shape\n"
    )


def test_extract_corpus_file(corpus: Path) -> None:
    path = next((corpus / "codex").glob("*05-51-09*.jsonl"))
    result = runner.invoke(app, ["voice", "extract", str(path), "--json"])
    assert result.exit_code == 0
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    assert objs and all("<environment_context>" not in o["text"] for o in objs)


def test_progress_bar_draws_on_stderr_only(capsys: pytest.CaptureFixture[str]) -> None:
    from memgraph.terminal import Bar, progress

    with Bar("backfill", unit="bytes") as update:
        update(5, 10, "a.jsonl")
        update(10, 10, "b.jsonl")
    assert capsys.readouterr().out == ""
    with progress("backfill") as nothing:  # stderr is not a terminal here
        assert nothing is None


def test_backfill_usage_and_hints_name_the_form_that_works() -> None:
    """`voice --backfill` usage said `memgraph voice backfill`, and a bad option's hint
    told users to run `memgraph voice backfill --help`, which is a search for 'backfill'."""
    helped = runner.invoke(app, ["voice", "--backfill", "--help"])
    assert helped.exit_code == 0
    assert helped.stdout.startswith("Usage: memgraph voice --backfill [OPTIONS]")
    bad = runner.invoke(app, ["voice", "--backfill", "--root", "x"])
    assert bad.exit_code == 2
    assert "Try 'memgraph voice --backfill --help' for help." in bad.output
