"""Session YAML views keep what people and harnesses add; `note` exit and store agree;
nothing is written through a planted symlink (issue 15, data loss items 1 and 7)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli import session_fast
from memgraph.cli.app import app
from memgraph.fileio import forget_swept

runner = CliRunner()
APPENDED = '- timestamp: "2026-01-05T10:00:00Z"\n  text: "remember the flaky test"\n'


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def _file(env: Path, sid: str = "s1") -> Path:
    return env / "workspace" / ".memgraph" / "personas" / "default" / "sessions" / f"{sid}.yaml"


def _notes(env: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(env / "mg-home" / "memgraph.db")
    try:
        rows = conn.execute("SELECT text, node_id FROM session_notes ORDER BY ts").fetchall()
    finally:
        conn.close()
    return [(str(r[0]), str(r[1])) for r in rows]


def _note_by(path: str, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    """``memgraph note TEXT --session s1`` through the typer or the lean path (it must
    succeed); its stderr."""
    if path == "lean":
        assert session_fast.run([text, "--session", "s1"]) == 0
        return capsys.readouterr().err
    r = invoke("note", text, "--session", "s1")
    assert r.exit_code == 0
    return str(r.stderr)


def _receipt_actors(env: Path, node_id: str) -> list[str]:
    conn = sqlite3.connect(env / "mg-home" / "memgraph.db")
    try:
        rows = conn.execute("SELECT doc FROM receipts WHERE target_id = ?", (node_id,)).fetchall()
    finally:
        conn.close()
    from memgraph.store.docpack import unpack

    return [json.loads(unpack(r[0]))["actor"] for r in rows]


@pytest.mark.parametrize("path", ["typer", "lean"])
def test_hand_appended_note_survives_memgraph_note(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    f.write_text(f.read_text(encoding="utf-8") + APPENDED, encoding="utf-8")
    err = _note_by(path, "second", capsys)
    assert "imported 1 note" in err and err.count("\n") == 1
    texts = [t for t, _ in _notes(isolated_env)]
    assert "remember the flaky test" in texts and "second" in texts
    hand = next(nid for t, nid in _notes(isolated_env) if t == "remember the flaky test")
    assert _receipt_actors(isolated_env, hand) == ["session.yaml-import"]  # its own receipt
    view = f.read_text(encoding="utf-8")
    assert "remember the flaky test" in view and hand in view
    assert not f.with_name("s1.conflict.yaml").exists()
    # idempotent: the next note imports nothing more
    assert invoke("note", "third", "--session", "s1").exit_code == 0
    assert [t for t, _ in _notes(isolated_env)].count("remember the flaky test") == 1


def test_show_and_wake_agree_after_a_hand_edit(isolated_env: Path) -> None:
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    late = '- timestamp: "2099-01-01T00:00:00Z"\n  text: "future is clamped"\n- "plain item"\n'
    f.write_text(f.read_text(encoding="utf-8") + late, encoding="utf-8")
    wake = invoke("wake").stdout.strip()
    shown = invoke("session", "show", "s1").stdout.splitlines()
    assert shown[-1].endswith(wake)  # the newest note both read is the same
    texts = [t for t, _ in _notes(isolated_env)]
    assert "future is clamped" in texts and "plain item" in texts


def test_edit_of_a_stored_note_is_kept_verbatim_and_reported(isolated_env: Path) -> None:
    assert invoke("note", "typo teh", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    edited = f.read_text(encoding="utf-8").replace("typo teh", "typo the")
    f.write_text(edited, encoding="utf-8")
    r = invoke("note", "next", "--session", "s1")
    assert r.exit_code == 0 and "s1.conflict.yaml" in r.stderr
    assert f.with_name("s1.conflict.yaml").read_text(encoding="utf-8") == edited
    assert "typo teh" in f.read_text(encoding="utf-8")  # the view shows the store


@pytest.mark.parametrize(
    "extra",
    [
        "# my own comment: the retry bug is in the client\n",
        '- text: "look at the client"  # see issue 12\n',
        '- text: "look at the client"\n  tags: [client]\n',
    ],
    ids=["comment line", "inline comment", "a key of its own"],
)
def test_what_the_view_cannot_carry_is_kept_not_dropped(isolated_env: Path, extra: str) -> None:
    """A comment typed into the session YAML (or a key a note does not have) was
    dropped without a word when the view was re-rendered: the parser never sees a
    comment, and the notes were imported. The file is now kept verbatim beside the
    view, and an appended note is still imported."""
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    edited = f.read_text(encoding="utf-8") + extra
    f.write_text(edited, encoding="utf-8")
    r = invoke("session", "show", "s1")
    assert r.exit_code == 0 and "s1.conflict.yaml" in r.stderr
    assert f.with_name("s1.conflict.yaml").read_text(encoding="utf-8") == edited
    if "look at the client" in extra:
        assert "look at the client" in [t for t, _ in _notes(isolated_env)]


def test_a_note_with_a_hash_inside_quotes_is_no_comment(isolated_env: Path) -> None:
    assert invoke("note", "fix #12 first; then 'this' # too", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    f.write_text(f.read_text(encoding="utf-8") + '- "see #12"\n', encoding="utf-8")
    r = invoke("session", "show", "s1")
    assert r.exit_code == 0 and "conflict" not in r.stderr, r.stderr
    assert not f.with_name("s1.conflict.yaml").exists()


@pytest.mark.parametrize("path", ["typer", "lean"])
def test_note_view_failure_is_a_warning_and_stored_once(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    f.unlink()
    f.mkdir()  # a directory where the view goes: the view cannot be written
    if path == "lean":
        code = session_fast.run(["kept once", "--session", "s1"])
        out = capsys.readouterr()
        stdout, stderr = out.out, out.err
    else:
        r = invoke("note", "kept once", "--session", "s1")
        code, stdout, stderr = r.exit_code, r.stdout, r.stderr
    assert code == 0 and stdout.startswith("noted n-")
    assert stderr.startswith("Warning: note n-") and stderr.count("\n") == 1
    assert "do not retry" in stderr
    assert [t for t, _ in _notes(isolated_env)].count("kept once") == 1


@pytest.mark.parametrize("path", ["typer", "lean"])
def test_lock_symlink_creates_nothing_outside(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    outside = isolated_env / "outside" / "planted"
    outside.parent.mkdir()
    lock = f.with_name("s1.yaml.lock")
    lock.unlink()
    lock.symlink_to(outside)
    if path == "lean":
        code = session_fast.run(["second", "--session", "s1"])
        stderr = capsys.readouterr().err
    else:
        r = invoke("note", "second", "--session", "s1")
        code, stderr = r.exit_code, r.stderr
    assert code == 0 and "symlink" in stderr
    assert not outside.exists() and os.listdir(outside.parent) == []
    assert "second" in [t for t, _ in _notes(isolated_env)]


def test_view_symlink_is_not_written_through(isolated_env: Path) -> None:
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    target = isolated_env / "elsewhere.yaml"
    target.write_text("mine\n", encoding="utf-8")
    f.unlink()
    f.symlink_to(target)
    r = invoke("note", "second", "--session", "s1")
    assert r.exit_code == 0 and "symlink" in r.stderr
    assert target.read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("link", ["view", "dot-memgraph"])
def test_show_reads_the_store_when_the_view_leads_out(isolated_env: Path, link: str) -> None:
    """`session show` exited 1 ("... escapes ...") when the view (or `.memgraph`) was a
    symlink out of the workspace; it shows the store's notes and says the view was not read."""
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    if link == "view":
        target = isolated_env / "elsewhere.yaml"
        target.write_text("mine\n", encoding="utf-8")
        f.unlink()
        f.symlink_to(target)
    else:
        dot = isolated_env / "workspace" / ".memgraph"
        target = isolated_env / "elsewhere"
        dot.rename(target)
        dot.symlink_to(target)
    before = sorted((p, p.read_bytes()) for p in target.rglob("*") if p.is_file())
    before += [(target, target.read_bytes())] if target.is_file() else []
    r = invoke("session", "show", "s1")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[-1].endswith(" first")
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("Warning: session view not read")
    assert "escapes" in r.stderr
    r = invoke("session", "show", "s1", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout.splitlines()[-1])["text"] == "first"
    after = sorted((p, p.read_bytes()) for p in target.rglob("*") if p.is_file())
    after += [(target, target.read_bytes())] if target.is_file() else []
    assert after == before  # nothing written out there
    assert invoke("session", "show", "nope").exit_code == 1


def test_stale_temp_files_of_a_killed_note_are_removed(isolated_env: Path) -> None:
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    old = f.with_name(".s1.yaml.abc123.tmp")
    young = f.with_name(".s1.yaml.def456.tmp")
    for tmp in (old, young):
        tmp.write_text("half a view", encoding="utf-8")
    past = time.time() - 3600
    os.utime(old, (past, past))
    forget_swept()  # a directory is swept at most once a minute per process
    assert invoke("note", "second", "--session", "s1").exit_code == 0
    assert not old.exists() and young.exists()  # a young one may be a live writer's


@pytest.mark.parametrize("path", ["typer", "lean"])
def test_a_second_conflict_never_replaces_the_first_copy(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    assert invoke("note", "typo teh", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    first = f.read_text(encoding="utf-8").replace("typo teh", "first fix")
    f.write_text(first, encoding="utf-8")
    assert invoke("note", "next", "--session", "s1").exit_code == 0
    second = f.read_text(encoding="utf-8").replace("typo teh", "second fix")
    f.write_text(second, encoding="utf-8")
    err = _note_by(path, "again", capsys)
    assert "s1.conflict-2.yaml" in err
    assert f.with_name("s1.conflict.yaml").read_text(encoding="utf-8") == first
    assert f.with_name("s1.conflict-2.yaml").read_text(encoding="utf-8") == second


@pytest.mark.parametrize("path", ["typer", "lean"])
def test_a_view_saved_in_latin1_is_moved_aside_byte_for_byte(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    edited = f.read_bytes() + '- "café, saved by an editor in Latin-1"\n'.encode("latin-1")
    f.write_bytes(edited)
    err = _note_by(path, "second", capsys)
    assert "s1.conflict.yaml" in err
    assert f.with_name("s1.conflict.yaml").read_bytes() == edited  # nothing lost
    assert "second" in f.read_text(encoding="utf-8")  # the view shows the store again


def test_probe_lists_every_kept_copy_of_a_session_view(isolated_env: Path) -> None:
    from profiles.voice.probe import view_conflicts

    f = _file(isolated_env)
    f.parent.mkdir(parents=True)
    for name in ("s1.conflict.yaml", "s1.conflict-2.yaml", "s1.yaml"):
        f.with_name(name).write_text("notes: [", encoding="utf-8")
    found = view_conflicts(None, isolated_env / "workspace")
    assert found == [str(f.with_name("s1.conflict-2.yaml")), str(f.with_name("s1.conflict.yaml"))]


def test_one_view_linked_out_of_the_workspace_does_not_break_wake_or_list(
    isolated_env: Path,
) -> None:
    """A planted symlink in one session's view path failed `wake` and `session list`
    for every session ("... escapes ..."); they read the store and carry on."""
    assert invoke("note", "other session's note", "--session", "s0").exit_code == 0
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    target = isolated_env / "elsewhere.yaml"
    target.write_text("mine\n", encoding="utf-8")
    f.unlink()
    f.symlink_to(target)
    listed = invoke("session", "list", "--json")
    assert listed.exit_code == 0, listed.output
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["session_id"] for r in rows] == ["s1", "s0"] and rows[0]["file"] == str(f)
    woke = invoke("wake")
    assert woke.exit_code == 0 and woke.stdout.strip() == "first"
    assert target.read_text(encoding="utf-8") == "mine\n"  # and nothing written through
    shown = invoke("session", "show", "s1")  # the store's notes; the view is not read
    assert shown.exit_code == 0 and "escapes" in shown.stderr and "first" in shown.stdout
    assert target.read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("stamp", ["yesterday", "not a time", "2999-01-01T00:00:00Z"])
def test_a_hand_note_whose_time_is_not_understood_is_kept_and_said(
    isolated_env: Path, stamp: str
) -> None:
    """A note appended by hand with a timestamp the import cannot read (or out of range)
    was imported at "now" without a word. It is still imported (the text is not lost),
    and the file is kept verbatim in .conflict.yaml with the reason on stderr."""
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    edited = (
        f.read_text(encoding="utf-8") + f'- text: "look at the client"\n  timestamp: "{stamp}"\n'
    )
    f.write_text(edited, encoding="utf-8")
    r = invoke("session", "show", "s1")
    assert r.exit_code == 0 and "s1.conflict.yaml" in r.stderr, r.stderr
    assert f"timestamp '{stamp}' not understood" in r.stderr
    assert f.with_name("s1.conflict.yaml").read_text(encoding="utf-8") == edited
    assert "look at the client" in [t for t, _ in _notes(isolated_env)]


def test_a_hand_note_with_a_good_time_is_imported_quietly(isolated_env: Path) -> None:
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    f = _file(isolated_env)
    extra = '- text: "look at the client"\n  timestamp: "2026-12-01T10:00:00Z"\n'
    f.write_text(f.read_text(encoding="utf-8") + extra, encoding="utf-8")
    r = invoke("session", "show", "s1")
    assert r.exit_code == 0 and "conflict" not in r.stderr, r.stderr
    assert "look at the client" in [t for t, _ in _notes(isolated_env)]
