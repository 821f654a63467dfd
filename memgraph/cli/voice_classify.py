"""``memgraph voice classify --stdin``: classify JSON lines, write nothing to the store.

Input: one ``{"id": ..., "text": ...}`` object per line. Output: one line per
good input line — ``id<TAB>classification<TAB>confidence<TAB>topics`` by
default, ``{"id", "classification", "confidence", "topics"}`` with ``--json``.
Malformed lines are counted and reported in one warning line on stderr; the
exit code is 1 if any line was bad, else 0.
"""

from __future__ import annotations

import sys

import typer

from memgraph.cli.common import print_json_line, settings
from memgraph.errors import UsageError


def voice_classify(
    stdin: bool = typer.Option(False, "--stdin", help="Read JSON lines {id, text} from stdin."),
    classifier: str | None = typer.Option(
        None, "--classifier", "-c", help="rules | ollama (config `classifier`, default rules)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per line."),
) -> None:
    """Classify messages read from stdin; nothing is stored."""
    from profiles.voice.classify.night import make_proposer
    from profiles.voice.classify.ollama import OllamaConfig
    from profiles.voice.classify.stream import classify_stream

    if not stdin:
        raise UsageError('voice classify reads JSON lines {"id", "text"} from --stdin')
    cfg = settings()
    proposer = make_proposer(classifier or cfg.classifier, OllamaConfig.from_settings(cfg))
    result = classify_stream(sys.stdin, proposer)
    for c in result.classified:
        if as_json:
            print_json_line(c.model_dump(mode="json"))
        else:
            topics = ",".join(c.topics)
            sys.stdout.write(f"{c.id}\t{c.classification.value}\t{c.confidence:.2f}\t{topics}\n")
    if result.fallbacks:
        typer.echo(
            f"warning: {len(result.fallbacks)} model answers failed validation, used the rules "
            f"for them (first: {result.fallbacks[0]})",
            err=True,
        )
    if result.bad_lines:
        typer.echo(
            f"warning: {len(result.bad_lines)} malformed input lines skipped "
            f"(first: {result.bad_lines[0]})",
            err=True,
        )
        raise typer.Exit(1)


def register_voice(voice_app: typer.Typer) -> None:
    voice_app.command("classify")(voice_classify)
