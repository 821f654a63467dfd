"""``memgraph demo``: the main job on the bundled sample, in a scratch directory.

Captures the synthetic transcripts in ``memgraph/sample`` (Claude Code and
Codex shaped, with tool noise) into an embedded SQLite store and a vault,
classifies them with the deterministic rules, and runs a few searches. No
server, nothing written to your home directory.
"""

from __future__ import annotations

from pathlib import Path

import typer

QUERIES = ("backoff", '"at-least-once"', "cache*", "mock")


def demo(
    directory: Path | None = typer.Option(
        None, "--dir", help="Where to put the demo store and vault (default: a new temp dir)."
    ),
) -> None:
    """Capture the bundled sample transcripts, classify, search; print what happened."""
    import tempfile

    import memgraph
    from memgraph.store import open_store
    from profiles.voice.backfill import BackfillRequest, run_backfill
    from profiles.voice.classify.night import NightPassRequest, make_proposer, run_night_pass
    from profiles.voice.output import format_line
    from profiles.voice.search import VoiceQuery, search_voice, voice_stats

    work = directory or Path(tempfile.mkdtemp(prefix="memgraph-demo-"))
    home, vault = work / "home", work / "vault"
    sample = Path(memgraph.__file__).parent / "sample"
    store = open_store(home / "memgraph.db")
    try:
        report = run_backfill(
            store,
            BackfillRequest(
                roots=[sample / "claude" / "projects", sample / "codex" / "sessions"],
                vault=vault,
            ),
        )
        pages = [o.page for o in report.outcomes if o.page]
        messages = sum(o.message_count for o in report.outcomes)
        print(
            f"captured {messages} operator messages from {len(report.outcomes)} transcripts "
            f"({report.bytes_read} bytes) -> {len(pages)} voice pages"
        )
        for page in pages:
            print(f"  page {vault / page}")
        night = run_night_pass(
            store,
            NightPassRequest(classifier="rules", ignore_window=True, vault=vault),
            make_proposer("rules"),
        )
        labels = ", ".join(f"{k} {v}" for k, v in sorted(night.by_label.items()))
        print(f"classified {night.classified} messages (rules): {labels}")
        for query in QUERIES:
            print(f"\n$ memgraph voice {query}")
            for hit in search_voice(store, VoiceQuery(query=query, limit=5)):
                print(format_line(hit))
        stats = voice_stats(store)
        print(
            f"\nindex: {stats.messages} messages in {stats.sessions} sessions, "
            f"{stats.classified} classified"
        )
    finally:
        store.close()
    print(f"\nstore: {home / 'memgraph.db'}\nvault: {vault}")
    print(f'try:   MEMGRAPH_HOME={home} memgraph voice "jitter" --json')


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
