"""Root typer app; each command group lives in its own module with ``register(app)``."""

from __future__ import annotations

import importlib
from pathlib import PurePath
from typing import Any, NoReturn, get_args

import typer
from typer.core import TyperGroup

from memgraph.errors import MemgraphError, error_line, unexpected_as_error

# `memgraph --help` lists these first, in this order; then the rest as registered.
EVERYDAY = ("voice", "note", "wake", "recall", "context", "hook", "doctor", "demo")


class MemgraphGroup(TyperGroup):
    """Maps ``MemgraphError`` to one line and an exit code (traceback with --debug);
    every path parameter below it refuses empty text (``_refuse_empty_paths``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _refuse_empty_paths(self)

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
            from memgraph.cli.output import reader_left

            if reader_left(exc):  # `| head` took what it wanted: end quietly
                raise typer.Exit(0) from None
            # a damaged store or an out-of-range value that slipped past the
            # library still becomes one line (with --debug: the traceback)
            known = unexpected_as_error(exc)
            if known is None or ctx.params.get("debug"):
                raise
            _fail(known)


EMPTY_PATH = "is empty (an unset shell variable?): name a file or folder"


def _refuse_empty_paths(command: Any) -> None:
    """Make every path parameter of ``command`` and its subcommands refuse ``""``.

    typer reads empty text as ``Path("")``, which is the current folder: ``memgraph
    repo scan "$REPO"`` with REPO unset scanned wherever it ran, ``wiki ""`` read its
    pages and ``--home ""`` made a store there. The raw value is checked before typer
    converts it (``handle_parse_result`` sees the parser's text), so the refusal is
    click's usage error: one line, exit 2.
    """
    for sub in getattr(command, "commands", {}).values():
        _refuse_empty_paths(sub)
    for param in getattr(command, "params", ()):
        described = getattr(param, "type_descriptor", None)
        if described is not None and _is_path(described.annotation):
            setattr(param, "handle_parse_result", _strict(param))  # noqa: B010


def _is_path(annotation: Any) -> bool:
    kinds = get_args(annotation) or (annotation,)
    return any(isinstance(k, type) and issubclass(k, PurePath) for k in kinds)


def _strict(param: Any) -> Any:
    parse = param.handle_parse_result

    def handle(ctx: Any, opts: dict[str, Any], args: list[str]) -> Any:
        raw = opts.get(param.name)
        values = raw if isinstance(raw, list | tuple) else (raw,)
        if any(isinstance(v, str) and not v.strip() for v in values):
            optional = "" if param.required else ", or leave it out"
            raise typer.BadParameter(EMPTY_PATH + optional, ctx=ctx, param=param)
        return parse(ctx, opts, args)

    return handle


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
