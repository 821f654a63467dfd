"""The project a working directory belongs to, safe as a path component.

The git top-level's name when the directory is inside a repository (a linked
worktree counts as its main repository), else the directory's own name. Apart
from ``profiles.voice.nodes`` (which re-exports these) so that a read path
(``memgraph context --cut role`` without ``--project``) finds the cwd's project
without importing the document models.
"""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from pathlib import PurePath

from memgraph.ids import is_safe_name

UNKNOWN_PROJECT = "unknown"
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]+")


def safe_component(name: str, fallback: str = UNKNOWN_PROJECT) -> str:
    """``name`` as one safe path component (``memgraph.ids.is_safe_name``)."""
    cleaned = _UNSAFE.sub("-", name).strip("-.")
    cleaned = re.sub(r"\.{2,}", ".", cleaned)[:128].rstrip("-.")
    return cleaned if cleaned and is_safe_name(cleaned) else fallback


@lru_cache(maxsize=1024)
def _git_top_name(cwd: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) < 2:
        return None
    top, common = PurePath(lines[0]), PurePath(lines[1])
    # a linked worktree's common dir is <main repo>/.git: name the main repo
    if common.name == ".git" and common.parent != top:
        return common.parent.name
    return top.name


def resolve_project(cwd: str | None) -> str:
    """Project name for a working directory, safe as a path component."""
    if not cwd:
        return UNKNOWN_PROJECT
    name = _git_top_name(cwd) if os.path.isdir(cwd) else None
    if name is None:
        name = PurePath(cwd.rstrip("/\\") or "/").name
    return safe_component(name)
