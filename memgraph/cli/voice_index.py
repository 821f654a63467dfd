"""``memgraph reindex`` and ``memgraph import-vault``: rebuild the voice read path.

``reindex`` rebuilds the voice index (and node FTS) from the canonical store;
``import-vault`` rebuilds voice message nodes from voice pages alone, so a vault
copied to another machine becomes searchable.
"""

from __future__ import annotations

from pathlib import Path

import typer

HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")


def reindex(home: Path | None = HomeOpt) -> None:
    """Rebuild the voice search index from the store."""
    from memgraph.cli.common import store_from
    from profiles.voice.search_schema import reindex as rebuild

    store = store_from(home)
    try:
        report = rebuild(store)
    finally:
        store.close()
    typer.echo(f"reindexed {report.messages} voice messages ({report.nodes} nodes)")


def import_vault(
    vault: Path | None = typer.Argument(None, help="Vault root (env MEMGRAPH_VAULT)."),
    home: Path | None = HomeOpt,
    as_json: bool = typer.Option(False, "--json", help="One JSON object with the counts."),
) -> None:
    """Rebuild voice message nodes from <vault>/<project>/voice/*.md pages."""
    from memgraph.cli.common import is_tty, print_json_line, settings, store_from
    from profiles.voice.search_schema import ImportVaultRequest
    from profiles.voice.search_schema import import_vault as run_import

    cfg = settings(home=home, vault=vault)
    store = store_from(cfg.home)
    try:
        request = ImportVaultRequest(vault=cfg.vault)
        if is_tty() and not as_json:
            from rich.progress import Progress

            with Progress(transient=True) as bar:
                task = bar.add_task("pages", total=None)
                report = run_import(store, request, lambda n: bar.advance(task, n))
        else:
            report = run_import(store, request)
    finally:
        store.close()
    for line in report.failed:
        typer.echo(f"skipped {line}", err=True)
    if as_json:
        print_json_line(
            {
                "vault": str(cfg.vault),
                "pages": report.pages,
                "messages": report.messages,
                "nodes_written": report.nodes_written,
                "failed": len(report.failed),
            }
        )
    else:
        typer.echo(
            f"imported {report.pages} pages, {report.messages} messages "
            f"({report.nodes_written} nodes written, {len(report.failed)} pages skipped)"
        )
    if report.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("reindex")(reindex)
    app.command("import-vault")(import_vault)
