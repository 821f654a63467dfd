"""``memgraph voice "keyword" [flags]``: the hidden ``search`` command of the voice group.

memgraph/cli/voice.py routes anything that is not a subcommand here. Most calls
never reach this module: ``memgraph.cli.voice_fast`` answers them without typer,
with the same query/formatting code, so the two must print the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import typer

from memgraph.cli.output import emit
from memgraph.cli.voice_fast import Flags, build_query, check_stats, missing_store_message
from profiles.voice.output import render_hits, render_stats, stats_rows


def search(
    query: list[str] | None = typer.Argument(
        None,
        help='Words (substrings: "fact" finds "facts"), "exact phrases", prefix*; '
        "case-insensitive.",
    ),
    since: str | None = typer.Option(
        None, "--since", help="From DATE: YYYY-MM-DD, ISO time, today, yesterday, 7d, 2w."
    ),
    until: str | None = typer.Option(None, "--until", help="Up to DATE, inclusive."),
    project: str | None = typer.Option(None, "--project", help="Only this project."),
    type_: str | None = typer.Option(
        None, "--type", help="Classification (e.g. decision), or 'unclassified'."
    ),
    session: str | None = typer.Option(None, "--session", help="Session id or its prefix."),
    limit: int | None = typer.Option(
        None, "--limit", help="At most N hits (default 20; 500 for listings)."
    ),
    full: bool = typer.Option(False, "--full", help="Print whole messages, not 120 chars."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per line."),
    recent: bool = typer.Option(False, "--recent", help="Only the last 10 sessions."),
    stats: bool = typer.Option(False, "--stats", help="Index health: counts, range, classes."),
    as_of: str | None = typer.Option(
        None, "--as-of", help="What the index knew then (ingested at or before TIMESTAMP)."
    ),
    window: str | None = typer.Option(None, "--window", help="Only an activity window ID."),
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    word: bool = typer.Option(
        False, "--word", help="Whole words only (default: substrings too, whole words first)."
    ),
    all_: bool = typer.Option(
        False, "--all", help="Also bare slash commands (/model, /exit alone), left out by default."
    ),
    utc: bool = typer.Option(False, "--utc", help="Times and dates in UTC, not local time."),
) -> None:
    """Search what you said: one line per message, best first."""
    from memgraph.cli.common import is_tty, settings, store_location
    from memgraph.errors import NotFound
    from memgraph.store import open_store
    from memgraph.store.postgres import is_store_url
    from memgraph.terminal import color
    from profiles.voice import search as core

    location = store_location(settings(home=home))
    if not is_store_url(location) and not Path(location).is_file():
        raise NotFound(missing_store_message(Path(location)))
    ns = Flags(
        query=query,
        since=since,
        until=until,
        project=project,
        type=type_,
        session=session,
        limit=limit,
        recent=recent,
        as_of=as_of,
        window=window,
        word=word,
        all=all_,
        utc=utc,
    )
    # Flags are checked before the store is opened, as the fast path does.
    if stats:
        check_stats(ns)
    request = None if stats else build_query(core, ns)
    store = open_store(location, for_reading=True)
    try:
        if request is None:
            result = core.voice_stats(store)
            if is_tty() and not as_json:
                _stats_table(stats_rows(result, utc))
            else:
                emit(render_stats(result, as_json, utc))
            return
        hits = core.search_voice(store, request)
        none = core.explain_no_hits(store, request) if not hits else None
    finally:
        store.close()
    emit(render_hits(hits, as_json, full, request.query, color(), utc))
    note = core.session_prefix_line(request, (h.session_id for h in hits))
    for line in (none, note):
        if line is not None:
            emit(line + "\n", err=True)


def _stats_table(rows: list[tuple[str, str]]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title="voice index", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for label, value in rows:
        table.add_row(Text(label), Text(value))  # Text: names are data, not markup
    Console().print(table)


def register_voice(voice_app: typer.Typer) -> None:
    voice_app.command("search", hidden=True)(search)
