"""``memgraph voice``: search by default, plus capture subcommands.

``memgraph voice "keyword" [flags]`` searches; ``memgraph voice --backfill ...``
backfills; ``memgraph voice extract|classify ...`` are subcommands. The group
routes its arguments: a known subcommand name first wins, ``--backfill``
anywhere selects the hidden ``backfill`` command, anything else goes to the
hidden ``search`` command. Each command lives in its own module and registers
itself on ``voice_app`` (``register_voice(voice_app)``).
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer.core import TyperGroup

# Modules that add commands to the voice group (skipped until they exist).
VOICE_MODULES = ("voice_search", "voice_capture", "voice_classify")


class VoiceGroup(TyperGroup):
    def resolve_command(self, ctx: typer.Context, args: list[str]) -> Any:  # type: ignore[override]
        if args and args[0] in self.commands and args[0] not in ("search", "backfill"):
            return super().resolve_command(ctx, args)
        if "--backfill" in args and "backfill" in self.commands:
            rest = [a for a in args if a != "--backfill"]
            # named as typed, so usage lines and "Try ..." hints say `voice --backfill`
            return "--backfill", self.commands["backfill"], rest
        if "search" in self.commands:
            # `voice search QUERY` is the explicit spelling of `voice QUERY`
            rest = args[1:] if args and args[0] == "search" else args
            return "search", self.commands["search"], rest
        return super().resolve_command(ctx, args)

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        # Hand everything after `voice` to the routed command, options included;
        # only a bare `voice --help` is the group's own.
        if args in (["--help"], ["-h"]):
            return super().parse_args(ctx, args)
        if not args:
            args = ["--help"] if "search" not in self.commands else []
        ctx._protected_args, ctx.args = (args[:1], args[1:]) if args else (["search"], [])
        return ctx.args

    # `memgraph voice --help` shows the real usage first: the search and its
    # options (read from the search command itself), then backfill, then the
    # subcommands.
    def format_usage(self, ctx: Any, formatter: Any) -> None:
        formatter.write_usage(ctx.command_path, '"keyword" [OPTIONS]')
        if "backfill" in self.commands:
            formatter.write_usage(ctx.command_path, "--backfill [OPTIONS]", prefix="   or: ")
        formatter.write_usage(ctx.command_path, "COMMAND [ARGS]...", prefix="   or: ")

    def format_options(self, ctx: Any, formatter: Any) -> None:
        search = self.commands.get("search")
        if search is not None:
            rows = [r for p in search.get_params(ctx) if (r := p.get_help_record(ctx))]
            with formatter.section('Search options (memgraph voice "keyword" ...)'):
                formatter.write_dl(rows)
        else:
            super().format_options(ctx, formatter)
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        if "backfill" in self.commands:
            rows.append(
                ("--backfill", "Capture transcripts (see `memgraph voice --backfill --help`).")
            )
        limit = formatter.width - 6 - 12
        for name in self.list_commands(ctx):
            cmd = self.commands[name]
            if not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


voice_app = typer.Typer(
    cls=VoiceGroup,
    help=(
        'Search what you said: memgraph voice "keyword" [--since D] [--project P] ...; '
        "capture with --backfill; subcommands below."
    ),
    no_args_is_help=False,
    invoke_without_command=False,
    add_completion=False,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    for name in VOICE_MODULES:
        try:
            module = importlib.import_module(f"memgraph.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"memgraph.cli.{name}":
                continue
            raise
        module.register_voice(voice_app)
    app.add_typer(voice_app, name="voice")
