"""``memgraph probe``: voice-index coverage, monitoring-plugin exit codes."""

from __future__ import annotations

from pathlib import Path

import typer


def probe(
    days: int = typer.Option(7, "--days", min=1, max=365, help="Window in days."),
    transcripts: list[Path] | None = typer.Option(
        None, "--transcripts", help="Transcript roots (env MEMGRAPH_TRANSCRIPTS)."
    ),
    home: Path | None = typer.Option(None, "--home", help="Store directory (MEMGRAPH_HOME)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object."),
    utc: bool = typer.Option(False, "--utc", help="Times in UTC, not local time."),
) -> None:
    """Coverage of the last N days: exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN."""
    import json

    from memgraph.config import load_settings
    from memgraph.errors import MemgraphError
    from memgraph.store import open_store
    from profiles.voice.probe import (
        UNKNOWN,
        ProbeRequest,
        ProbeResult,
        format_probe,
        probe_json,
        view_conflicts,
    )
    from profiles.voice.probe import probe as run_probe
    from profiles.voice.readers.registry import repo_transcripts

    settings = load_settings(home=home, transcripts=transcripts or None)
    request = ProbeRequest(
        roots=[*settings.transcripts, *repo_transcripts(settings.repos)],
        days=days,
        vault=settings.vault,
        workspace=settings.workspace,
    )
    from memgraph.home_dirs import StoreAt, StoreRef, store_keys

    location = str(settings.store or settings.store_path)
    known: StoreRef = StoreAt(location)  # a store not opened: keyed by its location
    try:
        store = open_store(location)
    except MemgraphError as exc:
        from datetime import UTC, datetime, timedelta

        since = datetime.now(UTC) - timedelta(days=days)
        result = ProbeResult(UNKNOWN, 0, 0, 0, 0, since, f"cannot open the store: {exc}")
        result.conflicts = view_conflicts(request.vault, request.workspace)
    else:
        known = store  # its id (kept after close) keys its sleep.json entry
        try:
            result = run_probe(store, request)
        finally:
            store.close()
    from profiles.sleep.state import STATE_FILE, sleep_status

    where = store_keys(known)
    sleep = sleep_status(settings.home / STATE_FILE, where, utc)
    if as_json:
        print(json.dumps({**probe_json(result), "sleep": sleep}, ensure_ascii=False))
    else:
        print(format_probe(result, utc))
        print(sleep["line"])
    raise typer.Exit(result.status)


def register(app: typer.Typer) -> None:
    app.command("probe")(probe)
