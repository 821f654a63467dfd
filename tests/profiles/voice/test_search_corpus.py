"""End to end on the real corpus: backfill, then search what a person typed.

Needs engineer B's backfill (`profiles.voice.backfill`, `memgraph voice --backfill`)
and engineer C's readers; skipped with a reason until both exist.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

runner = CliRunner()

# Typed by the operator in session 1fb5e404 (also in prompt-history/…omarchy…history.jsonl).
TYPED = "Houston Astros is where i got colors from suggest spome names"
# Words that occur only inside tool results of that session (never typed by a person
# anywhere in the corpus, per prompt-history and every user text record).
TOOL_ONLY = ["screensaver", "discharging", "brightnessctl"]


@pytest.fixture
def backfilled(corpus: Path) -> Path:
    for module in ("profiles.voice.backfill", "profiles.voice.readers"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not built yet (engineer B/C); this test runs once it is")
    from memgraph.cli.app import app

    result = runner.invoke(app, ["voice", "--backfill", "--transcripts", str(corpus)])
    assert result.exit_code == 0, result.output
    return corpus


def test_distinctive_typed_phrase_finds_exactly_that_message(backfilled: Path) -> None:
    from memgraph.cli.app import app

    result = runner.invoke(app, ["voice", '"Houston Astros"', "--json", "--full"])
    assert result.exit_code == 0, result.output
    hits = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(hits) == 1, hits
    assert hits[0]["text"].strip() == TYPED
    assert hits[0]["session_id"].startswith("1fb5e404")
    line = runner.invoke(app, ["voice", '"Houston Astros"'])
    assert line.stdout.count("\n") == 1 and "1fb5e404" in line.stdout


@pytest.mark.parametrize("word", TOOL_ONLY)
def test_tool_output_words_find_nothing(backfilled: Path, word: str) -> None:
    from memgraph.cli.app import app

    result = runner.invoke(app, ["voice", word, "--limit", "50"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
