"""The lean `memgraph recall` path: same bytes as typer, defers what it cannot do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli import recall_fast
from memgraph.cli.app import app
from tests.memgraph.cli.test_context_cli import db  # noqa: F401  (the fixture)

runner = CliRunner()


def _cases(store_file: Path, q: Path) -> list[list[str]]:
    s = ["--store", str(store_file)]
    v = [*s, "--embedder", "hash", "--qdrant-path", str(q)]
    return [
        ["cache tokens", *s],
        ["cache tokens", *s, "--json"],
        ["cache tokens", *s, "--limit", "1"],
        ["cache tokens", *s, "-n", "1", "--project", "alpha"],
        ["cache tokens", *s, "--session", "nope"],
        [f"--store={store_file}", "caching tokens longer"],
        ["caching tokens longer", *v],
        ["caching tokens longer", *v, "--json"],
        ["--", "-cache", *[]],  # a text that starts with a dash, after --
        # errors: same one line on stderr, same exit code
        ["cache", *s, "--limit", "0"],
        ["   ", *s],
        ["cache", "--store", str(store_file.parent / "missing" / "x.db")],
        ["cache", *s, "--embedder", "word2vec"],
    ]


def test_same_bytes_as_typer(
    db: Path,  # noqa: F811
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    q = tmp_path / "q"
    assert (
        runner.invoke(
            app, ["index", "--store", str(db), "--embedder", "hash", "--qdrant-path", str(q)]
        ).exit_code
        == 0
    )
    for args in _cases(db, q):
        code = recall_fast.run(args)
        fast = capsysbinary.readouterr()
        assert code is not None, f"fast path deferred {args}"
        result = runner.invoke(app, ["recall", *args])
        assert (code, fast.out, fast.err) == (
            result.exit_code,
            result.stdout_bytes,
            result.stderr_bytes,
        ), args


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["a", "b"],
        ["a", "--limit", "x"],
        ["a", "--bogus"],
        ["a", "--limit"],
        ["a", "-n=2"],
    ],
)
def test_defers_what_it_does_not_handle(args: list[str]) -> None:
    assert recall_fast.run(args) is None


def test_process_imports_no_typer(db: Path) -> None:  # noqa: F811
    code = (
        "import sys\n"
        "from memgraph.cli import main\n"
        f"sys.argv = ['memgraph', 'recall', 'cache tokens', '--store', {str(db)!r}]\n"
        "try:\n"
        "    main(exit=sys.exit)\n"
        "except SystemExit as exc:\n"
        "    heavy = sorted(m for m in ('typer', 'click', 'rich', 'pydantic_settings',"
        " 'torch', 'qdrant_client') if m in sys.modules)\n"
        "    sys.stderr.write(repr(heavy))\n"
        "    raise\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=os.environ.copy(), timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.endswith(b"[]"), proc.stderr
    expected = runner.invoke(app, ["recall", "cache tokens", "--store", str(db)])
    assert proc.stdout == expected.stdout_bytes
