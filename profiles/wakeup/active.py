"""The active session of a workspace (stdlib only, and memgraph's stdlib-only `fileio`).

Claude Code gives its session id to hooks only. The SessionStart hook records
it here, one small JSON file per workspace under ``<home>/active-sessions/``,
so a later ``memgraph note`` / MCP ``note`` / ``remember`` run anywhere inside
that workspace finds the session without ``--session``. The lookup walks from
the caller's directory up to ``/`` and takes the nearest recorded workspace.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DIR = "active-sessions"
MAX_RECORD_BYTES = 64 * 1024  # a record is ~200 bytes; anything larger is not ours


def _key(workspace: str) -> str:
    return hashlib.sha256(workspace.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _norm(path: str | Path) -> str:
    return os.path.normpath(os.path.abspath(str(path)))


def record_active(home: Path, workspace: str | Path, session_id: str, source: str = "") -> Path:
    """Remember ``session_id`` as the active session of ``workspace`` (atomic)."""
    if "\x00" in str(workspace):  # hook JSON can carry one; no folder has it
        raise ValueError(f"workspace {str(workspace)[:80]!r} holds a NUL: not a folder")
    ws = _norm(workspace)
    # bytes before the temp file: a lone surrogate in the hook's cwd or source failed
    # the write half-way and left an empty temp file behind (ASCII JSON encodes any text)
    data = json.dumps({"workspace": ws, "session_id": session_id, "source": source}) + "\n"
    folder = home / DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_key(ws)}.json"
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("ascii"))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk: no temp file left to pile up
        raise
    return path


def find_active(home: Path, cwd: str | Path) -> str | None:
    """The session recorded for ``cwd`` or its nearest recorded parent, or None."""
    folder = home / DIR
    if not folder.is_dir():
        return None
    current = _norm(cwd)
    while True:
        path = folder / f"{_key(current)}.json"
        data = _read_record(path)
        if isinstance(data, dict) and data.get("workspace") == current:
            sid = data.get("session_id")
            if isinstance(sid, str) and sid:
                return sid
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _read_record(path: Path) -> Any:
    """The record's JSON, or None when there is no usable one: absent, a symlink,
    not a regular file (a FIFO would have blocked a plain read, and `memgraph note`
    with it), over ``MAX_RECORD_BYTES``, unreadable or not JSON. A lookup never
    fails or waits on a bad record: it walks on to the parent workspace's."""
    from memgraph.beneath import FileEscape
    from memgraph.fileio import read_bytes_nofollow

    try:
        data = read_bytes_nofollow(path, MAX_RECORD_BYTES)
    except FileEscape:
        return None
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:  # UnicodeDecodeError included
        return None


def resolve_session(
    flag: str | None, configured: str | None, env: Mapping[str, str], cwd: str | Path, home: Path
) -> tuple[str | None, str]:
    """(session id, where it came from): ``--session``, the configured
    ``MEMGRAPH_SESSION`` (config resolver), the harness's own id, then the
    workspace's active session recorded by the SessionStart hook."""
    from profiles.session.harness import detect_harness, harness_session_id

    if flag:
        return flag, "--session"
    if configured:
        return configured, "MEMGRAPH_SESSION"
    harness = detect_harness(env)
    own = harness_session_id(env, harness)
    if own:
        return own, f"{harness} session id"
    found = find_active(home, cwd)
    if found:
        return found, "workspace active session"
    return None, ""
