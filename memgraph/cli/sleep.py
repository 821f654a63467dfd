"""``memgraph sleep``: the night pass (library: ``profiles.sleep.pipeline``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from memgraph.cli.common import print_json_line


def sleep(
    since: str | None = typer.Option(
        None, "--since", help="Start of the period: DATE, ISO, yesterday, 7d (default: last run)."
    ),
    now: bool = typer.Option(False, "--now", help="Run now, outside the night window."),
    at: str | None = typer.Option(None, "--at", help="The clock to run as (ISO time; tests)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan, write nothing."),
    classifier: str | None = typer.Option(
        None, "--classifier", help="rules | ollama (env MEMGRAPH_CLASSIFIER)."
    ),
    propose_with_ollama: bool = typer.Option(
        False,
        "--ollama",
        help="Ollama proposes titles/distillations (validated); on with classifier ollama.",
    ),
    install: bool = typer.Option(False, "--install", help="Run nightly (crontab or systemd)."),
    uninstall: bool = typer.Option(False, "--uninstall", help="Remove the nightly run."),
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    vault: Path | None = typer.Option(None, "--vault", help="Vault root (env MEMGRAPH_VAULT)."),
    as_json: bool = typer.Option(False, "--json", help="The report as one JSON object."),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bar and no report (errors still print)."
    ),
) -> None:
    """Classify, window, summarise, force short-term memory to sleep, age long-term memory."""
    from memgraph.cli.common import settings
    from memgraph.errors import UsageError

    cfg = settings(home=home, vault=vault, classifier=classifier)
    if install or uninstall:
        from profiles.sleep.schedule import Schedule, night_start
        from profiles.sleep.schedule import install as do_install
        from profiles.sleep.schedule import uninstall as do_uninstall
        from profiles.voice.hooks import default_command

        if install and uninstall:
            raise UsageError("choose one of --install and --uninstall")
        base = default_command().rsplit(" hook session-end", 1)[0]
        schedule = Schedule(
            method=cfg.sleep_schedule,
            command=f"{base} sleep",
            at=night_start(cfg.night_window),
            crontab=cfg.crontab,
            systemctl=cfg.systemctl,
            env=_pinned(cfg),
        )
        print(do_install(schedule) if install else do_uninstall(schedule))
        return
    from datetime import timedelta
    from functools import partial

    from context_cut.embedders import make_embedder
    from memgraph.cli.common import existing_store, store_location
    from memgraph.dates import parse_when
    from memgraph.store import open_store
    from memgraph.terminal import progress
    from profiles.sleep.pipeline import STATE_FILE, SleepRequest, run_sleep
    from profiles.voice.classify.ollama import OllamaConfig

    request = SleepRequest(
        now=parse_when(at, flag="--at") if at else None,
        since=parse_when(since, flag="--since") if since else None,
        ignore_window=now,
        dry_run=dry_run,
        night_window=cfg.night_window,
        classifier=cfg.classifier,
        vault=cfg.vault,
        repos=list(cfg.repos),
        gap=timedelta(minutes=cfg.window_gap_minutes),
        state_path=cfg.home / STATE_FILE,
        ollama=OllamaConfig.from_settings(cfg),
        embedder=partial(
            make_embedder,
            cfg.embedder,
            model=cfg.embed_model,
            host=cfg.ollama_host,
            timeout=cfg.ollama_timeout,
        ),
    )
    proposer = None
    if propose_with_ollama or cfg.classifier == "ollama":
        from profiles.sleep.ollama import OllamaMemoryProposer

        proposer = OllamaMemoryProposer(cfg.ollama_model, cfg.ollama_host, cfg.ollama_timeout)
    # MEMGRAPH_STORE too, not only <home>; a dry run writes nothing, not even a new
    # empty store at a home that has none (a typo in --home): it says `no store at`
    location = store_location(cfg)
    store = existing_store(cfg.home, location) if dry_run else open_store(location)
    try:
        with progress("sleep", quiet=quiet or as_json) as update:
            report = run_sleep(store, request, proposer, update)
    finally:
        store.close()
    if as_json:
        print_json_line(report.as_dict())
    elif not quiet:
        sys.stdout.write("\n".join(report.lines()) + "\n")


def _pinned(cfg: Any) -> tuple[tuple[str, str], ...]:
    """The store and vault this install resolved (flags, env, config file): the
    nightly run gets them as MEMGRAPH_* variables, else it would use the defaults
    (a `--home` or an exported MEMGRAPH_HOME never reaches cron or systemd)."""
    import os

    from memgraph.config import env_value

    env = [("MEMGRAPH_HOME", str(cfg.home)), ("MEMGRAPH_VAULT", str(cfg.vault))]
    if cfg.store:
        env.append(("MEMGRAPH_STORE", str(cfg.store)))
    config = env_value("config")
    if config:
        env.append(("MEMGRAPH_CONFIG", os.path.abspath(config)))
    return tuple(env)


def register(app: typer.Typer) -> None:
    app.command("sleep")(sleep)
