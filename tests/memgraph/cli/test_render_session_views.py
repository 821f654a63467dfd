"""`memgraph render` and session YAML a person edited: a note appended by hand is
imported (it was overwritten), an edit the store cannot take is kept verbatim
beside the view, and a view saved in Latin-1 is no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


def _view(env: Path) -> Path:
    return env / "workspace" / ".memgraph" / "personas" / "default" / "sessions" / "s1.yaml"


def test_render_imports_a_note_appended_by_hand(isolated_env: Path) -> None:
    assert runner.invoke(app, ["note", "first", "--session", "s1"]).exit_code == 0
    f = _view(isolated_env)
    f.write_text(f.read_text(encoding="utf-8") + '- "added by hand"\n', encoding="utf-8")
    out = runner.invoke(app, ["render", "s1", "--no-voice"])
    assert out.exit_code == 0, out.output
    assert "imported 1 note added by hand" in out.stderr
    assert "added by hand" in f.read_text(encoding="utf-8")
    shown = runner.invoke(app, ["session", "show", "s1"]).stdout
    assert "added by hand" in shown
    again = runner.invoke(app, ["render", "s1", "--no-voice"])
    assert again.exit_code == 0 and "1 unchanged" in again.stderr


def test_render_keeps_an_edit_it_cannot_import(isolated_env: Path) -> None:
    assert runner.invoke(app, ["note", "typo teh", "--session", "s1"]).exit_code == 0
    f = _view(isolated_env)
    edited = f.read_text(encoding="utf-8").replace("typo teh", "typo the")
    f.write_text(edited, encoding="utf-8")
    out = runner.invoke(app, ["render", "s1", "--no-voice"])
    assert out.exit_code == 0 and "s1.conflict.yaml" in out.stderr
    assert f.with_name("s1.conflict.yaml").read_text(encoding="utf-8") == edited


def test_render_over_a_view_saved_in_latin1(isolated_env: Path) -> None:
    assert runner.invoke(app, ["note", "first", "--session", "s1"]).exit_code == 0
    f = _view(isolated_env)
    edited = f.read_bytes() + '- "café"\n'.encode("latin-1")
    f.write_bytes(edited)
    out = runner.invoke(app, ["render", "s1", "--no-voice"])
    assert out.exit_code == 0 and "Traceback" not in out.output, out.output
    assert f.with_name("s1.conflict.yaml").read_bytes() == edited
    assert "first" in f.read_text(encoding="utf-8")


def test_render_counts_a_page_held_by_a_hand_edit_apart_from_unchanged(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A voice page whose message text was edited is left alone, its new render put
    in `.conflict.md`; the summary counted it `1 unchanged` (and said `1 files`,
    `1 sessions`)."""
    import memgraph

    sample = Path(memgraph.__file__).parent / "sample" / "claude" / "projects"
    monkeypatch.setenv("MEMGRAPH_TRANSCRIPTS", str(sample))
    assert runner.invoke(app, ["voice", "--backfill"]).exit_code == 0
    page = sorted((isolated_env / "vault").glob("*/voice/*.md"))[0]
    sid = next(
        line.split(": ", 1)[1]
        for line in page.read_text(encoding="utf-8").splitlines()
        if line.startswith("session_id: ")
    )
    text = page.read_text(encoding="utf-8")
    at = text.index("> **")
    end = text.index("\n", at)
    page.write_text(text[:end] + " (edited)" + text[end:], encoding="utf-8")
    out = runner.invoke(app, ["render", sid, "--no-notes"])
    assert out.exit_code == 0, out.output
    assert page.with_name(page.stem + ".conflict.md").exists()
    assert out.stderr.splitlines()[-1] == (
        "rendered 0 files from 1 session (0 unchanged, 1 hand-edited (new render in "
        ".conflict.md), 0 below the page minimum, 0 failed)"
    )


def test_render_takes_a_session_id_as_listings_show_it(isolated_env: Path) -> None:
    """`render 8a3e5a2e` (the 8 characters voice search and page names show) said
    `failed: 8a3e5a2e: no such session in the store`."""
    for sid in ("alpha-1111", "alpha-2222", "beta-3333"):
        assert runner.invoke(app, ["note", f"note of {sid}", "--session", sid]).exit_code == 0
    views = isolated_env / "workspace" / ".memgraph" / "personas" / "default" / "sessions"
    for view in views.glob("*.yaml"):
        view.unlink()
    out = runner.invoke(app, ["render", "beta", "--no-voice"])
    assert out.exit_code == 0, out.output
    assert [p.name for p in views.glob("*.yaml")] == ["beta-3333.yaml"]
    both = runner.invoke(app, ["render", "alpha", "--no-voice"])
    assert both.exit_code == 1
    assert "failed: alpha: 2 sessions start with it; give more" in both.stderr
    assert not (views / "alpha-1111.yaml").exists()
