"""``memgraph demo``: the whole loop on the bundled sample, in a scratch directory.

Captures the synthetic transcripts in ``memgraph/sample`` (Claude Code and
Codex shaped, with tool noise) into an embedded SQLite store and a vault,
classifies them with the deterministic rules, runs a few searches, adds a
session note and wakes from it, makes a small git repository whose commit
falls inside a sample message's window and joins the two in an activity
window, scans that repository (the repo cut then gives the commit's module with
the message that led to it), and prints a context packet. Offline, no server, nothing written
outside the demo directory.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import typer

QUERIES = ("backoff", '"at-least-once"', "cache*", "mock")
DEMO_SESSION = "demo-session"
DEMO_PERSONA = "builder"


def demo(
    directory: Path | None = typer.Option(
        None, "--dir", help="Where to put the demo store and vault (default: a new temp dir)."
    ),
) -> None:
    """Show the whole loop on the bundled sample: capture, search, note + wake, an
    activity window joining a message to a commit, a repo map, a context packet."""
    import tempfile

    from memgraph.store import open_store

    work = (directory or Path(tempfile.mkdtemp(prefix="memgraph-demo-"))).absolute()
    home, vault = work / "home", work / "vault"
    store = open_store(home / "memgraph.db")
    try:
        first = _capture_and_search(store, vault)
        _note_and_wake(store, work / "workspace")
        repo = work / "repos" / "atlas"
        if _window(store, vault, repo, first):
            _repo_map(store, repo)
        _packet(store, first)
    finally:
        store.close()
    print(f"\nstore: {home / 'memgraph.db'}\nvault: {vault}")
    print(f'try:   MEMGRAPH_HOME={home} memgraph voice "jitter" --json')


def _step(title: str) -> None:
    print(f"\n== {title}")


def _capture_and_search(store: Any, vault: Path) -> Any:
    """Capture, classify, search; the first hit of the first query (for the window)."""
    import memgraph
    from profiles.voice.backfill import BackfillRequest, run_backfill
    from profiles.voice.classify.night import NightPassRequest, make_proposer, run_night_pass
    from profiles.voice.output import format_line
    from profiles.voice.search import VoiceQuery, search_voice, voice_stats

    sample = Path(memgraph.__file__).parent / "sample"
    _step("capture: the sample transcripts -> voice message nodes + pages")
    report = run_backfill(
        store,
        BackfillRequest(
            roots=[sample / "claude" / "projects", sample / "codex" / "sessions"], vault=vault
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
    _step("search: what you said")
    first = None
    for query in QUERIES:
        print(f"$ memgraph voice {query}")
        for hit in search_voice(store, VoiceQuery(query=query, limit=5)):
            first = first or hit
            print(format_line(hit))
    stats = voice_stats(store)
    print(
        f"index: {stats.messages} messages in {stats.sessions} sessions, "
        f"{stats.classified} classified"
    )
    return first


def _note_and_wake(store: Any, workspace: Path) -> None:
    from profiles.session.api import NoteRequest, StartRequest, note, start_session, wake

    _step("a session note, and wake (what the next session starts from)")
    start_session(store, StartRequest(DEMO_SESSION, workspace, DEMO_PERSONA, "cli"))
    text = "retry backoff is in; the integration test still needs recorded fixtures"
    result = note(store, NoteRequest(DEMO_SESSION, text, workspace, "cli"))
    print(f'$ memgraph note "{text}"\nnoted {result.id} -> {result.file}')
    woke = wake(store, DEMO_PERSONA)
    print(f"$ memgraph wake\n{woke.text}")


def _window(store: Any, vault: Path, repo: Path, hit: Any) -> bool:
    """A git repository whose one commit lands 3 minutes after ``hit``'s message,
    then the activity window that joins them; False when git could not make it."""
    from memgraph.errors import MemgraphError
    from profiles.activity.passes import WindowsRequest, run_windows
    from profiles.activity.query import format_report, window_report

    _step("an activity window: a message joined to the commit it led to")
    if hit is None:
        print("skipped: no message to anchor the commit")
        return False
    when = hit.timestamp + timedelta(minutes=3)
    try:
        sha = _make_repo(repo, when, "http client: exponential backoff with jitter")
    except MemgraphError as exc:
        print(f"skipped: {exc}")
        return False
    print(f"made {repo} with commit {sha[:8]} at {when:%Y-%m-%d %H:%M} UTC")
    day = hit.timestamp.replace(hour=0, minute=0, second=0, microsecond=0)
    request = WindowsRequest(
        since=day,
        until=day + timedelta(days=1),
        gap=timedelta(minutes=15),
        repos=[repo],
        discover_repos=False,
        vault=vault,
    )
    result = run_windows(store, request)
    joined = [w for w in result.windows if {i.type for i in w.items} >= {"commit", "message"}]
    for window in joined[:1]:
        print(f"$ memgraph windows show {window.id}")
        for line in format_report(window_report(store, window.id)):
            print(line)
    if not joined:
        print(f"no window joined a message to the commit ({len(result.windows)} windows)")
    return True


def _repo_map(store: Any, repo: Path) -> None:
    """The repository scanned (its commit's files get ``touches`` edges), then the
    repo cut for a task: the module, with the operator's words that led to it."""
    from context_cut.render import packet_lines
    from context_cut.repo_cut import RepoCutRequest, repo_cut
    from profiles.repo_scan.scan import ScanRequest, scan_repo

    _step("a repo map: the module a task is about, with the words that led to it")
    result = scan_repo(store, ScanRequest(path=repo))
    print(f"$ memgraph repo scan {repo}\n{result.line()}")
    text = "retry backoff"
    print(f'$ memgraph context "{text}" --cut repo --repo {repo} --budget 600')
    cut = repo_cut(store, RepoCutRequest(text=text, repo_path=repo, budget_tokens=600))
    for line in packet_lines(cut.packet):
        print(line)


def _make_repo(repo: Path, when: datetime, message: str) -> str:
    """``git init`` + one commit dated ``when`` (author and committer); its sha."""
    import os
    import subprocess

    from memgraph.errors import ReaderError

    repo.mkdir(parents=True, exist_ok=True)
    (repo / "retry.py").write_text(
        '"""Retry with exponential backoff and jitter."""\n', encoding="utf-8"
    )
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp, LC_ALL="C")
    config = [
        *("-c", "user.name=memgraph demo", "-c", "user.email=demo@example.invalid"),
        *("-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"),
    ]
    for args in (("init", "-q"), ("add", "retry.py"), ("commit", "-q", "-m", message)):
        try:
            done = subprocess.run(
                ["git", "-C", str(repo), *config, *args],
                capture_output=True,
                env=env,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise ReaderError(f"git cannot run ({exc})") from None
        if done.returncode != 0:
            err = done.stderr.decode(errors="replace").strip()[:200]
            raise ReaderError(f"git {args[0]} failed: {err}")
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, env=env, timeout=30
    )
    return done.stdout.decode().strip()


def _packet(store: Any, hit: Any) -> None:
    from context_cut.api import select_context_cut
    from context_cut.render import packet_lines
    from memgraph.documents import CutName, MemoryContextQuery

    _step("a context packet (role cut, 600 tokens) for the next session")
    project = hit.project if hit is not None else None
    text = "retry backoff and integration tests"
    query = MemoryContextQuery(text=text, cut=CutName.role, budget_tokens=600, project=project)
    print(f'$ memgraph context "{text}" --cut role --budget 600')
    for line in packet_lines(select_context_cut(store, query)):
        print(line)


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
