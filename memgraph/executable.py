"""This memgraph as an absolute command, for what runs it later without the
caller's shell: a Claude Code hook, a git post-commit hook, a cron line or systemd
unit, an MCP client's config (stdlib only).

A bare ``memgraph`` there runs only if the venv it lives in is on that process's
PATH, and a hook's failure is silent: `memgraph repo hook install` from an
unactivated venv wrote a post-commit hook that never rescanned."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def command_line() -> list[str]:
    """The console script beside the running interpreter (or on PATH), else
    ``<python> -m memgraph.cli``; absolute paths."""
    beside = Path(sys.executable).parent / "memgraph"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside.absolute())]
    found = shutil.which("memgraph")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "memgraph.cli"]


def shell_command() -> str:
    """``command_line()`` as shell words."""
    return " ".join(shlex.quote(word) for word in command_line())
