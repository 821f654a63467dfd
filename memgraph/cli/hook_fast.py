"""Lean path for ``memgraph hook session-end`` (no typer, no pydantic-settings).

Claude Code runs the hook at every session end, so its start-up is paid each
time. ``run(argv)`` handles ``session-end [--home H] [--vault V] [--store S] [--no-redact]``
and returns the exit code; anything else (``install``, ``--help``, unknown
flags) returns None and the typer app takes over. Output and errors match the
typer command exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memgraph.cli.lean_args import Spec, parse_strings

_END = Spec(
    valued={"--home": "home", "--vault": "vault", "--store": "store"},
    flags={"--no-redact": "no-redact"},
    text="none",
)
_START = Spec(
    valued={"--home": "home", "--store": "store", "--budget": "hook_budget"}, flags={}, text="none"
)


def _parse(argv: list[str]) -> dict[str, str] | None:
    if not argv or argv[0] != "session-end":
        return None
    return parse_strings(argv[1:], _END)  # None for --help, typos: typer explains better


def resolve_paths(flags: dict[str, str]) -> tuple[Path, Path]:
    """(store file, vault) by the one resolver (``memgraph.config.paths``):
    flag > MEMGRAPH_* env > TOML config file > default."""
    from memgraph.config import paths

    home, vault, store = (flags.get(k) or None for k in ("home", "vault", "store"))
    return paths(home=home, vault=vault, store=store)


def session_start(argv: list[str]) -> int | None:
    """``hook session-start``: never fails a session start (exit 0, one stderr line)."""
    flags = parse_strings(argv[1:], _START)
    if flags is None:
        return None
    try:
        import os

        from memgraph.terminal import HOOK_NOTICE, read_stdin, stdin_notice
        from profiles.wakeup.hook import MAX_INPUT
        from profiles.wakeup.hook import session_start as run_start

        stdin_notice(HOOK_NOTICE.format(event="session-start", hook="SessionStart"))
        raw = read_stdin(MAX_INPUT + 1)
        out, problems = run_start(raw, os.environ, flags)
    except Exception as exc:
        out, problems = "", [f"memgraph hook session-start: {' '.join(str(exc).split())[:300]}"]
    if out:
        sys.stdout.write(out + "\n")
    for line in problems[:1]:
        sys.stderr.write(line + "\n")
    return 0


def run(argv: list[str]) -> int | None:
    if argv and argv[0] == "session-start":
        return session_start(argv)
    flags = _parse(argv)
    if flags is None:
        return None
    from memgraph.errors import MemgraphError, error_line

    try:
        # light: the heavy modules load inside session_end, after the
        # transcript's hash has started on a background thread
        from memgraph.terminal import HOOK_NOTICE, read_stdin, stdin_notice
        from profiles.voice.hooks import MAX_HOOK_INPUT, session_end

        store, vault = resolve_paths(flags)
        stdin_notice(HOOK_NOTICE.format(event="session-end", hook="SessionEnd"))
        raw = read_stdin(MAX_HOOK_INPUT + 1)
        redact = False if flags.get("no-redact") else None
        print(session_end(raw, store, vault, redact=redact))
    except MemgraphError as exc:
        print(error_line(exc), file=sys.stderr)
        return exc.exit_code
    return 0
