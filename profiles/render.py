"""Render the file views of any session from the store: voice pages and session YAML.

On a fleet every machine captures into one shared store (PostgreSQL), but a
machine's vault and workspace only get the pages of the sessions it captured
itself. ``render_views`` writes them for ANY session in the store, so a vault
on one machine can show the whole fleet: voice pages under ``vault`` (the page
writer keeps each page's user-owned section and skips unchanged files) and
session YAML under ``workspace/.memgraph/personas/<persona>/sessions/``.
Reads only, but for what a person added to a session YAML file by hand: those
notes are imported first, and an edit the store cannot take is kept verbatim
beside the view, as ``memgraph note`` and ``session show`` do (it was overwritten).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memgraph.errors import MemgraphError

if TYPE_CHECKING:
    from memgraph.store import Store


@dataclass(frozen=True)
class RenderRequest:
    vault: Path
    workspace: Path
    sessions: tuple[str, ...] = ()  # session ids; empty: every session in the store
    voice: bool = True  # voice pages
    notes: bool = True  # session YAML


@dataclass
class RenderReport:
    written: list[Path] = field(default_factory=list)  # files (re)written
    unchanged: int = 0  # views already current
    # voice pages left as a person edited them; the new render waits in `.conflict.md`
    conflicts: list[Path] = field(default_factory=list)
    below_minimum: int = 0  # voice sessions with too few qualifying messages for a page
    forgotten: int = 0  # pages that held forgotten messages: removed or rewritten
    failed: list[str] = field(default_factory=list)  # "session: reason", one per failure
    sessions: int = 0  # sessions considered


def _session_ids(store: Store, profile: str, kind: str) -> list[str]:
    ids = []
    for node in store.iter_nodes(profile=profile, kind=kind):
        sid = node.attributes.get("session_id")
        if isinstance(sid, str) and sid:
            ids.append(sid)
    return ids


def _wanted(found: Iterable[str], asked: tuple[str, ...]) -> list[str]:
    found = list(dict.fromkeys(found))
    if not asked:
        return found
    return [s for s in found if s in set(asked)]


def _by_prefix(store: Store, request: RenderRequest, report: RenderReport) -> RenderRequest:
    """Asked ids as whole session ids: listings show a session id cut to 8 characters
    (`voice` search, page names), and `render 8a3e5a2e` said `no such session`. An id
    that is a prefix of exactly one session's is that session; of several, a failure."""
    import dataclasses

    known = set(_session_ids(store, "voice", "voice_session"))
    known.update(_session_ids(store, "session", "session"))
    resolved: list[str] = []
    for asked in request.sessions:
        matches = [k for k in known if k.startswith(asked)] if asked not in known else [asked]
        if len(matches) > 1:
            report.failed.append(f"{asked}: {len(matches)} sessions start with it; give more")
            continue
        resolved.append(matches[0] if matches else asked)
    return dataclasses.replace(request, sessions=tuple(dict.fromkeys(resolved)))


def render_views(store: Store, request: RenderRequest) -> RenderReport:
    """Write the voice pages and session YAML of the asked (or every) session."""
    report = RenderReport()
    if request.sessions:
        request = _by_prefix(store, request, report)
        if not request.sessions:  # every asked id was ambiguous
            return report
    seen: set[str] = set()
    from memgraph.fileio import deferred_fsync

    # every page or YAML file written: one fsync each, their folders' once at the end
    with deferred_fsync():
        if request.voice:
            from profiles.voice.forget_views import clear_forgotten_pages
            from profiles.voice.pagekeep import conflict_path
            from profiles.voice.views import write_session_page_ex

            for sid in _wanted(_session_ids(store, "voice", "voice_session"), request.sessions):
                seen.add(sid)
                try:
                    # forgotten on another machine: this vault's page still held the text
                    cleared = clear_forgotten_pages(store, request.vault, sid)
                    report.forgotten += len(cleared)
                    path, changed = write_session_page_ex(store, request.vault, sid)
                except MemgraphError as exc:
                    report.failed.append(f"{sid}: {' '.join(str(exc).split())}")
                    continue
                if path is None:
                    report.below_minimum += 1
                elif changed:
                    report.written.append(path)
                elif conflict_path(path).exists():  # not current: an edit holds it
                    report.conflicts.append(path)
                else:
                    report.unchanged += 1
        if request.notes:
            from profiles.session.api import report_view
            from profiles.session.handedit import on_edit_for
            from profiles.session.lookup import render_session_text
            from profiles.session.views import session_file, write_view

            for node in store.iter_nodes(profile="session", kind="session"):
                key, persona = node.attributes.get("session_id"), node.attributes.get("persona")
                if not isinstance(key, str) or not isinstance(persona, str):
                    continue
                if request.sessions and key not in request.sessions:
                    continue
                seen.add(key)
                try:
                    path = session_file(request.workspace, persona, key)
                    view = write_view(
                        path,
                        lambda k=key: render_session_text(store, k),  # type: ignore[misc]
                        on_edit_for(store, key),
                    )
                    report_view(view)
                except (MemgraphError, OSError) as exc:
                    report.failed.append(f"{key}: {' '.join(str(exc).split())}")
                    continue
                if view.written:
                    report.written.append(path)
                else:
                    report.unchanged += 1
    missing = [s for s in request.sessions if s not in seen]
    report.failed.extend(f"{s}: no such session in the store" for s in missing)
    report.sessions = len(seen)
    return report
