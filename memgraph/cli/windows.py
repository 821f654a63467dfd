"""``memgraph windows [flags]`` computes and stores activity windows;
``memgraph windows show ID`` prints what was said and committed in one.

``windows`` is a group whose callback does the computing when no subcommand
is given, so both spellings work. Thin layer over ``profiles.activity``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

windows_app = typer.Typer(
    help=(
        "Activity windows: group messages, commits and vault pages by time and shared "
        "entities. `memgraph windows [--since D] [--until D] [--gap M] [--repo P] [--json]`; "
        "`memgraph windows show ID`."
    ),
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
)

HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
UtcOpt = typer.Option(False, "--utc", help="Times and dates in UTC, not local time.")


@windows_app.callback()
def compute(
    ctx: typer.Context,
    since: str | None = typer.Option(None, "--since", help="From DATE (YYYY-MM-DD or ISO)."),
    until: str | None = typer.Option(None, "--until", help="Up to DATE, inclusive."),
    gap: float | None = typer.Option(
        None, "--gap", help="Minutes between artifacts that still extend a window (default 15)."
    ),
    repo: list[Path] = typer.Option(
        [], "--repo", help="Also read commits of this git repo (repeatable)."
    ),
    no_discover: bool = typer.Option(
        False, "--no-discover", help="Do not read the repos found from session cwds."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per window."),
    home: Path | None = HomeOpt,
    utc: bool = UtcOpt,
) -> None:
    """Read commits and vault pages, compute and store windows, print them."""
    if ctx.invoked_subcommand is not None:
        return
    from datetime import timedelta

    from memgraph.cli.common import print_json_line, settings, store_location
    from memgraph.dates import parse_when, show
    from memgraph.errors import UsageError
    from memgraph.store import open_store
    from memgraph.terminal import plural
    from profiles.activity.passes import GAP_MINUTES, WindowsRequest, run_windows

    cfg = settings(home=home)
    minutes = float(cfg.window_gap_minutes) if gap is None else gap
    low, high = GAP_MINUTES
    if not low <= minutes <= high:  # NaN too: tiny, absurd
        raise UsageError(f"--gap must be between {low:g} and {high:g} minutes (got {minutes:g})")
    request = WindowsRequest(
        since=parse_when(since, flag="--since", utc=utc) if since else None,
        until=parse_when(until, end_of_day=True, flag="--until", utc=utc) if until else None,
        gap=timedelta(minutes=minutes),
        repos=[*repo, *cfg.repos],
        discover_repos=not no_discover,
        vault=cfg.vault,
    )
    store = open_store(store_location(cfg))
    try:
        result = run_windows(store, request)
    finally:
        store.close()
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for window in result.windows:
        if as_json:
            print_json_line(window.as_json())
        else:
            counts: dict[str, int] = {}
            for item in window.items:
                counts[item.type] = counts.get(item.type, 0) + 1
            what = ", ".join(plural(n, t) for t, n in sorted(counts.items()))
            repos = f"  {','.join(window.repos)}" if window.repos else ""
            span = f"{show(window.start, utc)} -> {show(window.end, utc)[11:]}"
            typer.echo(f"{window.id}  {span}  {what}{repos}")
    s = result.stats
    print(
        f"{plural(len(result.windows), 'window')} ({s.created} written, {s.superseded} "
        f"superseded, {s.unchanged} unchanged); {plural(result.commits_seen, 'commit')} from "
        f"{plural(len(result.repos_read), 'repo')}, "
        f"{plural(result.pages_seen, 'vault page')}; "
        f"{plural(result.annotated, 'voice session')} annotated; window notes: "
        f"{result.notes_written} written, {result.notes_removed} removed",
        file=sys.stderr,
    )


@windows_app.command("show")
def show(
    window_id: str = typer.Argument(..., help="Window id, e.g. aw-2026-04-14-1432."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per artifact."),
    home: Path | None = HomeOpt,
    utc: bool = UtcOpt,
) -> None:
    """Print what was said and committed in one window."""
    from memgraph.cli.common import print_json_line, settings, store_location
    from memgraph.errors import NotFound
    from memgraph.store import open_store
    from memgraph.store.postgres import is_store_url
    from profiles.activity.query import format_report, parse_window_id, window_report

    parse_window_id(window_id)  # a malformed id is a usage error before any I/O
    location = store_location(settings(home=home))
    if not is_store_url(location) and not Path(location).is_file():
        raise NotFound(f"no store at {location}; run `memgraph windows` first")
    store = open_store(location)
    try:
        report = window_report(store, window_id)
    finally:
        store.close()
    if as_json:
        for entry in report.entries:
            print_json_line({"window": report.id, **entry.as_json()})
        return
    for line in format_report(report, utc):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    app.add_typer(windows_app, name="windows")
