"""``memgraph doctor``: paths, store health, hooks, sleep, extras, capture, conflicts
(library: ``memgraph.doctor``). Exit 1 when a problem is found."""

from __future__ import annotations

from pathlib import Path

import typer


def doctor(
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    settings_file: Path | None = typer.Option(
        None, "--settings", help="Claude Code settings file (default ~/.claude/settings.json)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object."),
) -> None:
    """Check the installation; print each problem with the command that fixes it."""
    import json

    from memgraph.doctor import DoctorRequest, diagnose, format_report

    report = diagnose(DoctorRequest(home=home, claude_settings=settings_file))
    if as_json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(format_report(report))
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
