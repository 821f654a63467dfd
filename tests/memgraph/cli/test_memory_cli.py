"""`memgraph remember` / `memgraph propose` on the command line: a refused claim is
one `Error:` line a person can act on (the law, not the patch's op path)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("argv", "expect", "code"),
    [
        # remember's kinds are those --help names (a usage error; the profile's own list
        # holds `cluster`, which only sleep writes)
        (["remember", "hi", "--kind", "bogus"], "use one of observation | thought | todo", 2),
        (["propose", "role_self", "x", "--kind", "bogus"], "(commitment, habit, lesson", 1),
        (["propose", "role_self", "x", "--state", "bogus"], "enters as proposed", 1),
        (["propose", "role_self", "x", "--state", "accepted"], "enters as proposed", 1),
    ],
)
def test_a_refused_kind_or_state_is_the_law_without_the_op_path(
    isolated_env: Path, argv: list[str], expect: str, code: int
) -> None:
    """Before: `Error: ops[0] upsert_node: n-07f3874e51371b43: kind 'bogus' ...`."""
    result = runner.invoke(app, [*argv, "--session", "s-1", "--project", "orchard"])
    assert result.exit_code == code, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "ops[" not in lines[0] and "upsert_node" not in lines[0]
    assert expect in lines[0]


def test_an_accepted_claim_still_prints_its_line(isolated_env: Path) -> None:
    result = runner.invoke(
        app, ["propose", "role_self", "I keep PRs small", "--session", "s-1", "--project", "o"]
    )
    assert result.exit_code == 0 and result.stdout.startswith("stored n-"), result.output


def test_remember_propose_sleep_and_backup_use_the_configured_store(
    isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MEMGRAPH_STORE (or `store` in the config file) names the store: these four
    wrote to / read <home>/memgraph.db instead, so a memory vanished from the
    store every other command reads (and a PostgreSQL fleet never saw it)."""
    import os

    from memgraph.store import open_store

    other = tmp_path / "elsewhere" / "shared.db"
    open_store(other).close()
    monkeypatch.setenv("MEMGRAPH_STORE", str(other))
    home_db = Path(os.environ["MEMGRAPH_HOME"]) / "memgraph.db"
    args = ["--session", "s-1", "--project", "orchard"]
    assert runner.invoke(app, ["remember", "kept where I look", *args]).exit_code == 0
    assert runner.invoke(app, ["propose", "role_self", "I look first", *args]).exit_code == 0
    assert runner.invoke(app, ["sleep", "--now", "--dry-run"]).exit_code == 0
    listed = runner.invoke(app, ["review", "list"])
    assert "I look first" in listed.stdout, listed.output
    with open_store(other) as s:
        assert {n.claim for n in s.iter_nodes(profile="short_term")} == {"kept where I look"}
    assert not home_db.exists()
    copy = tmp_path / "copy.db"
    done = runner.invoke(app, ["backup", str(copy)])
    assert done.exit_code == 0 and done.stderr.startswith(f"backed up {other} to "), done.output
    monkeypatch.setenv("MEMGRAPH_STORE", "postgresql://u@127.0.0.1:1/db")
    refused = runner.invoke(app, ["backup", str(tmp_path / "pg.db")])
    assert refused.exit_code == 2
    assert refused.stderr.startswith("Error: backup copies a SQLite store file; ")


def test_review_decides_several_ids_and_says_when_the_list_is_cut(isolated_env: Path) -> None:
    """A repo scan leaves hundreds of observed nodes: `review accept` takes several
    ids (`review list --json | jq -r .id | xargs memgraph review accept`), a bad one
    is one line and the rest are still decided; `review list` says when its --limit
    cut the list (before: 200 lines and no word of the thousands left)."""
    import json

    ids = []
    for i in range(4):
        out = runner.invoke(
            app,
            ["propose", "role_self", f"I check the ledger totals first ({i})", "--session",
             "s-1", "--project", "orchard", "--json"],
        )  # fmt: skip
        assert out.exit_code == 0, out.output
        ids.append(json.loads(out.stdout)["id"])
    first = json.loads(runner.invoke(app, ["review", "list", "--json"]).stdout.splitlines()[0])
    listed = runner.invoke(app, ["review", "list", "--limit", "3"])
    assert listed.exit_code == 0 and len(listed.stdout.splitlines()) == 3
    assert "more than 3 waiting: the oldest 3 shown" in listed.stderr
    whole = runner.invoke(app, ["review", "list", "--limit", "4"])
    assert "more than" not in whole.stderr
    done = runner.invoke(app, ["review", "accept", ids[0], "n-nope", ids[1], ids[0]])
    assert done.exit_code == 1
    assert done.stdout.count("accepted ") == 2 and "no node 'n-nope'" in done.stderr
    done = runner.invoke(app, ["review", "reject", ids[2], ids[3], "--json"])
    assert done.exit_code == 0
    assert [json.loads(line)["verdict"] for line in done.stdout.splitlines()] == ["reject"] * 2
    empty = runner.invoke(app, ["review", "list"])
    assert empty.stdout == "" and "nothing waiting for review" in empty.stderr
    # a domain with nodes, all decided: nothing waiting; a mistyped domain: an error
    domain = first["domain_id"]
    with_nodes = runner.invoke(app, ["review", "list", "--domain", domain])
    assert with_nodes.exit_code == 0, with_nodes.output
    assert "nothing waiting for review" in with_nodes.stderr
    typo = runner.invoke(app, ["review", "list", "--domain", domain + "x"])
    assert typo.exit_code == 1 and typo.stdout == ""
    assert typo.stderr.startswith(f"Error: no domain '{domain}x' in this store")
