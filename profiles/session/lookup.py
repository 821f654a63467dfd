"""Sessions as the store holds them: the session node, its notes, its info, its
YAML as rendered from them, and every session (of a persona).

Reads only; the writes (``start_session``, ``note``), ``wake``, ``show_session`` and
the view syncing are ``profiles.session.api``, which re-exports ``list_sessions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memgraph.beneath import FileEscape
from memgraph.documents import MemoryNode
from memgraph.errors import NotFound
from memgraph.store.protocol import GraphReader, Store
from profiles.session.emit import NoteRow, render_yaml
from profiles.session.records import (
    ACTIVE,
    NOTE_KIND,
    PROFILE,
    SESSION_KIND,
    check_name,
    domain_id,
    fixed_iso,
    session_node_id,
)
from profiles.session.views import session_file


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    persona: str
    workspace: Path
    started_at: datetime
    harness: str
    file: Path
    note_count: int = 0
    last_note_at: datetime | None = None
    created: bool = False


def find_session(reader: GraphReader, session_id: str) -> MemoryNode | None:
    """The stored session node, or None when the session is not started."""
    return reader.get_nodes([session_node_id(session_id)]).get(session_node_id(session_id))


def info_of(
    node: MemoryNode, notes: list[MemoryNode], created: bool = False, *, listing: bool = False
) -> SessionInfo:
    """The session node as a ``SessionInfo`` (``notes``: its notes, for the counts).

    ``listing``: a view path that leads out of the workspace (a planted symlink) is
    shown as it is named, not refused: a list of sessions (and ``wake``, reading the
    store) must not fail on one session's file; every writer still refuses it."""
    a = node.attributes
    workspace = Path(str(a["workspace"]))
    last = max((n.valid_from for n in notes if n.valid_from), default=None)
    persona, sid = str(a["persona"]), str(a["session_id"])
    try:
        file = session_file(workspace, persona, sid)
    except FileEscape:
        if not listing:
            raise
        file = workspace / ".memgraph" / "personas" / persona / "sessions" / f"{sid}.yaml"
    return SessionInfo(
        session_id=sid,
        persona=persona,
        workspace=workspace,
        started_at=node.valid_from or node.created_at,
        harness=str(a.get("harness", "cli")),
        file=file,
        note_count=len(notes),
        last_note_at=last,
        created=created,
    )


def notes_of(reader: GraphReader, session_id: str) -> list[MemoryNode]:
    """The session's active notes, in valid-time order."""
    nodes = reader.nodes_in_domain(domain_id(session_id), PROFILE, [ACTIVE])
    notes = [n for n in nodes if n.kind == NOTE_KIND and n.valid_from is not None]
    return sorted(notes, key=lambda n: (fixed_iso(n.valid_from or n.created_at), n.id))


def render_session_text(store: Store, session_id: str) -> str:
    """The session's YAML as rendered from the store right now."""
    with store.reader() as reader:
        node = find_session(reader, session_id)
        if node is None:
            raise NotFound(f"no session {session_id!r}; start it with: memgraph session start")
        notes = notes_of(reader, session_id)
    rows = [
        NoteRow(
            timestamp=fixed_iso(n.valid_from or n.created_at),
            text=n.claim,
            harness=str(n.attributes.get("harness", "")),
            id=n.id,
        )
        for n in notes
    ]
    a = node.attributes
    return render_yaml(session_id, str(a["persona"]), str(a["started_at"]), rows)


def info_for(store: Store, session_id: str) -> SessionInfo:
    """The started session's info (``NotFound`` when it is not started)."""
    check_name(session_id, "session id")
    with store.reader() as reader:
        node = find_session(reader, session_id)
        if node is None:
            raise NotFound(f"no session {session_id!r}; start it with: memgraph session start")
        return info_of(node, notes_of(reader, session_id))


def list_sessions(store: Store, persona: str | None = None) -> list[SessionInfo]:
    """Every session (of ``persona``), most recently active first."""
    if persona is not None:
        check_name(persona, "persona")
    infos: list[SessionInfo] = []
    sessions = [
        n
        for n in store.iter_nodes(profile=PROFILE, kind=SESSION_KIND)
        if persona is None or n.attributes.get("persona") == persona
    ]
    with store.reader() as reader:
        for node in sessions:
            notes = notes_of(reader, str(node.attributes["session_id"]))
            infos.append(info_of(node, notes, listing=True))

    def recency(i: SessionInfo) -> tuple[str, str]:
        return (fixed_iso(i.last_note_at or i.started_at), i.session_id)

    return sorted(infos, key=recency, reverse=True)


def personas(store: Store) -> list[str]:
    """Every persona that has a session, sorted."""
    return sorted(
        {
            str(n.attributes.get("persona"))
            for n in store.iter_nodes(profile=PROFILE, kind=SESSION_KIND)
        }
    )
