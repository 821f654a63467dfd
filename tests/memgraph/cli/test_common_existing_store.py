"""Commands with nothing to do on a store that does not exist never create one
(``memgraph.cli.common.existing_store``): a typo in ``--home`` is one Error line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize(
    "argv",
    [
        ["reindex"],
        ["review", "list"],
        ["review", "accept", "n-1"],
        ["review", "reject", "n-1"],
        ["forget", "--query", "retry", "--dry-run"],
        ["forget", "n-1", "--yes"],
        ["index", "--embedder", "hash"],
        ["index", "--status", "--embedder", "hash"],
    ],
)
def test_a_mistyped_home_is_an_error_not_a_new_empty_store(
    isolated_env: Path, tmp_path: Path, argv: list[str]
) -> None:
    """Before: exit 0 ("reindexed 0 voice messages", an empty review list...) and a
    new store (and qdrant dir) at the typo."""
    typo = tmp_path / "mg-hme"
    result = runner.invoke(app, [*argv, "--home", str(typo)])
    assert result.exit_code == 1, result.output
    assert (
        result.stderr
        == f"Error: no store at {typo / 'memgraph.db'} (set --store or MEMGRAPH_HOME)\n"
    )
    assert not typo.exists()


def test_an_existing_store_is_used(isolated_env: Path, tmp_path: Path) -> None:
    from memgraph.store import open_store

    home = tmp_path / "mg"
    open_store(home / "memgraph.db").close()
    assert runner.invoke(app, ["review", "list", "--home", str(home)]).exit_code == 0
    done = runner.invoke(app, ["reindex", "--home", str(home)])
    assert done.exit_code == 0 and done.stdout.startswith("reindexed 0 voice messages")
