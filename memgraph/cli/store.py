"""Store-level commands: validate, snapshot export/import, stats."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from memgraph.cli.common import print_json_line, settings, store_from

if TYPE_CHECKING:
    from memgraph.store import Store

snapshot_app = typer.Typer(help="Export or import the whole graph as JSON.", no_args_is_help=True)

HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
StoreOpt = typer.Option(
    None, "--store", help="Store file or postgresql:// URL (overrides --home; env MEMGRAPH_STORE)."
)


def _existing_store(home: Path | None, store: str | None) -> Store:
    """Open a store that must already exist: reading commands never create one (a
    PostgreSQL store read-only)."""
    from memgraph.cli.common import existing_store, store_location
    from memgraph.store.postgres import is_store_url, open_postgres

    location = store_location(settings(home=home), store)
    if is_store_url(location):
        return open_postgres(location, readonly=True)
    return existing_store(home, location, for_reading=True)


def validate(
    paths: list[str] | None = typer.Argument(
        None, help="Stores (.db files or postgresql:// URLs) or snapshot (.json) files."
    ),
    home: Path | None = HomeOpt,
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per problem (path, level, message)."
    ),
    fmt: str = typer.Option(
        "text", "--format", help="text, or github (GitHub Actions ::error annotations)."
    ),
) -> None:
    """Validate stores or snapshots; print `path: error` lines, exit 1 if any is invalid."""
    from memgraph.cli.annotations import FORMATS, github_annotation
    from memgraph.cli.common import store_location
    from memgraph.errors import UsageError
    from memgraph.snapshot import validate_path
    from memgraph.store.postgres import is_store_url, redact

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: use one of {', '.join(FORMATS)}")
    if any(not p.strip() for p in paths or ()):  # text, not Path: the app's guard skips it
        raise UsageError("an empty store or snapshot path (an unset shell variable?)")
    failed = False
    for target in paths or [store_location(settings(home=home))]:
        if is_store_url(target):
            from memgraph.store.postgres import validate_url

            problems = validate_url(target)
        else:
            problems = validate_path(Path(target))
        shown = redact(target) if is_store_url(target) else target
        for line in problems:
            message = line.removeprefix(f"{shown}: ").removeprefix(f"{target}: ")
            if as_json:  # the same objects as `wiki validate --json`
                print_json_line({"path": shown, "level": "error", "message": message})
            elif fmt == "github":
                print(github_annotation("error", shown, message))
            else:
                print(line)
        failed = failed or bool(problems)
        if not problems:
            print(f"{shown}: ok", file=sys.stderr)
    if failed:
        raise typer.Exit(1)


@snapshot_app.command("export")
def snapshot_export(
    out: Path | None = typer.Option(None, "--out", "-o", help="File to write (default stdout)."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
) -> None:
    """Write the whole graph as a JSON snapshot."""
    from memgraph.snapshot import check_out_path, render_snapshot, write_snapshot_file

    if out is not None:
        check_out_path(out)  # before reading the whole graph
    s = _existing_store(home, store)
    try:
        snap = s.export_snapshot()
    finally:
        s.close()
    if out is None:
        sys.stdout.write(render_snapshot(snap))
    else:
        write_snapshot_file(snap, out)
        print(
            f"exported {len(snap.nodes)} nodes, {len(snap.edges)} edges to {out}", file=sys.stderr
        )


@snapshot_app.command("import")
def snapshot_import(
    file: Path = typer.Argument(..., help="Snapshot JSON written by `snapshot export`."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
) -> None:
    """Load a snapshot into an empty store (validated first; nothing written if invalid)."""
    from memgraph.snapshot import check_snapshot, read_snapshot_file

    snap = read_snapshot_file(file)
    check_snapshot(snap, str(file))  # before opening: a bad file creates no store
    s = store_from(home, store)
    try:
        s.import_snapshot(snap)
    finally:
        s.close()
    print(f"imported {len(snap.nodes)} nodes, {len(snap.edges)} edges", file=sys.stderr)


def stats(
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
    as_json: bool = typer.Option(False, "--json", help="One JSON object."),
) -> None:
    """Counts of nodes, edges, summaries, receipts, patches in the store."""
    s = _existing_store(home, store)
    try:
        counts = s.counts()
    finally:
        s.close()
    if as_json:
        print_json_line({"store": s.location, **counts})
    else:
        print(" ".join(f"{k}={v}" for k, v in counts.items()))


def backup(
    dest: Path = typer.Argument(..., help="New file to write the copy to (must not exist)."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,  # str: Path("postgresql://h/db") drops a slash
) -> None:
    """Copy the live store safely (SQLite online backup API; writers may keep running)."""
    from memgraph.cli.common import store_location
    from memgraph.config import is_url
    from memgraph.errors import UsageError
    from memgraph.store.backup import backup_store

    source = store_location(settings(home=home), store)  # MEMGRAPH_STORE too
    if is_url(source):
        raise UsageError(
            "backup copies a SQLite store file; for a PostgreSQL store use pg_dump, "
            "or `memgraph snapshot export -o FILE`"
        )
    result = backup_store(Path(source), dest)
    print(f"backed up {source} to {result.dest} ({result.bytes} bytes)", file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
    app.command("backup")(backup)
    app.command("stats")(stats)
    app.add_typer(snapshot_app, name="snapshot")
