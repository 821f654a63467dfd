"""``memgraph review list|accept|reject``: review receipts for proposed memory and
repo candidates (library: ``profiles.review``)."""

from __future__ import annotations

import sys
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

    from profiles.review import domain_has_nodes, list_pending

    store = _store(home)
    try:
        pending = list_pending(store, profile, domain, limit + 1)  # one more: are there more?
        unknown = bool(domain and not pending and not domain_has_nodes(store, domain))
    finally:
        store.close()
    more = len(pending) > limit
    pending = pending[:limit]
    for p in pending:
        if as_json:
            row = asdict(p)
            row["since"] = p.since.isoformat().replace("+00:00", "Z")
            print_json_line(row)
        else:
            print(p.line())
    if unknown:  # a mistyped domain is not "all reviewed"
        from memgraph.errors import NotFound

        raise NotFound(
            f"no domain {domain!r} in this store (`memgraph review list` shows the "
            "domain of each node waiting)"
        )
    if not pending and not as_json:  # stderr, as `voice` says "no hits": a pipe gets no line
        print("nothing waiting for review", file=sys.stderr)
    if more:  # stderr: --json stays one object per line
        print(
            f"more than {limit} waiting: the oldest {limit} shown (--limit N, "
            "--profile or --domain to narrow)",
            file=sys.stderr,
        )


def _decide(
    node_ids: list[str], approve: bool, reviewer: str, reason: str, home: Path | None, as_json: bool
) -> None:
    """Each id in turn, one patch (and receipt) each: an id that cannot be decided is
    one ``Error:`` line and the rest are still decided; exit 1 if any failed."""
    from dataclasses import asdict

    from memgraph.errors import MemgraphError, error_line
    from profiles.review import review

    failed = 0
    store = _store(home)
    try:
        for node_id in dict.fromkeys(node_ids):  # an id given twice is decided once
            try:
                result = review(store, node_id, approve, reviewer, reason)
            except MemgraphError as exc:
                if len(node_ids) == 1:
                    raise
                print(error_line(exc), file=sys.stderr)
                failed += 1
                continue
            if as_json:
                print_json_line(asdict(result))
            else:
                print(result.line())
    finally:
        store.close()
    if failed:
        raise typer.Exit(1)


@review_app.command("accept")
def accept_cmd(
    node_ids: list[str] = typer.Argument(
        ..., help="Node ids (from `memgraph review list`); several are decided in turn."
    ),
    reviewer: str = ReviewerOpt,
    reason: str = ReasonOpt,
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Approve: a review receipt, then the node becomes accepted."""
    _decide(node_ids, True, reviewer, reason, home, as_json)


@review_app.command("reject")
def reject_cmd(
    node_ids: list[str] = typer.Argument(
        ..., help="Node ids (from `memgraph review list`); several are decided in turn."
    ),
    reviewer: str = ReviewerOpt,
    reason: str = ReasonOpt,
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Reject: a rejecting review receipt, then the node is retired."""
    _decide(node_ids, False, reviewer, reason, home, as_json)


def register(app: typer.Typer) -> None:
    app.add_typer(review_app, name="review")
