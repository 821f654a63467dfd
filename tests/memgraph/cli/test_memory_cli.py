"""`memgraph remember` / `memgraph propose` on the command line: a refused claim is
one `Error:` line a person can act on (the law, not the patch's op path)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("argv", "expect"),
    [
        (["remember", "hi", "--kind", "bogus"], "kind 'bogus' is not part of profile short_term"),
        (["propose", "role_self", "x", "--kind", "bogus"], "(commitment, habit, lesson"),
        (["propose", "role_self", "x", "--state", "bogus"], "enters as proposed"),
        (["propose", "role_self", "x", "--state", "accepted"], "enters as proposed"),
    ],
)
def test_a_refused_kind_or_state_is_the_law_without_the_op_path(
    isolated_env: Path, argv: list[str], expect: str
) -> None:
    """Before: `Error: ops[0] upsert_node: n-07f3874e51371b43: kind 'bogus' ...`."""
    result = runner.invoke(app, [*argv, "--session", "s-1", "--project", "orchard"])
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "ops[" not in lines[0] and "upsert_node" not in lines[0]
    assert expect in lines[0]


def test_an_accepted_claim_still_prints_its_line(isolated_env: Path) -> None:
    result = runner.invoke(
        app, ["propose", "role_self", "I keep PRs small", "--session", "s-1", "--project", "o"]
    )
    assert result.exit_code == 0 and result.stdout.startswith("stored n-"), result.output
