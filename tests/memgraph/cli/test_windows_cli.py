from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from memgraph.config import load_settings
from memgraph.store import open_store

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "activity"))
from scenario import generate, store_messages

runner = CliRunner()


@pytest.fixture
def world(tmp_path: Path) -> object:
    sc = generate(tmp_path / "world", seed=5, days=1, sessions_per_day=6)
    store = open_store(load_settings().store_path)
    store_messages(store, sc.messages)
    store.close()
    return sc


def test_windows_json_then_show(world: object) -> None:
    result = runner.invoke(app, ["windows", "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert lines and all(set(w) == {"id", "start", "end", "artifacts"} for w in lines)
    kinds = {a["type"] for w in lines for a in w["artifacts"]}
    assert kinds == {"message", "commit"}
    commit = next(a for w in lines for a in w["artifacts"] if a["type"] == "commit")
    assert set(commit) == {"type", "repo", "sha", "valid_time"}
    message = next(a for w in lines for a in w["artifacts"] if a["type"] == "message")
    assert set(message) == {"type", "session_id", "uuid", "valid_time"}
    mixed = next(w for w in lines if {"message", "commit"} <= {a["type"] for a in w["artifacts"]})

    shown = runner.invoke(app, ["windows", "show", mixed["id"]])
    assert shown.exit_code == 0, shown.output
    out = shown.stdout.splitlines()
    assert out[0].startswith(mixed["id"]) and len(out) == len(mixed["artifacts"]) + 1
    assert any(" commit " in line for line in out) and any(" message " in line for line in out)

    as_json = runner.invoke(app, ["windows", "show", mixed["id"], "--json"])
    assert as_json.exit_code == 0
    assert len(as_json.stdout.splitlines()) == len(mixed["artifacts"])


def test_terse_output_and_rerun(world: object) -> None:
    first = runner.invoke(app, ["windows", "--since", "2026-03-01", "--until", "2026-03-03"])
    assert first.exit_code == 0, first.output
    assert all(line.startswith("aw-") for line in first.stdout.splitlines())
    again = runner.invoke(app, ["windows", "--since", "2026-03-01", "--until", "2026-03-03"])
    assert again.stdout == first.stdout
    assert "0 written" in again.stderr


def test_counts_are_in_the_right_number(world: object) -> None:
    """Before: `1 commit, 5 message`, `3 windows (...) 12 commits from 1 repos`."""
    import re

    result = runner.invoke(app, ["windows"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines() + result.stderr.splitlines()
    shown = [runner.invoke(app, ["windows", "show", ln.split()[0]]).stdout for ln in lines[:3]]
    text = "\n".join(lines + shown)
    assert not re.search(r"\b(?:[02-9]|\d\d+) (?:message|commit|repo|window)\b", text), text
    assert not re.search(r"\b1 (?:messages|commits|repos|windows)\b", text), text
    assert re.search(r"\b\d+ messages?\b", text)


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["windows", "--gap", "0"], 2, "--gap"),
        (["windows", "--since", "yesterday-ish"], 2, "bad date"),
        (["windows", "--since", "2026-03-05", "--until", "2026-03-01"], 2, "before"),
        (["windows", "--repo", "/no/such/repo"], 1, "not a directory"),
        (["windows", "show", "not-a-window"], 2, "not a window id"),
        (["windows", "show", "aw-2026-03-02-0000"], 1, "no"),
    ],
)
def test_bad_input_is_one_line_error(args: list[str], code: int, needle: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and needle in errors[0]
    assert "Traceback" not in result.output


def test_show_unknown_window_after_compute(world: object) -> None:
    assert runner.invoke(app, ["windows"]).exit_code == 0
    result = runner.invoke(app, ["windows", "show", "aw-1999-01-01-0000"])
    assert result.exit_code == 1 and "no activity window" in result.stderr


def test_a_directory_outside_any_repo_is_not_counted_as_a_repo_read(tmp_path: Path) -> None:
    """`windows --repo /tmp` warned `/tmp: not inside a git repository`, then summed up
    `0 commits from 1 repo`."""
    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    result = runner.invoke(app, ["windows", "--repo", str(plain), "--no-discover"])
    assert result.exit_code == 0, result.output
    assert f"warning: {plain}: not inside a git repository" in result.stderr
    assert "0 commits from 0 repos" in result.stderr
