"""The vault's views of forgotten text: what ``memgraph forget``
(``profiles.voice.forget``) rewrites after the store no longer holds it.

- ``rerender_views``: the pages of the forgotten messages re-rendered from the
  store (removed when no message is left; rewritten when a hand-edited page
  kept the text), the window notes of their sessions, and ``log.md`` lines that
  quote the text or a page title holding one of its words.
- ``clear_forgotten_pages``: the same for a vault that did not run the forget
  (another machine of a fleet), found by the forgotten records' uuids: its
  captures and renders call it.

A page or window note that is not UTF-8 text is left byte for byte and listed in
``ForgetResult.left_unreadable``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from profiles.voice.policy import FORGOTTEN, FORGOTTEN_STATE

if TYPE_CHECKING:
    from memgraph.documents import MemoryNode
    from memgraph.store import Store
    from profiles.voice.forget import ForgetResult

MIN_PAGE_CHECK = 4  # texts shorter than this are not searched for in page files


def rerender_views(
    store: Store, vault: Path, result: ForgetResult, old: list[MemoryNode], texts: tuple[str, ...]
) -> None:
    """After ``forget`` tombstoned and scrubbed ``old`` (whose texts were ``texts``):
    their pages, the window notes of their sessions and ``log.md``, each change
    recorded in ``result``."""
    from memgraph.beneath import safe_child
    from memgraph.fileio import read_text_nofollow, rewrite_if_unchanged, unreadable_view
    from profiles.voice import pagekeep
    from profiles.voice.pages import render_page
    from profiles.voice.views import build_page, is_qualifying, session_nodes, session_relpath

    pages: dict[str, str] = {}  # page relpath -> session id
    for node in old:
        page = node.attributes.get("voice_page")
        sid = node.attributes.get("session_id")
        if isinstance(page, str) and page and isinstance(sid, str):
            pages[page] = sid
    long = [t for t in texts if len(t) >= MIN_PAGE_CHECK]
    notes = _notes_before(store, vault, result.sessions)
    for relpath, sid in sorted(pages.items()):
        path = safe_child(vault, *Path(relpath).parts)
        conflict = path.with_name(path.name[: -len(".md")] + ".conflict.md")
        sidecar = path.with_name(f".{path.name}.mg")
        session, messages = session_nodes(store, sid)
        qualifying = [n for n in messages if is_qualifying(n)]
        if unreadable_view(path):  # not UTF-8: never removed nor replaced, reported
            if qualifying:
                _write_view(store, vault, sid)  # the new render goes beside it
            else:
                conflict.unlink(missing_ok=True)  # an earlier render of memgraph's
            result.left_unreadable.append(relpath)
            continue
        if not qualifying:
            for p in (path, conflict, sidecar):
                if p.exists():
                    p.unlink()
            result.pages_removed.append(relpath)
            continue
        rendered = render_page(build_page(session, qualifying))
        written = _write_view(store, vault, sid)
        current = read_text_nofollow(path) or ""  # a FIFO there is refused, never read
        if any(t in current for t in long):  # a hand-edited page kept its old blocks
            target = safe_child(vault, *session_relpath(vault, session, qualifying).parts)
            scrub = _render_while(rendered, long, always=target != path)
            if (done := rewrite_if_unchanged(target, scrub, root=vault)) is not None:
                pagekeep.record_written(target, done.text)
                written = True
        held = read_text_nofollow(conflict) if conflict.is_file() else None
        if held is not None and any(t in held for t in long):
            conflict.unlink()
        if written:
            result.pages_rewritten.append(relpath)
    _scrub_log(vault, set(pages), texts)
    _rewrite_notes(store, vault, result, long, notes)


def _notes_before(store: Store, vault: Path, sessions: list[str]) -> dict[str, str | None]:
    """The window notes of the touched sessions (their lines quote messages and
    link pages): id -> text on disk before anything is re-rendered."""
    from memgraph.errors import UsageError as BadId
    from memgraph.fileio import read_text_nofollow
    from profiles.activity.winnote import note_path
    from profiles.voice.nodes import session_node_id
    from profiles.voice.pages import window_ids

    with store.reader() as reader:
        nodes = reader.get_nodes([session_node_id(s) for s in sessions])
    out: dict[str, str | None] = {}
    for node in nodes.values():
        for wid in window_ids(node.attributes.get("activity_window")):
            try:
                out.setdefault(wid, read_text_nofollow(note_path(vault, wid)))
            except BadId:
                continue
    return out


def _rewrite_notes(
    store: Store, vault: Path, result: ForgetResult, long: list[str], before: dict[str, str | None]
) -> None:
    """Those notes re-rendered from the store; ``force``: an edited note does not
    keep the text, and a forgotten text a person quoted in their own lines goes too."""
    from memgraph.fileio import read_text_nofollow, rewrite_if_unchanged, unreadable_view
    from profiles.activity.winnote import note_path, note_relpath, split_note, write_note
    from profiles.voice import pagekeep

    def scrub(text: str | None) -> str | None:
        if text is None or not any(t in text for t in long):
            return None
        for t in sorted(long, key=len, reverse=True):
            text = text.replace(t, FORGOTTEN)
        return text

    for wid, old in before.items():
        write_note(store, vault, wid, force=True)
        path = note_path(vault, wid)
        text = read_text_nofollow(path)
        if text is None and unreadable_view(path):  # left byte for byte by write_note
            result.left_unreadable.append(note_relpath(wid).as_posix())
            continue
        if (done := rewrite_if_unchanged(path, scrub, root=vault)) is not None:
            pagekeep.record_written(path, done.text, split_note)
            text = done.text
        if text != old:
            result.notes_rewritten.append(wid)


def _scrub_log(
    vault: Path, pages: set[str], texts: tuple[str, ...], *, every_title: bool = False
) -> None:
    """log.md lines quote page titles (keywords of the messages): on a line about
    an affected page, a last field holding a word of the forgotten text goes, and
    a forgotten text quoted anywhere is replaced. ``every_title``: the text is not
    known (scrubbed from the store before this vault saw the forget), so the last
    field of every line about an affected page goes."""
    import re

    from memgraph.fileio import rewrite_if_unchanged
    from profiles.voice.views import LOG_NAME

    words = {w.casefold() for t in texts for w in re.findall(r"\w{4,}", t)}
    long = sorted((t for t in texts if len(t) >= MIN_PAGE_CHECK), key=len, reverse=True)

    def scrub(current: str | None) -> str | None:
        out = []
        for line in (current or "").splitlines(keepends=True):
            for text in long:
                line = line.replace(text, FORGOTTEN)
            if any(p in line for p in pages) and " | " in line:
                head, _, last = line.rstrip("\n").rpartition(" | ")
                if every_title or any(w.casefold() in words for w in re.findall(r"\w{4,}", last)):
                    line = f"{head} | {FORGOTTEN}\n"
            out.append(line)
        return "".join(out) if current else None

    rewrite_if_unchanged(vault / LOG_NAME, scrub, root=vault)


def clear_forgotten_pages(store: Store, vault: Path, sid: str) -> list[str]:
    """Pages of session ``sid`` in ``vault`` that still hold a message forgotten since
    they were written: removed when no message is left, else rewritten from the store
    as ``forget`` does to the pages of its own vault (through the page writer, so a
    person's own text is carried, unless the page was edited inside memgraph's text).

    On a fleet ``forget`` runs on one machine; every other machine's vault still held
    the text, and its captures and renders left it there. Found by the forgotten
    records' uuids (the text itself is scrubbed from the store). Unreadable (not
    UTF-8) pages are left byte for byte; a page under a folder that is a symlink to
    outside the vault raises ``FileEscape`` before anything there is read or removed.
    Returns the vault-relative paths changed."""
    import json

    from memgraph.beneath import check_under
    from memgraph.fileio import read_text_nofollow, rewrite_if_unchanged, unreadable_view
    from profiles.voice import pagekeep
    from profiles.voice.pages import render_page
    from profiles.voice.views import build_page, is_qualifying, session_nodes

    session, messages = session_nodes(store, sid)
    gone = {
        str(n.attributes.get("record_uuid"))
        for n in messages
        if n.lifecycle == FORGOTTEN_STATE and n.attributes.get("record_uuid")
    }
    if not gone:
        return []
    qualifying = [n for n in messages if is_qualifying(n)]
    marks = tuple(json.dumps({"uuid": u})[1:-1] for u in sorted(gone))  # '"uuid": "..."'
    changed: list[str] = []
    for path in sorted(vault.glob(f"*/voice/*-{sid[:8]}.md")):
        if path.name.endswith(".conflict.md") or path.is_symlink():
            continue
        check_under(path, vault)  # a folder linked out of the vault: FileEscape, nothing read
        if unreadable_view(path):
            continue
        conflict = path.with_name(path.name[: -len(".md")] + ".conflict.md")
        texts = [read_text_nofollow(p) or "" for p in (path, conflict) if p.is_file()]
        if f"session_id: {sid}" not in texts[0] or not any(m in t for t in texts for m in marks):
            continue
        if not qualifying:
            for p in (path, conflict, path.with_name(f".{path.name}.mg")):
                p.unlink(missing_ok=True)
            changed.append(path.relative_to(vault).as_posix())
            continue
        _write_view(store, vault, sid)  # the page writer: the person's own text carried
        if any(m in (read_text_nofollow(path) or "") for m in marks):
            # edited inside memgraph's text, so left as is: the forgotten text must go
            rendered = render_page(build_page(session, qualifying))
            scrub = _render_while(rendered, marks)
            if (done := rewrite_if_unchanged(path, scrub, root=vault)) is not None:
                pagekeep.record_written(path, done.text)
        if conflict.is_file() and any(m in (read_text_nofollow(conflict) or "") for m in marks):
            conflict.unlink()
        changed.append(path.relative_to(vault).as_posix())
    if changed:
        _scrub_log(vault, set(changed), (), every_title=True)
    return changed


def _render_while(
    rendered: str, marks: Sequence[str], always: bool = False
) -> Callable[[str | None], str | None]:
    """A ``fileio.rewrite_if_unchanged`` plan: the page's new render while the page
    still holds one of ``marks`` (``always``: whatever it holds)."""

    def scrub(text: str | None) -> str | None:
        return rendered if always or any(m in (text or "") for m in marks) else None

    return scrub


def _write_view(store: Store, vault: Path, sid: str) -> bool:
    """Re-render through the page writer (u20c's rendering, hand edits carried)."""
    from profiles.voice.views import write_session_page_ex

    _, changed = write_session_page_ex(store, vault, sid, min_messages=1)
    return changed


__all__ = ["clear_forgotten_pages", "rerender_views"]
