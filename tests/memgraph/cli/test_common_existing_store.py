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
        ["recall", "retry"],
        ["recall", "retry", "--json"],
        ["context", "retry"],
        ["context", "retry", "--cut", "repo", "--repo", "."],
        ["wake"],
        ["wake", "--json"],
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
        == f"Error: no store at {typo / 'memgraph.db'} (check --home/MEMGRAPH_HOME or --store/MEMGRAPH_STORE)\n"
    )
    assert not typo.exists()


def test_an_existing_store_is_used(isolated_env: Path, tmp_path: Path) -> None:
    from memgraph.store import open_store

    home = tmp_path / "mg"
    open_store(home / "memgraph.db").close()
    assert runner.invoke(app, ["review", "list", "--home", str(home)]).exit_code == 0
    done = runner.invoke(app, ["reindex", "--home", str(home)])
    assert done.exit_code == 0 and done.stdout.startswith("reindexed 0 voice messages")


@pytest.mark.parametrize("name", ["recall_fast", "context_fast"])
def test_the_lean_paths_say_so_too(
    isolated_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """The lean `recall`/`context` created an empty store at a mistyped --home and
    printed nothing; `wake` printed the no-notes axiom. Now one Error line."""
    import importlib

    typo = tmp_path / "mg-hme"
    lean = importlib.import_module(f"memgraph.cli.{name}")
    assert lean.run(["retry", "--home", str(typo)]) == 1
    err = capsys.readouterr().err
    assert (
        err
        == f"Error: no store at {typo / 'memgraph.db'} (check --home/MEMGRAPH_HOME or --store/MEMGRAPH_STORE)\n"
    )
    from memgraph.cli import wake_fast

    assert wake_fast.run(["--home", str(typo)]) is None  # typer's `wake` says so
    assert not typo.exists()


def test_session_start_hook_on_a_fresh_install_is_quiet(isolated_env: Path) -> None:
    """No store yet: the SessionStart hook still gives its packet and no error."""
    import json
    import os

    from profiles.wakeup.hook import session_start

    home = Path(os.environ["MEMGRAPH_HOME"])
    raw = json.dumps({"session_id": "s-1", "cwd": str(isolated_env), "source": "startup"})
    out, problems = session_start(raw.encode(), os.environ, {})
    assert problems == []
    assert "no store yet" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert not (home / "memgraph.db").exists()
