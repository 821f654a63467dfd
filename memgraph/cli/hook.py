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
    help="Claude Code hooks: wake a session with its packet, capture it when it ends.",
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
    no_redact: bool = typer.Option(
        False, "--no-redact", help="Keep pasted secrets (API keys, tokens) as typed."
    ),
) -> None:
    """Capture the session in the SessionEnd hook JSON read from stdin."""
    from memgraph.cli.common import store_location
    from memgraph.config import load_settings
    from memgraph.terminal import HOOK_NOTICE, read_stdin, stdin_notice
    from profiles.voice.hooks import MAX_HOOK_INPUT, session_end

    settings = load_settings(home=home, vault=vault)
    stdin_notice(HOOK_NOTICE.format(event="session-end", hook="SessionEnd"))
    raw = read_stdin(MAX_HOOK_INPUT + 1)
    location = store_location(settings, store)
    print(session_end(raw, location, settings.vault, redact=False if no_redact else None))


@hook_app.command("session-start")
def session_start_cmd(
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    # str: Path("postgresql://h/db") drops a slash and names a file "postgresql:/h/db"
    store: str | None = typer.Option(
        None, "--store", help="Store file or postgresql:// URL (overrides --home)."
    ),
    budget: int | None = typer.Option(
        None, "--budget", help="Token budget of the packet (env MEMGRAPH_HOOK_BUDGET; 1500)."
    ),
) -> None:
    """SessionStart: print the wake token + role packet as hook context (never fails)."""
    import os

    from profiles.wakeup.hook import MAX_INPUT, session_start

    flags = {
        k: str(v)
        for k, v in (("home", home), ("store", store), ("hook_budget", budget))
        if v is not None
    }
    from memgraph.terminal import HOOK_NOTICE, read_stdin, stdin_notice

    stdin_notice(HOOK_NOTICE.format(event="session-start", hook="SessionStart"))
    out, problems = session_start(read_stdin(MAX_INPUT + 1), os.environ, flags)
    print(out)
    for line in problems[:1]:
        print(line, file=sys.stderr)


SettingsOpt = typer.Option(
    None, "--settings", help="Claude Code settings file (default ~/.claude/settings.json)."
)


@hook_app.command("install")
def install_cmd(
    settings_file: Path | None = SettingsOpt,
    command: str | None = typer.Option(
        None, "--command", help="The SessionEnd hook command (default: this memgraph)."
    ),
    create: bool = typer.Option(
        False, "--create", help="Create the settings file's directory if it is missing."
    ),
) -> None:
    """Add SessionStart and SessionEnd hooks (idempotent; `hook uninstall` undoes it)."""
    from profiles.wakeup.install import default_base, hook_command, install

    path = settings_file or Path.home() / ".claude" / "settings.json"
    base = command.rsplit(" hook session-end", 1)[0] if command else default_base()
    existed = path.parent.is_dir(), path.exists()
    added = install(path, base, create=create)
    if added and not existed[0]:
        print(f"created directory {path.parent}")
    if added and not existed[1]:
        print(f"created {path}")
    for event in added:
        print(f"installed {event} hook in {path}: {hook_command(base, event)}")
    if added:
        print(f"(`memgraph hook uninstall` removes exactly these; record: {path}.memgraph.json)")
    if not added:
        print(f"SessionStart and SessionEnd hooks already installed in {path}")
    _say_where_hooks_capture()


def _say_where_hooks_capture() -> None:
    """Which store the hooks capture into, as resolved now, and a note when that
    rests on a variable of this shell: the hooks run in Claude Code's environment,
    which may not have it (they then capture into another store, silently)."""
    from memgraph.config import config_file, env_value, store_location
    from memgraph.store.postgres import is_store_url, redact

    where = store_location()
    print(f"the hooks capture into {redact(where) if is_store_url(where) else where}")
    for field in ("store", "home"):
        if env_value(field) is not None:
            print(
                f"note: that comes from MEMGRAPH_{field.upper()} in this shell; the hooks run "
                f"in Claude Code's environment: export it where Claude Code starts, or set "
                f"`{field} = ...` in {config_file()}",
                file=sys.stderr,
            )
            return


@hook_app.command("uninstall")
def uninstall_cmd(settings_file: Path | None = SettingsOpt) -> None:
    """Remove exactly the hooks `hook install` added."""
    from profiles.wakeup.install import uninstall

    path = settings_file or Path.home() / ".claude" / "settings.json"
    removed = uninstall(path)
    for event in removed:
        print(f"removed {event} hook from {path}")
    if not removed:
        print(f"no hooks installed by memgraph in {path}")


def register(app: typer.Typer) -> None:
    app.add_typer(hook_app, name="hook")
