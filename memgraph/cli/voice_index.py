"""``memgraph reindex`` and ``memgraph import-vault``: rebuild the voice read path.

``reindex`` rebuilds the voice index (and node FTS) from the canonical store;
``import-vault`` rebuilds voice message nodes from voice pages alone, so a vault
copied to another machine becomes searchable.
"""

from __future__ import annotations

from pathlib import Path

import typer

HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
QuietOpt = typer.Option(False, "--quiet", "-q", help="No progress bar and no summary line.")


def reindex(home: Path | None = HomeOpt, quiet: bool = QuietOpt) -> None:
    """Rebuild the voice search index from the store."""
    from memgraph.cli.common import existing_store
    from profiles.voice.search_schema import reindex as rebuild

    store = existing_store(home)
    try:
        report = rebuild(store)
    finally:
        store.close()
    if not quiet:
        from memgraph.terminal import plural

        messages, nodes = plural(report.messages, "voice message"), plural(report.nodes, "node")
        typer.echo(f"reindexed {messages} ({nodes})")


def import_vault(
    vault: Path | None = typer.Argument(None, help="Vault root (env MEMGRAPH_VAULT)."),
    home: Path | None = HomeOpt,
    as_json: bool = typer.Option(False, "--json", help="One JSON object with the counts."),
    quiet: bool = QuietOpt,
) -> None:
    """Rebuild voice message nodes from <vault>/<project>/voice/*.md pages."""
    from memgraph.cli.common import print_json_line, settings, store_from
    from memgraph.terminal import plural, progress
    from profiles.voice.search_schema import ImportVaultRequest
    from profiles.voice.search_schema import import_vault as run_import

    cfg = settings(home=home, vault=vault)
    if not cfg.vault.is_dir():  # before the store: a typo must not leave a new empty one
        from memgraph.errors import NotFound

        raise NotFound(f"no vault directory at {cfg.vault}")
    store = store_from(cfg.home)
    try:
        request = ImportVaultRequest(vault=cfg.vault)
        with progress("pages", quiet=quiet or as_json) as update:
            done = [0]

            def advance(n: int) -> None:
                done[0] += n
                if update is not None:
                    update(done[0], None)

            report = run_import(store, request, advance)
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
                "forgotten": report.forgotten,
            }
        )
    elif not quiet:
        typer.echo(
            f"imported {plural(report.pages, 'page')}, {plural(report.messages, 'message')} "
            f"({plural(report.nodes_written, 'node')} written, "
            f"{plural(len(report.failed), 'page')} skipped)"
            + (
                f"; {plural(report.forgotten, 'forgotten message')} left forgotten"
                if report.forgotten
                else ""
            )
        )
    if report.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("reindex")(reindex)
    app.command("import-vault")(import_vault)
