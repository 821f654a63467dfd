"""The lean path for ``memgraph voice ...``: an argv shim, stdlib only (no typer, pydantic).

``run(argv) -> int | None``: an exit code, or None for anything this path does
not handle (subcommands, ``--backfill``, ``--help``, ``--window``, ``--stats`` on
a TTY, an argument it cannot parse exactly like click would, a store that needs
migrating, a config the resolver refuses), so typer takes over. Paths come from
the one config resolver (``memgraph.config.paths``); the query and its mapping
from ``profiles.voice.search`` (stdlib-only at import on purpose); the store call
is the SQLite ``VoiceIndex`` opened on the file without the store class
(``memgraph.store.sqlite_ext.fast``); the printed forms from
``profiles.voice.output``. So output is byte-identical to the typer command's
(tests/memgraph/cli/test_voice_fast.py checks that).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from memgraph.cli.output import emit
from memgraph.terminal import color
from profiles.voice.output import render_hits, render_stats

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

# Subcommands of the voice group (memgraph/cli/voice.py routes these first).
# tests/memgraph/cli/test_voice_fast.py checks this covers every registered one.
VOICE_SUBCOMMANDS = frozenset({"extract", "classify"})
_DEFER_FLAGS = frozenset({"--help", "-h", "--backfill", "--window", "--debug"})
_VALUE_OPTS = (
    "--since",
    "--until",
    "--project",
    "--type",
    "--session",
    "--limit",
    "--as-of",
    "--home",
    "--window",
)
_BOOL_OPTS = ("--full", "--json", "--recent", "--stats", "--word", "--all", "--utc")


def missing_store_message(path: Path) -> str:
    return f"no voice index at {path}; run `memgraph voice --backfill`"


def resolve_store_path(home: str | None) -> Path | None:
    """The store file by the one resolver (``memgraph.config.paths``); None when the
    configuration is refused (typer then reports it)."""
    from memgraph.config import paths
    from memgraph.errors import ConfigError

    try:
        return paths(home=home)[0]
    except ConfigError:
        return None


class Flags:
    """Parsed arguments: what argparse would give, without importing argparse."""

    def __init__(self, **values: Any) -> None:
        self.query: list[str] | None = values.get("query")
        self.since: str | None = values.get("since")
        self.until: str | None = values.get("until")
        self.project: str | None = values.get("project")
        self.type: str | None = values.get("type")
        self.session: str | None = values.get("session")
        self.limit: int | None = values.get("limit")
        self.as_of: str | None = values.get("as_of")
        self.home: str | None = values.get("home")
        self.window: str | None = values.get("window")
        self.full: bool = bool(values.get("full"))
        self.json: bool = bool(values.get("json"))
        self.recent: bool = bool(values.get("recent"))
        self.stats: bool = bool(values.get("stats"))
        self.word: bool = bool(values.get("word"))
        self.all: bool = bool(values.get("all"))
        self.utc: bool = bool(values.get("utc"))


def check_stats(ns: Flags) -> None:
    """``--stats`` describes the whole index: a query or filter beside it was ignored."""
    from memgraph.errors import UsageError

    named: list[tuple[str, object]] = [
        ("the query", ns.query), ("--since", ns.since), ("--until", ns.until),
        ("--project", ns.project), ("--type", ns.type), ("--session", ns.session),
        ("--recent", ns.recent), ("--as-of", ns.as_of), ("--window", ns.window),
    ]  # fmt: skip
    given = [name for name, value in named if value]
    if given:
        raise UsageError(
            f"--stats describes the whole index, not a query or filter: drop "
            f"{' and '.join(given)}, or search without --stats"
        )


def build_query(core: ModuleType, ns: Flags) -> Any:
    """The VoiceQuery for parsed flags (shared with the typer command)."""

    def when(text: str, flag: str, end_of_day: bool = False) -> Any:
        return core.parse_when(text, end_of_day=end_of_day, flag=flag, utc=ns.utc)

    return core.VoiceQuery(
        query=" ".join(ns.query or []),
        since=when(ns.since, flag="--since") if ns.since is not None else None,
        until=when(ns.until, end_of_day=True, flag="--until") if ns.until is not None else None,
        project=ns.project,
        type=ns.type,
        session=ns.session,
        limit=ns.limit,
        recent=ns.recent,
        as_of=when(ns.as_of, end_of_day=True, flag="--as-of") if ns.as_of is not None else None,
        window=ns.window,
        word=ns.word,
        include_commands=ns.all,
    )


def load_core() -> ModuleType:
    # The profiles packages import lazily, so this loads no pydantic.
    from profiles.voice import search

    return search


def parse(argv: list[str]) -> Flags | None:
    """Flags for ``argv`` when they parse exactly as click would, else None.

    Anything unusual (an unknown or abbreviated option, ``--``, a missing or
    non-integer value, ``--flag=value`` on a switch) is left to typer, which is
    always correct, merely slower.
    """
    if not argv or argv[0] in VOICE_SUBCOMMANDS:
        return None
    if argv[0] == "search":  # `voice search QUERY` is the explicit spelling
        argv = argv[1:]
    values: dict[str, Any] = {"query": []}
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("-") or arg == "-":
            values["query"].append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name in _DEFER_FLAGS or arg == "--":
            return None
        if name in _BOOL_OPTS and not eq:
            values[name[2:]] = True
        elif name in _VALUE_OPTS:
            if not eq:
                if i >= len(argv) or argv[i].startswith("-"):
                    return None  # click would complain, or read a dash value: its call
                value = argv[i]
                i += 1
            values[name[2:].replace("-", "_")] = value
        else:
            return None
    if values.get("limit") is not None:
        try:
            values["limit"] = int(values["limit"])
        except ValueError:
            return None
    return Flags(**values)


def run(argv: list[str]) -> int | None:
    if "--backfill" in argv:  # a rerun with nothing new is answered without typer
        from memgraph.cli.backfill_fast import run as backfill

        return backfill(argv)
    ns = parse(argv)
    if ns is None:
        return None
    if ns.stats and sys.stdout.isatty() and not ns.json:
        return None  # the rich table is typer's
    from memgraph.errors import MemgraphError, error_line

    try:
        from memgraph.config import store_url

        url = store_url()
    except MemgraphError:
        return None  # a bad config file: typer reports it
    path = resolve_store_path(ns.home) if url is None else None
    if url is None and path is None:
        return None
    try:
        core = load_core()
    except (ImportError, OSError):
        return None
    if url is not None:
        try:
            from memgraph.store.postgres import fast
        except ImportError:
            return None  # no psycopg: typer says what to install
        where: Any = url
    else:
        from memgraph.store.sqlite_ext import fast  # type: ignore[no-redef]

        where = path

    out_err = ""
    try:
        if url is None and not where.is_file():
            raise MemgraphError(missing_store_message(where))
        if ns.stats:
            check_stats(ns)
            stats = fast.voice_stats(where)
            if stats is None:
                return None  # an older store: typer opens it, which migrates it
            out = render_stats(core.to_stats(stats), ns.json, ns.utc)
        else:
            query = build_query(core, ns)
            request = core.search_request(query)
            rows = [] if request is None else fast.voice_search(where, request)
            if rows is None:
                return None  # not migrated / not a store: the typer path opens and reports
            out = render_hits(
                [core.to_hit(r) for r in rows], ns.json, ns.full, query.query, color(), ns.utc
            )
            note = core.session_prefix_line(query, (r.session_id for r in rows))
            if note is not None:
                out_err = note + "\n"
            if not rows:
                none = core.no_hits_line(
                    query,
                    lambda r: fast.voice_search(where, r) or [],
                    lambda: (
                        fast.voice_stats(where)
                        or core.VoiceIndexStats(0, 0, 0, 0, None, None, (), ())
                    ),
                )
                out_err = none + "\n"
    except MemgraphError as exc:
        emit(error_line(exc) + "\n", err=True)
        return exc.exit_code
    emit(out)
    if out_err:
        emit(out_err, err=True)
    return 0
