"""``memgraph render [SESSION...]``: write voice pages and session YAML from the store.

On a fleet (one shared PostgreSQL store, ``MEMGRAPH_STORE``) this is how a
machine's vault and workspace show the sessions other machines captured.
Thin layer over ``profiles.render``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer


def render(
    sessions: list[str] = typer.Argument(
        None, help="Session ids or unique prefixes (default: every session)."
    ),
    vault: Path | None = typer.Option(None, "--vault", help="Vault root (env MEMGRAPH_VAULT)."),
    workspace: Path | None = typer.Option(
        None, "--workspace", help="Where .memgraph/ session YAML goes (env MEMGRAPH_WORKSPACE)."
    ),
    voice: bool = typer.Option(True, "--voice/--no-voice", help="Write voice pages."),
    notes: bool = typer.Option(True, "--notes/--no-notes", help="Write session YAML."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per written file."),
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    store: str | None = typer.Option(
        None, "--store", help="Store file or postgresql:// URL (env MEMGRAPH_STORE)."
    ),
) -> None:
    """Render the voice pages and session YAML of any session in the store (a fleet view)."""
    from memgraph.cli.common import existing_store, print_json_line, settings, store_location
    from profiles.render import RenderRequest, render_views

    cfg = settings(home=home, vault=vault, workspace=workspace)
    # nothing to render from a store that does not exist: a typo in --home is an error
    s = existing_store(cfg.home, store_location(cfg, store))
    try:
        report = render_views(
            s,
            RenderRequest(
                vault=cfg.vault,
                workspace=cfg.workspace,
                sessions=tuple(sessions or ()),
                voice=voice,
                notes=notes,
            ),
        )
    finally:
        s.close()
    for path in report.written:
        if as_json:
            print_json_line({"written": str(path)})
        else:
            print(path)
    for line in report.failed:
        print(f"failed: {line}", file=sys.stderr)
    from memgraph.terminal import plural

    cleared = (
        f"; {plural(report.forgotten, 'page')} that held forgotten messages cleared"
        if report.forgotten
        else ""
    )
    # a page left as a person edited it is not "unchanged": its new render waits beside it
    held = f"{len(report.conflicts)} hand-edited (new render in .conflict.md), "
    print(
        f"rendered {plural(len(report.written), 'file')} from "
        f"{plural(report.sessions, 'session')} ({report.unchanged} unchanged, "
        f"{held if report.conflicts else ''}{report.below_minimum} below the page minimum, "
        f"{len(report.failed)} failed){cleared}",
        file=sys.stderr,
    )
    if report.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("render")(render)
