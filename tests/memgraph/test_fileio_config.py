"""``replace_config_file`` never replaces a user's config file without its exact bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from memgraph.errors import StoreError
from memgraph.fileio import replace_config_file

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
