"""``memgraph session start|list|show``, ``memgraph note`` and ``memgraph wake``.

Thin layer over ``profiles.session.api``. ``memgraph note`` usually runs on the
lean path (``memgraph.cli.session_fast``); this command is the full path it
falls back to, with the same output and exit codes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer

from memgraph.cli.common import print_json_line

session_app = typer.Typer(
    help="Session-bound spark notes: one YAML timeline per session.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
WorkspaceOpt = typer.Option(
    None, "--workspace", help="Where .memgraph/ lives (env MEMGRAPH_WORKSPACE; default cwd)."
)
PersonaOpt = typer.Option(None, "--persona", help="Persona (env MEMGRAPH_PERSONA).")
HarnessOpt = typer.Option(
    None, "--harness", help="claude-code|codex|cli (default: detected from the environment)."
)
JsonOpt = typer.Option(False, "--json", help="One JSON object per line.")
UtcOpt = typer.Option(False, "--utc", help="Times in UTC, not local time.")


def _harness(flag: str | None) -> str:
    from profiles.session.harness import detect_harness

    return flag or detect_harness(os.environ)


def _open(
    home: Path | None, workspace: Path | None, *, for_reading: bool = False
) -> tuple[Any, Any]:
    """The settings and the store; a reading command (``for_reading``: list, show)
    refuses a store that does not exist (a typo in --home was a new empty store and
    an empty listing), as wake and review do."""
    from memgraph.cli.common import existing_store, settings, store_location
    from memgraph.store import open_store

    s = settings(home=home, workspace=workspace)
    if for_reading:
        return s, existing_store(s.home, store_location(s), for_reading=True)
    return s, open_store(store_location(s))


def _info_json(info: Any) -> dict[str, Any]:
    from profiles.session.records import fixed_iso

    last = info.last_note_at
    return {
        "session_id": info.session_id,
        "persona": info.persona,
        "started_at": fixed_iso(info.started_at),
        "last_note_at": fixed_iso(last) if last else None,
        "notes": info.note_count,
        "harness": info.harness,
        "file": str(info.file),
    }


@session_app.command("start")
def start(
    session_id: str = typer.Argument(..., help="Session id (letters, digits, . _ - @ +)."),
    persona: str | None = PersonaOpt,
    harness: str | None = HarnessOpt,
    home: Path | None = HomeOpt,
    workspace: Path | None = WorkspaceOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Start a session: its node, a startup note and its YAML file (idempotent); it
    becomes the workspace's active session, which `note` and `remember` use."""
    from profiles.session.api import StartRequest, start_session
    from profiles.wakeup.active import record_active

    s, store = _open(home, workspace)
    try:
        req = StartRequest(session_id, s.workspace, persona or s.persona, _harness(harness))
        info = start_session(store, req)
    finally:
        store.close()
    try:  # as the SessionStart hook does: `note` run in the workspace finds it
        record_active(s.home, s.workspace, info.session_id, "session start")
    except OSError as exc:
        print(
            f"Warning: {info.session_id} not recorded as the active session: {exc}", file=sys.stderr
        )
    if as_json:
        print_json_line({**_info_json(info), "created": info.created})
    else:
        state = "started" if info.created else "already started"
        print(f"{state} {info.session_id} ({info.persona}) {info.file}")


@session_app.command("list")
def list_(
    persona: str | None = PersonaOpt,
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
    utc: bool = UtcOpt,
) -> None:
    """Sessions, most recently active first (by note time)."""
    from memgraph.dates import show as shown
    from profiles.session.lookup import list_sessions

    _, store = _open(home, None, for_reading=True)
    try:
        infos = list_sessions(store, persona)
    finally:
        store.close()
    for info in infos:
        if as_json:
            print_json_line(_info_json(info))
        else:
            last = shown(info.last_note_at, utc) if info.last_note_at else "-"
            print(f"{info.session_id} {info.persona} notes={info.note_count} last={last}")


@session_app.command("show")
def show(
    session_id: str = typer.Argument(...),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
    utc: bool = UtcOpt,
) -> None:
    """Print a session's notes from its YAML file (one line per note)."""
    from memgraph.dates import show as shown
    from memgraph.terminal import printable
    from profiles.session.api import show_session

    s, store = _open(home, None, for_reading=True)
    try:
        doc = show_session(store, session_id, s.workspace)
    finally:
        store.close()
    for n in doc.notes:
        if as_json:
            print_json_line(n.model_dump(mode="json"))
        else:
            first = n.text.strip().splitlines()[0] if n.text.strip() else ""
            line = f"{shown(n.timestamp, utc, seconds=True)} {n.harness} {first}"
            print(printable(line))


def note(
    text: str = typer.Argument(..., help="The note, verbatim."),
    session: str | None = typer.Option(
        None,
        "--session",
        help=(
            "Session id (else MEMGRAPH_SESSION, the harness's own, or the workspace's active one)."
        ),
    ),
    persona: str | None = PersonaOpt,
    harness: str | None = HarnessOpt,
    at: str | None = typer.Option(
        None,
        "--at",
        help="When it happened, for a late note: ISO time (naive = local), 2h, yesterday.",
    ),
    home: Path | None = HomeOpt,
    workspace: Path | None = WorkspaceOpt,
    as_json: bool = JsonOpt,
    no_redact: bool = typer.Option(
        False, "--no-redact", help="Keep pasted secrets (API keys, tokens) as typed."
    ),
) -> None:
    """Add a note to the active session and re-render its YAML file.

    Secrets are redacted and `<private>` spans removed, as at capture."""
    from memgraph.config import privacy
    from memgraph.documents import utcnow
    from memgraph.errors import UsageError
    from profiles.session.api import NoteRequest
    from profiles.session.api import note as add_note
    from profiles.session.harness import NO_SESSION, active_session
    from profiles.session.records import check_name, note_output, parse_at, view_warning

    s, store = _open(home, workspace)
    try:
        h = _harness(harness)
        check_name(h, "harness")
        env = dict(os.environ)
        if s.session and "MEMGRAPH_SESSION" not in env:
            env["MEMGRAPH_SESSION"] = s.session  # from the config file
        sid, _ = active_session(session, env, h)
        if sid is None:
            from profiles.wakeup.active import find_active  # recorded by the SessionStart hook

            sid = find_active(s.home, os.getcwd())
        if sid is None:
            raise UsageError(NO_SESSION)
        explicit = persona or os.environ.get("MEMGRAPH_PERSONA") or None
        when = parse_at(at, utcnow()) if at is not None else None
        secrets = privacy(False if no_redact else None)[0]
        # a new session takes the configured persona; an existing one keeps its own
        req = NoteRequest(
            sid, text, s.workspace, h, explicit, when, redact=secrets, new_persona=s.persona
        )
        result = add_note(store, req)
    finally:
        store.close()
    line = note_output(
        result.id,
        result.session_id,
        result.persona,
        result.timestamp,
        h,
        result.file,
        as_json,
        result.redacted,
    )
    sys.stdout.write(line + "\n")
    if result.view_error:
        sys.stderr.write(view_warning(result.id, result.view_error) + "\n")


def wake(
    persona: str | None = typer.Option(
        None,
        "--persona",
        help="Persona (env MEMGRAPH_PERSONA; unset: the most recently active of any persona).",
    ),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Print the continuity token: the last note of the most recently active session."""
    from memgraph.cli.common import existing_store, settings, store_location
    from memgraph.config import chosen_persona
    from profiles.session.api import wake as wake_api
    from profiles.session.lookup import personas
    from profiles.session.records import fixed_iso, wake_json, wake_line

    chosen = chosen_persona(persona)
    cfg = settings(home=home)  # no store: an Error line (a typo in --home), not a new one
    store = existing_store(cfg.home, store_location(cfg), for_reading=True)
    try:
        result = wake_api(store, str(chosen) if chosen else None)
        known = personas(store) if result.axiom and chosen else []
    finally:
        store.close()
    line = wake_line(result.persona, result.session_id, bool(chosen), known)
    if line:
        sys.stderr.write(line + "\n")
    if as_json:
        ts = fixed_iso(result.timestamp) if result.timestamp else None
        print_json_line(
            wake_json(
                result.persona, result.session_id, ts, result.harness, result.note_id, result.text
            )
        )
    else:
        from memgraph.terminal import printable

        print(printable(result.text, lines=True))


def register(app: typer.Typer) -> None:
    app.add_typer(session_app, name="session")
    app.command("note")(note)
    app.command("wake")(wake)
