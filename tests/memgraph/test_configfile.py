"""``replace_config_file`` never replaces a user's config file without its exact bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph import fileio
from memgraph.cli.app import app
from memgraph.configfile import replace_config_file
from memgraph.errors import StoreError


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


LATIN1 = '{"theme": "café"}\n'.encode("latin-1")


def test_a_latin1_config_file_is_backed_up_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(LATIN1)
    read = LATIN1.decode("utf-8", "surrogateescape")  # as a caller may have read it
    assert replace_config_file(path, '{"theme": "dark"}\n', planned_from=read) == path
    assert path.read_text() == '{"theme": "dark"}\n'
    assert (tmp_path / "settings.json.bak").read_bytes() == LATIN1


def test_a_config_file_that_cannot_be_read_whole_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memgraph.fileio as fileio

    path = tmp_path / "settings.json"
    path.write_bytes(LATIN1 * 4)
    monkeypatch.setattr(fileio, "read_bytes_nofollow", lambda p, limit=10: None)
    with pytest.raises(StoreError, match="to keep a backup; not changed"):
        replace_config_file(path, "{}\n", planned_from=None)
    assert path.read_bytes() == LATIN1 * 4
    assert not (tmp_path / "settings.json.bak").exists()


def test_hook_install_leaves_a_latin1_settings_file_and_says_so(isolated_env: Path) -> None:
    path = isolated_env / "settings.json"
    path.write_bytes(LATIN1)
    result = CliRunner().invoke(app, ["hook", "install", "--settings", str(path)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: settings file {path} is not UTF-8 text (byte 14); not changed\n"
    )
    assert path.read_bytes() == LATIN1


def test_replace_config_file_keeps_a_save_made_after_its_backup_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"a": 1}\n')
    real = fileio.atomic_write_bytes

    def backup_then_save(p: Path, data: bytes, **kw: object) -> None:
        real(p, data, **kw)  # type: ignore[arg-type]
        path.write_text('{"a": 1, "theme": "dark"}\n')  # Claude Code saved it meanwhile

    monkeypatch.setattr(fileio, "atomic_write_bytes", backup_then_save)
    with pytest.raises(StoreError, match="changed while memgraph wrote it; nothing overwritten"):
        replace_config_file(path, '{"a": 1, "hooks": {}}\n', planned_from='{"a": 1}\n')
    assert path.read_text() == '{"a": 1, "theme": "dark"}\n'
    assert _temps(tmp_path) == []


def test_replace_config_file_keeps_a_save_made_after_the_callers_read(tmp_path: Path) -> None:
    """The caller (hook install) read settings.json, planned its text; Claude Code saved
    the file before replace_config_file read it for the backup. That read saw the new
    bytes and took them as the plan's base: the save was replaced. Now the file must
    still hold what the caller planned from."""
    path = tmp_path / "settings.json"
    path.write_text('{"a": 1, "theme": "dark"}\n')  # saved after the caller read {"a": 1}
    with pytest.raises(StoreError, match="changed while memgraph read it; nothing overwritten"):
        replace_config_file(path, '{"a": 1, "hooks": {}}\n', planned_from='{"a": 1}\n')
    assert path.read_text() == '{"a": 1, "theme": "dark"}\n'
    assert not (tmp_path / "settings.json.bak").exists() and _temps(tmp_path) == []
    # a file that appeared after the caller saw none is not replaced either
    with pytest.raises(StoreError, match="changed while memgraph read it"):
        replace_config_file(path, "{}\n", planned_from=None)
