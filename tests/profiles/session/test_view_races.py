"""A save landing in a session YAML while memgraph renders it is never lost.

Memgraph's writers serialise on the view's lock, a person's editor does not: a note
appended by hand right after memgraph read the file (here: during its render) is
imported and carried by the render that follows, never replaced.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli import session_fast
from memgraph.cli.app import app
from memgraph.errors import StoreError
from profiles.session import api, views

runner = CliRunner()
APPENDED = '- timestamp: "2026-01-05T10:00:00Z"\n  text: "typed while memgraph wrote"\n'


def _file(env: Path, sid: str = "s1") -> Path:
    return env / "workspace" / ".memgraph" / "personas" / "default" / "sessions" / f"{sid}.yaml"


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _saving(path: Path, saves: list[str], render: Callable[[], str]) -> Callable[[], str]:
    """``render``, then the next of ``saves`` appended to ``path`` (after memgraph
    read the file, before it writes)."""

    def render_then_save() -> str:
        text = render()
        if saves:
            _append(path, saves.pop(0))
        return text

    return render_then_save


class _Notes:
    """A stand-in store: the notes a render shows, the hand lines ``on_edit`` imports."""

    def __init__(self) -> None:
        self.notes = ["- memgraph's note"]

    def render(self) -> str:
        return "notes:\n" + "".join(f"{n}\n" for n in self.notes)

    def on_edit(self, text: str) -> bool:
        lines = text.splitlines()[1:]
        self.notes.extend(n for n in lines if n not in self.notes)
        return False


def test_a_note_appended_during_the_render_is_imported_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "s1.yaml"
    store = _Notes()
    assert views.write_view(path, store.render, store.on_edit).written
    store.notes.append("- a second note of memgraph's")
    view = views.write_view(path, _saving(path, ["- typed by hand\n"], store.render), store.on_edit)
    text = path.read_text(encoding="utf-8")
    assert "- typed by hand" in text and "- a second note of memgraph's" in text
    assert view.written and view.edited and view.conflict is None
    # recorded as memgraph's: the next write sees no edit
    assert not views.write_view(path, store.render, store.on_edit).edited


def test_a_view_created_during_the_first_render_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "s1.yaml"
    store = _Notes()

    def create_then_render() -> str:
        if not path.exists():
            path.write_text("notes:\n- the person's first\n", encoding="utf-8")
        return store.render()

    views.write_view(path, create_then_render, store.on_edit)
    assert "- the person's first" in path.read_text(encoding="utf-8")


def test_a_view_that_keeps_changing_is_not_written_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "s1.yaml"
    store = _Notes()
    views.write_view(path, store.render, store.on_edit)
    store.notes.append("- memgraph's next")
    saves = [f"- save {n}\n" for n in range(3)]
    with pytest.raises(StoreError, match="kept changing while memgraph wrote it; nothing over"):
        views.write_view(path, _saving(path, saves, store.render), lambda text: False)
    assert path.read_text(encoding="utf-8").endswith("- save 2\n")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def _store_notes(env: Path) -> list[str]:
    conn = sqlite3.connect(env / "mg-home" / "memgraph.db")
    try:
        return [str(r[0]) for r in conn.execute("SELECT text FROM session_notes")]
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["typer", "lean"])
def test_memgraph_note_keeps_a_note_typed_while_it_wrote(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    assert runner.invoke(app, ["note", "first", "--session", "s1"]).exit_code == 0
    view = _file(isolated_env)
    saves = [APPENDED]
    real_api, real_sql = api.render_session_text, views.render_from_sql
    monkeypatch.setattr(
        api, "render_session_text", lambda *a: _saving(view, saves, lambda: real_api(*a))()
    )
    monkeypatch.setattr(
        views, "render_from_sql", lambda *a: _saving(view, saves, lambda: real_sql(*a))()
    )
    if path == "lean":
        assert session_fast.run(["second", "--session", "s1"]) == 0
    else:
        assert runner.invoke(app, ["note", "second", "--session", "s1"]).exit_code == 0
    assert not saves  # the save landed
    text = view.read_text(encoding="utf-8")
    assert "typed while memgraph wrote" in text and "second" in text
    assert "typed while memgraph wrote" in _store_notes(isolated_env)
