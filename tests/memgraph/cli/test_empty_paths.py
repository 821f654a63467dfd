"""Path arguments given empty text, and ``--store`` given a PostgreSQL URL.

typer reads ``""`` as ``Path("")``, the current folder: ``memgraph repo scan "$REPO"``
with REPO unset scanned wherever it ran, and ``--home ""`` made a store there. And a
``--store`` typed ``Path`` turned ``postgresql://h/db`` into ``postgresql:/h/db``, a
SQLite file under a folder named ``postgresql:`` in the current folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer.main

from memgraph.cli.app import app
from memgraph.cli.lean_args import Spec, parse
from tests.process import memgraph

# an address nothing listens on: connecting fails at once (connection refused)
DEAD_URL = "postgresql://nobody@127.0.0.1:9/nodb"


@pytest.mark.parametrize(
    "args",
    [
        ["repo", "scan", ""],  # the lean path hands it to typer, which refuses it
        ["repo", "scan", "--json", ""],  # typer's own path
        ["repo", "status", ""],
        ["repo", "scan", ".", "--home", ""],
        ["voice", "x", "--home", ""],
        ["recall", "x", "--home", " "],
        ["context", "x", "--cut", "repo", "--repo", ""],
        ["import-vault", ""],
        ["wiki", "validate", ""],
        ["validate", "x.db", ""],
    ],
)
def test_an_empty_path_argument_is_a_usage_error(args: list[str], tmp_path: Path) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    (work / "page.md").write_text("# a page that must not be read\n")
    proc = memgraph(*args, cwd=work, stdin="")
    assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
    assert "(an unset shell variable?)" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in work.iterdir()) == ["page.md"]  # nothing made here


def test_every_path_parameter_is_guarded() -> None:
    """The guard is installed on the whole command tree, not command by command."""
    root = typer.main.get_command(app)
    guarded, paths = 0, 0

    def walk(command: object) -> None:
        nonlocal guarded, paths
        for sub in getattr(command, "commands", {}).values():
            walk(sub)
        for param in getattr(command, "params", ()):
            described = getattr(param, "type_descriptor", None)
            if described is not None and "Path" in repr(described.annotation):
                paths += 1
                guarded += "handle_parse_result" in vars(param)
            if param.name == "store" and described is not None:
                # a PostgreSQL URL is no Path (see the module docstring)
                assert described.annotation is str, (command, param.name)

    walk(root)
    assert paths > 20 and guarded == paths


@pytest.mark.parametrize(
    "args",
    [
        ["repo", "status", "."],
        ["repo", "scan", ".", "--json"],
        ["hook", "session-start"],
    ],
)
def test_a_store_url_is_not_taken_for_a_file(args: list[str], tmp_path: Path) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    hook = json.dumps({"session_id": "s1", "cwd": str(work), "hook_event_name": "SessionStart"})
    proc = memgraph(*args, "--store", DEAD_URL, cwd=work, stdin=hook if args[0] == "hook" else "")
    # the hook never fails its harness: it says why on stderr and exits 0
    assert proc.returncode == (0 if args[0] == "hook" else 1), (proc.stdout, proc.stderr)
    assert "127.0.0.1" in proc.stderr and "Traceback" not in proc.stderr
    assert list(work.iterdir()) == []  # no "postgresql:" folder holding a SQLite file


def test_the_lean_parser_hands_an_empty_path_to_typer() -> None:
    spec = Spec(valued={"--home": "home"}, flags={}, paths=("text", "home"), text="optional")
    assert parse([""], spec) is None and parse(["x", "--home="], spec) is None
    assert parse(["x", "--home", "h"], spec) == {"text": Path("x"), "home": Path("h")}
