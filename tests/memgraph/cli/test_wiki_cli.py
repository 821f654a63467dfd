"""`memgraph wiki validate`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()
GOOD = "---\ntitle: T\ntype: overview\ncreated: 2026-01-01\nupdated: 2026-01-02\n---\n\n# T\n"


def test_valid_pages_exit_zero(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(GOOD)
    (tmp_path / "log.md").write_text("## [2026-01-01] voice | x\n")
    result = runner.invoke(app, ["wiki", "validate", str(tmp_path)])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "1 pages, 0 errors, 0 warnings" in result.stderr


def test_errors_and_warnings(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_text(GOOD.replace("type: overview", "type: gossip"))
    warn = tmp_path / "warn.md"
    warn.write_text(GOOD.replace("---\n\n", "color: red\n---\n\n"))
    result = runner.invoke(app, ["wiki", "validate", str(bad), str(warn)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{bad}: error: type 'gossip'")
    assert lines[1] == f"{warn}: warning: unknown frontmatter keys: color"
    only_warn = runner.invoke(app, ["wiki", "validate", str(warn)])
    assert only_warn.exit_code == 0
    strict = runner.invoke(app, ["wiki", "validate", "--strict", str(warn)])
    assert strict.exit_code == 1
    js = runner.invoke(app, ["wiki", "validate", "--json", str(warn)])
    assert json.loads(js.stdout) == {
        "path": str(warn),
        "level": "warning",
        "message": "unknown frontmatter keys: color",
    }


def test_missing_path_is_one_line_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["wiki", "validate", str(tmp_path / "nope.md")])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and "no such file" in result.output
