"""Root typer app; each command group lives in its own module with ``register(app)``."""

from __future__ import annotations

import importlib
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

from memgraph.errors import MemgraphError, error_line, unexpected_as_error

# `memgraph --help` lists these first, in this order; then the rest as registered.
EVERYDAY = ("voice", "note", "wake", "recall", "context", "hook", "doctor", "demo")


class MemgraphGroup(TyperGroup):
    """Maps ``MemgraphError`` to one line and an exit code (traceback with --debug)."""

    def list_commands(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        names = super().list_commands(ctx)
        first = [n for n in EVERYDAY if n in names]
        return first + [n for n in names if n not in first]

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # click would print "Aborted!" and exit 1; one place says what happened
            from memgraph.terminal import interrupted

            raise typer.Exit(interrupted()) from None
        except MemgraphError as exc:
            if ctx.params.get("debug"):
                raise
            _fail(exc)
        except Exception as exc:
            # a damaged store or an out-of-range value that slipped past the
            # library still becomes one line (with --debug: the traceback)
            known = unexpected_as_error(exc)
            if known is None or ctx.params.get("debug"):
                raise
            _fail(known)


def _fail(exc: MemgraphError) -> NoReturn:
    typer.echo(error_line(exc), err=True)
    raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    name="memgraph",
    cls=MemgraphGroup,
    help="Typed memory graph for AI coding agents: what you said, why, and what it led to.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# One module per command group. A module registers its commands on ``app``.
COMMAND_MODULES = (
    "store",
    "voice",
    "hook",
    "session",
    "windows",
    "classify",
    "context",
    "mcp",
    "probe",
    "doctor",
    "voice_index",
    "wiki",
    "demo",
    "memory",
    "review",
    "sleep",
    "render",
    "repo",
    "importer",
    "forget",
)


def _version(value: bool) -> None:
    if value:
        from memgraph import __version__

        typer.echo(f"memgraph {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_version, help="Print the version and exit."
    ),
) -> None:
    """memgraph: keep what you SAID and WHY, linked to what it led to."""


def _register_all() -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"memgraph.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"memgraph.cli.{name}":
                continue  # group not built yet
            raise
        module.register(app)


_register_all()
