"""Words printed for people never carry a terminal escape sequence (a prompt with a
pasted ``ESC ]0;title BEL`` retitled the terminal, ``ESC [2J`` cleared it): control
characters print as U+FFFD, one for one, as `memgraph voice` shows them; --json keeps
the text exact. `voice extract`, `recall`, `wake` and `session show`, typer and lean."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
from _capture_helpers import claude_records, write_transcript

from memgraph.cli import recall_fast, wake_fast
from memgraph.cli.app import app
from memgraph.terminal import printable

runner = CliRunner()
HOSTILE = "retitle \x1b]0;pwned\x07 then \x1b[2J clear"
SHOWN = "retitle \ufffd]0;pwned\ufffd then \ufffd[2J clear"


def test_printable_replaces_controls_one_for_one() -> None:
    assert printable(HOSTILE) == SHOWN
    assert printable("a\nb\tc\x00", lines=True) == "a\nb\tc\ufffd"
    assert printable("a\nb") == "a\ufffdb"


@pytest.fixture
def captured(isolated_env: Path) -> Path:
    prompts = [HOSTILE, "second prompt here", "third prompt here"]
    path = write_transcript(isolated_env / "t" / "s.jsonl", claude_records(prompts))
    data = {"session_id": "s", "transcript_path": str(path), "cwd": "/nonexistent/atlas"}
    assert runner.invoke(app, ["hook", "session-end"], input=json.dumps(data)).exit_code == 0
    return path


def test_voice_extract_and_recall_print_no_escape(
    captured: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = runner.invoke(app, ["voice", "extract", str(captured)])
    assert out.exit_code == 0 and SHOWN in out.stdout and "\x1b" not in out.stdout
    exact = runner.invoke(app, ["voice", "extract", str(captured), "--json"])
    assert json.loads(exact.stdout.splitlines()[0])["text"] == HOSTILE
    out = runner.invoke(app, ["recall", "retitle clear", "-n", "1"])
    assert out.exit_code == 0 and SHOWN in out.stdout and "\x1b" not in out.stdout
    assert recall_fast.run(["retitle clear", "-n", "1"]) == 0
    lean = capsys.readouterr().out
    assert SHOWN in lean and "\x1b" not in lean


def test_wake_and_session_show_print_no_escape(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert runner.invoke(app, ["note", HOSTILE, "--session", "s1"]).exit_code == 0
    out = runner.invoke(app, ["wake"])
    assert out.exit_code == 0 and out.stdout == SHOWN + "\n"
    assert wake_fast.run([]) == 0
    assert capsys.readouterr().out == SHOWN + "\n"
    shown = runner.invoke(app, ["session", "show", "s1"])
    assert shown.exit_code == 0 and shown.stdout.splitlines()[-1].endswith(SHOWN)
    exact = runner.invoke(app, ["wake", "--json"])
    assert json.loads(exact.stdout)["text"] == HOSTILE


@pytest.mark.parametrize("fmt", [[], ["--markdown"], ["--prompt"]])
def test_context_text_formats_print_no_escape_and_keep_the_budget(
    isolated_env: Path, fmt: list[str]
) -> None:
    assert runner.invoke(app, ["note", HOSTILE, "--session", "s1"]).exit_code == 0
    args = ["context", "retitle clear", "--cut", "coordinator", "--project", "p", *fmt]
    out = runner.invoke(app, args)
    assert out.exit_code == 0 and "retitle" in out.stdout and "\x1b" not in out.stdout
    from context_cut.ceiling import output_tokens

    for budget in (60, 120, 400):
        small = runner.invoke(app, [*args, "--budget", str(budget)])
        assert small.exit_code in (0, 2) and "\x1b" not in small.stdout
        assert output_tokens(small.stdout) <= budget
