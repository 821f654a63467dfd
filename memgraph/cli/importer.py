"""``memgraph import conversations FILE``: chat exports become voice messages.

Thin layer over ``profiles.voice.importers``: ChatGPT and Claude.ai
``conversations.json`` exports and a JSONL shape (session, speaker, ts, text,
optional id), the format detected from the content unless ``--format`` names it.
One line per bad record goes to stderr; the summary line (or ``--json``) to stdout.
"""

from __future__ import annotations

from pathlib import Path

import typer

import_app = typer.Typer(
    help="Import conversations from other tools: `memgraph import conversations FILE`.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


@import_app.command("conversations")
def conversations(
    path: Path = typer.Argument(..., help="conversations.json (ChatGPT, Claude.ai) or JSONL."),
    fmt: str | None = typer.Option(
        None, "--format", help="chatgpt | claude | jsonl (default: detected from the content)."
    ),
    speaker: list[str] = typer.Option(
        [], "--speaker", help="Import only this speaker's messages (repeatable)."
    ),
    operator: str | None = typer.Option(
        None, "--operator", help="This speaker is the operator (overrides the export)."
    ),
    project: str | None = typer.Option(
        None, "--project", help="Project for the messages (default: format or file name)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Read and count; write nothing."),
    strict: bool = typer.Option(
        False, "--strict", help="Write nothing and exit 1 when any record is bad."
    ),
    as_json: bool = typer.Option(False, "--json", help="The counts as one JSON line."),
    no_redact: bool = typer.Option(
        False, "--no-redact", help="Keep pasted secrets (API keys, tokens) as typed."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No summary line; bad records still print (stderr)."
    ),
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    # str: Path("postgresql://h/db") drops a slash and names a file "postgresql:/h/db"
    store: str | None = typer.Option(
        None, "--store", help="Store file or postgresql:// URL (overrides --home)."
    ),
) -> None:
    """Import a chat export: every speaker's turns as voice message nodes."""
    from memgraph.cli.common import print_json_line, store_from
    from memgraph.errors import ReaderError
    from profiles.voice.importers import ImportRequest, import_conversations, read_export
    from profiles.voice.privacy import PrivacyPolicy

    request = ImportRequest(
        path=path,
        format=fmt,
        speakers=tuple(speaker),
        operator=operator,
        project=project,
        dry_run=dry_run,
        privacy=PrivacyPolicy.from_config(False if no_redact else None),
    )
    if strict:
        parsed = read_export(path, fmt)
        for line in parsed.problems:
            typer.echo(f"bad record: {line}", err=True)
        if parsed.bad_records:
            raise ReaderError(f"{parsed.bad_records} bad record(s) in {path}; nothing imported")
    s = store_from(home, store)
    try:
        result = import_conversations(s, request)
    finally:
        s.close()
    if not strict:
        for line in result.problems:
            typer.echo(f"bad record: {line}", err=True)
        hidden = result.problems_found - len(result.problems)
        if hidden > 0:
            typer.echo(f"bad record: ... and {hidden} more", err=True)
    if as_json:
        print_json_line(result.as_dict())
    elif not quiet:
        typer.echo(("dry run: " if dry_run else "") + result.line())


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")
