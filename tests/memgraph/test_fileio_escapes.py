"""Nothing memgraph writes escapes its root or goes through a planted symlink
(issue 15, "Escapes outside a root")."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.beneath import FileEscape, open_under
from memgraph.cli.app import app
from memgraph.errors import StoreError
from memgraph.fileio import (
    append_line,
    atomic_write_text,
    file_lock,
    forget_swept,
    read_text_nofollow,
    remove_stale_temps,
)

sys.path.insert(0, str(Path(__file__).parents[1] / "profiles" / "voice"))
from _capture_helpers import PROMPTS, SID, claude_records, write_transcript

runner = CliRunner()


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def test_append_line_refuses_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("precious\n")
    link = tmp_path / "log.md"
    link.symlink_to(target)
    with pytest.raises(FileEscape, match="symlink"):
        append_line(link, b"x\n")
    assert target.read_text() == "precious\n"
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere" / "created")
    with pytest.raises(FileEscape):
        append_line(dangling, b"x\n")
    assert not (tmp_path / "nowhere").exists()


def test_file_lock_refuses_a_symlinked_lock(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    view = tmp_path / "ws" / "s1.yaml"
    view.parent.mkdir()
    view.with_name("s1.yaml.lock").symlink_to(outside / "created-by-O_CREAT")
    with pytest.raises(FileEscape), file_lock(view):
        pass
    assert os.listdir(outside) == []


def test_read_and_write_never_follow_links(tmp_path: Path) -> None:
    target = tmp_path / "secret"
    target.write_text("s")
    link = tmp_path / "page.md"
    link.symlink_to(target)
    with pytest.raises(FileEscape):
        read_text_nofollow(link)
    # a root check refuses a directory that resolves elsewhere
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "sub").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(FileEscape, match="escapes"):
        atomic_write_text(tmp_path / "root" / "sub" / "x.md", "x", root=tmp_path / "root")
    assert os.listdir(tmp_path / "elsewhere") == []
    # the page's folder does not exist yet: nothing is made through the link either
    with pytest.raises(FileEscape, match="escapes"):
        atomic_write_text(tmp_path / "root" / "sub" / "voice" / "x.md", "x", root=tmp_path / "root")
    assert os.listdir(tmp_path / "elsewhere") == []
    assert issubclass(FileEscape, StoreError)


def test_a_fifo_in_the_way_is_refused_at_once_never_waited_on(tmp_path: Path) -> None:
    # a blocking open of a FIFO waits for the other end forever (read) or fails
    # later (write); every no-follow open refuses it at once
    fifo = tmp_path / "page.md"
    os.mkfifo(fifo)
    with pytest.raises(FileEscape, match="not a regular file"):
        read_text_nofollow(fifo)
    with pytest.raises(FileEscape, match="not a regular file"):
        append_line(fifo, b"x\n")
    lock = tmp_path / "s1.yaml"
    os.mkfifo(lock.with_name("s1.yaml.lock"))
    with pytest.raises(FileEscape, match="not a regular file"), file_lock(lock):
        pass
    # a regular file opened the same way reads and appends as before (blocking again)
    plain = tmp_path / "log.md"
    append_line(plain, b"one\n")
    append_line(plain, b"two\n")
    assert read_text_nofollow(plain) == "one\ntwo\n"


def test_remove_stale_temps_keeps_young_and_foreign_files(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    old, young, other = (tmp_path / n for n in (".p.md.a.tmp", ".p.md.b.tmp", ".q.md.c.tmp"))
    for f in (old, young, other):
        f.write_text("x")
    past = time.time() - 3600
    for f in (old, other):
        os.utime(f, (past, past))
    forget_swept()
    assert remove_stale_temps(page) == 2  # every killed writer's temp in the directory
    assert not old.exists() and young.exists() and not other.exists()
    stray = tmp_path / "notes.tmp"  # not a temp name of ours: never touched
    stray.write_text("x")
    os.utime(stray, (past, past))
    forget_swept()
    remove_stale_temps(page)
    assert stray.exists()


def _read_under(path: Path, root: Path) -> bytes:
    with os.fdopen(open_under(path, root), "rb") as fh:
        return fh.read()


def test_open_under_reads_inside_its_root_only(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "p.md").write_text("mine")
    (root / "b").symlink_to(root / "a", target_is_directory=True)  # a link inside: fine
    (root / "a" / "q.md").symlink_to(root / "a" / "p.md")
    assert _read_under(root / "a" / "p.md", root) == b"mine"
    assert _read_under(root / "b" / "q.md", root) == b"mine"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "p.md").write_text("theirs")
    (root / "c").symlink_to(outside, target_is_directory=True)
    (root / "a" / "r.md").symlink_to(outside / "p.md")
    for path in (root / "c" / "p.md", root / "a" / "r.md", root / ".." / "outside" / "p.md"):
        with pytest.raises(FileEscape, match="escapes"):
            open_under(path, root)
    os.mkfifo(root / "a" / "fifo.md")  # refused at once, never waited on
    with pytest.raises(FileEscape, match="not a regular file"):
        open_under(root / "a" / "fifo.md", root)
    with pytest.raises(FileNotFoundError):
        open_under(root / "a" / "gone.md", root)


@pytest.mark.parametrize("swap", ["folder", "file"])
def test_open_under_refuses_a_link_swapped_in_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str
) -> None:
    """The path resolves inside; then (before the open) a folder on its way or the
    file itself becomes a link out of the root: the open follows neither."""
    from memgraph import beneath

    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "p.md").write_text("mine")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "p.md").write_text("theirs")
    real = beneath._open_beneath

    def racing(*args: object) -> int:
        if swap == "folder":
            (root / "a").rename(tmp_path / "moved")
            (root / "a").symlink_to(outside, target_is_directory=True)
        else:
            (root / "a" / "p.md").unlink()
            (root / "a" / "p.md").symlink_to(outside / "p.md")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(beneath, "_open_beneath", racing)
    with pytest.raises(FileEscape, match="became a symlink"):
        open_under(root / "a" / "p.md", root)


def _hook(env: Path) -> object:
    path = write_transcript(env / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    data = {"session_id": SID, "transcript_path": str(path), "cwd": "/nonexistent/work/atlas"}
    return runner.invoke(app, ["hook", "session-end"], input=json.dumps(data))


def test_log_md_symlink_is_not_appended_to(isolated_env: Path) -> None:
    target = isolated_env / "outside-log.txt"
    target.write_text("not yours\n")
    vault = isolated_env / "vault"
    vault.mkdir()
    (vault / "log.md").symlink_to(target)
    result = _hook(isolated_env)
    assert result.exit_code == 1  # type: ignore[attr-defined]
    err = result.stderr  # type: ignore[attr-defined]
    assert err.startswith("Error: ") and err.count("\n") == 1 and "symlink" in err
    assert "Traceback" not in result.output  # type: ignore[attr-defined]
    assert target.read_text() == "not yours\n"


@pytest.mark.parametrize("where", ["page", "voice-dir"])
def test_page_symlink_outside_the_vault_is_refused(isolated_env: Path, where: str) -> None:
    outside = isolated_env / "outside"
    outside.mkdir()
    voice = isolated_env / "vault" / "atlas" / "voice"
    if where == "page":
        voice.mkdir(parents=True)
        (outside / "victim.md").write_text("victim\n")
        (voice / "2026-04-14-80166115.md").symlink_to(outside / "victim.md")
    else:
        voice.parent.mkdir(parents=True)
        voice.symlink_to(outside, target_is_directory=True)
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    result = _hook(isolated_env)
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "escapes" in result.stderr  # type: ignore[attr-defined]
    after = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    assert after == before


def test_page_of_a_voice_dir_linked_outside_is_not_read(isolated_env: Path) -> None:
    # another session's page out there would give the page the full-id name (its
    # owner read to pick the name); nothing outside the vault is read, and the
    # write refuses the short name's place in one line
    outside = isolated_env / "outside"
    outside.mkdir()
    (outside / "2026-04-14-80166115.md").write_text("---\nsession_id: 80166115-other\n---\n")
    voice = isolated_env / "vault" / "atlas" / "voice"
    voice.parent.mkdir(parents=True)
    voice.symlink_to(outside, target_is_directory=True)
    result = _hook(isolated_env)
    assert result.exit_code == 1  # type: ignore[attr-defined]
    err = result.stderr  # type: ignore[attr-defined]
    assert err.startswith("Error: ") and err.count("\n") == 1 and "escapes" in err
    assert "2026-04-14-80166115.md" in err and SID not in err


def test_session_dir_symlinked_outside_the_workspace_is_refused(isolated_env: Path) -> None:
    outside = isolated_env / "outside"
    outside.mkdir()
    ws = isolated_env / "workspace"
    ws.mkdir()
    (ws / ".memgraph").symlink_to(outside, target_is_directory=True)
    result = runner.invoke(app, ["note", "hello", "--session", "s1"])
    # the note is stored; the view is refused with a warning, nothing lands outside
    assert result.exit_code == 0 and "escapes" in result.stderr
    assert [p for p in outside.rglob("*") if p.is_file()] == []


def test_hook_install_edits_a_symlinked_settings_target(isolated_env: Path) -> None:
    dotfiles = isolated_env / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_text('{"theme": "dark"}\n')
    os.chmod(real, 0o640)
    link = isolated_env / "settings.json"
    link.symlink_to(real)
    result = runner.invoke(app, ["hook", "install", "--settings", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(real)  # the link stays
    data = json.loads(real.read_text())
    assert data["theme"] == "dark" and "SessionEnd" in data["hooks"]
    assert os.stat(real).st_mode & 0o777 == 0o640  # mode kept
    assert (dotfiles / "claude-settings.json.bak").read_text() == '{"theme": "dark"}\n'


def test_a_symlink_loop_is_a_file_escape_not_a_runtime_error(tmp_path: Path) -> None:
    """``safe_child`` / ``check_under`` / ``open_under`` resolve the path: on Python
    3.11 a loop is a bare RuntimeError, which reached `render` as a traceback."""
    from memgraph.beneath import FileEscape, check_under, open_under, safe_child

    loop = tmp_path / "page.md"
    loop.symlink_to(loop)
    with pytest.raises(FileEscape, match="is a symlink loop"):
        safe_child(tmp_path, "page.md")
    with pytest.raises(FileEscape, match="is a symlink loop"):
        open_under(loop, tmp_path)
    folder = tmp_path / "folder"
    folder.symlink_to(folder)
    with pytest.raises(FileEscape, match="is a symlink loop"):
        check_under(folder / "page.md", tmp_path)
