"""``memgraph review list|accept|reject``: review receipts for proposed memory and
repo candidates (library: ``profiles.review``)."""

from __future__ import annotations

from pathlib import Path

import typer

from memgraph.cli.common import print_json_line

review_app = typer.Typer(
    help="Review proposals: role_self, repo_architecture/repo_dataflow candidates, evidence.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
ReviewerOpt = typer.Option("operator", "--reviewer", help="Who reviews (recorded).")
ReasonOpt = typer.Option("", "--reason", help="Why (recorded in the receipt).")
JsonOpt = typer.Option(False, "--json", help="One JSON object per line.")


def _store(home: Path | None):  # type: ignore[no-untyped-def]
    from memgraph.cli.common import existing_store

    return existing_store(home)


@review_app.command("list")
def list_cmd(
    profile: str | None = typer.Option(None, "--profile", help="Only this profile."),
    domain: str | None = typer.Option(None, "--domain", help="Only this domain id."),
    limit: int = typer.Option(200, "--limit", min=1, help="At most this many."),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Nodes waiting for review, oldest first."""
    from dataclasses import asdict

    from profiles.review import list_pending

    store = _store(home)
    try:
        pending = list_pending(store, profile, domain, limit)
    finally:
        store.close()
    for p in pending:
        if as_json:
            row = asdict(p)
            row["since"] = p.since.isoformat().replace("+00:00", "Z")
            print_json_line(row)
        else:
            print(p.line())
    if not pending and not as_json:
        print("nothing waiting for review")


def _decide(
    node_id: str, approve: bool, reviewer: str, reason: str, home: Path | None, as_json: bool
) -> None:
    from dataclasses import asdict

    from profiles.review import review

    store = _store(home)
    try:
        result = review(store, node_id, approve, reviewer, reason)
    finally:
        store.close()
    if as_json:
        print_json_line(asdict(result))
    else:
        print(result.line())


@review_app.command("accept")
def accept_cmd(
    node_id: str = typer.Argument(..., help="Node id (from `memgraph review list`)."),
    reviewer: str = ReviewerOpt,
    reason: str = ReasonOpt,
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Approve: a review receipt, then the node becomes accepted."""
    _decide(node_id, True, reviewer, reason, home, as_json)


@review_app.command("reject")
def reject_cmd(
    node_id: str = typer.Argument(..., help="Node id (from `memgraph review list`)."),
    reviewer: str = ReviewerOpt,
    reason: str = ReasonOpt,
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Reject: a rejecting review receipt, then the node is retired."""
    _decide(node_id, False, reviewer, reason, home, as_json)


def register(app: typer.Typer) -> None:
    app.add_typer(review_app, name="review")
