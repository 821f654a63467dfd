"""The lean `memgraph wake` path prints what the typer command prints, imports
no typer/pydantic, and defers what it does not handle."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli import wake_fast
from memgraph.cli.app import app

runner = CliRunner()


def typer_wake(*args: str) -> tuple[str, str, int]:
    result = runner.invoke(app, ["wake", *args])
    return result.stdout, result.stderr, result.exit_code


def fast_wake(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str, int | None]:
    code = wake_fast.run(list(args))
    out = capsys.readouterr()
    return out.out, out.err, code


@pytest.fixture
def sessions(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("MEMGRAPH_PERSONA", raising=False)
    for args in (
        ["session", "start", "a1", "--persona", "alice"],
        ["session", "start", "b1", "--persona", "bob"],
        ["note", "alice says", "--session", "a1"],
        ["note", "bob says", "--session", "b1"],
    ):
        assert runner.invoke(app, args).exit_code == 0
    return isolated_env


@pytest.mark.parametrize(
    "args",
    [[], ["--json"], ["--persona", "alice"], ["--persona=bob", "--json"], ["--persona", "carol"]],
)
def test_same_output_as_typer(
    sessions: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    fast = fast_wake(capsys, *args)
    assert fast[2] == 0
    assert fast == typer_wake(*args)


def test_configured_persona_and_bad_names(
    sessions: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGRAPH_PERSONA", "alice")
    assert fast_wake(capsys) == typer_wake()
    out, err, code = fast_wake(capsys, "--persona", "../x")
    assert code == 2 and err.startswith("Error: ") and out == ""
    assert typer_wake("--persona", "../x")[2] == 2


def test_defers_what_it_does_not_handle(sessions: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["--help"], ["x"], ["--persona"], ["--bogus"]):
        assert wake_fast.run(args) is None
    view = sessions / "workspace/.memgraph/personas/bob/sessions/b1.yaml"
    view.write_text(view.read_text() + '  - text: "added by hand"\n')
    assert wake_fast.run([]) is None  # the engine imports the hand-added note first
    assert typer_wake()[2] == 0
    assert fast_wake(capsys) == typer_wake()  # imported: the lean path answers again


def test_no_store_defers(isolated_env: Path) -> None:
    assert wake_fast.run([]) is None


def test_process_imports_no_typer_or_pydantic(sessions: Path) -> None:
    code = (
        "import sys\n"
        "from memgraph.cli import main\n"
        "sys.argv = ['memgraph', 'wake']\n"
        "try:\n"
        "    main(exit=sys.exit)\n"
        "except SystemExit as exc:\n"
        "    heavy = sorted(m for m in ('typer', 'click', 'rich', 'pydantic', 'pydantic_settings',"
        " 'memgraph.documents', 'memgraph.store.sqlite') if m in sys.modules)\n"
        "    sys.stderr.write(repr(heavy))\n"
        "    raise\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=os.environ.copy(), timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.endswith(b"[]"), proc.stderr
    assert proc.stdout == b"bob says\n"


def test_a_new_session_s_startup_note_is_not_the_wake_token(
    sessions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """README: `memgraph session start "$SESSION_ID"`, then `memgraph wake` (the last note
    of the latest session). It printed `session b2 started (cli)`, the new session's
    startup line, instead of what the last session left; so did the SessionStart hook."""
    assert runner.invoke(app, ["session", "start", "b2", "--persona", "bob"]).exit_code == 0
    for args in ([], ["--persona", "bob"], ["--json"]):
        fast = fast_wake(capsys, *args)
        assert fast == typer_wake(*args)
        assert "started" not in fast[0] and "bob says" in fast[0], fast
    assert "(most recently active; session b1)" in fast_wake(capsys)[1]
    # a persona whose only notes are startup notes: the axiom, as with no notes
    assert runner.invoke(app, ["session", "start", "c1", "--persona", "carol"]).exit_code == 0
    only = fast_wake(capsys, "--persona", "carol")
    assert only == typer_wake("--persona", "carol")
    assert only[0].startswith("No notes yet")
    from memgraph.store.sqlite_ext.standing import LightStanding

    reads = LightStanding(sessions / "mg-home" / "memgraph.db")
    try:
        latest = reads.latest_note("bob")
    finally:
        reads.close()
    assert latest is not None and latest[:2] == ("bob says", "b1")
