"""The lean path for ``memgraph voice --backfill`` when nothing is new (stdlib only).

A backfill rerun is the common case (a cron job, a habit): every transcript is
already in the registry with the same size and mtime. This path walks the same
candidates as ``run_backfill`` (profiles.voice.backfill_scan), reads the registry
from the store file without the store class, and, when every file is done,
prints what the typer command would print. Anything else returns None and the
typer command runs: a new or changed file, an errored one to retry, a file the
ledger must record, an option this path does not parse, a PostgreSQL store, a
store without the registry table, a config the resolver refuses.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

_VALUE_OPTS = ("--home", "--vault", "--transcripts")
_SWITCHES = {"--backfill": "backfill", "--quiet": "quiet", "-q": "quiet"}
_SWITCHES |= {"--verbose": "verbose", "-v": "verbose"}


def parse(argv: list[str]) -> dict[str, list[str]] | None:
    """The options when they parse exactly as click would, else None."""
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if name in _VALUE_OPTS:
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                    return None  # a missing value: click's error
                value = argv[i + 1]
                i += 1
            found.setdefault(name[2:], []).append(value)
        elif arg in _SWITCHES:
            found[_SWITCHES[arg]] = []
        else:
            return None
        i += 1
    if "backfill" not in found or any(len(found.get(k, [])) > 1 for k in ("home", "vault")):
        return None
    return found


def _paths(value: object) -> list[Path] | None:
    """A ``transcripts``/``repos`` setting as ``memgraph.settings.Settings`` reads it
    (None: a value it would refuse)."""
    from memgraph.config import split_paths

    if isinstance(value, str):
        return split_paths(value)
    if isinstance(value, list) and all(isinstance(p, str) for p in value):
        return [Path(p) for p in value]
    return None


def _roots(opts: dict[str, list[str]]) -> list[Path] | None:
    from memgraph.config import default_transcripts, resolve
    from profiles.voice.readers.registry import repo_transcripts

    roots: list[Path] | None = [Path(p) for p in opts.get("transcripts", [])]
    wanted = ("repos",) if roots else ("transcripts", "repos")  # the flag wins
    raw = resolve(None, None, wanted)
    if not roots:
        roots = _paths(raw["transcripts"]) if "transcripts" in raw else default_transcripts()
    repos = _paths(raw["repos"]) if "repos" in raw else []
    if roots is None or repos is None:
        return None  # the typer command reports the bad value
    return [*roots, *repo_transcripts(repos)]


def run(argv: list[str]) -> int | None:
    opts = parse(argv)
    if opts is None:
        return None
    from memgraph.config import paths, store_url
    from memgraph.errors import MemgraphError

    started = time.perf_counter()
    try:
        if store_url() is not None:
            return None
        home = opts.get("home", [None])[0]
        store, _ = paths(home=home, vault=opts.get("vault", [None])[0])
        roots = _roots(opts)
    except MemgraphError:
        return None  # a bad config file: the typer command names it
    from memgraph.store.sqlite_ext.fast import registry_rows

    registry = registry_rows(store) if roots is not None else None
    if roots is None or registry is None:
        return None
    from profiles.voice.backfill_scan import (
        BackfillReport,
        Outcome,
        candidates,
        path_key,
        unchanged,
    )

    report = BackfillReport()
    for path, size, mtime_ns in candidates(roots, None, report.warnings, report.ledger.add):
        row = registry.get(path_key(path))
        if row is None or not unchanged(row, size, mtime_ns):
            return None  # work to do: the typer command does it
        outcome = Outcome(row.path, "unchanged", row.reason, row.session_id, row.message_count)
        outcome.page = row.page  # the unchanged outcome run_backfill records
        report.outcomes.append(outcome)
    if report.ledger.entries:
        return None  # files the ledger must record: the typer command writes them
    report.seconds = time.perf_counter() - started
    from memgraph.cli.backfill_output import reason_text, summary_line

    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if "quiet" in opts:
        return 0
    if "verbose" in opts:
        for o in report.outcomes:
            print(f"skipped  {o.path}  ({reason_text(o.status, o.reason)})")
    print(summary_line(report))
    return 0
