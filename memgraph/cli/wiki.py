"""``memgraph wiki validate PATH...``: check vault pages' frontmatter and structure.

Library: profiles.voice.wiki. One line per problem (``path: level: message``;
``--format github``: GitHub Actions annotations, ``--json``: JSON objects);
exit 1 when any page has an error (or a warning, with ``--strict``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from memgraph.cli.common import print_json_line

wiki_app = typer.Typer(
    help="Vault wiki pages: validate frontmatter and structure.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


@wiki_app.command("validate")
def validate(
    paths: list[Path] = typer.Argument(..., help="Pages or directories (walked for *.md)."),
    strict: bool = typer.Option(False, "--strict", help="Warnings fail too."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per problem."),
    fmt: str = typer.Option(
        "text", "--format", help="text, or github (GitHub Actions ::error annotations)."
    ),
) -> None:
    """Validate wiki pages (overview, service, decision, process, analysis, voice) and
    window notes (activity_window)."""
    from memgraph.cli.annotations import FORMATS, github_annotation
    from memgraph.errors import UsageError
    from memgraph.terminal import plural
    from profiles.voice.wiki import iter_pages, validate_file

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: use one of {', '.join(FORMATS)}")

    pages = errors = warnings = 0
    for page in iter_pages(paths):
        pages += 1
        for problem in validate_file(page):
            errors += problem.level == "error"
            warnings += problem.level == "warning"
            if as_json:
                where = {} if problem.line is None else {"line": problem.line}
                print_json_line(
                    {"path": str(page), "level": problem.level, "message": problem.message} | where
                )
            elif fmt == "github":
                print(github_annotation(problem.level, str(page), problem.message, problem.line))
            else:
                at = "" if problem.line is None else f":{problem.line}"
                print(f"{page}{at}: {problem}")
    counted = (plural(pages, "page"), plural(errors, "error"), plural(warnings, "warning"))
    print(", ".join(counted), file=sys.stderr)
    if errors or (strict and warnings):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(wiki_app, name="wiki")
