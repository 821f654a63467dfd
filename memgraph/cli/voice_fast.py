"""The lean path for ``memgraph voice ...``: stdlib only, no typer, no pydantic.

``run(argv) -> int | None``: an exit code, or None for anything this path does
not handle (subcommands, ``--backfill``, ``--help``, ``--window``, ``--stats`` on
a TTY, an argument it cannot parse exactly like click would, a store that needs
migrating), so typer takes over. Query, ranking and formatting come from
``profiles/voice/search.py``, which is stdlib-only at import on purpose (the
``profiles`` packages are lazy too), so output is byte-identical to the typer
command's (tests/memgraph/cli/test_voice_fast.py checks that). The printed
forms (``format_line``, ``format_json``, ``render_stats``) live here, at the end,
and the typer command imports them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from profiles.voice.search import VoiceHit, VoiceStats

LINE_CHARS = 120

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
_BOOL_OPTS = ("--full", "--json", "--recent", "--stats")


def missing_store_message(path: Path) -> str:
    return f"no voice index at {path}; run `memgraph voice --backfill`"


def _env(name: str) -> str | None:
    # pydantic-settings matches env names case-insensitively (case_sensitive=False).
    if name in os.environ:
        return os.environ[name]
    for key, value in os.environ.items():
        if key.lower() == name.lower():
            return value
    return None


def resolve_store_path(home: str | None) -> Path | None:
    """``load_settings(home=...).store_path`` without pydantic-settings.

    Same precedence: ``--home`` > MEMGRAPH_HOME > ``home`` in the TOML config >
    ``$XDG_DATA_HOME/memgraph``. None when the config file exists but is not
    something this small reader can answer for sure (typer then decides).
    """
    if home is not None:
        return Path(home) / "memgraph.db"
    env = _env("MEMGRAPH_HOME")
    if env is not None:
        return Path(env) / "memgraph.db"
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    config = Path(
        os.environ.get("MEMGRAPH_CONFIG") or Path(config_home) / "memgraph" / "config.toml"
    )
    if config.is_file():
        import tomllib

        try:
            with config.open("rb") as fh:
                data = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError):
            return None  # typer reports the config error
        if "home" in data:
            value = data["home"]
            return Path(value) / "memgraph.db" if isinstance(value, str) else None
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "memgraph" / "memgraph.db"


def emit(text: str, err: bool = False) -> None:
    """Write ``text`` as UTF-8; unencodable characters (lone surrogates) as escapes.

    ``backslashreplace`` turns a lone surrogate into ``\\udc80``, which inside a
    JSON string is the exact same value. A closed pipe (``| head``) ends quietly.
    """
    stream = sys.stderr if err else sys.stdout
    data = text.encode("utf-8", "backslashreplace")
    try:
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            stream.write(data.decode("utf-8"))
            stream.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())


def render_hits(hits: list[VoiceHit], as_json: bool, full: bool) -> str:
    lines = [format_json(h) for h in hits] if as_json else [format_line(h, full) for h in hits]
    return "".join(line + "\n" for line in lines)


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


def build_query(core: ModuleType, ns: Flags) -> Any:
    """The VoiceQuery for parsed flags (shared with the typer command)."""
    when = core.parse_when
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
    ns = parse(argv)
    if ns is None:
        return None
    if ns.stats and sys.stdout.isatty() and not ns.json:
        return None  # the rich table is typer's
    path = resolve_store_path(ns.home)
    if path is None:
        return None
    try:
        core = load_core()
    except (ImportError, OSError):
        return None
    from memgraph.errors import MemgraphError

    try:
        if not path.is_file():
            raise MemgraphError(missing_store_message(path))
        query = None if ns.stats else build_query(core, ns)
        import sqlite3

        uri = str(path.resolve()).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
        try:
            conn = sqlite3.connect(f"file:{uri}?mode=ro", uri=True, timeout=5.0)
        except sqlite3.Error:
            return None
        try:
            if not conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'voice_index'"
            ).fetchone():
                return None  # an older store: typer opens it, which migrates it
            if query is None:
                out = render_stats(core.stats_conn(conn), ns.json)
            else:
                out = render_hits(core.search_conn(conn, query), ns.json, ns.full)
        except sqlite3.Error:
            return None  # not migrated / not a store: the typer path opens and reports
        finally:
            conn.close()
    except MemgraphError as exc:
        emit(f"Error: {' '.join(str(exc).split()) or type(exc).__name__}\n", err=True)
        return exc.exit_code
    emit(out)
    return 0


# -- output (both CLI paths print exactly this) -----------------------------------

# Terminal safety: text is what someone typed (or pasted), and may hold escape
# sequences. Line breaks become spaces in the one-line form; other control
# characters are shown as U+FFFD. --json keeps the text exact.
_BREAKS = {ord(c): " " for c in "\n\r\t\v\f\x85\u2028\u2029"}
_CONTROLS = {c: "\ufffd" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
ONE_LINE = str.maketrans({**_CONTROLS, **_BREAKS})
FULL = str.maketrans({**_CONTROLS, ord("\n"): "\n", ord("\t"): "\t"})


def format_line(hit: VoiceHit, full: bool = False) -> str:
    """``[2026-04-14 14:32 atlas 80166115] "text..."`` (UTC; text cut at 120 chars)."""
    if full:
        text = hit.text.translate(FULL)
    else:
        text = hit.text.translate(ONE_LINE)
        if len(text) > LINE_CHARS:
            text = text[:LINE_CHARS] + "..."
    const = hit.constellation.translate(ONE_LINE) or "-"
    sid = hit.session_id[:8].translate(ONE_LINE) or "-"
    return f'[{hit.timestamp:%Y-%m-%d %H:%M} {const} {sid}] "{text}"'


def format_json(hit: VoiceHit) -> str:
    import json

    data = {
        "timestamp": hit.timestamp.isoformat().replace("+00:00", "Z"),
        "constellation": hit.constellation,
        "session_id": hit.session_id,
        "project": hit.project,
        "text": hit.text,
        "classification": hit.classification,
        "confidence": hit.confidence,
        "voice_page": hit.voice_page,
        "node_id": hit.node_id,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "0.0%"


def stats_rows(stats: VoiceStats) -> list[tuple[str, str]]:
    """(label, value) rows: printed as plain lines, or a rich table on a TTY."""
    span = (
        f"{stats.first:%Y-%m-%d %H:%M} .. {stats.last:%Y-%m-%d %H:%M}"
        if stats.first and stats.last
        else "-"
    )
    rows = [
        ("messages", str(stats.messages)),
        ("sessions", str(stats.sessions)),
        ("pages", str(stats.pages)),
        ("classified", f"{stats.classified} ({_pct(stats.classified, stats.messages)})"),
        ("unclassified", f"{stats.unclassified} ({_pct(stats.unclassified, stats.messages)})"),
        ("range", span),
    ]
    rows += [(f"constellation {k or '-'}", str(c)) for k, c in stats.by_constellation]
    rows += [(f"classification {k}", str(c)) for k, c in stats.by_classification]
    lines, captured, filtered, dropped = stats.ledger
    rows.append(
        ("ingest ledger", f"{lines} lines read, {captured} captured, {filtered} filtered, "
         f"{dropped} dropped")
    )  # fmt: skip
    rows += [(f"dropped {k}", str(c)) for k, c in stats.ledger_dropped]
    return [(label.translate(ONE_LINE), value) for label, value in rows]


def render_stats(stats: VoiceStats, as_json: bool = False) -> str:
    if as_json:
        import json

        lines, captured, filtered, dropped = stats.ledger
        data = {
            "messages": stats.messages,
            "sessions": stats.sessions,
            "pages": stats.pages,
            "classified": stats.classified,
            "unclassified": stats.unclassified,
            "first": stats.first.isoformat().replace("+00:00", "Z") if stats.first else None,
            "last": stats.last.isoformat().replace("+00:00", "Z") if stats.last else None,
            "by_constellation": dict(stats.by_constellation),
            "by_classification": dict(stats.by_classification),
            "ledger": {
                "lines": lines,
                "captured": captured,
                "filtered": filtered,
                "dropped": dropped,
                "dropped_by_reason": dict(stats.ledger_dropped),
            },
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    return "".join(f"{label}: {value}\n" for label, value in stats_rows(stats))
