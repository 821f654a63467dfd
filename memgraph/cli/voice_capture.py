"""Capture commands of ``memgraph voice``: ``--backfill`` and ``extract``.

``memgraph voice --backfill ...`` is routed by memgraph/cli/voice.py to the
hidden ``backfill`` command registered here. Library: profiles.voice.backfill
and profiles.voice.readers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from memgraph.cli.backfill_output import reason_text, summary_line
from memgraph.cli.common import print_json_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from profiles.voice.model import TranscriptRead


def backfill(
    since: str | None = typer.Option(
        None, "--since", help="Only transcripts changed since DATE (YYYY-MM-DD, yesterday, 7d)."
    ),
    project: str | None = typer.Option(None, "--project", help="Only sessions of this project."),
    transcripts: list[Path] | None = typer.Option(
        None, "--transcripts", help="Transcript root(s) (env MEMGRAPH_TRANSCRIPTS)."
    ),
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    vault: Path | None = typer.Option(None, "--vault", help="Vault root (env MEMGRAPH_VAULT)."),
    store: str | None = typer.Option(
        None, "--store", help="Store file or postgresql:// URL (overrides --home)."
    ),
    min_messages: int = typer.Option(3, "--min-messages", min=1, help="Messages for a page."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per transcript."),
    no_redact: bool = typer.Option(
        False, "--no-redact", help="Keep pasted secrets (API keys, tokens) as typed."
    ),
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="One line per transcript, not only the summary."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bar and no summary; errors still print."
    ),
) -> None:
    """Capture every transcript not processed yet (safe to kill and rerun)."""
    from memgraph.cli.common import store_location
    from memgraph.config import load_settings
    from memgraph.dates import parse_day
    from memgraph.store import open_store
    from memgraph.terminal import progress as progress_bar
    from profiles.voice.backfill import BackfillRequest, run_backfill
    from profiles.voice.privacy import PrivacyPolicy
    from profiles.voice.readers.registry import repo_transcripts

    day = parse_day(since, flag="--since") if since is not None else None
    settings = load_settings(home=home, vault=vault, transcripts=transcripts or None)
    request = BackfillRequest(
        roots=[*settings.transcripts, *repo_transcripts(settings.repos)],
        vault=settings.vault,
        since=day,
        project=project,
        min_messages=min_messages,
        privacy=PrivacyPolicy.from_config(False if no_redact else None),
    )
    s = open_store(store_location(settings, store))
    try:
        with progress_bar("backfill", unit="bytes", quiet=quiet or as_json) as progress:
            report = run_backfill(s, request, progress)
    finally:
        s.close()
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    from memgraph.terminal import plural

    for o in report.outcomes:
        if as_json:
            print_json_line({k: v for k, v in o.__dict__.items()})
        elif o.status == "error":
            print(f"error    {o.path}: {o.reason}", file=sys.stderr)
        elif not verbose:
            continue
        elif o.status == "paged":
            # this transcript's messages, not the page's: a page holds its whole session
            # (a side-question file adds 1 to a 26-message page) minus bare "ok"s
            print(f"paged    {o.page}  ({plural(o.message_count, 'message')} captured)")
        else:
            print(f"skipped  {o.path}  ({reason_text(o.status, o.reason)})")
    counts = report.counts()
    summary = {
        "transcripts": len(report.outcomes),
        **{k: counts.get(k, 0) for k in ("paged", "skipped", "unchanged", "filtered", "error")},
        "revised": report.revised,
        "mb": round(report.bytes_read / 1e6, 2),
        "seconds": round(report.seconds, 3),
        "mb_per_s": round(report.mb_per_s, 1),
    }
    ledger = report.ledger.totals()
    if as_json:
        print_json_line({"summary": summary, "ledger": ledger})
    elif not quiet:
        if report.ledger.has_drops or report.ledger.has_privacy:  # nothing left out unsaid
            print(report.ledger.summary_line())
        print(summary_line(report))
    if counts.get("error"):
        raise typer.Exit(1)


def extract(
    transcript: Path = typer.Argument(
        ..., help="A transcript (Claude Code, Codex, Gemini CLI chat, aider chat history)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per message."),
    keep_trivial: bool = typer.Option(False, "--all", help="Also print trivial acknowledgements."),
    utc: bool = typer.Option(False, "--utc", help="Times in UTC, not local time."),
) -> None:
    """Print the operator messages of one transcript; writes nothing."""
    from memgraph.dates import show
    from memgraph.terminal import printable
    from profiles.voice.prefilter import PrefilterOptions
    from profiles.voice.readers import ReadOptions, read_transcript

    options = ReadOptions(prefilter=PrefilterOptions(drop_trivial=not keep_trivial))
    read = read_transcript(transcript, options)
    for m in read.messages:
        stamp = m.timestamp.isoformat().replace("+00:00", "Z")
        if as_json:
            print_json_line(
                {
                    "session_id": m.session_id,
                    "uuid": m.record_uuid,
                    "timestamp": stamp,
                    "text": m.text,
                    "origin": m.origin,
                    "line": m.line,
                }
            )
        else:
            flat = printable(" ".join(m.text.split()))
            cut = flat if len(flat) <= 120 else flat[:119] + "…"
            print(f"[{show(m.timestamp, utc)} {printable(m.session_id[:8])}] {cut}")
    warnings = read.stats.warning_summary()
    if warnings:
        print(f"warning: {warnings}", file=sys.stderr)
    if read.stats.unknown_kinds:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(read.stats.unknown_kinds.items()))
        print(f"note: record kinds this reader does not know (counted): {kinds}", file=sys.stderr)
    _nothing_read(transcript, read)


def _nothing_read(path: Path, read: TranscriptRead) -> None:
    """One line when nothing was printed. A file in no transcript shape with no record
    read is an error (exit 1, as ``import conversations`` refuses a file that is not
    an export); a transcript without an operator message is a note."""
    from memgraph.errors import ReaderError
    from memgraph.terminal import plural

    if read.messages:
        return
    lines = plural(read.stats.lines, "line")
    if read.harness == "unknown" and not read.stats.records:
        raise ReaderError(
            f"no transcript records read from {path} ({lines}): not a Claude Code, Codex "
            "or Gemini CLI transcript, nor an aider chat history"
        )
    print(f"note: no operator messages in {path} ({read.harness}, {lines})", file=sys.stderr)


def register_voice(voice_app: typer.Typer) -> None:
    voice_app.command("backfill", hidden=True)(backfill)
    voice_app.command("extract")(extract)
