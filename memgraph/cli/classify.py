"""``memgraph classify``: the night pass over voice messages not yet classified.

A thin layer over ``profiles.voice.classify.night.run_night_pass``. Outside the
night window (config ``night_window``, default 02:00-06:00 local) it says so
and exits 0 without touching anything, unless ``--now``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import typer

from memgraph.cli.common import print_json_line, settings, store_from


def classify(
    since: str | None = typer.Option(
        None, "--since", help="Only messages from DATE on (YYYY-MM-DD, ISO, yesterday, 7d)."
    ),
    classifier: str | None = typer.Option(
        None, "--classifier", "-c", help="rules | ollama (config `classifier`, default rules)."
    ),
    force: bool = typer.Option(False, "--force", help="Reclassify messages already classified."),
    now: bool = typer.Option(False, "--now", help="Run even outside the night window."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="At most N messages."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    store: str | None = typer.Option(
        None, "--store", help="Store file or postgresql:// URL (overrides --home)."
    ),
    vault: Path | None = typer.Option(None, "--vault", help="Vault root (env MEMGRAPH_VAULT)."),
    at: str | None = typer.Option(None, "--at", hidden=True, help="Pretend the time is AT."),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bar and no summary; warnings still print."
    ),
) -> None:
    """Classify voice messages (night pass); re-render their voice pages."""
    from memgraph.dates import parse_when
    from memgraph.terminal import plural, progress
    from profiles.voice.classify.night import NightPassRequest, make_proposer, run_night_pass
    from profiles.voice.classify.ollama import OllamaConfig

    cfg = settings(home=home, vault=vault)
    chosen = classifier or cfg.classifier
    request = NightPassRequest(
        classifier=chosen,
        since=parse_when(since, flag="--since") if since else None,
        force=force,
        ignore_window=now,
        night_window=cfg.night_window,
        now=parse_when(at, flag="--at") if at else datetime.now(UTC),
        vault=cfg.vault,
        limit=limit,
    )
    proposer = make_proposer(chosen, OllamaConfig.from_settings(cfg))
    graph = store_from(home, store)
    try:
        with progress("classify", quiet=quiet or as_json) as update:
            result = run_night_pass(graph, request, proposer, update)
    finally:
        graph.close()
    elsewhere = f" ({result.already_done} already classified by another run)"
    elsewhere = elsewhere if result.already_done else ""
    if as_json:
        print_json_line(result.as_dict())
    elif quiet:
        pass
    elif result.status == "outside_window":
        typer.echo(
            f"outside the night window {cfg.night_window} (local time {result.local_time}); "
            "nothing done (use --now to run anyway)"
        )
    elif result.status == "nothing_to_do":
        typer.echo("no messages to classify")
    elif result.status == "unchanged":
        checked = plural(result.selected, "message")
        typer.echo(f"{checked} checked ({result.classifier}); nothing changed{elsewhere}")
    else:
        labels = ", ".join(f"{k} {v}" for k, v in result.by_label.items())
        typer.echo(
            f"classified {result.classified} of {plural(result.selected, 'message')} "
            f"({result.classifier}): {labels}; {plural(len(result.pages), 'page')} re-rendered"
            f"{elsewhere}"
        )
    if result.unanswered and not as_json:
        typer.echo(
            f"warning: {plural(result.unanswered, 'message')} got no answer; left as they were",
            err=True,
        )
    for problem in result.page_problems:
        typer.echo(f"warning: {problem}", err=True)


def register(app: typer.Typer) -> None:
    app.command("classify")(classify)
