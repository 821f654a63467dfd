"""``memgraph remember`` and ``memgraph propose``: agents write memory (library:
``profiles.memory``). A claim profile law refuses prints ``Error: <the law>``
and exits 1; the rejected patch is on record with its receipt."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer

from memgraph.cli.common import print_json_line

SessionOpt = typer.Option(
    None,
    "--session",
    help="Session id (default MEMGRAPH_SESSION, the harness's id, or the workspace's active one).",
)
ProjectOpt = typer.Option(None, "--project", help="Project (default: from the working directory).")
HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
TensionOpt = typer.Option("", "--tension", help="What pulls against it.")
QuestionOpt = typer.Option("", "--question", help="The open question it raises.")
TranscriptOpt = typer.Option(None, "--transcript", help="Anchor: transcript path[:line].")
RecordOpt = typer.Option(None, "--record", help="Anchor: transcript record uuid.")
FileOpt = typer.Option(None, "--file", help="Anchor: a file path (repeatable).")
CommitOpt = typer.Option(None, "--commit", help="Anchor: a commit sha.")
JsonOpt = typer.Option(False, "--json", help="The result as one JSON object.")


def _request(
    text: str,
    session: str | None,
    project: str | None,
    home: Path | None,
    **fields: Any,
) -> tuple[Any, Any]:
    from memgraph.cli.common import settings
    from memgraph.errors import UsageError
    from profiles.memory import Anchors, MemoryRequest
    from profiles.session.harness import NO_SESSION, detect_harness
    from profiles.voice.nodes import resolve_project
    from profiles.wakeup.active import resolve_session

    cfg = settings(home=home)
    sid, _ = resolve_session(session, cfg.session, os.environ, os.getcwd(), cfg.home)
    if sid is None:
        raise UsageError(NO_SESSION)
    anchors = Anchors(
        transcript=fields.pop("transcript"),
        record_uuid=fields.pop("record"),
        files=tuple(fields.pop("files") or ()),
        commit=fields.pop("commit"),
    )
    req = MemoryRequest(
        text=text,
        session_id=sid,
        project=project or resolve_project(os.getcwd()),
        harness=detect_harness(os.environ),
        anchors=anchors,
        persona=cfg.persona,
        **fields,
    )
    return cfg, req


def _emit(result: Any, as_json: bool) -> None:
    from dataclasses import asdict

    if as_json:
        print_json_line(asdict(result))
    else:
        print(result.line())


def remember(
    text: str = typer.Argument(..., help="What to keep in short-term memory."),
    session: str | None = SessionOpt,
    project: str | None = ProjectOpt,
    tension: str = TensionOpt,
    question: str = QuestionOpt,
    kind: str = typer.Option("observation", "--kind", help="observation | thought | todo."),
    salience: float = typer.Option(0.5, "--salience", help="0..1: how much it matters."),
    transcript: str | None = TranscriptOpt,
    record: str | None = RecordOpt,
    files: list[str] | None = FileOpt,
    commit: str | None = CommitOpt,
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Keep a short-term memory from the current session (forced sleep accounts for it)."""
    from memgraph.cli.common import store_location
    from memgraph.store import open_store
    from profiles.memory import remember as run

    cfg, req = _request(
        text, session, project, home, profile="short_term", kind=kind, tension=tension,
        question=question, salience=salience, transcript=transcript, record=record,
        files=files, commit=commit,
    )  # fmt: skip
    store = open_store(store_location(cfg))  # MEMGRAPH_STORE too, not only <home>
    try:
        result = run(store, req)
    finally:
        store.close()
    _emit(result, as_json)


def propose(
    profile: str = typer.Argument(..., help="role_self | incubation | agency_pressure | ..."),
    text: str = typer.Argument(..., help="The claim."),
    kind: str | None = typer.Option(None, "--kind", help="Node kind (default per profile)."),
    state: str | None = typer.Option(None, "--state", help="Entry state (default: initial)."),
    title: str | None = typer.Option(None, "--title", help="Title (default: first line)."),
    implication: str = typer.Option("", "--implication", help="What it implies one should do."),
    session: str | None = SessionOpt,
    project: str | None = ProjectOpt,
    tension: str = TensionOpt,
    question: str = QuestionOpt,
    salience: float = typer.Option(0.5, "--salience", help="0..1: how much it matters."),
    transcript: str | None = TranscriptOpt,
    record: str | None = RecordOpt,
    files: list[str] | None = FileOpt,
    commit: str | None = CommitOpt,
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Propose a typed claim; profile law accepts or rejects it (with a receipt)."""
    from memgraph.cli.common import store_location
    from memgraph.store import open_store
    from profiles.memory import propose as run

    cfg, req = _request(
        text, session, project, home, profile=profile, kind=kind, state=state, title=title,
        action_implication=implication, tension=tension, question=question, salience=salience,
        transcript=transcript, record=record, files=files, commit=commit,
    )  # fmt: skip
    store = open_store(store_location(cfg))  # MEMGRAPH_STORE too, not only <home>
    try:
        result = run(store, req)
    finally:
        store.close()
    _emit(result, as_json)


def register(app: typer.Typer) -> None:
    app.command("remember")(remember)
    app.command("propose")(propose)
