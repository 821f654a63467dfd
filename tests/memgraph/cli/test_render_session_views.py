"""`memgraph render` and session YAML a person edited: a note appended by hand is
imported (it was overwritten), an edit the store cannot take is kept verbatim
beside the view, and a view saved in Latin-1 is no traceback."""

from __future__ import annotations

from pathlib import Path

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
    assert "imported 1 note(s)" in out.stderr
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
