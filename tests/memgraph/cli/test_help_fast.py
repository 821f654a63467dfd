"""`--help`, `voice --help` and `--version`: what they say, and that the lean
answer (memgraph/cli/help.json, no typer) is typer's own output."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import memgraph
from memgraph.cli import _static_output
from memgraph.cli.app import EVERYDAY, app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[3]
PAGES = json.loads((ROOT / "memgraph" / "cli" / "help.json").read_text(encoding="utf-8"))
ENV = {"COLUMNS": "100", "TERM": "dumb", "NO_COLOR": "1"}


def _reference() -> object:
    spec = importlib.util.spec_from_file_location(
        "cli_reference", ROOT / "scripts" / "cli_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pages_cover_every_visible_command() -> None:
    paths = {" ".join(p) for p in _reference()._paths()}  # type: ignore[attr-defined]
    assert set(PAGES) == paths
    assert {"", "voice", "wake", "doctor", "context"} <= paths


@pytest.mark.parametrize("key", sorted(PAGES))
def test_each_page_is_typers_output(key: str) -> None:
    args = [*key.split(), "--help"] if key else ["--help"]
    result = runner.invoke(app, args, env=ENV, prog_name="memgraph")
    assert result.exit_code == 0
    assert result.output == PAGES[key], "stale: run `python scripts/cli_reference.py`"


def test_root_help_lists_everyday_commands_first() -> None:
    text = PAGES[""]
    commands = text.split("Commands:\n", 1)[1].splitlines()
    names = [line.split()[0] for line in commands if line.startswith("  ")]
    assert names[: len(EVERYDAY)] == list(EVERYDAY)
    assert "--version" in text


def test_voice_help_shows_the_search_usage_and_options() -> None:
    text = PAGES["voice"]
    assert text.startswith('Usage: memgraph voice "keyword" [OPTIONS]\n')
    for option in ("--backfill", "--recent", "--stats", "--json", "--full", "--since"):
        assert option in text
    for option in ("--project", "--type", "--limit"):
        assert option in text
    assert "extract" in text and "classify" in text
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "--recent" in doc.split("## `memgraph voice`", 1)[1].split("## ", 1)[0]


def test_static_output_declines_what_it_cannot_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert _static_output(["--help"]) == PAGES[""]
    assert _static_output(["voice", "--help"]) == PAGES["voice"]
    assert _static_output(["--version"]) == f"memgraph {memgraph.__version__}\n"
    for argv in (["voice", "search", "--help"], ["voice", "x"], [], ["voice", "--json", "--help"]):
        assert _static_output(argv) is None
    monkeypatch.setenv("COLUMNS", "60")  # click wraps narrower: typer renders it
    assert _static_output(["--help"]) is None


def test_version_through_typer_too() -> None:
    result = runner.invoke(app, ["--version"], prog_name="memgraph")
    assert result.exit_code == 0
    assert result.output == f"memgraph {memgraph.__version__}\n"


@pytest.mark.parametrize("argv", [["--help"], ["voice", "--help"], ["--version"]])
def test_process_imports_no_typer(argv: list[str]) -> None:
    code = (
        "import sys\n"
        "from memgraph.cli import main\n"
        f"sys.argv = ['memgraph', *{argv!r}]\n"
        "try:\n"
        "    main(exit=sys.exit)\n"
        "except SystemExit as exc:\n"
        "    heavy = sorted(m for m in ('typer', 'click', 'rich', 'pydantic',"
        " 'memgraph.store', 'profiles') if m in sys.modules)\n"
        "    sys.stderr.write(repr(heavy))\n"
        "    raise\n"
    )
    env = {**os.environ, "COLUMNS": "100"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b"[]"
    key = " ".join(argv[:-1])
    expected = PAGES[key] if argv[-1] == "--help" else f"memgraph {memgraph.__version__}\n"
    assert proc.stdout.decode("utf-8") == expected
