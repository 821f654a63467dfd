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
    assert "1 page, 0 errors, 0 warnings" in result.stderr


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


def test_format_github_annotations(tmp_path: Path) -> None:
    bad = tmp_path / "bad, page.md"
    bad.write_text(GOOD.replace("type: overview", "type: gossip"))
    warn = tmp_path / "warn.md"
    warn.write_text(GOOD.replace("---\n\n", "color: red\n---\n\n"))
    result = runner.invoke(app, ["wiki", "validate", "--format", "github", str(tmp_path)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"::error file={str(bad).replace(',', '%2C')}::type 'gossip'")
    assert lines[1] == f"::warning file={warn}::unknown frontmatter keys: color"
    assert "1 error, 1 warning" in result.stderr
    wrong = runner.invoke(app, ["wiki", "validate", "--format", "xml", str(warn)])
    assert wrong.exit_code == 2 and "--format 'xml'" in wrong.output


def test_format_github_names_the_line_of_a_broken_voice_page(tmp_path: Path) -> None:
    from datetime import UTC, date, datetime

    from profiles.voice.pages import VoiceMessageEntry, VoicePage, render_page

    t = datetime(2026, 4, 14, 14, 32, tzinfo=UTC)
    page = VoicePage(
        title="t",
        constellation="atlas",
        project="atlas",
        session_id="s1",
        created=date(2026, 4, 14),
        updated=date(2026, 4, 14),
        valid_from=t,
        valid_to=t,
        ingested_at=t,
        messages=[VoiceMessageEntry(record_uuid="u", timestamp=t, text="hi")],
    )
    text = render_page(page).replace('"uuid": "u"', '"uuid": 5')
    lineno = text.split("\n").index(next(ln for ln in text.split("\n") if "mg2" in ln)) + 1
    path = tmp_path / "p.md"
    path.write_text(text)
    result = runner.invoke(app, ["wiki", "validate", "--format", "github", str(path)])
    assert result.exit_code == 1
    assert result.stdout.startswith(f"::error file={path},line={lineno}::bad message field")
    plain = runner.invoke(app, ["wiki", "validate", str(path)])
    assert plain.stdout.startswith(f"{path}:{lineno}: error: bad message field")


def test_memgraph_validate_format_github_and_several_paths(tmp_path: Path) -> None:
    good = tmp_path / "mg.db"
    from memgraph.store import open_store

    open_store(good).close()
    empty = tmp_path / "snapshot.json"
    empty.write_text("")
    result = runner.invoke(app, ["validate", "--format", "github", str(good), str(empty)])
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith(f"::error file={empty}::empty (0 bytes)")
    assert f"{good}: ok" in result.stderr
    ok = runner.invoke(app, ["validate", str(good)])
    assert ok.exit_code == 0 and ok.stdout == ""


def test_pre_commit_hooks_run_the_validators() -> None:
    import yaml

    root = Path(__file__).resolve().parents[3]
    hooks = {h["id"]: h for h in yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["memgraph-wiki-validate"]["entry"] == "memgraph wiki validate"
    assert hooks["memgraph-validate"]["entry"] == "memgraph validate"
    import re

    wiki = hooks["memgraph-wiki-validate"]
    assert re.search(wiki["files"], "vault/atlas/voice/2026-04-14-80166115.md")
    assert re.search(wiki["exclude"], "vault/log.md")
    assert not re.search(wiki["exclude"], "vault/atlas/voice/2026-04-14-80166115.md")
    assert re.search(hooks["memgraph-validate"]["files"], "backups/snapshot-2026.json")
    assert all(h["language"] == "python" for h in hooks.values())
