"""``memgraph hook``: Claude Code hook entry points (library: profiles.voice.hooks).

``hook session-end`` reads the SessionEnd hook JSON on stdin and captures that
session (nodes, page, log line, registry row). ``hook install`` adds it to a
Claude Code settings file, idempotently, keeping every other setting.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

hook_app = typer.Typer(
    help="Claude Code hooks: capture a session when it ends.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


@hook_app.command("session-end")
def session_end_cmd(
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    vault: Path | None = typer.Option(None, "--vault", help="Vault root (env MEMGRAPH_VAULT)."),
    store: str | None = typer.Option(
        None, "--store", help="Store file or postgresql:// URL (overrides --home)."
    ),
) -> None:
    """Capture the session in the SessionEnd hook JSON read from stdin."""
    from memgraph.cli.common import store_location
    from memgraph.config import load_settings
    from profiles.voice.hooks import MAX_HOOK_INPUT, session_end

    settings = load_settings(home=home, vault=vault)
    raw = sys.stdin.buffer.read(MAX_HOOK_INPUT + 1)
    print(session_end(raw, store_location(settings, store), settings.vault))


@hook_app.command("install")
def install_cmd(
    settings_file: Path | None = typer.Option(
        None, "--settings", help="Claude Code settings file (default ~/.claude/settings.json)."
    ),
    command: str | None = typer.Option(
        None, "--command", help="Hook command (default: this memgraph)."
    ),
) -> None:
    """Add `memgraph hook session-end` as a SessionEnd hook (idempotent)."""
    from profiles.voice.hooks import HOOK_EVENT, default_command, install_session_end_hook

    path = settings_file or Path.home() / ".claude" / "settings.json"
    if install_session_end_hook(path, command or default_command()):
        print(f"installed {HOOK_EVENT} hook in {path}")
    else:
        print(f"{HOOK_EVENT} hook already installed in {path}")


def register(app: typer.Typer) -> None:
    app.add_typer(hook_app, name="hook")
