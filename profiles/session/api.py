"""Session notes as a Python API: start_session, note, wake, list_sessions, show_session.

Every note is a node applied through the engine (one transaction each); the
session's YAML view is re-rendered from the store right after, under a
per-file lock (``profiles.session.views``). The reads (a session's node, notes,
info, rendered text; ``list_sessions``, ``personas``) are ``profiles.session.lookup``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from memgraph.beneath import FileEscape
from memgraph.documents import GraphOp, MemoryEdge, MemoryNode, UpsertEdge, UpsertNode, utcnow
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import MemgraphError, NotFound, UsageError
from memgraph.store.protocol import Store
from profiles.session.lookup import (
    SessionInfo,
    find_session,
    info_for,
    info_of,
    notes_of,
    render_session_text,
)
from profiles.session.lookup import list_sessions as list_sessions
from profiles.session.notes import SessionNotes, parse_session_yaml
from profiles.session.records import DEFAULT_AXIOM as DEFAULT_AXIOM
from profiles.session.records import (
    PROFILE,
    SESSION_KIND,
    NoteRecord,
    check_name,
    check_text,
    fixed_iso,
    is_startup,
    new_writer,
    note_edge,
    note_node,
    redact_note,
    session_node,
)
from profiles.session.records import check_at as records_check_at
from profiles.session.views import ViewWrite, session_file, write_view


def check_at(at: datetime | None, now: datetime) -> datetime:
    return now if at is None else records_check_at(at, now)


@dataclass(frozen=True)
class StartRequest:
    session_id: str
    workspace: Path
    persona: str = "default"
    harness: str = "cli"
    started_at: datetime | None = None


@dataclass(frozen=True)
class NoteRequest:
    session_id: str
    text: str
    # where the file goes if this note starts the session, or if the session was
    # started on another machine of the fleet (its workspace is not a folder here)
    workspace: Path
    harness: str = "cli"
    persona: str | None = None  # None: the session's own persona
    at: datetime | None = None  # valid time; a late note carries its own
    key: str | None = None  # stable per-note key; default pid + random
    # secrets redacted as at capture (``<private>`` spans go regardless); the CLI's
    # ``--no-redact`` / config ``redact = false`` give False
    redact: bool = True
    # the persona a session this note starts takes when ``persona`` is None: the
    # configured one (``Settings.persona``), as `memgraph note` gives a new session
    new_persona: str = "default"


@dataclass(frozen=True)
class NoteResult:
    id: str
    session_id: str
    persona: str
    timestamp: datetime
    harness: str
    file: Path
    created: bool
    # the note is stored; only its YAML view could not be written (why, one line)
    view_error: str | None = None
    redacted: dict[str, int] = field(default_factory=dict)  # kind -> markers (records.redact_note)


@dataclass(frozen=True)
class WakeResult:
    persona: str
    text: str
    axiom: bool
    session_id: str | None = None
    timestamp: datetime | None = None
    harness: str | None = None
    note_id: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def render_session(store: Store, session_id: str, here: Path | None = None) -> Path:
    """Re-render the session's YAML view from the store (atomic, under its file lock)."""
    return sync_session_view(store, session_id, here).path


def view_file(info: SessionInfo, here: Path | None) -> Path:
    """Where this machine keeps the session's view: the workspace the session recorded,
    or ``here`` (this machine's workspace) when that is not a folder on this machine,
    i.e. the session was started on another machine of a fleet sharing the store (its
    path was recreated here, or the view failed, and this workspace got nothing)."""
    if here is None or info.workspace.is_dir():
        return info.file
    return session_file(here, info.persona, info.session_id)


def sync_session_view(store: Store, session_id: str, here: Path | None = None) -> ViewWrite:
    """Import notes added to the session's YAML by hand, then re-render it from the store.

    An edit the store cannot take (a changed note memgraph wrote, a file that is no
    longer YAML) is kept verbatim in ``<session>.conflict.yaml`` and reported on stderr.
    ``here``: this machine's workspace (``view_file``).
    """
    from profiles.session.handedit import on_edit_for

    with store.reader() as reader:
        node = find_session(reader, session_id)
    if node is None:
        raise NotFound(f"no session {session_id!r}; start it with: memgraph session start")
    info = info_of(node, [])
    view = write_view(
        view_file(info, here),
        lambda: render_session_text(store, session_id),
        on_edit_for(store, session_id),
    )
    report_view(view)
    return view


def report_view(view: ViewWrite) -> None:
    """One stderr line when an edited view was kept beside the new render."""
    import sys

    if view.conflict is not None:
        sys.stderr.write(
            f"memgraph: {view.path} held edits memgraph cannot import; kept verbatim in "
            f"{view.conflict} (the view now shows the store)\n"
        )


def _start_ops(req: StartRequest, now: datetime) -> tuple[MemoryNode, MemoryNode]:
    started = check_at(req.started_at, now)
    workspace = str(req.workspace.resolve())
    session = MemoryNode.model_validate(
        session_node(req.session_id, req.persona, workspace, req.harness, started, now)
    )
    startup = NoteRecord(
        session_id=req.session_id,
        persona=req.persona,
        text=f"session {req.session_id} started ({req.harness})",
        at=started,
        harness=req.harness,
        writer="startup",
        now=now,
        extra={"origin": "startup"},
    )
    return session, MemoryNode.model_validate(note_node(startup))


def check_workspace(workspace: Path) -> None:
    """A new session's workspace is a folder, or a path where one can be made: the
    session records it for good (a file there failed every view, after the store
    had taken the session)."""
    for folder in (workspace, *workspace.parents):
        if os.path.lexists(folder):
            if not folder.is_dir():
                raise UsageError(
                    f"workspace {str(workspace)[:200]} is not a folder (it is where .memgraph/ "
                    "goes: --workspace or MEMGRAPH_WORKSPACE)"
                )
            return


def start_session(store: Store, req: StartRequest) -> SessionInfo:
    """Create the session (node, startup note, YAML file) if absent; idempotent."""
    check_name(req.session_id, "session id")
    check_name(req.persona, "persona")
    check_name(req.harness, "harness")  # as `note` does: it is written into the view
    now = utcnow()
    with store.reader() as reader:
        existing = find_session(reader, req.session_id)
    created = False
    if existing is None:
        check_workspace(req.workspace)
        session, startup = _start_ops(req, now)
        edge = MemoryEdge.model_validate(
            note_edge(startup.id, req.session_id, startup.valid_from or now, now)
        )
        ops: list[GraphOp] = [
            UpsertNode(node=session),
            UpsertNode(node=startup),
            UpsertEdge(edge=edge),
        ]
        # a racing `start` of the same id makes identical nodes: the engine no-ops them
        result = apply_patch(store, new_patch(ops, "memgraph session", f"start {req.session_id}"))
        created = result.changed
    elif existing.attributes.get("persona") != req.persona:
        raise UsageError(
            f"session {req.session_id} belongs to persona {existing.attributes.get('persona')!r}"
        )
    info = info_for(store, req.session_id)
    file = view_file(info, req.workspace)
    if created or not file.exists():
        render_session(store, req.session_id, req.workspace)
    return SessionInfo(**{**info.__dict__, "file": file, "created": created})


def note(store: Store, req: NoteRequest) -> NoteResult:
    """Add a note to a session (starting it if needed), then re-render its file."""
    check_name(req.session_id, "session id")
    for persona in (req.persona, req.new_persona):
        if persona is not None:
            check_name(persona, "persona")
    check_name(req.harness, "harness")
    check_text(req.text)
    text, redacted = redact_note(req.text, req.redact)
    now = utcnow()
    at = check_at(req.at, now)
    with store.reader() as reader:
        existing = find_session(reader, req.session_id)
    ops: list[GraphOp] = []
    if existing is None:
        check_workspace(req.workspace)
        persona = req.persona or req.new_persona
        start = StartRequest(req.session_id, req.workspace, persona, req.harness, at)
        session, _ = _start_ops(start, now)
        ops.append(UpsertNode(node=session))
    else:
        persona = str(existing.attributes.get("persona"))
        if req.persona is not None and req.persona != persona:
            raise UsageError(
                f"session {req.session_id} belongs to persona {persona!r}, not {req.persona!r}"
            )
    rec = NoteRecord(
        session_id=req.session_id,
        persona=persona,
        text=text,
        at=at,
        harness=req.harness,
        writer=req.key or new_writer(),
        now=now,
    )
    node = MemoryNode.model_validate(note_node(rec))
    edge = MemoryEdge.model_validate(note_edge(node.id, req.session_id, at, now))
    ops += [UpsertNode(node=node), UpsertEdge(edge=edge)]
    apply_patch(store, new_patch(list(ops), "memgraph note", f"note in session {req.session_id}"))
    # The note is committed: a view that cannot be written is a warning, not a
    # failure (a retry after an error exit would store the note twice).
    view_error = None
    try:
        path = render_session(store, req.session_id, req.workspace)
    except MemgraphError as exc:
        view_error = " ".join(str(exc).split())
        path = _view_path(store, req.session_id, req.workspace)
    return NoteResult(
        node.id,
        req.session_id,
        persona,
        at,
        req.harness,
        path,
        existing is None,
        view_error,
        redacted,
    )


def _view_path(store: Store, session_id: str, here: Path) -> Path:
    try:
        return view_file(info_for(store, session_id), here)
    except MemgraphError:
        return Path(f"{session_id}.yaml")


def wake(store: Store, persona: str | None = "default") -> WakeResult:
    """The last note of the persona's most recently active session (by note valid time);
    ``persona=None``: the most recently active session of any persona (the result
    names the persona it belongs to)."""
    if persona is not None:
        check_name(persona, "persona")
    sync_hand_notes(store, persona)
    # The newest note that is not a session's startup note ("session s9 started (cli)"):
    # `session start` then `wake` printed that line instead of what the last session left.
    # Same order as the lean path's SQL (memgraph.store.sqlite_ext.standing.WAKE_NOTE).
    best: MemoryNode | None = None
    infos = list_sessions(store, persona)
    with store.reader() as reader:
        for info in infos:
            said = [n for n in notes_of(reader, info.session_id) if not is_startup(n.claim)]
            if said and (best is None or _newer(said[-1], best)):
                best, persona = said[-1], info.persona
    if best is None:
        return WakeResult(persona=persona or "default", text=DEFAULT_AXIOM, axiom=True)
    return WakeResult(
        persona=str(persona),
        text=best.claim,
        axiom=False,
        session_id=str(best.attributes.get("session_id")),
        timestamp=best.valid_from,
        harness=str(best.attributes.get("harness", "")),
        note_id=best.id,
    )


def _newer(a: MemoryNode, b: MemoryNode) -> bool:
    def key(n: MemoryNode) -> tuple[str, str, str]:
        return (fixed_iso(n.valid_from or n.created_at), str(n.attributes.get("session_id")), n.id)

    return key(a) > key(b)


def show_session(store: Store, session_id: str, here: Path | None = None) -> SessionNotes:
    """The session's notes as its YAML view shows them, after importing hand-added notes.

    The view is synced first (notes appended to the file by hand are imported, the
    file re-rendered), then the notes are read from the store's render, so ``show``
    and ``wake`` read the same notes. On a store that cannot be written the sync is
    skipped (a warning) and the store's notes are shown; so are they when the view
    leads out of the workspace (a symlink: not read, a warning; writers refuse it).
    """
    import sys

    try:
        info_for(store, session_id)
    except FileEscape as exc:
        reason = " ".join(str(exc).split())
        sys.stderr.write(f"Warning: session view not read ({reason}); showing the store's notes\n")
    else:
        _sync_quietly(store, session_id, here)
    text = render_session_text(store, session_id)
    return parse_session_yaml(text, source=f"session {session_id}")


def _sync_quietly(store: Store, session_id: str, here: Path | None = None) -> None:
    import sys

    try:
        sync_session_view(store, session_id, here)
    except MemgraphError as exc:
        sys.stderr.write(f"memgraph: session view not synced: {' '.join(str(exc).split())}\n")


def sync_hand_notes(store: Store, persona: str | None) -> int:
    """Sync every view of ``persona`` (None: every persona) whose file was edited by
    hand; how many were."""
    from profiles.session.views import view_edited

    sessions = [
        n
        for n in store.iter_nodes(profile=PROFILE, kind=SESSION_KIND)
        if persona is None or n.attributes.get("persona") == persona
    ]
    edited = 0
    for node in sessions:
        try:
            path = info_of(node, []).file
        except MemgraphError:
            continue
        if view_edited(path):
            edited += 1
            _sync_quietly(store, str(node.attributes["session_id"]))
    return edited
