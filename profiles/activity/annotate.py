"""Annotate voice sessions (and their pages) with the windows they took part in.

The voice_session node's ``activity_window`` attribute is set through a
revise patch (the graph stays canonical), then B's
``profiles.voice.views.write_session_page`` re-renders the page, which puts
the attribute into the frontmatter. Shape (the seed format):
``{id, artifacts: [...]}`` for a session inside one window; a session that
spans several windows gets a list of such mappings in time order. Each
mapping lists at most ``MAX_ARTIFACTS`` artifacts and says ``more: N`` beyond.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memgraph.documents import GraphOp, MemoryNode, NodeRevision, ReviseNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import node_id
from memgraph.store.protocol import Store
from profiles.activity.store import current_windows

MAX_ARTIFACTS = 200


def _session_span(store: Store, session_id: str) -> tuple[datetime, datetime] | None:
    from memgraph.store.interfaces import indexes

    span = indexes(store).voice.session_span(session_id)
    return (_t(span[0]), _t(span[1])) if span is not None else None


def _t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def window_annotation(window: MemoryNode) -> dict[str, Any]:
    arts = list(window.attributes.get("artifacts") or [])
    out: dict[str, Any] = {"id": window.attributes.get("window_id"), "artifacts": arts}
    if len(arts) > MAX_ARTIFACTS:
        out["artifacts"] = arts[:MAX_ARTIFACTS]
        out["more"] = len(arts) - MAX_ARTIFACTS
    return out


def session_annotation(store: Store, session_id: str) -> Any:
    """The ``activity_window`` value for a session (None when it is in no window)."""
    span = _session_span(store, session_id)
    if span is None:
        return None
    windows = [
        w
        for w in current_windows(store, span[0], span[1])
        if session_id in (w.attributes.get("sessions") or [])
    ]
    windows.sort(key=lambda w: (w.valid_from or span[0], str(w.attributes.get("window_id"))))
    notes = [window_annotation(w) for w in windows]
    if not notes:
        return None
    return notes[0] if len(notes) == 1 else notes


def annotate_sessions(store: Store, session_ids: Iterable[str], vault: Path | None) -> int:
    """Revise each touched voice_session's ``activity_window``; re-render its page.

    Returns how many sessions changed. Sessions without a voice_session node
    (capture has not run for them) are skipped.
    """
    sids = sorted(set(session_ids))
    with store.reader() as reader:
        sessions = reader.get_nodes([node_id("voice", "voice_session", s) for s in sids])
    ops: list[GraphOp] = []
    changed: list[str] = []
    for sid in sids:
        node = sessions.get(node_id("voice", "voice_session", sid))
        if node is None:
            continue
        value = session_annotation(store, sid)
        if node.attributes.get("activity_window") == value:
            continue
        attrs = {**node.attributes, "activity_window": value}
        ops.append(
            ReviseNode(
                node_id=node.id,
                changes=NodeRevision(attributes=attrs),
                reason="activity windows recomputed",
            )
        )
        changed.append(sid)
    if ops:
        apply_patch(store, new_patch(ops, proposer="activity", reason="annotate voice sessions"))
    if vault is not None and changed:
        try:
            from profiles.voice.views import write_session_page
        except ImportError:  # voice pages are not part of this build
            return len(changed)
        for sid in changed:
            write_session_page(store, vault, sid)
    return len(changed)
