"""What ``recall``'s project and session filters name, as ``memgraph voice`` reads them.

``voice --project claude`` matches the project or constellation "Claude"
(case-insensitive) and ``voice --session 8a3e5a2e`` the session whose id starts so
(recall prints those 8 characters); the turn scope (``context_cut.turns.TurnScope``)
matches stored values exactly, so ``recall sleep --project claude`` or ``--session
8a3e5a2e`` found nothing where ``voice`` found the messages. ``resolve`` maps what
was typed to the stored values through the voice index before ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

from memgraph.store.protocol import Store

# a session prefix lists at most this many messages to see whether it is ambiguous
_PREFIX_ROWS = 5000


@dataclass(frozen=True)
class Filters:
    project: str | None = None
    constellation: str | None = None
    session_id: str | None = None


def resolve(store: Store, project: str | None, session: str | None) -> Filters:
    """The stored project (or constellation) and session id that ``project`` and
    ``session`` name; unchanged when the store has no voice index or nothing
    matches (the ranking then finds nothing, and the caller says why). An
    ambiguous session prefix is a ``UsageError``."""
    from memgraph.store.interfaces import indexes
    from memgraph.store.voice_rows import VoiceSearch

    voice = indexes(store).voice
    if voice is None:
        return Filters(project, None, session)
    constellation = None
    if project:
        rows = voice.search(VoiceSearch(project=project, limit=1))
        if rows and rows[0].project.casefold() == project.casefold():
            project = rows[0].project
        elif rows and rows[0].constellation.casefold() == project.casefold():
            project, constellation = None, rows[0].constellation
    if session:
        from memgraph.ids import is_safe_name

        if not is_safe_name(session):  # no GLOB characters reach the prefix match
            return Filters(project, constellation, session)
        rows = voice.search(VoiceSearch(session_prefix=session, limit=1))
        if rows and rows[0].session_id != session:
            listed = voice.search(VoiceSearch(session_prefix=session, limit=_PREFIX_ROWS))
            ids = sorted({r.session_id for r in listed})
            if session in ids:  # a whole id that is also the start of a longer one
                return Filters(project, constellation, session)
            if len(ids) > 1:
                from memgraph.errors import UsageError

                raise UsageError(
                    f"--session {session!r} starts {len(ids)} session ids "
                    f"({', '.join(i[:12] for i in ids[:3])}...): give more of it"
                )
            session = ids[0]
    return Filters(project, constellation, session)
