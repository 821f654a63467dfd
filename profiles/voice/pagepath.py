"""Where a session's voice page lives in the vault (stdlib only).

``profiles.voice.pages`` and ``profiles.voice.views`` re-export these; the lean
capture (``profiles.voice.lean``) places pages with the same functions.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path, PurePosixPath

from memgraph.errors import MemgraphError
from memgraph.fileio import append_line
from profiles.voice.nodekeys import safe_component

LOG_NAME = "log.md"


class VaultError(MemgraphError):
    """A voice page or log.md cannot be written (permissions, a directory in the way)."""


def page_relpath(constellation: str, day: date, session_id: str) -> PurePosixPath:
    """``<constellation>/voice/<YYYY-MM-DD>-<sid8>.md`` (both names must be path-safe)."""
    return PurePosixPath(constellation, "voice", f"{day.isoformat()}-{session_id[:8]}.md")


def _page_session_id(vault: Path, path: Path) -> str | None:
    """The ``session_id`` in the head of the page at ``path``; None when there is no
    page of ours to read there.

    Read through ``open_under``: a page whose path leaves the vault (a folder on
    the way linked outside) is not read, nor a FIFO or device waited on. Such a
    place counts as owned by nobody rather than raising here: the page write that
    follows refuses it with its own one-line ``FileEscape``, after the capture has
    stored the messages (raising here would fail the capture before that).
    """
    import os

    from memgraph.beneath import open_under

    try:
        fd = open_under(path, vault, what="voice pages")
        with os.fdopen(fd, "rb") as fh:
            head = fh.read(8192).decode("utf-8", "replace")
    except (OSError, MemgraphError):
        return None
    match = re.search(r"^session_id: '?([^'\n]*)'?$", head, re.MULTILINE)
    return match.group(1) if match else None


def choose_relpath(
    vault: Path, constellation: str, session_id: str, day: datetime
) -> PurePosixPath:
    """``page_relpath``, unless another session already owns that file name.

    Codex session ids are UUIDv7 (time first), so two sessions started within a
    minute share their first 8 characters: the later one gets the full id.
    """
    rel = page_relpath(constellation, day.date(), safe_component(session_id, "session"))
    path = vault.joinpath(*rel.parts)
    owner = _page_session_id(vault, path)
    if owner is not None and owner != session_id:
        name = f"{day.date().isoformat()}-{safe_component(session_id, 'session')}.md"
        rel = PurePosixPath(constellation, "voice", name)
    return rel


def append_log(vault: Path, line: str) -> None:
    """One O_APPEND write: concurrent writers never interleave within a line.

    ``log.md`` is opened ``O_NOFOLLOW``: a symlink there is refused (its target is
    never appended to).
    """
    vault.mkdir(parents=True, exist_ok=True)
    data = (" ".join(line.split()) + "\n").encode("utf-8", "backslashreplace")
    append_line(vault / LOG_NAME, data, what="log.md")


def page_log_line(now: str, relpath: PurePosixPath, message_count: int, title: str) -> str:
    """The ``log.md`` line of a written page (``now``: ``%Y-%m-%dT%H:%MZ``)."""
    return f"## [{now}] voice | {relpath.as_posix()} | {message_count} messages | {title}"


def log_page(vault: Path, line: str) -> None:
    """``append_log`` after a page was written: a failure is one ``VaultError`` line
    that says the page itself is there."""
    try:
        append_log(vault, line)
    except MemgraphError as exc:
        raise VaultError(f"page written, but not logged: {exc}") from None
    except OSError as exc:
        raise VaultError(f"page written, but {vault / LOG_NAME}: {exc.strerror or exc}") from None
